/**
 * 1. Per-call overhead: a no-op tool through the whole pipeline (lookup, schema, validateInput,
 * empty hooks, permission rules that allow, call, PostToolUse, result mapping, size check,
 * ordering) in messages of 1, 10 and 100 concurrency-safe calls, against
 *   (a) the same stages hand-written in Effect (the baseline; see `handwritten.ts`),
 *   (b) @effect/ai's Toolkit handling the same calls the way its LanguageModel does
 *       (`Effect.forEach(calls, toolkit.handle, { concurrency })` → tool-result parts), and
 *   (c) the Effect floor: one fiber per call under the same cap doing nothing but a check,
 * with the same concurrency as toolgate's default cap (10). All cross one promise boundary per
 * message, and each result's content is consumed. The figure is CPU time of this process per
 * call (wall time is reported too): on a shared machine wall time mostly measures the neighbours.
 *
 * Fairness: every side is warmed on every message size before any size is measured (so the
 * first case does not pay for the JIT), each size has its own warm-up rounds, sides rotate
 * order within rounds, and a sample runs about 2,000 calls (many young-generation collections
 * each, so GC cost lands in the sample that made the garbage). Garbage is not collected by force
 * between samples: a forced full collection shrinks the young generation and makes the next
 * sample, whichever side it is, pay for growing it again (measured: 1.5–3× on the floor).
 */
import { Response, Tool as AiTool, Toolkit } from "@effect/ai"
import { Effect, ManagedRuntime, Schema } from "effect"
import type { ToolUseBlock } from "../src/Messages.js"
import { buildTool } from "../src/Tool.js"
import { Scheduler } from "../src/services/Scheduler.js"
import { handwrittenMessage, handwrittenTools } from "./handwritten.js"
import { pairedRounds, plainMetric, ratioMetric, sink, timed, type Benchmark, type Metric } from "./harness.js"
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
  Array.from(
    { length: count },
    (_, m) => Array.from({ length: size }, (_, i) => toolUse(`toolu_${m}_${i}`, "Noop", { value: `v${m}.${i}` }))
  )

// ---- @effect/ai Toolkit --------------------------------------------------------------------------

const AiNoop = AiTool.make("Noop", {
  description: "Does nothing; returns its input.",
  parameters: { value: Schema.String },
  success: Schema.String
})
const AiToolkit = Toolkit.make(AiNoop)
const makeAiRuntime = () => ManagedRuntime.make(AiToolkit.toLayer({ Noop: ({ value }) => Effect.succeed(value) }))

const aiMessage = (
  toolkit: Toolkit.WithHandler<Toolkit.Tools<typeof AiToolkit>>,
  blocks: ReadonlyArray<ToolUseBlock>
) =>
  Effect.forEach(
    blocks,
    (block) =>
      toolkit.handle(block.name as "Noop", block.input as { value: string }).pipe(
        Effect.map(({ encodedResult, isFailure, result }) =>
          Response.makePart("tool-result", {
            id: block.id,
            name: block.name,
            result,
            encodedResult,
            isFailure,
            providerExecuted: false
          })
        )
      ),
    { concurrency: CAP }
  )

// ---- the Effect floor ----------------------------------------------------------------------------

/** What Effect's fibers cost for the same shape of work: one fiber per call under the cap, a check, no stages. */
const floorMessage = (blocks: ReadonlyArray<ToolUseBlock>) =>
  Effect.forEach(
    blocks,
    (block) =>
      Effect.sync(() => {
        const input = block.input as Record<string, unknown> | null
        return typeof input !== "object" || input === null || typeof input.value !== "string"
          ? { type: "tool_result" as const, tool_use_id: block.id, content: "error", is_error: true }
          : { type: "tool_result" as const, tool_use_id: block.id, content: input.value }
      }),
    { concurrency: CAP }
  )

// ---- the benchmark ------------------------------------------------------------------------------

