/**
 * `run -p` killed (SIGKILL) while a tool call runs: the transcript recorded the call before it
 * ran, so `-c` answers it as Claude Code answers a call whose result was never recorded (an
 * error saying its outcome is unknown) before the conversation goes on. A call that finished
 * before the crash keeps its real result, a call that never started says so, and nothing runs
 * twice or after its answer.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixture, sse, startFakeAnthropic, type FakeAnthropic } from "../support/fakeAnthropic.js"
import { bash, project, sleep, startCli, waitFor, writeScript, type Project } from "./support.js"

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-faults" })
})
afterAll(async () => {
  await fake.close()
})

/** Claude Code 2.1.332's result for a call the resumed transcript has no result for. */
const UNKNOWN_OUTCOME =
  "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]"

type Block = Record<string, unknown>

/** Continues the session with the fake API and returns the messages the model was sent. */
const continueSession = async (
  p: Project,
  sessionDir: string
): Promise<ReadonlyArray<{ role: string; content: ReadonlyArray<Block> | string }>> => {
  const before = fake.requests.length
  fake.enqueue(sse(fixture("text-only")))
  const run = startCli({ ...p, env: { ...p.env, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "sk-faults" } }, [
    "run",
    "-p",
    "go on",
    "-c",
    "--session-dir",
    sessionDir,
    "--permission-mode",
    "bypassPermissions"
  ])
  const code = await run.exited
  if (code !== 0) throw new Error(`-c failed (${code}): ${run.out.stderr}`)
  const request = fake.requests[before]
  if (request === undefined) throw new Error(`-c sent no request: ${run.out.stderr}`)
  return request.body.messages
}

const resultsOf = (message: { content: ReadonlyArray<Block> | string } | undefined): ReadonlyArray<Block> =>
  message === undefined || typeof message.content === "string"
    ? []
    : message.content.filter((b) => b.type === "tool_result")

const textOf = (block: Block | undefined): string =>
  typeof block?.content === "string"
    ? block.content
    : Array.isArray(block?.content)
    ? (block.content as Array<Block>).map((b) => String(b.text ?? "")).join("")
    : ""

describe("a run killed during a tool call, then continued", () => {
  it(
    "-c answers the interrupted call as Claude Code does, keeps a finished call's result, and runs nothing again",
    async () => {
      const p = project()
      const sessionDir = path.join(p.dir, ".session")
      const script = writeScript(p, [
        [
          { type: "text", text: "Two steps." },
          bash("toolu_quick", "echo quick >> runs.txt; echo quick-result"),
          bash("toolu_slow", "echo slow >> runs.txt; touch started; sleep 30; echo late >> runs.txt"),
          bash("toolu_never", "echo never >> runs.txt")
        ]
      ])
      const run = startCli(p, [
        "run",
        "-p",
        "go",
        "--replay",
        script,
        "--replay-speed",
        "0",
        "--permission-mode",
        "bypassPermissions",
        "--session-dir",
        sessionDir
      ])
      await waitFor(() => fs.existsSync(path.join(p.dir, "started")), run, "the slow call")
      run.child.kill("SIGKILL")
      await run.exited

      const messages = await continueSession(p, sessionDir)
      const assistant = messages.at(-2)
      expect(assistant?.role).toBe("assistant")
      expect((assistant!.content as ReadonlyArray<Block>).map((b) => (b.type === "tool_use" ? b.id : b.type))).toEqual([
        "text",
        "toolu_quick",
        "toolu_slow",
        "toolu_never"
      ])
      const answers = resultsOf(messages.at(-1))
      expect(answers.map((b) => b.tool_use_id)).toEqual(["toolu_quick", "toolu_slow", "toolu_never"])
      expect(textOf(answers[0])).toBe("quick-result")
      expect(answers[1]).toMatchObject({ is_error: true })
      expect(textOf(answers[1])).toBe(UNKNOWN_OUTCOME)
      expect(answers[2]).toMatchObject({ is_error: true })
      expect(textOf(answers[2])).toContain("was not run")
      // the new prompt follows the answers
      expect(JSON.stringify(messages.at(-1))).toContain("go on")

      await sleep(500)
      expect(fs.readFileSync(path.join(p.dir, "runs.txt"), "utf8")).toBe("quick\nslow\n")
    },
    120_000
  )
})
