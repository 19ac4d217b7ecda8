/**
 * Record and replay at the library level: a session against the fake server (the real SDK) is
 * recorded; the transcript replays with the scripted model over a copy of the folder to the same
 * tool results.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { newConversation } from "../../../src/services/Agent/conversation.js"
import { compareReplay, replayedCallsOf, type ReplayedCall } from "../../../src/services/Agent/replay.js"
import { openTranscript, readTranscript } from "../../../src/services/Agent/transcript.js"
import * as ModelClient from "../../../src/services/ModelClient.js"
import { Agent } from "../../../src/services/Agent.js"
import { ReadTool } from "../../../src/tools/Read.js"
import { fixture, sse, startFakeAnthropic, type FakeAnthropic } from "../../support/fakeAnthropic.js"
import { tempDir, testSession } from "../../support/runtime.js"
import { agentLayer, anthropicLayer, writeFiles } from "./support.js"

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic()
})
afterAll(async () => {
  await fake.close()
})

const session = (cwd: string, transcript: string, calls: Array<ReplayedCall>) =>
  Effect.scoped(
    Effect.gen(function*() {
      const agent = yield* Agent
      const t = yield* openTranscript(transcript)
      yield* t.write({ type: "session_start", version: 1, cwd })
      return yield* agent.prompt(newConversation(testSession(cwd)), "Read a.txt and b.txt", {
        transcript: t,
        onEvent: (e) => Effect.sync(() => void calls.push(...replayedCallsOf(e)))
      })
    })
  )

describe("transcript and replay", () => {
  it.live("a recorded session replays over another folder to the same tool results", () => {
    const first = tempDir("toolgate-rec-")
    const second = tempDir("toolgate-replay-")
    for (const dir of [first, second]) writeFiles(dir, { "a.txt": "hello from a\n", "b.txt": "hello from b\n" })
    const file = path.join(first, ".session", "transcript.jsonl")
    fake.enqueue(sse(fixture("two-turn-reads-1", { cwd: first })), sse(fixture("two-turn-reads-2", { cwd: first })))
    const recordedCalls: Array<ReplayedCall> = []
    const replayedCalls: Array<ReplayedCall> = []
    return Effect.gen(function*() {
      const recorded = yield* session(first, file, recordedCalls).pipe(
        Effect.provide(agentLayer(anthropicLayer(fake.url), { cwd: first, tools: [ReadTool] }))
      )
      expect(recorded.stop).toBe("end_turn")
      const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l))
      const turn = lines.find((l) => l.type === "model_turn")
      // the SDK's raw events with their times, in order (pings are dropped by the SDK)
      expect(turn.events.map((e: any) => e.event.type).slice(0, 3)).toEqual([
        "message_start",
        "content_block_start",
        "content_block_delta"
      ])
      expect(turn.events.every((e: any, i: number) => i === 0 || e.at_ms >= turn.events[i - 1].at_ms)).toBe(true)

      const read = yield* readTranscript(file)
      expect(read.script.prompts).toEqual(["Read a.txt and b.txt"])
      expect(read.calls.map((c) => c.toolUseId)).toEqual(["toolu_read_a", "toolu_read_b"])
      const replayed = yield* session(second, path.join(second, ".session", "transcript.jsonl"), replayedCalls).pipe(
        Effect.provide(
          agentLayer(ModelClient.layerScripted({ script: read.script, cwd: second, timeScale: 0 }), {
            cwd: second,
            tools: [ReadTool]
          })
        )
      )
      expect(replayed.stop).toBe("end_turn")
      expect(replayed.text).toBe(recorded.text)
      const report = compareReplay(read.calls, replayedCalls, [[first, "{{cwd}}"]], [[second, "{{cwd}}"]])
      // The same results, as the model saw them. The batches may differ (at full replay speed a
      // call can join the batch of one that, when recorded, had already finished): not a difference.
      expect(report.calls).toBe(2)
      expect(report.differences).toEqual([])
      expect(report.identical).toBe(2)
      const moved = compareReplay(
        read.calls,
        replayedCalls.map((c) => ({
          ...c,
          batch: (c.batch ?? 0) + 100
        })), /* a batch no recorded call had, whatever the timing */
        [[
          first,
          "{{cwd}}"
        ]],
        [[second, "{{cwd}}"]]
      )
      expect(moved.differences).toEqual([])
      expect(moved.rescheduled.map((r) => r.tool_use_id)).toEqual(["toolu_read_a", "toolu_read_b"])
      // and a changed file is a difference
      fs.writeFileSync(path.join(second, "b.txt"), "changed\n")
      const changed = compareReplay(read.calls, [replayedCalls[0]!, { ...replayedCalls[1]!, result: "changed" }], [[
        first,
        "{{cwd}}"
      ]], [[second, "{{cwd}}"]])
      expect(changed.differences.map((d) => d.tool_use_id)).toEqual(["toolu_read_b"])
    })
  })

  it.effect("a corrupt transcript names its line", () =>
    Effect.gen(function*() {
      const dir = tempDir("toolgate-corrupt-")
      const file = path.join(dir, "t.jsonl")
      fs.writeFileSync(
        file,
        [
          "{\"type\":\"session_start\",\"cwd\":\"/x\"}",
          "{\"type\":\"model_turn\",\"events\":[]}",
          "{\"type\":\"tool_call\",\"name\":\"Read\"}"
        ].join("\n")
      )
      const result = yield* Effect.either(readTranscript(file))
      expect(Either.isLeft(result) && result.left.message).toBe(
        `${file}:3: a tool_call line needs tool_use_id, name and result (at tool_use_id: is missing)`
      )
    }))
})

describe("a transcript that cannot be written", () => {
  it.effect("no space left (/dev/full): nothing is written, the failure is kept", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const dir = tempDir("toolgate-transcript-full-")
        const file = path.join(dir, "transcript.jsonl")
        fs.symlinkSync("/dev/full", file)
        const t = yield* openTranscript(file)
        expect(yield* t.failure).toBeUndefined()
        yield* t.write({ type: "session_start", version: 1 })
        expect(yield* t.failure).toMatch(/ENOSPC/)
        // later records are not attempted
        yield* t.write({ type: "session_end" })
        expect(yield* t.failure).toMatch(/after 0 line/)
        fs.rmSync(dir, { recursive: true, force: true })
      })
    ))
})
