import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach } from "vitest"
import { make as makeBackgroundTasks } from "../../src/tools/background/BackgroundTasks.js"
import { makeBackgroundTools, withBackgroundTools } from "../../src/tools/background/BackgroundTools.js"
import { completeUtf8Length, openOutputFile, readNewOutput } from "../../src/tools/background/outputFile.js"
import { BACKGROUND_DISABLED, backgroundTimeoutMs, taskOutputWaitMs } from "../../src/tools/background/settings.js"
import { isProcessAlive } from "../../src/internal/processGroup.js"
import { BACKGROUND_NOT_AVAILABLE, BashTool } from "../../src/tools/Bash.js"
import { ReadTool } from "../../src/tools/Read.js"
import {
  makeContext,
  makeSandbox,
  readPids,
  recordedInBackground,
  waitForRecords,
  waitUntilDead,
  type Sandbox
} from "../fixtures/bash/harness.js"
import { isRecordAlive } from "../support/pidRecords.js"
import { fileContains, outputFileOf, runTool, taskIdOf, waitFor, waitUntil } from "../fixtures/background/harness.js"
import { sharedShellAnalyzer } from "../support/shellAnalyzer.js"

let box: Sandbox
beforeEach(() => {
  box = makeSandbox()
})
afterEach(() => box.cleanup())

/** The service in the test's scope (closed at the end of each test) and its three tools. */
const setup = Effect.gen(function*() {
  const tasks = yield* makeBackgroundTasks({ killGraceMs: 200 })
  const [bash, taskOutput, taskStop] = makeBackgroundTools(tasks, { killGraceMs: 200, analyzer: sharedShellAnalyzer })
  return { tasks, bash: bash!, taskOutput: taskOutput!, taskStop: taskStop! }
})

const inProject = (name: string) => path.join(box.project, name)

