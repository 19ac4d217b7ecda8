/**
 * The OpenTelemetry settings of `toolgate serve`, read from the standard variables (through a
 * ConfigProvider here): off without an endpoint, per-signal endpoints and switches, and refusals
 * that name the variable without repeating its value (headers carry credentials).
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Redacted } from "effect"
import { headerSecrets, settingsFromEnv } from "../../src/layers/Telemetry.js"

const read = (env: Record<string, string>) =>
  settingsFromEnv.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("Telemetry.settingsFromEnv", () => {
  it.effect("is off without an endpoint, or when switched off", () =>
    Effect.gen(function*() {
      expect(yield* read({})).toBeUndefined()
      expect(yield* read({ OTEL_SERVICE_NAME: "x", OTEL_BSP_SCHEDULE_DELAY: "10" })).toBeUndefined()
      expect(yield* read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" })).toBeUndefined()
      expect(
        yield* read({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
          OTEL_TRACES_EXPORTER: "none",
          OTEL_METRICS_EXPORTER: "none"
        })
      ).toBeUndefined()
    }))

  it.effect("appends the signal paths to the base endpoint; a signal's own endpoint is used as given", () =>
    Effect.gen(function*() {
      const base = yield* read({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.example/otlp/" })
      expect(base?.traces?.url).toBe("https://c.example/otlp/v1/traces")
      expect(base?.metrics?.url).toBe("https://c.example/otlp/v1/metrics")
      expect(base?.traces?.protocol).toBe("http/protobuf")
      expect(base?.serviceName).toBe("toolgate")
      expect(Duration.toMillis(base!.metricInterval)).toBe(60_000)
      const own = yield* read({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:4318/x",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "gate-eu",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod,team=a%2Cb"
      })
      expect(own?.traces).toMatchObject({ url: "http://t:4318/x", protocol: "http/json" })
      expect(own?.metrics).toBeUndefined()
      expect(own?.serviceName).toBe("gate-eu")
      expect(own?.resourceAttributes).toEqual({ "deployment.environment": "prod", team: "a,b" })
    }))

  it.effect("keeps the headers redacted, per signal over the shared ones, and hands their values over as secrets", () =>
    Effect.gen(function*() {
      const settings = yield* read({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc123,x-a=1",
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: "x-a=2"
      })
      expect(String(settings?.traces?.headers)).not.toContain("abc123")
      expect(Redacted.value(settings!.traces!.headers)).toEqual({ authorization: "Bearer abc123", "x-a": "1" })
      expect(Redacted.value(settings!.metrics!.headers)).toEqual({ authorization: "Bearer abc123", "x-a": "2" })
      expect(headerSecrets(settings)).toContain("Bearer abc123")
    }))

  it.effect("refuses what it cannot honour, naming the variable and not its value", () =>
    Effect.gen(function*() {
      const headers = yield* Effect.flip(
        read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "sekret-token-value" })
      )
      expect(headers.message).toContain("OTEL_EXPORTER_OTLP_HEADERS")
      expect(headers.message).not.toContain("sekret")
      const grpc = yield* Effect.flip(
        read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })
      )
      expect(grpc.message).toContain("OTLP over HTTP only")
      const url = yield* Effect.flip(read({ OTEL_EXPORTER_OTLP_ENDPOINT: "c:4318" }))
      expect(url.message).toContain("OTEL_EXPORTER_OTLP_ENDPOINT: expected an http")
    }))
})
