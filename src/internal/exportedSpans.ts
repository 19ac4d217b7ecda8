/**
 * A tracer that lets through only the spans toolgate made for export, and only what they were
 * given on purpose. Every other span of the process (the stages' own `Effect.fn` spans, the HTTP
 * server's, the cluster's) is kept in the fiber for its children and never reaches the exporter:
 * their attributes, log events and failures can hold paths, commands or file contents.
 *
 * An exported span keeps only attributes under the prefix, drops log events and links, and ends
 * with its exit reduced to success, interruption or the failure's tag (never its message). Its
 * parent is the nearest exported span above it in this process, else none (a root).
 */
import { Cause, Exit, FiberId, Option, Tracer } from "effect"

const randomHex = (length: number): string => {
  let out = ""
  for (let i = 0; i < length; i++) out += Math.floor(Math.random() * 16).toString(16)
  return out
}

/** What a failure is called in an exported span: its tag (a word), nothing it says. */
const failureName = (exit: Exit.Exit<unknown, unknown>): string => {
  if (exit._tag === "Success") return "Success"
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  const tag = (failure as { readonly _tag?: unknown } | undefined)?._tag
  return typeof tag === "string" && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(tag) ? tag : "Failure"
}

class TagOnly extends Error {
  constructor(tag: string) {
    super(tag)
    this.name = tag
    this.stack = tag
  }
}

const reduceExit = (exit: Exit.Exit<unknown, unknown>): Exit.Exit<unknown, unknown> => {
  if (Exit.isSuccess(exit)) return Exit.void
  if (Cause.isInterruptedOnly(exit.cause)) return Exit.interrupt(FiberId.none)
  return Exit.fail(new TagOnly(failureName(exit)))
}

/** A span kept for its children only: nothing of it is exported. */
class HiddenSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly spanId = randomHex(16)
  readonly traceId: string
  readonly sampled = false
  status: Tracer.SpanStatus
  readonly attributes = new Map<string, unknown>()
  readonly links: ReadonlyArray<Tracer.SpanLink> = []
  constructor(
    readonly name: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly context: Parameters<Tracer.Tracer["span"]>[2],
    startTime: bigint,
    readonly kind: Tracer.SpanKind,
    /** The nearest exported span above this one. */
    readonly exportedParent: Option.Option<Tracer.AnySpan>
  ) {
    this.traceId = Option.isSome(parent) ? parent.value.traceId : randomHex(32)
    this.status = { _tag: "Started", startTime }
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
  }
  attribute(): void {}
  event(): void {}
  addLinks(): void {}
}

/** A span of the inner tracer that receives only what may be exported. */
class ExportedSpan implements Tracer.Span {
  readonly _tag = "Span"
  constructor(readonly inner: Tracer.Span, private readonly prefix: string) {}
  get name() {
    return this.inner.name
  }
  get spanId() {
    return this.inner.spanId
  }
  get traceId() {
    return this.inner.traceId
  }
  get parent() {
    return this.inner.parent
  }
  get context() {
    return this.inner.context
  }
  get status() {
    return this.inner.status
  }
  get attributes() {
    return this.inner.attributes
  }
  get links() {
    return this.inner.links
  }
  get sampled() {
    return this.inner.sampled
  }
  get kind() {
    return this.inner.kind
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    this.inner.end(endTime, reduceExit(exit))
  }
  attribute(key: string, value: unknown): void {
    if (key.startsWith(this.prefix)) this.inner.attribute(key, value)
  }
  event(): void {}
  addLinks(): void {}
}

const exportedAncestor = (parent: Option.Option<Tracer.AnySpan>): Option.Option<Tracer.AnySpan> => {
  if (Option.isNone(parent)) return parent
  const span = parent.value
  if (span instanceof ExportedSpan) return Option.some(span.inner)
  if (span instanceof HiddenSpan) return span.exportedParent
  return Option.none()
}

/**
 * Wraps `inner` (an exporting tracer): spans whose name starts with `prefix` go to it, reduced to
 * their attributes under `prefix`; every other span stays in this process.
 */
export const exportOnlyPrefixed = (inner: Tracer.Tracer, prefix: string): Tracer.Tracer =>
  Tracer.make({
    span(name, parent, context, _links, startTime, kind) {
      const exportedParent = exportedAncestor(parent)
      if (!name.startsWith(prefix)) return new HiddenSpan(name, parent, context, startTime, kind, exportedParent)
      return new ExportedSpan(inner.span(name, exportedParent, context, [], startTime, kind), prefix)
    },
    context: (f, fiber) => inner.context(f, fiber)
  })