describe("Bash run_in_background", () => {
  it.scopedLive("output past the limit stops the task; TaskOutput says why and the file ends at the limit", () =>
    Effect.gen(function*() {
      const tasks = yield* makeBackgroundTasks({ killGraceMs: 200, maxOutputBytes: 64 * 1024 })
      const [bash, taskOutput] = makeBackgroundTools(tasks, { killGraceMs: 200 })
      const started = yield* runTool(bash!, { command: "yes toolgate", run_in_background: true }, box.session)
      const id = taskIdOf(started.text)
      const read = yield* runTool(taskOutput!, { task_id: id, block: true, timeout: 60_000 }, box.session)
      expect(read.text).toContain("<status>killed</status>")
      expect(read.text).toContain("<stopped>Command killed: output file exceeded 64KB</stopped>")
      const task = Option.getOrThrow(yield* tasks.get(id))
      expect(task).toMatchObject({ status: "killed", stoppedBy: "output limit" })
      expect(fs.statSync(task.outputFile).size).toBeLessThanOrEqual(64 * 1024 + 64)
      expect(isProcessAlive(task.pid)).toBe(false)
    }))

  it.scopedLive("returns at once with an id and the output file under <sessionDir>/tasks, with Claude Code's text", () =>
    Effect.gen(function*() {
      const { bash, tasks } = yield* setup
      const started = yield* runTool(bash, {
        command: `echo hello; ${waitFor(inProject("go"))}`,
        run_in_background: true
      }, box.session)
      expect(started.isError).toBe(false)
      const id = taskIdOf(started.text)
      expect(id).toMatch(/^b[0-9a-z]{8}$/)
      const file = path.join(box.sessionDir, "tasks", `${id}.output`)
      expect(started.text).toBe(
        `Command running in background with ID: ${id}. Output is being written to: ${file}. You will be notified when it completes. To check interim output, use Read on that file path.`
      )
      expect(bash.hookResponse(started.data)).toMatchObject({ stdout: "", interrupted: false, backgroundTaskId: id })
      yield* waitUntil("hello in the output file", fileContains(file, "hello\n"))
      const task = Option.getOrThrow(yield* tasks.get(id))
      expect(task).toMatchObject({
        status: "running",
        command: expect.stringContaining("echo hello"),
        outputFile: file
      })
      expect(isProcessAlive(task.pid)).toBe(true)
    }))

  it.scopedLive("output is read while the task runs (new output only), then TaskStop stops the whole group", () =>
    Effect.gen(function*() {
      const { bash, taskOutput, taskStop } = yield* setup
      const command = [
        `${recordedInBackground("sleep 1000", `'${inProject("child.pid")}'`)} ${
          waitForRecords(`'${inProject("child.pid")}'`)
        } true`,
        "echo one",
        waitFor(inProject("go")),
        "echo two >&2",
        waitFor(inProject("never"))
      ].join("; ")
      const started = yield* runTool(bash, { command, run_in_background: true }, box.session)
      const id = taskIdOf(started.text)
      const file = outputFileOf(started.text)
      yield* waitUntil("one", fileContains(file, "one\n"))

      const first = yield* runTool(taskOutput, { task_id: id, block: false }, box.session)
      expect(first.text).toBe(
        [
          "<retrieval_status>not_ready</retrieval_status>",
          `<task_id>${id}</task_id>`,
          "<task_type>local_bash</task_type>",
          "<status>running</status>",
          `<output_file>${file}</output_file>`,
          "<output>",
          "one",
          "</output>"
        ].join("\n")
      )
      const nothingNew = yield* runTool(taskOutput, { task_id: id, block: "false" }, box.session)
      expect(nothingNew.text).toContain("(no new output since the last read)")

      fs.writeFileSync(inProject("go"), "")
      yield* waitUntil("two", fileContains(file, "two\n"))
      const second = yield* runTool(taskOutput, { task_id: id, block: false }, box.session)
      expect(second.text).toContain("<output>\ntwo\n</output>")
      expect(second.text).not.toContain("one")

      const [child] = readPids(inProject("child.pid"))
      const shell = (second.data as { reading: { task: { pid: number } } }).reading.task.pid
      expect(isRecordAlive(child!)).toBe(true)
      const stopped = yield* runTool(taskStop, { task_id: id }, box.session)
      expect(stopped).toMatchObject({ isError: false, text: `Successfully stopped task: ${id} (${command})` })
      expect(yield* waitUntilDead(shell)).toBe(true)
      expect(yield* waitUntilDead(child!)).toBe(true)

      const after = yield* runTool(taskOutput, { task_id: id }, box.session)
      expect(after.text).toContain("<retrieval_status>success</retrieval_status>")
      expect(after.text).toContain("<status>killed</status>\n<stopped>stopped with TaskStop</stopped>")
      const again = yield* runTool(taskStop, { task_id: id }, box.session)
      expect(again).toMatchObject({ isError: true, text: `Task ${id} is not running (status: killed)` })
    }))

  it.scopedLive("block (the default) waits for the end and reports the exit code", () =>
    Effect.gen(function*() {
      const { bash, taskOutput } = yield* setup
      const started = yield* runTool(bash, {
        command: `${waitFor(inProject("go"))}; echo done; exit 3`,
        run_in_background: true
      }, box.session)
      const id = taskIdOf(started.text)
      const reader = yield* Effect.fork(runTool(taskOutput, { task_id: id, timeout: 20_000 }, box.session))
      yield* Effect.sleep("100 millis")
      // It cannot have finished: the task waits for the go file, which does not exist yet.
      expect(Option.isNone(yield* Fiber.poll(reader))).toBe(true)
      fs.writeFileSync(inProject("go"), "")
      const read = yield* Fiber.join(reader)
      expect(read.text).toBe(
        [
          "<retrieval_status>success</retrieval_status>",
          `<task_id>${id}</task_id>`,
          "<task_type>local_bash</task_type>",
          "<status>failed</status>",
          "<exit_code>3</exit_code>",
          `<output_file>${outputFileOf(started.text)}</output_file>`,
          "<output>",
          "done",
          "</output>"
        ].join("\n")
      )
      const ok = yield* runTool(bash, { command: "echo fine", run_in_background: true }, box.session)
      const done = yield* runTool(taskOutput, { task_id: taskIdOf(ok.text) }, box.session)
      expect(done.text).toContain("<status>completed</status>\n<exit_code>0</exit_code>")
      expect(done.text).toContain("<output>\nfine\n</output>")
    }))

  it.scopedLive("a block that times out says the task is still running", () =>
    Effect.gen(function*() {
      const { bash, taskOutput, tasks } = yield* setup
      const started = yield* runTool(bash, {
        command: `echo waiting; ${waitFor(inProject("never"))}`,
        run_in_background: true
      }, box.session)
      const id = taskIdOf(started.text)
      yield* waitUntil("waiting", fileContains(outputFileOf(started.text), "waiting"))
      const read = yield* runTool(taskOutput, { task_id: id, block: true, timeout: "200" }, box.session)
      expect(read.isError).toBe(false)
      expect(read.text).toContain("<retrieval_status>timeout</retrieval_status>")
      expect(read.text).toContain("<status>running</status>")
      expect(read.text).toContain("<output>\nwaiting\n</output>")
      expect(
        read.text.endsWith(
          "Still running after waiting 200ms. Call TaskOutput again to keep waiting, or TaskStop to stop it."
        )
      ).toBe(true)
      expect(Option.getOrThrow(yield* tasks.get(id)).status).toBe("running")
    }))

  it.scopedLive("the background timeout kills the group; processes left behind by a finished shell are stopped too", () =>
    Effect.gen(function*() {
      const { bash, taskOutput } = yield* setup
      const slow = yield* runTool(bash, {
        command: `${recordedInBackground("sleep 1000", `'${inProject("a.pid")}'`)} wait`,
        run_in_background: true,
        timeout: 2000
      }, box.session)
      const read = yield* runTool(taskOutput, { task_id: taskIdOf(slow.text), timeout: 20_000 }, box.session)
      expect(read.text).toContain("<status>killed</status>\n<stopped>stopped at its timeout of 2s</stopped>")
      expect(yield* waitUntilDead(readPids(inProject("a.pid"))[0]!)).toBe(true)

      const leaves = yield* runTool(bash, {
        command: `${recordedInBackground("sleep 1000", `'${inProject("b.pid")}'`)} ${
          waitForRecords(`'${inProject("b.pid")}'`)
        } echo left`,
        run_in_background: true
      }, box.session)
      const finished = yield* runTool(taskOutput, { task_id: taskIdOf(leaves.text), timeout: 20_000 }, box.session)
      expect(finished.text).toContain("<status>completed</status>")
      expect(yield* waitUntilDead(readPids(inProject("b.pid"))[0]!)).toBe(true)
    }))

  it.scopedLive("only the newest part of a large new output is returned, with a note; characters are never cut", () =>
    Effect.gen(function*() {
      const { bash, taskOutput } = yield* setup
      // 3000 "é" (2 bytes each), then "\nEND\n": 6005 bytes; the last 1000 start inside a character.
      const started = yield* runTool(bash, {
        command: `printf 'é%.0s' $(seq 3000); echo; echo END`,
        run_in_background: true
      }, box.session)
      const read = yield* runTool(taskOutput, { task_id: taskIdOf(started.text) }, box.session).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["BASH_MAX_OUTPUT_LENGTH", "1000"]])))
      )
      expect(read.text).toContain("[4.9 KB of earlier new output not shown; the whole output is in the output file]")
      const body = read.text.slice(read.text.indexOf("]\n") + 2, read.text.indexOf("\n</output>"))
      expect(body).toMatch(/^é+\nEND$/)
      expect(body.length).toBe(497 + 4)
    }))

  it.scopedLive("unknown task ids are clear errors for TaskOutput and TaskStop; TaskStop needs an id and accepts shell_id", () =>
    Effect.gen(function*() {
      const { bash, taskOutput, taskStop, tasks } = yield* setup
      expect(yield* runTool(taskOutput, { task_id: "bnope" }, box.session)).toMatchObject({
        isError: true,
        text: "No task found with ID: bnope"
      })
      expect(yield* runTool(taskStop, { task_id: "bnope" }, box.session)).toMatchObject({
        isError: true,
        text: "No task found with ID: bnope"
      })
      expect(yield* runTool(taskStop, {}, box.session)).toMatchObject({
        isError: true,
        text: "Missing required parameter: task_id"
      })
      expect(yield* runTool(taskOutput, {}, box.session)).toMatchObject({
        isError: true,
        text: expect.stringContaining("`task_id` is missing")
      })
      expect(yield* runTool(taskOutput, { bash_id: "b1" }, box.session)).toMatchObject({ isError: true })
      expect((yield* Effect.flip(tasks.read("bnope", { block: false, waitMs: 0, maxBytes: 100 })))._tag).toBe(
        "UnknownTask"
      )
      expect((yield* Effect.flip(tasks.stop("bnope")))._tag).toBe("UnknownTask")

      const started = yield* runTool(
        bash,
        { command: waitFor(inProject("never")), run_in_background: true },
        box.session
      )
      const id = taskIdOf(started.text)
      expect(yield* runTool(taskStop, { shell_id: id }, box.session)).toMatchObject({
        isError: false,
        text: expect.stringContaining(id)
      })
      expect(Option.getOrThrow(yield* tasks.get(id))).toMatchObject({ status: "killed", stoppedBy: "TaskStop" })
    }))

  it.scopedLive("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS refuses background runs with a clear text; foreground still runs", () =>
    Effect.gen(function*() {
      const { bash, tasks } = yield* setup
      const disabled = Effect.withConfigProvider(
        ConfigProvider.fromMap(new Map([["CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1"]]))
      )
      const refused = yield* runTool(bash, { command: "echo hi", run_in_background: true }, box.session).pipe(disabled)
      expect(refused).toMatchObject({ isError: true, text: BACKGROUND_DISABLED })
      const direct = yield* Effect.either(
        bash.call({ command: "echo hi", run_in_background: true }, yield* makeContext(box.session))
      ).pipe(disabled)
      expect(direct._tag).toBe("Left")
      expect(yield* tasks.list).toEqual([])
      expect(yield* runTool(bash, { command: "echo hi" }, box.session).pipe(disabled)).toMatchObject({
        isError: false,
        text: "hi"
      })
    }))

  it.live("the Bash tool without a background service refuses run_in_background", () =>
    Effect.gen(function*() {
      const refused = yield* runTool(BashTool, { command: "sleep 1", run_in_background: true }, box.session)
      expect(refused).toMatchObject({ isError: true, text: BACKGROUND_NOT_AVAILABLE })
    }))
})

