/**
 * OpenTelemetry export for `toolgate serve`: the runner's spans and metrics
 * (src/services/Sessions/telemetry.ts) sent to an OTLP/HTTP collector. Off unless the standard
 * variables name an endpoint:
 * - `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL: `/v1/traces` and `/v1/metrics` are appended), or
 *   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (used as given);
 * - `OTEL_EXPORTER_OTLP_HEADERS` (and `_TRACES_HEADERS` / `_METRICS_HEADERS`): `name=value,…`;
 * - `OTEL_EXPORTER_OTLP_PROTOCOL` (and per signal): `http/protobuf` (the default) or `http/json`;
 * - `OTEL_SERVICE_NAME` (default `toolgate`), `OTEL_RESOURCE_ATTRIBUTES` (`key=value,…`);
 * - `OTEL_BSP_SCHEDULE_DELAY` and `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds between exports),
 *   `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`;
 * - `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`, `OTEL_METRICS_EXPORTER=none` turn it off.
 *
 * A collector that cannot be reached costs the server nothing but one warning on stderr: what
 * could not be sent is dropped, and sending is tried again a minute later.
 */
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { FetchHttpClient, HttpClient } from "@effect/platform"
import { Config, Console, Duration, Effect, Layer, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { BadRequest } from "../Errors.js"
import { positiveIntConfig } from "../internal/config.js"
import { exportOnlyPrefixed } from "../internal/exportedSpans.js"
import { Telemetry as SessionTelemetry } from "../services/Sessions.js"
import { VERSION } from "../version.js"

type Protocol = "http/protobuf" | "http/json"

/** Where one signal (traces or metrics) goes. */
export interface OtlpTarget {
  readonly url: string
  /** May carry credentials (an API key header): never shown. */
  readonly headers: Redacted.Redacted<Readonly<Record<string, string>>>
  readonly protocol: Protocol
}

export interface TelemetrySettings {
  readonly traces: OtlpTarget | undefined
  readonly metrics: OtlpTarget | undefined
  readonly serviceName: string
  readonly resourceAttributes: Readonly<Record<string, string>>
  readonly traceInterval: Duration.Duration
  readonly metricInterval: Duration.Duration
  readonly maxBatchSize: number
}

/** How long the last export may take when the server stops (a collector answers in milliseconds). */
const SHUTDOWN_TIMEOUT = Duration.seconds(1)

const text = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.map(Option.map((value) => value.trim())),
    Config.map(Option.filter((value) => value !== ""))
  )

const decodePart = (part: string): string | undefined => {
  try {
    return decodeURIComponent(part.trim())
  } catch {
    return undefined
  }
}

/** `name=value,name2=value2` (values percent-encoded), as the OpenTelemetry variables write lists. */
const parsePairs = (value: string, name: string): Effect.Effect<Record<string, string>, BadRequest> => {
  const pairs: Record<string, string> = {}
  for (const entry of value.split(",")) {
    if (entry.trim() === "") continue
    const at = entry.indexOf("=")
    const key = at <= 0 ? undefined : decodePart(entry.slice(0, at))
    const decoded = at <= 0 ? undefined : decodePart(entry.slice(at + 1))
    if (key === undefined || key === "" || decoded === undefined) {
      // the value is not repeated: it may hold a credential
      return Effect.fail(new BadRequest({ reason: `${name}: expected name=value pairs separated by commas` }))
    }
    pairs[key] = decoded
  }
  return Effect.succeed(pairs)
}

const checkUrl = (url: string, name: string): Effect.Effect<string, BadRequest> => {
  try {
    const parsed = new URL(url)
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return Effect.succeed(url)
  } catch {
    // reported below
  }
  return Effect.fail(new BadRequest({ reason: `${name}: expected an http:// or https:// URL` }))
}

