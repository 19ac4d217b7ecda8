/**
 * The Promise face's callbacks as stages: `canUseTool` as the Approver, hook callbacks as
 * in-process hooks. A callback may be async; one that throws or rejects never approves.
 */
import type { Layer } from "effect"
import { Effect } from "effect"
import * as Approver from "../services/Approver.js"
import type * as Hooks from "../services/Hooks.js"
import { toApprovalAnswer, type CanUseTool, type HookCallbackMatcher, type Options } from "./options.js"

/** The Approver that asks `canUseTool`; a failing callback denies. */
export const approverOf = (canUseTool: CanUseTool): Layer.Layer<Approver.Approver> =>
  Approver.layerCallback((request) =>
    Effect.tryPromise({
      try: (signal) =>
        Promise.resolve(
          canUseTool(request.tool.name, request.input as Record<string, unknown>, {
            signal,
            suggestions: Approver.offeredRules(request.suggestions),
            toolUseID: request.toolUseId,
            message: request.message,
            request
          })
        ),
      catch: (cause) => cause
    }).pipe(
      Effect.map(toApprovalAnswer),
      Effect.catchAll((cause) =>
        Effect.as(
          Effect.logWarning(
            `canUseTool failed, the call is denied: ${cause instanceof Error ? cause.message : String(cause)}`
          ),
          {
            behavior: "deny" as const
          }
        )
      )
    )
  )

/** The hook callbacks as in-process hooks, one per callback, in the order given. */
export const inProcessHooksOf = (hooks: NonNullable<Options["hooks"]>): ReadonlyArray<Hooks.InProcessHook> =>
  Object.entries(hooks).flatMap(([event, matchers]) =>
    (matchers ?? []).flatMap((matcher: HookCallbackMatcher) =>
      matcher.hooks.map(
        (callback, index): Hooks.InProcessHook => ({
          event: event as Hooks.HookEvent,
          ...(matcher.matcher === undefined ? {} : { matcher: matcher.matcher }),
          ...(matcher.timeout === undefined ? {} : { timeout: matcher.timeout }),
          name: `${event} callback ${index + 1}`,
          run: (input) =>
            Effect.tryPromise({
              try: (signal) =>
                Promise.resolve(
                  callback(input, "tool_use_id" in input ? (input.tool_use_id as string) : undefined, { signal })
                ),
              catch: (cause) => cause
            })
        })
      )
    )
  )
