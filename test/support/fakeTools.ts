/**
 * Small tools for tests of the pipeline and the scheduler: they record what ran, when, and how
 * many ran at once, and can wait, fail, die or block on a latch.
 */
import { Deferred, Duration, Effect, Schema } from "effect"
import { ToolError } from "../../src/Errors.js"
import { buildTool, type AnyTool } from "../../src/Tool.js"
import * as Permission from "../../src/Permission.js"

export interface Probe {
  running: number
  maxRunning: number
  /** `start:<id>` / `end:<id>` in the order they happened. */
  readonly log: Array<string>
  readonly ran: Set<string>
  /** Sets of ids running together, sampled at each start. */
  readonly overlaps: Array<ReadonlyArray<string>>
  readonly active: Set<string>
}

export const makeProbe = (): Probe => ({
  running: 0,
  maxRunning: 0,
  log: [],
  ran: new Set(),
  overlaps: [],
  active: new Set()
})

export interface FakeToolOptions {
  readonly safe: boolean
  readonly probe: Probe
  readonly interruptBehavior?: "cancel" | "block"
  /** Overrides: input.fail → ToolError, input.die → defect, input.ms → sleep. */
  readonly latch?: (id: string) => Deferred.Deferred<void> | undefined
  /** A real failure cancels the running siblings (as Bash's does). */
  readonly cancelsSiblings?: boolean
}

const FakeInput = Schema.Struct({
  ms: Schema.optionalWith(Schema.Number, { exact: true }),
  fail: Schema.optionalWith(Schema.String, { exact: true }),
  die: Schema.optionalWith(Schema.String, { exact: true }),
  label: Schema.optionalWith(Schema.String, { exact: true })
})

export const fakeTool = (name: string, options: FakeToolOptions): AnyTool =>
  buildTool({
    name,
    inputSchema: FakeInput,
    description: `fake ${options.safe ? "safe" : "unsafe"} tool`,
    isReadOnly: () => options.safe,
    isConcurrencySafe: () => options.safe,
    interruptBehavior: () => options.interruptBehavior ?? "cancel",
    ...(options.cancelsSiblings === true ? { siblingCancellationLabel: () => "" } : {}),
    checkPermissions: () => Effect.succeed(Permission.allow()),
    call: (input, ctx) => {
      const probe = options.probe
      const id = ctx.toolUseId
      return Effect.gen(function*() {
        probe.running++
        probe.maxRunning = Math.max(probe.maxRunning, probe.running)
        probe.active.add(id)
        probe.overlaps.push([...probe.active])
        probe.log.push(`start:${id}`)
        probe.ran.add(id)
        const latch = options.latch?.(id)
        if (latch !== undefined) yield* Deferred.await(latch)
        if (input.ms !== undefined) yield* Effect.sleep(Duration.millis(input.ms))
        if (input.die !== undefined) return yield* Effect.die(new Error(input.die))
        if (input.fail !== undefined) return yield* new ToolError({ reason: input.fail })
        probe.log.push(`end:${id}`)
        return { data: `${name} ${id} done` }
      }).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            probe.running--
            probe.active.delete(id)
          })
        )
      )
    }
  })
