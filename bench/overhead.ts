/**
 * 1. Per-call overhead: a no-op tool through the whole pipeline (lookup, schema, validateInput,
 * empty hooks, permission rules that allow, call, PostToolUse, result mapping, ordering) in
 * messages of 1, 10 and 100 concurrency-safe calls, against
 *   (a) a plain Promise.all of the same work with a hand-written check, and
 *   (b) @effect/ai's Toolkit handling the same calls the way its LanguageModel does
 *       (`Effect.forEach(calls, toolkit.handle, { concurrency })` → tool-result parts),
 * with the same concurrency as toolgate's default cap (10). All three cross one promise
 * boundary per message, and each result's content is consumed.
 */
import { Response, Tool as AiTool, Toolkit } from "@effect/ai"
import { Effect, ManagedRuntime, Schema } from "effect"
import type { ToolUseBlock } from "../src/Messages.js"
import { buildTool } from "../src/Tool.js"
import { Scheduler } from "../src/services/Scheduler.js"
import { pairedRounds, plainMetric, ratioMetric, sink, type Benchmark, type Metric, now } from "./harness.js"
import { benchSession, makeBenchRuntime, tempDir, toolUse, assertPool } from "./runtime.js"

const CAP = 10

/** The no-op: echoes its one string field. Safe, read-only; permission left to the rules. */
export const NoopTool = buildTool({
  name: "Noop",
  inputSchema: Schema.Struct({ value: Schema.String }),
  description: "Does nothing; returns its input.",
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => "cancel",
  call: (input) => Effect.succeed({ data: input.value })
})

const messagesOf = (size: number, count: number): Array<Array<ToolUseBlock>> =>
  Array.from({ length: count }, (_, m) => Array.from({ length: size }, (_, i) => toolUse(`toolu_${m}_${i}`, "Noop", { value: `v${m}.${i}` })))

// ---- (a) plain promises, hand-written checks ----------------------------------------------------

interface PlainTool {
  readonly name: string
  readonly safe: boolean
  readonly call: (input: { value: string }) => Promise<string>
}

const plainTools = new Map<string, PlainTool>([["Noop", { name: "Noop", safe: true, call: async (input) => input.value }]])
const plainAllow = new Set(["Noop"])

interface PlainResult {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content: string
  readonly is_error?: boolean
}

const plainCall = async (block: ToolUseBlock): Promise<PlainResult> => {
  const tool = plainTools.get(block.name)
  if (tool === undefined) return { type: "tool_result", tool_use_id: block.id, content: `No such tool: ${block.name}`, is_error: true }
  const input = block.input as Record<string, unknown> | null
  if (typeof input !== "object" || input === null || Array.isArray(input) || typeof input.value !== "string" || Object.keys(input).length !== 1) {
    return { type: "tool_result", tool_use_id: block.id, content: "InputValidationError", is_error: true }
  }
  if (!plainAllow.has(tool.name)) return { type: "tool_result", tool_use_id: block.id, content: "Permission denied", is_error: true }
  const output = await tool.call({ value: input.value })
  return { type: "tool_result", tool_use_id: block.id, content: output.trim() === "" ? "(no output)" : output }
}

const plainMessage = (blocks: ReadonlyArray<ToolUseBlock>): Promise<Array<PlainResult>> => Promise.all(blocks.map(plainCall))

// ---- (b) @effect/ai Toolkit ----------------------------------------------------------------------

const AiNoop = AiTool.make("Noop", {
  description: "Does nothing; returns its input.",
  parameters: { value: Schema.String },
  success: Schema.String
})
const AiToolkit = Toolkit.make(AiNoop)
const aiRuntime = ManagedRuntime.make(AiToolkit.toLayer({ Noop: ({ value }) => Effect.succeed(value) }))

const aiMessage = (toolkit: Toolkit.WithHandler<Toolkit.Tools<typeof AiToolkit>>, blocks: ReadonlyArray<ToolUseBlock>, concurrency: number | undefined) =>
  Effect.forEach(
    blocks,
    (block) =>
      toolkit.handle(block.name as "Noop", block.input as { value: string }).pipe(
        Effect.map(({ encodedResult, isFailure, result }) =>
          Response.makePart("tool-result", { id: block.id, name: block.name, result, encodedResult, isFailure, providerExecuted: false })
        )
      ),
    { concurrency }
  )

// ---- the benchmark ------------------------------------------------------------------------------

const CASES = [
  { size: 1, messages: 300 },
  { size: 10, messages: 60 },
  { size: 100, messages: 8 }
] as const

export const overhead: Benchmark = {
  name: "overhead",
  run: async () => {
    const cwd = tempDir("toolgate-bench-overhead-")
    const runtime = makeBenchRuntime({ tools: [NoopTool], cwd, allow: ["Noop"] })
    await assertPool(runtime, ["Noop"])
    const session = benchSession(cwd)
    const scheduler = await runtime.runPromise(Scheduler)
    const toolkit = await aiRuntime.runPromise(AiToolkit)
    const metrics: Array<Metric> = []

    for (const { size, messages } of CASES) {
      const batch = messagesOf(size, messages)
      const calls = size * messages
      const timed = async (one: (blocks: ReadonlyArray<ToolUseBlock>) => Promise<unknown>) => {
        const t0 = now()
        for (const blocks of batch) sink(await one(blocks))
        return ((now() - t0) * 1000) / calls
      }
      const samples = await pairedRounds(
        [
          ["toolgate", () => timed((blocks) => runtime.runPromise(scheduler.runMessage(blocks, { session, maxConcurrency: CAP })).then((run) => {
            if (run.outcomes.length !== blocks.length || run.outcomes.some((o) => o.error !== undefined)) throw new Error("bench: toolgate call failed")
            return run.message.content
          }))],
          ["promiseAll", () => timed((blocks) => plainMessage(blocks))],
          ["effectAi", () => timed((blocks) => aiRuntime.runPromise(aiMessage(toolkit, blocks, CAP)))],
          ["effectAiSequential", () => timed((blocks) => aiRuntime.runPromise(aiMessage(toolkit, blocks, undefined)))]
        ],
        { warmup: 3, rounds: 12 }
      )
      const prefix = `overhead.calls${size}`
      metrics.push(
        ratioMetric(
          { name: `${prefix}.toolgate_vs_promiseAll`, unit: "µs/call", target: "≤ 10×", meets: ({ ratio }) => ratio <= 10 },
          samples.toolgate,
          { name: "Promise.all", samples: samples.promiseAll }
        ),
        ratioMetric(
          { name: `${prefix}.toolgate_vs_effectAi`, unit: "µs/call", target: "< 1×", meets: ({ ratio }) => ratio < 1, note: `@effect/ai Toolkit.handle under Effect.forEach, concurrency ${CAP}` },
          samples.toolgate,
          { name: "@effect/ai", samples: samples.effectAi }
        ),
        ratioMetric(
          { name: `${prefix}.effectAiSequential_vs_promiseAll`, unit: "µs/call", note: "@effect/ai as generateText runs it by default (no concurrency)" },
          samples.effectAiSequential,
          { name: "Promise.all", samples: samples.promiseAll }
        ),
        plainMetric({ name: `${prefix}.promiseAll`, unit: "µs/call" }, samples.promiseAll)
      )
    }
    await runtime.dispose()
    return metrics
  }
}
