/**
 * The tracer wrapper that decides what of the process's spans may be exported: only spans named
 * with the prefix, only their prefixed attributes, no log events, failures by tag only, and
 * parents that skip the spans kept in the process. The inner tracer here records what reaches
 * it (it stands for the OTLP exporter).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Data, Effect, Exit, Layer, Option, Tracer } from "effect"
import { exportOnlyPrefixed } from "../../src/internal/exportedSpans.js"

interface Recorded {
  readonly name: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly attributes: Map<string, unknown>
  readonly events: Array<string>
  exit?: Exit.Exit<unknown, unknown>
}

const recordingTracer = () => {
  const ended: Array<Recorded> = []
  let next = 0
  const tracer = Tracer.make({
    span(name, parent, context, links, startTime, kind) {
      const record: Recorded = {
        name,
        spanId: `span${++next}`,
        parentSpanId: Option.getOrUndefined(Option.map(parent, (p) => p.spanId)),
        attributes: new Map(),
        events: []
      }
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId: record.spanId,
        traceId: Option.isSome(parent) ? parent.value.traceId : `trace${next}`,
        parent,
        context,
        status: { _tag: "Started", startTime },
        attributes: record.attributes,
        links,
        sampled: true,
        kind,
        end: (_endTime, exit) => {
          record.exit = exit
          ended.push(record)
        },
        attribute: (key, value) => void record.attributes.set(key, value),
        event: (eventName) => void record.events.push(eventName),
        addLinks: () => {}
      }
      return span
    },
    context: (f) => f()
  })
  return { ended, layer: Layer.setTracer(exportOnlyPrefixed(tracer, "toolgate.")) }
}

class ToolBroke extends Data.TaggedError("ToolBroke")<{ readonly message: string }> {}

describe("exportOnlyPrefixed", () => {
  it.effect("exports only prefixed spans, with only prefixed attributes and no log events, under the nearest exported parent", () => {
    const { ended, layer } = recordingTracer()
    return Effect.gen(function*() {
      yield* Effect.log("inside the child: /home/user/secret.txt").pipe(
        Effect.withSpan("toolgate.child", { attributes: { "toolgate.tool": "Read", "file_path": "/etc/shadow" } }),
        Effect.withSpan("Read.call", { attributes: { "toolgate.input": "not exported: its span is not" } }),
        Effect.withSpan("toolgate.root", { attributes: { "toolgate.session.id": "s1" } })
      )
      expect(ended.map((s) => s.name)).toEqual(["toolgate.child", "toolgate.root"])
      const [child, root] = ended
      expect(child!.parentSpanId).toBe(root!.spanId)
      expect(root!.parentSpanId).toBeUndefined()
      expect([...child!.attributes.keys()]).toEqual(["toolgate.tool"])
      expect(child!.events).toEqual([])
      expect(Exit.isSuccess(child!.exit!)).toBe(true)
    }).pipe(Effect.provide(layer))
  })

  it.effect("an exported span under no exported span is a root", () => {
    const { ended, layer } = recordingTracer()
    return Effect.void.pipe(
      Effect.withSpan("toolgate.input"),
      Effect.withSpan("http.server POST"),
      Effect.zipRight(Effect.sync(() => {
        expect(ended.map((s) => [s.name, s.parentSpanId])).toEqual([["toolgate.input", undefined]])
      })),
      Effect.provide(layer)
    )
  })

  it.effect("a failure reaches the exporter as its tag, never its message; an interruption as an interruption", () => {
    const { ended, layer } = recordingTracer()
    return Effect.gen(function*() {
      yield* Effect.fail(new ToolBroke({ message: "cannot read /home/user/.ssh/id_rsa" })).pipe(
        Effect.withSpan("toolgate.call"),
        Effect.ignore
      )
      yield* Effect.die(new Error("token=abc123")).pipe(Effect.withSpan("toolgate.call"), Effect.exit)
      yield* Effect.interrupt.pipe(Effect.withSpan("toolgate.call"), Effect.exit)
      const [failed, died, interrupted] = ended.map((s) => s.exit!)
      expect(Exit.isFailure(failed!) && Cause.pretty(failed.cause)).toContain("ToolBroke")
      expect(Exit.isFailure(failed!) && Cause.pretty(failed.cause)).not.toContain("id_rsa")
      expect(Exit.isFailure(died!) && Cause.pretty(died.cause)).not.toContain("abc123")
      expect(Exit.isInterrupted(interrupted!)).toBe(true)
    }).pipe(Effect.provide(layer))
  })
})