describe("background tools as tools", () => {
  it.scopedLive("flags, aliases and deferral follow the spec's table", () =>
    Effect.gen(function*() {
      const { bash, taskOutput, taskStop } = yield* setup
      yield* bash.warmup
      expect(taskOutput.name).toBe("TaskOutput")
      expect(taskOutput.aliases).toEqual(["BashOutput"])
      expect([taskOutput.isReadOnly({}), taskOutput.isConcurrencySafe({}), taskOutput.shouldDefer]).toEqual([
        true,
        true,
        true
      ])
      expect(taskStop.aliases).toEqual(["KillShell"])
      expect([taskStop.isReadOnly({}), taskStop.isConcurrencySafe({}), taskStop.shouldDefer]).toEqual([
        false,
        true,
        true
      ])
      expect(bash.shouldDefer).toBe(false)
      // A background run is never read-only nor concurrency-safe, even for a read-only command.
      expect(bash.isReadOnly({ command: "ls" })).toBe(true)
      expect(bash.isReadOnly({ command: "ls", run_in_background: true })).toBe(false)
      expect(bash.isConcurrencySafe({ command: "ls", run_in_background: true })).toBe(false)
      expect(yield* bash.footprint!({ command: "ls", run_in_background: true }, box.session)).toEqual({
        reads: ["/"],
        writes: ["/"]
      })
    }))

  it("withBackgroundTools replaces Bash and adds TaskOutput and TaskStop, and leaves a pool without Bash alone", () => {
    const fake = [{ name: "Bash" }, { name: "TaskOutput" }, { name: "TaskStop" }] as never
    expect(withBackgroundTools([ReadTool, BashTool], fake).map((t) => t.name)).toEqual([
      "Read",
      "Bash",
      "TaskOutput",
      "TaskStop"
    ])
    expect(withBackgroundTools([ReadTool], fake)).toEqual([ReadTool])
  })
})

