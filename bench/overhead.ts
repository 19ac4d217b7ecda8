/**
 * 1. Per-call overhead: a no-op tool through the whole pipeline (lookup, schema, validateInput,
 * empty hooks, permission rules that allow, call, PostToolUse, result mapping, ordering) in
 * messages of 1, 10 and 100 concurrency-safe calls, against
 *   (a) a plain Promise.all of the same work with a hand-written check,
 *   (b) @effect/ai's Toolkit handling the same calls the way its LanguageModel does
 *       (`Effect.forEach(calls, toolkit.handle, { concurrency })` → tool-result parts), and
 *   (c) the Effect floor: the hand-written check as one fiber per call under the same cap,
 * with the same concurrency as toolgate's default cap (10). All cross one promise boundary per
 * message, and each result's content is consumed. The figure is CPU time of this process per
 * call (wall time is reported too): on a shared machine wall time mostly measures the neighbours.
 */
import { Response, Tool as AiTool, Toolkit } from "@effect/ai"
import { Effect, ManagedRuntime, Schema } from "effect"
import type { ToolUseBlock } from "../src/Messages.js"
import { buildTool } from "../src/Tool.js"
import { Scheduler } from "../src/services/Scheduler.js"
import { pairedRounds, ratioMetric, sink, timed, type Benchmark, type Metric } from "./harness.js"
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
const makeAiRuntime = () => ManagedRuntime.make(AiToolkit.toLayer({ Noop: ({ value }) => Effect.succeed(value) }))

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

// ---- (c) the Effect floor ------------------------------------------------------------------------

/**
 * What Effect's fiber machinery costs for the same shape of work: one `runPromise` per message,
 * one fiber per call under the same cap, the same hand-written check, no stages.
 */
const floorMessage = (blocks: ReadonlyArray<ToolUseBlock>) =>
  Effect.forEach(
    blocks,
    (block) =>
      Effect.suspend(() => {
        const input = block.input as Record<string, unknown> | null
        if (typeof input !== "object" || input === null || typeof input.value !== "string" || !plainAllow.has(block.name)) {
          return Effect.succeed<PlainResult>({ type: "tool_result", tool_use_id: block.id, content: "error", is_error: true })
        }
        return Effect.succeed<PlainResult>({ type: "tool_result", tool_use_id: block.id, content: input.value })
      }),
    { concurrency: CAP }
  )

// ---- the benchmark ------------------------------------------------------------------------------

/** About 300 calls per sample whatever the message size. */
const CASES = [
  { size: 1, messages: 300 },
  { size: 10, messages: 30 },
  { size: 100, messages: 3 }
] as const

export const overhead: Benchmark = {
  name: "overhead",
  run: async () => {
    const cwd = tempDir("toolgate-bench-overhead-")
    const runtime = makeBenchRuntime({ tools: [NoopTool], cwd, allow: ["Noop"] })
    await assertPool(runtime, ["Noop"])
    const session = benchSession(cwd)
    const scheduler = await runtime.runPromise(Scheduler)
    const aiRuntime = makeAiRuntime()
    const toolkit = await aiRuntime.runPromise(AiToolkit)
    const metrics: Array<Metric> = []

    const toolgateMessage = (blocks: ReadonlyArray<ToolUseBlock>) =>
      runtime.runPromise(scheduler.runMessage(blocks, { session, maxConcurrency: CAP })).then((run) => {
        if (run.outcomes.length !== blocks.length || run.outcomes.some((o) => o.error !== undefined)) {
          throw new Error(`bench: a toolgate call failed: ${JSON.stringify(run.outcomes.find((o) => o.error)?.result.content)}`)
        }
        return run.message.content
      })

    for (const { size, messages } of CASES) {
      const batch = messagesOf(size, messages)
      const calls = size * messages
      /** µs per call, wall and CPU; fast sides repeat the batch so a sample lasts milliseconds. */
      const perCall = (one: (blocks: ReadonlyArray<ToolUseBlock>) => Promise<unknown>, repeat = 1) => async () => {
        const t = await timed(async () => {
          for (let r = 0; r < repeat; r++) for (const blocks of batch) sink(await one(blocks))
        })
        return { wall: (t.wall * 1000) / (calls * repeat), cpu: (t.cpu * 1000) / (calls * repeat) }
      }
      const samples = await pairedRounds(
        [
          ["toolgate", perCall(toolgateMessage)],
          ["promiseAll", perCall(plainMessage, 50)],
          ["effectAi", perCall((blocks) => aiRuntime.runPromise(aiMessage(toolkit, blocks, CAP)))],
          ["effectAiSequential", perCall((blocks) => aiRuntime.runPromise(aiMessage(toolkit, blocks, undefined)))],
          ["effectFloor", perCall((blocks) => aiRuntime.runPromise(floorMessage(blocks)))]
        ],
        { warmup: 2, rounds: 10 }
      )
      const cpu = (k: keyof typeof samples) => samples[k].map((t) => t.cpu)
      const wall = (k: keyof typeof samples) => samples[k].map((t) => t.wall)
      const prefix = `overhead.calls${size}`
      const aiNote = `@effect/ai Toolkit.handle under Effect.forEach, concurrency ${CAP} (toolgate's cap)`
      metrics.push(
        ratioMetric(
          { name: `${prefix}.toolgate_vs_promiseAll`, unit: "µs/call cpu", target: "≤ 10×", meets: ({ ratio }) => ratio <= 10 },
          cpu("toolgate"),
          { name: "Promise.all", samples: cpu("promiseAll") }
        ),
        ratioMetric(
          { name: `${prefix}.toolgate_vs_effectAi`, unit: "µs/call cpu", target: "< 1×", meets: ({ ratio }) => ratio < 1, note: aiNote },
          cpu("toolgate"),
          { name: "@effect/ai", samples: cpu("effectAi") }
        ),
        ratioMetric(
          { name: `${prefix}.toolgate_vs_effectFloor`, unit: "µs/call cpu", note: "Effect.forEach of the same checks, one fiber per call, same cap" },
          cpu("toolgate"),
          { name: "Effect floor", samples: cpu("effectFloor") }
        ),
        ratioMetric({ name: `${prefix}.effectFloor_vs_promiseAll`, unit: "µs/call cpu", note: "what Effect's fibers cost before any stage" }, cpu("effectFloor"), {
          name: "Promise.all",
          samples: cpu("promiseAll")
        }),
        ratioMetric(
          { name: `${prefix}.effectAiSequential_vs_promiseAll`, unit: "µs/call cpu", note: "@effect/ai as generateText runs calls by default (one at a time)" },
          cpu("effectAiSequential"),
          { name: "Promise.all", samples: cpu("promiseAll") }
        ),
        ratioMetric({ name: `${prefix}.wall.toolgate_vs_promiseAll`, unit: "µs/call wall" }, wall("toolgate"), {
          name: "Promise.all",
          samples: wall("promiseAll")
        })
      )
    }
    await runtime.dispose()
    await aiRuntime.dispose()
    return metrics
  }
}
