/**
 * `run -p` killed with SIGKILL at random moments, then continued with `-c`. Over every trial:
 * no process is left (foreground, background and `setsid` ones alike), every tool_use the
 * continued conversation holds has its tool_result, nothing happens once toolgate's processes are
 * gone (they go with it), a call
 * answered as not run left no trace, a call answered with its result had finished, and no call
 * ran twice (the continuation runs none again).
 *
 * TOOLGATE_FAULT_TRIALS sets the number of trials (default 3; the campaign is 50); the
 * figures go to stderr.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { fixture, sse, startFakeAnthropic, type FakeAnthropic } from "../support/fakeAnthropic.js"
import {
  bash,
  killAll,
  logLines,
  newMarker,
  project,
  resultText,
  sleep,
  startCli,
  survivors,
  writeScript
} from "./support.js"

const TRIALS = Number(process.env.TOOLGATE_FAULT_TRIALS ?? 3)

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-campaign" })
})
afterAll(async () => {
  await fake.close()
})

const markers: Array<string> = []
afterEach(() => {
  for (const marker of markers.splice(0)) killAll(marker)
})

/** A call with a side effect: a line when it starts and one when it ends, in the project's log. */
const step = (id: string, sleepS: number) =>
  `echo start ${id} >> log; sleep ${sleepS}; echo end ${id} >> log; echo done ${id}`

const turnsOf = (marker: string) => [
  [
    { type: "text", text: "Working." },
    bash("toolu_bg", `setsid sleep ${marker} & echo start bg >> log; sleep ${marker}`, { run_in_background: true }),
    bash("toolu_a", step("a", 0.3)),
    bash("toolu_b", `setsid sleep ${marker} & ${step("b", 0.4)}`)
  ],
  [bash("toolu_c", step("c", 0.3)), bash("toolu_d", `(trap '' TERM; sleep ${marker}) & ${step("d", 0.2)}`)],
  [bash("toolu_e", step("e", 0.2))]
]

type Block = Record<string, unknown>
type Message = { readonly role: string; readonly content: ReadonlyArray<Block> | string }

interface Figures {
  trials: number
  killedBeforeSession: number
  callsAsked: number
  leftProcesses: number
  unanswered: number
  /** Lines written between toolgate's death and the end of its processes (informative). */
  effectsDuringTeardown: number
  effectsAfterDeath: number
  effectsOfUnrunCalls: number
  answeredUnfinished: number
  doubled: number
  continueFailed: number
}

const trial = async (figures: Figures, killAfterMs: number): Promise<void> => {
  const p = project()
  const marker = newMarker()
  markers.push(marker)
  const sessionDir = path.join(p.dir, ".session")
  const script = writeScript(p, turnsOf(marker))
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
  await sleep(killAfterMs)
  run.child.kill("SIGKILL")
  await run.exited
  const atDeath = logLines(p.dir)
  figures.trials++
  figures.leftProcesses += (await survivors(marker)).length
  // the kernel tears the namespaces down just after toolgate's death: a command may still write
  // then (its call is answered "outcome unknown"); nothing may write once they are gone
  const tornDown = logLines(p.dir)
  figures.effectsDuringTeardown += tornDown.length - atDeath.length
  await sleep(300)
  const afterGrace = logLines(p.dir)
  figures.effectsAfterDeath += afterGrace.length - tornDown.length

  const transcript = path.join(sessionDir, "transcript.jsonl")
  const started = fs.existsSync(transcript) && fs.readFileSync(transcript, "utf8").includes("\"type\":\"user\"")
  if (!started) {
    figures.killedBeforeSession++
    figures.effectsOfUnrunCalls += afterGrace.length
    return
  }
  const before = fake.requests.length
  fake.enqueue(sse(fixture("text-only")))
  const resumed = startCli(
    { ...p, env: { ...p.env, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "sk-campaign" } },
    [
      "run",
      "-p",
      "go on",
      "-c",
      "--session-dir",
      sessionDir,
      "--permission-mode",
      "bypassPermissions"
    ]
  )
  const code = await resumed.exited
  const request = fake.requests[before]
  if (code !== 0 || request === undefined) {
    figures.continueFailed++
    process.stderr.write(`-c failed (${code}): ${resumed.out.stderr}\n`)
    return
  }
  const messages = request.body.messages as ReadonlyArray<Message>
  const answers = new Map<string, Block>()
  const asked: Array<string> = []
  for (const message of messages) {
    if (typeof message.content === "string") continue
    for (const block of message.content) {
      if (block.type === "tool_use") asked.push(String(block.id))
      if (block.type === "tool_result") answers.set(String(block.tool_use_id), block)
    }
  }
  figures.callsAsked += asked.length
  figures.unanswered += asked.filter((id) => !answers.has(id)).length
  await sleep(300)
  const final = logLines(p.dir)
  figures.effectsAfterDeath += final.length - afterGrace.length
  for (const id of ["a", "b", "c", "d", "e"]) {
    const answer = answers.get(`toolu_${id}`)
    const startedLines = final.filter((l) => l === `start ${id}`).length
    const endedLines = final.filter((l) => l === `end ${id}`).length
    if (startedLines > 1 || endedLines > 1) figures.doubled++
    if (answer === undefined) continue
    const text = resultText(answer)
    if (text.includes("was not run") && startedLines > 0) figures.effectsOfUnrunCalls++
    if (answer.is_error !== true && text.includes(`done ${id}`) && endedLines === 0) figures.answeredUnfinished++
  }
}

describe("SIGKILL of run -p at random moments", () => {
  it(`over ${TRIALS} trials: no process left, every call answered, no effect after death or twice`, async () => {
    const figures: Figures = {
      trials: 0,
      killedBeforeSession: 0,
      callsAsked: 0,
      leftProcesses: 0,
      unanswered: 0,
      effectsDuringTeardown: 0,
      effectsAfterDeath: 0,
      effectsOfUnrunCalls: 0,
      answeredUnfinished: 0,
      doubled: 0,
      continueFailed: 0
    }
    // the start-up takes about a second; the script's calls about two more
    for (let i = 0; i < TRIALS; i++) await trial(figures, 300 + Math.floor(Math.random() * 4200))
    process.stderr.write(`SIGKILL campaign (run -p): ${JSON.stringify(figures)}\n`)
    expect(figures).toMatchObject({
      trials: TRIALS,
      leftProcesses: 0,
      unanswered: 0,
      effectsAfterDeath: 0,
      effectsOfUnrunCalls: 0,
      answeredUnfinished: 0,
      doubled: 0,
      continueFailed: 0
    })
  }, 60_000 + TRIALS * 20_000)
})