describe("background units", () => {
  it("timeouts: background runs default to 30 min, at most 2 h; TaskOutput waits 30 s by default, at most 10 min, 0 allowed", () => {
    expect([
      backgroundTimeoutMs(undefined),
      backgroundTimeoutMs(0),
      backgroundTimeoutMs(-5),
      backgroundTimeoutMs(1500.2),
      backgroundTimeoutMs(9e9)
    ]).toEqual([
      1_800_000,
      1_800_000,
      1_800_000,
      1501,
      7_200_000
    ])
    expect([taskOutputWaitMs(undefined), taskOutputWaitMs(0), taskOutputWaitMs(-1), taskOutputWaitMs(1e9)]).toEqual([
      30_000,
      0,
      30_000,
      600_000
    ])
  })

  it("a read never ends inside a character while the task runs, and takes the rest once it has ended", () => {
    const euro = Buffer.from("a€", "utf8") // 61 e2 82 ac
    expect(completeUtf8Length(euro)).toBe(4)
    expect(completeUtf8Length(euro.subarray(0, 3))).toBe(1)
    expect(completeUtf8Length(euro.subarray(0, 2))).toBe(1)
    expect(completeUtf8Length(Buffer.from([0x82, 0xac]))).toBe(2)
    const file = path.join(box.root, "out.output")
    fs.writeFileSync(file, euro.subarray(0, 3))
    const partial = readNewOutput(file, 0, 100, false)
    expect(partial).toMatchObject({ text: "a", toByte: 1, omittedBytes: 0 })
    fs.appendFileSync(file, euro.subarray(3))
    expect(readNewOutput(file, partial.toByte, 100, false)).toMatchObject({ text: "€", fromByte: 1, toByte: 4 })
    expect(readNewOutput(file, 4, 100, true)).toMatchObject({ text: "", toByte: 4 })
    expect(readNewOutput(path.join(box.root, "missing"), 0, 100, true).error).toContain("ENOENT")
  })

  it("output files are created exclusively: a taken name means a new id", () => {
    const ids = ["bsame", "bsame", "bother"]
    const first = openOutputFile(path.join(box.root, "tasks"), () => ids.shift()!)
    const second = openOutputFile(path.join(box.root, "tasks"), () => ids.shift()!)
    fs.closeSync(first.fd)
    fs.closeSync(second.fd)
    expect([first.id, second.id]).toEqual(["bsame", "bother"])
    expect((fs.statSync(second.file).mode & 0o777).toString(8)).toBe("600")
  })
})
