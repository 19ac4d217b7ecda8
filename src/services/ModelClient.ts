/**
 * The model stage: streams one model turn as typed events.
 * Two implementations: Claude through the Anthropic SDK (`layerAnthropic`, `layerAnthropicConfig`),
 * and a scripted model that replays recorded turns with their streaming timing (`layerScripted`),
 * so every run can be replayed offline through the real pipeline.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option, Redacted, type Stream } from "effect"
import type { ApiToolDefinition } from "../Messages.js"
import { makeAnthropic, type AnthropicOptions } from "./ModelClient/anthropic.js"
import { ModelNotConfigured, type ModelError } from "./ModelClient/errors.js"
import type { ModelEvent, RetryInfo } from "../ModelEvents.js"
import { defaultRetryPolicy, type RetryPolicy } from "./ModelClient/retry.js"
import { makeScripted, type ScriptedOptions } from "./ModelClient/scripted.js"

/**
 * A message as the Messages API takes it. Content blocks are plain JSON objects.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelMessage {
  readonly role: "user" | "assistant"
  readonly content: string | ReadonlyArray<Readonly<Record<string, unknown>>>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ModelRequest {
  readonly system: string
  readonly messages: ReadonlyArray<ModelMessage>
  /** In the pool's stable order (prompt-cache friendly). */
  readonly tools: ReadonlyArray<ApiToolDefinition>
  /** Anthropic's server tools (`web_search_20250305`, …), sent after the tools as given. */
  readonly serverTools?: ReadonlyArray<Readonly<Record<string, unknown>>>
  /** The Messages API's `tool_choice`. */
  readonly toolChoice?: Readonly<Record<string, unknown>>
  /** Told before each retry of a failed request (429, 529, overloaded, network). */
  readonly onRetry?: (info: RetryInfo) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ModelClientService {
  /** The model's name as sent to the API, or `scripted:<file>`. */
  readonly model: string
  /** One model turn. Fails only before its first event or with a stream error; never retries once events flowed. */
  readonly stream: (request: ModelRequest) => Stream.Stream<ModelEvent, ModelError>
}

/**
 * @since 0.1.0
 * @category services
 */
export class ModelClient extends Context.Tag("toolgate/ModelClient")<ModelClient, ModelClientService>() {}

/**
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MODEL = "claude-sonnet-5-5"
/**
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_TOKENS = 16_384

/**
 * Claude through `@anthropic-ai/sdk` (loaded when the layer is built, not at CLI start-up).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerAnthropic = (options: AnthropicOptions): Layer.Layer<ModelClient> =>
  Layer.effect(ModelClient, makeAnthropic(options))

/**
 * @since 0.1.0
 * @category constants
 */
export const NO_MODEL_MESSAGE =
  "no model to run: set ANTHROPIC_API_KEY to run against Claude, or replay a recorded session offline with --replay FILE (or --model scripted:FILE), e.g. `npm run quickstart`"

/**
 * Claude, configured from the environment: `ANTHROPIC_API_KEY` (redacted), `ANTHROPIC_BASE_URL`,
 * `ANTHROPIC_MODEL` (overridden by `model`, i.e. `--model`), `TOOLGATE_MAX_OUTPUT_TOKENS`,
 * `TOOLGATE_MODEL_MAX_RETRIES`, `TOOLGATE_MODEL_RETRY_BASE_MS`.
 *
 * @since 0.1.0
 * @category utils
 */
export const anthropicFromConfig = (model?: string): Effect.Effect<ModelClientService, ModelNotConfigured> =>
  Effect.gen(function*() {
    const apiKey = yield* Config.option(Config.redacted("ANTHROPIC_API_KEY")).pipe(
      Effect.orElseSucceed(() => Option.none())
    )
    if (Option.isNone(apiKey) || Redacted.value(apiKey.value).trim() === "") {
      return yield* new ModelNotConfigured({ reason: NO_MODEL_MESSAGE })
    }
    const read = <A>(config: Config.Config<A>, name: string) =>
      config.pipe(Effect.mapError((e) => new ModelNotConfigured({ reason: `${name}: ${e.message}` })))
    const baseUrl = yield* read(Config.option(Config.nonEmptyString("ANTHROPIC_BASE_URL")), "ANTHROPIC_BASE_URL")
    const envModel = yield* read(Config.option(Config.nonEmptyString("ANTHROPIC_MODEL")), "ANTHROPIC_MODEL")
    const maxTokens = yield* read(
      Config.integer("TOOLGATE_MAX_OUTPUT_TOKENS").pipe(Config.withDefault(DEFAULT_MAX_TOKENS)),
      "TOOLGATE_MAX_OUTPUT_TOKENS"
    )
    const maxRetries = yield* read(
      Config.integer("TOOLGATE_MODEL_MAX_RETRIES").pipe(Config.withDefault(defaultRetryPolicy.maxRetries)),
      "TOOLGATE_MODEL_MAX_RETRIES"
    )
    const baseDelayMs = yield* read(
      Config.integer("TOOLGATE_MODEL_RETRY_BASE_MS").pipe(Config.withDefault(defaultRetryPolicy.baseDelayMs)),
      "TOOLGATE_MODEL_RETRY_BASE_MS"
    )
    const retry: RetryPolicy = {
      ...defaultRetryPolicy,
      maxRetries: Math.max(0, maxRetries),
      baseDelayMs: Math.max(1, baseDelayMs)
    }
    return yield* makeAnthropic({
      apiKey: apiKey.value,
      model: model ?? Option.getOrElse(envModel, () => DEFAULT_MODEL),
      maxTokens,
      retry,
      ...(Option.isSome(baseUrl) ? { baseUrl: baseUrl.value } : {})
    })
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layerAnthropicConfig = (model?: string): Layer.Layer<ModelClient, ModelNotConfigured> =>
  Layer.effect(ModelClient, anthropicFromConfig(model))

/**
 * Replays a scripted session or a recorded transcript (JSONL), turn by turn, with its timing.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerScripted = (options: ScriptedOptions): Layer.Layer<ModelClient, ModelError> =>
  Layer.effect(ModelClient, makeScripted(options))

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  AnthropicOptions
} from "./ModelClient/anthropic.js"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  ScriptedOptions
} from "./ModelClient/scripted.js"
export {
  /**
   * @since 0.1.0
   * @category errors
   */
  ModelApiError,
  /**
   * @since 0.1.0
   * @category errors
   */
  ModelConnectionError,
  /**
   * @since 0.1.0
   * @category models
   */
  ModelNotConfigured,
  /**
   * @since 0.1.0
   * @category errors
   */
  ModelStreamError,
  /**
   * @since 0.1.0
   * @category errors
   */
  ScriptError,
  /**
   * @since 0.1.0
   * @category models
   */
  type ModelError
} from "./ModelClient/errors.js"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  RetryPolicy
} from "./ModelClient/retry.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  loadScript,
  /**
   * @since 0.1.0
   * @category utils
   */
  parseScript,
  /**
   * @since 0.1.0
   * @category models
   */
  type Script
} from "./ModelClient/script.js"
export {
  /**
   * @since 0.1.0
   * @category constructors
   */
  makeScripted
} from "./ModelClient/scripted.js"
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  assembleStream
} from "./ModelClient/stream.js"
