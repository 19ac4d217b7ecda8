/**
 * 3. Streaming start: the scripted model streams one assistant message (text, then four
 * concurrency-safe calls) with realistic timing; the turn runs through `runTurn` (model stream →
 * scheduler → pipeline) as the agent does. Measured:
 *   - the delay from each safe call's raw `content_block_stop` leaving the model stream to the
 *     first line of that call's `tool.call` (every stage in between included);
 *   - the turn's total time against waiting for `message_stop` and then running the message,
 *     and against the ideal (every call starting at its block stop, with zero overhead).
 */
import { Effect, Either, Queue, Stream } from "effect"
import * as fs from "node:fs"
import type { ToolUseBlock } from "../src/Messages.js"
import type { ModelClientService, ModelRequest } from "../src/services/ModelClient.js"
import { parseScript, type Script } from "../src/services/ModelClient/script.js"
import { makeScripted } from "../src/services/ModelClient/scripted.js"
import { runTurn } from "../src/services/Agent/turn.js"
import { Scheduler } from "../src/services/Scheduler.js"
import { iqr, median, now, pairedRounds, quantile, ratioMetric, type Benchmark, type Metric } from "./harness.js"
import { assertPool, benchSession, makeBenchRuntime, tempDir } from "./runtime.js"
import { callStarts, sleepTools } from "./tools.js"

/** A search that takes a while, then three quick reads. */
const DURATIONS = [400, 120, 150, 100]
const BLOCK_GAP_MS = 150

const scriptText = JSON.stringify({
  type: "turn",
  content: [
    {
      type: "text",
      text:
        "I'll read the four files that define the scheduler and its tests, then compare what they say about ordering."
    },
    // A model takes a moment to write each further call (the script's own fragments stream fast).
    ...DURATIONS.map((d, i) => ({
      type: "tool_use",
      name: "SleepRead",
      input: { duration_ms: d, path: `{{cwd}}/file${i}.ts` },
      ...(i === 0 ? {} : { delay_ms: BLOCK_GAP_MS })
    }))
  ],
  stop_reason: "tool_use"
})

const request: ModelRequest = { system: "", messages: [{ role: "user", content: "compare" }], tools: [] }

/** When each raw event of interest left the model stream, by tool_use id. */
interface Marks {
  readonly stops: Map<string, number>
  messageStop: number
}

/** A fresh scripted model (it replays its one turn once) whose stream notes raw event times. */
const markedModel = (script: Script, cwd: string, marks: Marks): Promise<ModelClientService> =>
  Effect.runPromise(makeScripted({ script, cwd, timeScale: 1 })).then((model) => {
    let lastStop = 0
    return {
      model: model.model,
      stream: (req) =>
        model.stream(req).pipe(
          Stream.tap((event) =>
            Effect.sync(() => {
              if (event._tag === "Raw") {
                const type = (event.event as { type?: string }).type
                if (type === "content_block_stop") lastStop = now()
                if (type === "message_stop") marks.messageStop = now()
              } else if (event._tag === "BlockStop" && event.block.type === "tool_use") {
                marks.stops.set(event.block.id, lastStop)
              }
            })
          )
        )
    }
  })

export const streaming: Benchmark = {
  name: "streaming",
  run: async () => {
    const cwd = fs.realpathSync(tempDir("toolgate-bench-streaming-"))
    const parsed = parseScript("bench-streaming.jsonl", scriptText)
    if (Either.isLeft(parsed)) throw new Error(`bench: bad script: ${parsed.left.message}`)
    const script = parsed.right
    const runtime = makeBenchRuntime({ tools: sleepTools, cwd, env: { TOOLGATE_ENABLE_SLEEP: "1" } })
    await assertPool(runtime, ["SleepRead"])
    const session = benchSession(cwd)
    const scheduler = await runtime.runPromise(Scheduler)

    const delays: Array<number> = []
    const idealTotals: Array<number> = []
    let measuring = false

    const streamed = async () => {
      const marks: Marks = { stops: new Map(), messageStop: 0 }
      const model = await markedModel(script, cwd, marks)
      const t0 = now()
      const out = await runtime.runPromise(
        Effect.gen(function*() {
          const interrupts = yield* Queue.unbounded<void>()
          return yield* runTurn(model, scheduler, {
            turn: 1,
            request,
            session,
            scheduling: { maxConcurrency: 10 },
            interrupts,
            emit: () => Effect.void
          })
        })
      )
      const total = now() - t0
      if (out.run.outcomes.length !== DURATIONS.length || out.run.outcomes.some((o) => o.error !== undefined)) {
        throw new Error("bench: a streamed call failed")
      }
      if (measuring) {
        let idealEnd = marks.messageStop
        out.run.outcomes.forEach((o, i) => {
          const stop = marks.stops.get(o.toolUseId)
          const started = callStarts.get(o.toolUseId)
          if (stop === undefined || started === undefined) {
            throw new Error("bench: a call's block stop or start was not seen")
          }
          delays.push(started - stop)
          idealEnd = Math.max(idealEnd, stop + DURATIONS[i]!)
        })
        idealTotals.push(idealEnd - t0)
      }
      return total
    }

    const waited = async () => {
      const marks: Marks = { stops: new Map(), messageStop: 0 }
      const model = await markedModel(script, cwd, marks)
      const t0 = now()
      const run = await runtime.runPromise(
        Effect.gen(function*() {
          const events = yield* Stream.runCollect(model.stream(request)).pipe(Effect.orDie)
          const blocks: Array<ToolUseBlock> = []
          for (const e of events) if (e._tag === "BlockStop" && e.block.type === "tool_use") blocks.push(e.block)
          return yield* scheduler.runMessage(blocks, { session, maxConcurrency: 10 })
        })
      )
      if (run.outcomes.some((o) => o.error !== undefined)) throw new Error("bench: a call failed")
      return now() - t0
    }

    // pairedRounds discards warm-up rounds; delays are only kept once measuring starts.
    const warmup = 1
    let round = 0
    const samples = await pairedRounds(
      [
        [
          "streamed",
          () => {
            measuring = round++ >= warmup
            return streamed()
          }
        ],
        ["waited", waited]
      ],
      { warmup, rounds: 6 }
    )
    await runtime.dispose()

    const metrics: Array<Metric> = [
      {
        name: "streaming.start_delay_after_block_stop",
        value: median(delays),
        unit: "ms",
        baseline: undefined,
        ratio: undefined,
        spread: iqr(delays),
        rounds: delays.length,
        target: "< 5 ms",
        meets: median(delays) < 5,
        note: `over ${delays.length} safe calls; p95 ${quantile(delays, 0.95).toFixed(2)} ms, max ${
          Math.max(...delays).toFixed(2)
        } ms`
      },
      ratioMetric(
        {
          name: "streaming.turn_vs_wait_for_message_stop",
          unit: "ms",
          note: "streamed turn total / stream fully, then runMessage"
        },
        samples.streamed,
        { name: "wait for message_stop", samples: samples.waited }
      ),
      ratioMetric(
        {
          name: "streaming.turn_vs_ideal",
          unit: "ms",
          note: "ideal: each call starts at its block stop with zero overhead"
        },
        samples.streamed,
        { name: "ideal", samples: idealTotals }
      )
    ]
    return metrics
  }
}
