/**
 * A foreground Bash command that passes its timeout moves to the background (Claude Code
 * 2.1.332): the call answers with the output so far and where the rest goes, the command runs on
 * as a task that TaskStop stops and the session's end ends. Commands that start with `sleep`, and
 * every command when background tasks are off, are stopped at the timeout as before.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach } from "vitest"
import { make as makeBackgroundTasks } from "../../src/tools/background/BackgroundTasks.js"
import { makeBackgroundTools } from "../../src/tools/background/BackgroundTools.js"
import { isRecordAlive } from "../support/pidRecords.js"
import {
  makeSandbox,
  readPids,
  recordedInBackground,
  waitForRecords,
  waitUntilDead,
  type Sandbox
} from "../fixtures/bash/harness.js"
import { fileContains, runTool, waitFor, waitUntil } from "../fixtures/background/harness.js"
import { sharedShellAnalyzer } from "../support/shellAnalyzer.js"

let box: Sandbox
beforeEach(() => {
  box = makeSandbox()
})
afterEach(() => box.cleanup())

const setup = Effect.gen(function*() {
  const tasks = yield* makeBackgroundTasks({ killGraceMs: 200 })
  const [bash, , taskStop] = makeBackgroundTools(tasks, { killGraceMs: 200, analyzer: sharedShellAnalyzer })
  return { tasks, bash: bash!, taskStop: taskStop! }
})

const inProject = (name: string) => path.join(box.project, name)

const MOVED =
  /Command did not complete within its 1s timeout and was moved to the background \(ID: (b[0-9a-z]{8})\)\. Output is being written to: (\S+) You will be notified when it completes\. If it is still running after 10m in the background, it will be stopped and you will be notified\. It is running now: do not start a second copy while it runs\. If it is no longer needed, stop it with TaskStop\. (No output had been read from it when it was moved\. A program that buffers its output, or a pipe into one such as tail, can keep the output file empty until the command finishes\. )?To check interim output, use Read on that file path\.$/

const movedOf = (text: string) => {
  const match = MOVED.exec(text.split("\n").find((line) => line.startsWith("Command did not complete")) ?? "")
  if (match === null) throw new Error(`not moved: ${text}`)
  return { id: match[1]!, file: match[2]!, silent: match[3] !== undefined }
}

describe("Bash: a command that passes its timeout", () => {
  it.scopedLive("moves to the background with the output so far, and goes on writing its output file", () =>
    Effect.gen(function*() {
      const { bash, tasks } = yield* setup
      const command = `echo start; ${waitFor(inProject("go"))}; echo late; echo done > '${inProject("done.txt")}'`
      const result = yield* runTool(bash, { command, timeout: 1000 }, box.session)
      expect(result.isError).toBe(false)
      const moved = movedOf(result.text)
      expect(result.text.startsWith(`start\nCommand did not complete`)).toBe(true)
      expect(moved.silent).toBe(false)
      expect(moved.file).toBe(path.join(box.sessionDir, "tasks", `${moved.id}.output`))
      const task = Option.getOrThrow(yield* tasks.get(moved.id))
      expect(task.status).toBe("running")
      fs.writeFileSync(inProject("go"), "")
      yield* waitUntil("the moved command to finish", fileContains(inProject("done.txt"), "done"))
      yield* waitUntil("late in the output file", fileContains(moved.file, "start\nlate\n"))
    }))

  it.scopedLive("says when nothing was printed, and that a cd does not carry over", () =>
    Effect.gen(function*() {
      const { bash } = yield* setup
      fs.mkdirSync(inProject("sub"))
      const result = yield* runTool(
        bash,
        { command: `cd sub && ${waitFor(inProject("never"))}`, timeout: 1000 },
        box.session
      )
      expect(movedOf(result.text).silent).toBe(true)
      expect(result.text.endsWith(
        `\nSession cwd remains ${box.session.cwd}; directory changes made by the backgrounded command do not apply to subsequent commands.`
      )).toBe(true)
      const echoed = yield* runTool(
        bash,
        { command: `echo cd; ${waitFor(inProject("never"))}`, timeout: 1000 },
        box.session
      )
      expect(echoed.text).not.toContain("Session cwd remains")
    }))

  it.scopedLive("long output so far: the last 2000 characters from a whole line, after the output file's path", () =>
    Effect.gen(function*() {
      const { bash } = yield* setup
      const result = yield* runTool(
        bash,
        { command: `seq 1 600; ${waitFor(inProject("never"))}`, timeout: 1000 },
        box.session
      )
      const moved = movedOf(result.text)
      const [header, ...rest] = result.text.slice(0, result.text.indexOf("\nCommand did not complete")).split("\n")
      expect(header).toBe(`[… earlier output omitted; full output: ${moved.file}]`)
      // seq 1 600 is 2292 characters: the last 2000 start inside "101\n", which is dropped
      expect(rest[0]).toBe("102")
      expect(rest.at(-1)).toBe("600")
      expect(rest.length).toBe(499)
    }))

  it.scopedLive("TaskStop stops a moved command, whole process group", () =>
    Effect.gen(function*() {
      const { bash, taskStop, tasks } = yield* setup
      const command = `echo begin; ${recordedInBackground("sleep 1000", `'${inProject("child.pid")}'`)} ${
        waitForRecords(`'${inProject("child.pid")}'`)
      } ${waitFor(inProject("never"))}`
      const moved = movedOf((yield* runTool(bash, { command, timeout: 1000 }, box.session)).text)
      const [child] = readPids(inProject("child.pid"))
      expect(isRecordAlive(child!)).toBe(true)
      const stopped = yield* runTool(taskStop, { task_id: moved.id }, box.session)
      expect(stopped.isError).toBe(false)
      expect(yield* waitUntilDead(child!)).toBe(true)
      expect(Option.getOrThrow(yield* tasks.get(moved.id)).status).toBe("killed")
    }))

  it.scopedLive("a command that starts with sleep is stopped at its timeout (exit 143), as in Claude Code", () =>
    Effect.gen(function*() {
      const { bash, tasks } = yield* setup
      const result = yield* runTool(bash, { command: "sleep 30; echo never", timeout: 1000 }, box.session)
      expect(result).toMatchObject({ isError: true, text: "Exit code 143\nCommand timed out after 1s" })
      expect(yield* tasks.list).toEqual([])
    }))

  it.scopedLive("with background tasks disabled, the command is stopped at its timeout", () =>
    Effect.gen(function*() {
      const { bash } = yield* setup
      const result = yield* runTool(
        bash,
        { command: `echo start; ${waitFor(inProject("never"))}`, timeout: 1000 },
        box.session
      ).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1"]])))
      )
      expect(result).toMatchObject({ isError: true, text: "Exit code 143\nCommand timed out after 1s\nstart" })
    }))

  it.scopedLive("a command that ends in time answers as a foreground call and leaves no task file behind", () =>
    Effect.gen(function*() {
      const { bash, tasks } = yield* setup
      const ok = yield* runTool(bash, { command: "echo out; echo err >&2", timeout: 5000 }, box.session)
      expect(ok).toMatchObject({ isError: false, text: "out\nerr" })
      const failed = yield* runTool(bash, { command: "echo partial; exit 3" }, box.session)
      expect(failed).toMatchObject({ isError: true, text: "Exit code 3\npartial" })
      for (const task of yield* tasks.list) expect(fs.existsSync(task.outputFile)).toBe(false)
    }))

  it.scopedLive("large output in time: the persisted-output form, the full output kept under bash-output", () =>
    Effect.gen(function*() {
      const { bash } = yield* setup
      const result = yield* runTool(bash, { command: "seq 1 20000" }, box.session, "toolu_big")
      const saved = path.join(box.sessionDir, "bash-output", "toolu_big.txt")
      expect(result.text).toContain(`Full output saved to: ${saved}`)
      expect(fs.readFileSync(saved, "utf8")).toBe(Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join(""))
    }))

  it.scopedLive("a cd inside the working directories carries over when the command ends in time", () =>
    Effect.gen(function*() {
      const { bash } = yield* setup
      fs.mkdirSync(inProject("sub"))
      const result = yield* runTool(bash, { command: "cd sub && pwd" }, box.session)
      expect(result.text).toContain(path.join(fs.realpathSync(box.project), "sub"))
      expect(result.text).toContain("Primary working directory")
    }))

  it.scopedLive("interrupting the call stops the command, whole process group", () =>
    Effect.gen(function*() {
      const { bash } = yield* setup
      const command = `${recordedInBackground("sleep 1000", `'${inProject("child.pid")}'`)} ${
        waitForRecords(`'${inProject("child.pid")}'`)
      } ${waitFor(inProject("never"))}`
      const fiber = yield* Effect.fork(runTool(bash, { command }, box.session))
      yield* waitUntil("the child's pid", () =>
        fs.existsSync(inProject("child.pid")) && readPids(inProject("child.pid")).length > 0)
      yield* Fiber.interrupt(fiber)
      expect(yield* waitUntilDead(readPids(inProject("child.pid"))[0]!)).toBe(true)
    }))
})
