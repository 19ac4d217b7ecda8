/**
 * Tools for the scheduling benchmarks. They sleep through the real `Sleep` tool's `call`, and
 * differ only in what the scheduler sees: a read (concurrency-safe, reads one path), a write (not
 * safe, writes one path), and a "shell" call (not safe, no footprint: conflicts with everything,
 * as a command nobody analysed would). Each records when its call really began, so the
 * streaming benchmark can measure the delay from a block's stop to the start of its call.
 */
import { Effect, Schema } from "effect"
import { buildTool, type ToolContext } from "../src/Tool.js"
import { SleepTool } from "../src/tools/Sleep.js"
import * as Permission from "../src/Permission.js"

const Input = Schema.Struct({ duration_ms: Schema.Number, path: Schema.String })
type Input = typeof Input.Type

/** performance.now() at the first line of each call, by tool_use id. */
export const callStarts = new Map<string, number>()

const sleepCall = (input: Input, ctx: ToolContext) =>
  Effect.suspend(() => {
    callStarts.set(ctx.toolUseId, performance.now())
    return SleepTool.call({ duration_ms: input.duration_ms }, ctx)
  })

const allow = () => Effect.succeed(Permission.allow("benchmark tool"))

export const SleepRead = buildTool({
  name: "SleepRead",
  inputSchema: Input,
  description: "Sleeps as if reading a file.",
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => "cancel",
  checkPermissions: allow,
  footprint: (input) => Effect.succeed({ reads: [input.path], writes: [] }),
  call: sleepCall
})

export const SleepWrite = buildTool({
  name: "SleepWrite",
  inputSchema: Input,
  description: "Sleeps as if writing a file.",
  isDestructive: () => false,
  interruptBehavior: () => "cancel",
  checkPermissions: allow,
  footprint: (input) => Effect.succeed({ reads: [], writes: [input.path] }),
  call: sleepCall
})

export const SleepShell = buildTool({
  name: "SleepShell",
  inputSchema: Input,
  description: "Sleeps as if running a command nobody analysed.",
  interruptBehavior: () => "cancel",
  checkPermissions: allow,
  call: sleepCall
})

export const sleepTools = [SleepTool, SleepRead, SleepWrite, SleepShell]

/** What the scheduler knows of a call, for computing the ideal makespan. */
export interface PlannedCall {
  readonly tool: "Sleep" | "SleepRead" | "SleepWrite" | "SleepShell"
  readonly durationMs: number
  readonly path: string
}

export const isSafe = (call: PlannedCall): boolean => call.tool === "Sleep" || call.tool === "SleepRead"

export const footprintOf = (
  call: PlannedCall
): { reads: ReadonlyArray<string>; writes: ReadonlyArray<string> } | undefined =>
  call.tool === "SleepRead"
    ? { reads: [call.path], writes: [] }
    : call.tool === "SleepWrite"
    ? { reads: [], writes: [call.path] }
    : undefined

export const inputOf = (call: PlannedCall): Record<string, unknown> =>
  call.tool === "Sleep" ? { duration_ms: call.durationMs } : { duration_ms: call.durationMs, path: call.path }