/** Calls per sample, whatever the message size. */
const CALLS_PER_SAMPLE = 2000
/** Measured first: the 1-call case never runs in a process that has not run the others. */
const SIZES = [100, 10, 1] as const

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
    const handwritten = handwrittenTools([NoopTool], ["Noop"], session)
    const metrics: Array<Metric> = []

    const toolgateMessage = (blocks: ReadonlyArray<ToolUseBlock>) =>
      runtime.runPromise(scheduler.runMessage(blocks, { session, maxConcurrency: CAP })).then((run) => {
        if (run.outcomes.length !== blocks.length || run.outcomes.some((o) => o.error !== undefined)) {
          throw new Error(
            `bench: a toolgate call failed: ${JSON.stringify(run.outcomes.find((o) => o.error)?.result.content)}`
          )
        }
        return run.message.content
      })
    const handwrittenOne = (blocks: ReadonlyArray<ToolUseBlock>) =>
      aiRuntime.runPromise(handwrittenMessage(handwritten, blocks, CAP)).then((results) => {
        if (results.length !== blocks.length || results.some((r) => r.is_error === true)) {
          throw new Error("bench: a hand-written call failed")
        }
        return results
      })

    const sidesFor = (size: number) => {
      const batch = messagesOf(size, Math.ceil(CALLS_PER_SAMPLE / size))
      const calls = size * batch.length
      /** µs per call, wall and CPU. */
      const perCall = (one: (blocks: ReadonlyArray<ToolUseBlock>) => Promise<unknown>) => async () => {
        const t = await timed(async () => {
          for (const blocks of batch) sink(await one(blocks))
        })
        return { wall: (t.wall * 1000) / calls, cpu: (t.cpu * 1000) / calls }
      }
      return [
        ["toolgate", perCall(toolgateMessage)],
        ["handwritten", perCall(handwrittenOne)],
        ["effectAi", perCall((blocks) => aiRuntime.runPromise(aiMessage(toolkit, blocks)))],
        ["effectFloor", perCall((blocks) => aiRuntime.runPromise(floorMessage(blocks)))]
      ] as const
    }

    // Every side on every size before anything is measured.
    for (const size of [...SIZES].reverse()) await pairedRounds(sidesFor(size), { warmup: 0, rounds: 3 })

    for (const size of SIZES) {
      const samples = await pairedRounds(sidesFor(size), { warmup: 10, rounds: 12 })
      const cpu = (k: keyof typeof samples) => samples[k].map((t) => t.cpu)
      const wall = (k: keyof typeof samples) => samples[k].map((t) => t.wall)
      const prefix = `overhead.calls${size}`
      const at100 = size === 100
      metrics.push(
        ratioMetric(
          {
            name: `${prefix}.toolgate_vs_handwritten`,
            unit: "µs/call cpu",
            ...(at100 ? { target: "≤ 1.5×", meets: ({ ratio }: { ratio: number }) => ratio <= 1.5 } : {}),
            note: "the same stages hand-written in Effect, one fiber per call under the same cap (bench/handwritten.ts)"
          },
          cpu("toolgate"),
          { name: "hand-written", samples: cpu("handwritten") }
        ),
        ratioMetric(
          {
            name: `${prefix}.toolgate_vs_effectAi`,
            unit: "µs/call cpu",
            ...(at100 ? { target: "≤ 0.5×", meets: ({ ratio }: { ratio: number }) => ratio <= 0.5 } : {}),
            note: `@effect/ai Toolkit.handle under Effect.forEach, concurrency ${CAP} (toolgate's cap)`
          },
          cpu("toolgate"),
          { name: "@effect/ai", samples: cpu("effectAi") }
        ),
        ratioMetric(
          {
            name: `${prefix}.handwritten_vs_effectFloor`,
            unit: "µs/call cpu",
            note: "what the stages cost over a bare fiber per call"
          },
          cpu("handwritten"),
          { name: "Effect floor", samples: cpu("effectFloor") }
        ),
        ratioMetric({ name: `${prefix}.wall.toolgate_vs_handwritten`, unit: "µs/call wall" }, wall("toolgate"), {
          name: "hand-written",
          samples: wall("handwritten")
        })
      )
      if (size === 1) {
        metrics.push(
          plainMetric(
            {
              name: "overhead.calls1.toolgate",
              unit: "µs/call cpu",
              target: "≤ 100 µs",
              meets: (v) => v <= 100,
              note: "one call per message, warm"
            },
            cpu("toolgate")
          )
        )
      }
    }
    await runtime.dispose()
    await aiRuntime.dispose()
    return metrics
  }
}
