/**
 * Retrying a model request that failed before its first event: exponential backoff with jitter,
 * capped, for 429 / 529 / overloaded and network errors. Once an event of the message arrived a
 * failure is never retried (the scheduler may already be running its calls).
 */
import { Duration, Effect, Schedule } from "effect"
import { isRetryable, ModelConnectionError, type ModelError } from "./errors.js"
import type { RetryInfo } from "../../ModelEvents.js"

export interface RetryPolicy {
  /** Retries after the first attempt (0 = none). */
  readonly maxRetries: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 8_000 }

/** The schedule: tells `onRetry` about each retry before its delay; stops on errors not worth retrying. */
export const retrySchedule = (policy: RetryPolicy, onRetry: (info: RetryInfo) => Effect.Effect<void>) => {
  let last: ModelError | undefined
  return Schedule.exponential(Duration.millis(policy.baseDelayMs), 2).pipe(
    Schedule.union(Schedule.spaced(Duration.millis(policy.maxDelayMs))),
    Schedule.jittered,
    Schedule.whileInput((error: ModelError) => isRetryable(error)),
    Schedule.intersect(Schedule.recurs(policy.maxRetries)),
    Schedule.tapInput((error: ModelError) =>
      Effect.sync(() => {
        last = error
      })
    ),
    Schedule.modifyDelayEffect(([, retriesSoFar], delay) =>
      onRetry({
        attempt: retriesSoFar + 1,
        maxAttempts: policy.maxRetries + 1,
        delayMs: Math.round(Duration.toMillis(delay)),
        reason: last === undefined ? "unknown error" : last.message
      }).pipe(Effect.as(delay))
    )
  )
}

/** Runs `attempt` with retries; the final failure says how many attempts were made when that helps. */
export const withRetries = <A, R>(
  attempt: Effect.Effect<A, ModelError, R>,
  policy: RetryPolicy,
  onRetry: (info: RetryInfo) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<A, ModelError, R> => {
  let attempts = 0
  return Effect.suspend(() => {
    attempts++
    return attempt
  }).pipe(
    Effect.retry(retrySchedule(policy, onRetry)),
    Effect.mapError((error): ModelError =>
      error._tag === "ModelConnectionError" && attempts > 1
        ? new ModelConnectionError({ baseUrl: error.baseUrl, reason: error.reason, attempts })
        : error
    )
  )
}