const target = (signal: "TRACES" | "METRICS", path: string) =>
  Effect.gen(function*() {
    const exporter = yield* text(`OTEL_${signal}_EXPORTER`)
    if (Option.isSome(exporter) && exporter.value.toLowerCase() === "none") return undefined
    const own = yield* text(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`)
    const base = yield* text("OTEL_EXPORTER_OTLP_ENDPOINT")
    const url = Option.isSome(own)
      ? yield* checkUrl(own.value, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`)
      : Option.isSome(base)
      ? `${(yield* checkUrl(base.value, "OTEL_EXPORTER_OTLP_ENDPOINT")).replace(/\/+$/, "")}${path}`
      : undefined
    if (url === undefined) return undefined
    const protocolName = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`
    const protocol = yield* text(protocolName)
    const chosen = Option.isSome(protocol) ? protocol : yield* text("OTEL_EXPORTER_OTLP_PROTOCOL")
    const protocolValue = Option.getOrElse(chosen, () => "http/protobuf")
    if (protocolValue !== "http/protobuf" && protocolValue !== "http/json") {
      return yield* new BadRequest({
        reason: `${Option.isSome(protocol) ? protocolName : "OTEL_EXPORTER_OTLP_PROTOCOL"}=${protocolValue}: ` +
          `toolgate sends OTLP over HTTP only (http/protobuf or http/json)`
      })
    }
    const headers = {
      ...(yield* parsePairs(
        Option.getOrElse(yield* text("OTEL_EXPORTER_OTLP_HEADERS"), () => ""),
        "OTEL_EXPORTER_OTLP_HEADERS"
      )),
      ...(yield* parsePairs(
        Option.getOrElse(yield* text(`OTEL_EXPORTER_OTLP_${signal}_HEADERS`), () => ""),
        `OTEL_EXPORTER_OTLP_${signal}_HEADERS`
      ))
    }
    return { url, headers: Redacted.make(headers), protocol: protocolValue } satisfies OtlpTarget
  })

/** The export settings from the environment; undefined when nothing is to be exported. */
export const settingsFromEnv: Effect.Effect<TelemetrySettings | undefined, BadRequest> = Effect.gen(function*() {
  const disabled = yield* text("OTEL_SDK_DISABLED")
  if (Option.isSome(disabled) && disabled.value.toLowerCase() === "true") return undefined
  const traces = yield* target("TRACES", "/v1/traces")
  const metrics = yield* target("METRICS", "/v1/metrics")
  if (traces === undefined && metrics === undefined) return undefined
  const attributes = yield* parsePairs(
    Option.getOrElse(yield* text("OTEL_RESOURCE_ATTRIBUTES"), () => ""),
    "OTEL_RESOURCE_ATTRIBUTES"
  )
  const serviceName = Option.getOrElse(yield* text("OTEL_SERVICE_NAME"), () => attributes["service.name"] ?? "toolgate")
  const millis = (name: string, fallback: number) =>
    Effect.map(Effect.orDie(positiveIntConfig(name, fallback)), (ms) => Duration.millis(ms))
  return {
    traces,
    metrics,
    serviceName,
    resourceAttributes: attributes,
    traceInterval: yield* millis("OTEL_BSP_SCHEDULE_DELAY", 5_000),
    metricInterval: yield* millis("OTEL_METRIC_EXPORT_INTERVAL", 60_000),
    maxBatchSize: yield* Effect.orDie(positiveIntConfig("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512))
  } satisfies TelemetrySettings
}).pipe(Effect.catchTag("ConfigError", (e) => Effect.fail(new BadRequest({ reason: e.message }))))

/** The values of the export headers: credentials the server keeps from sessions. */
export const headerSecrets = (settings: TelemetrySettings | undefined): ReadonlyArray<string> =>
  [settings?.traces, settings?.metrics].flatMap((
    t
  ) => (t === undefined ? [] : Object.values(Redacted.value(t.headers))))

/** The HTTP client the exporters send with: its first failure is told once on stderr. */
const reportingClient = (warning: (reason: string) => Effect.Effect<void>) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      client.pipe(
        HttpClient.filterStatusOk,
        HttpClient.tapError((error) =>
          warning(
            error._tag === "ResponseError"
              ? `the collector answered ${error.response.status}`
              : `the collector cannot be reached at ${new URL(error.request.url).origin}`
          )
        )
      ))
  ).pipe(Layer.provide(FetchHttpClient.layer))

const serialization = (protocol: Protocol) =>
  protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf

/**
 * The exporters for `settings`, with `runner` (how other runners address this one) in the
 * resource: a tracer that exports only toolgate's own spans, and the process's metrics.
 */
export const layer = (settings: TelemetrySettings, runner: string): Layer.Layer<never> => {
  let warned = false
  const client = reportingClient((reason) =>
    Effect.suspend(() => {
      if (warned) return Effect.void
      warned = true
      return Console.error(
        `toolgate serve: warning: OpenTelemetry export failed (${reason}); what cannot be sent is dropped, and sending is tried again every minute`
      )
    })
  )
  const resource = {
    serviceName: settings.serviceName,
    serviceVersion: VERSION,
    attributes: {
      ...settings.resourceAttributes,
      "service.instance.id": randomUUID(),
      "toolgate.runner": runner
    }
  }
  const traces = settings.traces === undefined ? Layer.empty : (() => {
    const { headers, protocol, url } = settings.traces
    return Layer.unwrapScoped(
      Effect.map(
        OtlpTracer.make({
          url,
          resource,
          headers: Redacted.value(headers),
          exportInterval: settings.traceInterval,
          maxBatchSize: settings.maxBatchSize,
          shutdownTimeout: SHUTDOWN_TIMEOUT
        }),
        (tracer) => Layer.setTracer(exportOnlyPrefixed(tracer, SessionTelemetry.PREFIX))
      )
    ).pipe(Layer.provide(serialization(protocol)))
  })()
  const metrics = settings.metrics === undefined
    ? Layer.empty
    : OtlpMetrics.layer({
      url: settings.metrics.url,
      resource,
      headers: Redacted.value(settings.metrics.headers),
      exportInterval: settings.metricInterval,
      shutdownTimeout: SHUTDOWN_TIMEOUT
    }).pipe(Layer.provide(serialization(settings.metrics.protocol)))
  return Layer.merge(traces, metrics).pipe(Layer.provide(client))
}
