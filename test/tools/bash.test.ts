import { shellQuote } from "../../src/internal/shellScript.js"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, Fiber, Schema } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach } from "vitest"
import { BACKGROUND_NOT_AVAILABLE, BashInput, BashTool, makeBashTool } from "../../src/tools/Bash.js"
import { decodeInput } from "../../src/services/InputValidator.js"
import * as ShellAnalyzer from "../../src/services/ShellAnalyzer.js"
import { inputJsonSchema } from "../../src/Tool.js"
import { make as makeFileState } from "../../src/services/FileState.js"
import {
  callBash,
  errorOf,
  makeSandbox,
  readPids,
  recordedInBackground,
  textOf,
  waitForRecords,
  waitForLines,
  waitUntilDead,
  type Sandbox
} from "../fixtures/bash/harness.js"
import { parsePidRecord } from "../support/pidRecords.js"

let box: Sandbox
beforeEach(() => {
  box = makeSandbox()
})
afterEach(() => box.cleanup())

// Short grace so tests that need SIGKILL do not wait long.
const tool = makeBashTool({ killGraceMs: 200 })

describe("Bash results", () => {
  it.live("returns stdout", () =>
    Effect.gen(function*() {
      const outcome = yield* callBash(tool, { command: "echo hello" }, box.session)
      expect(textOf(tool, outcome)).toBe("hello")
      expect(Either.getOrThrow(outcome).contextModifier).toBeUndefined()
    }))

  it.live("one stream in the order written: leading blank lines stripped, trailing whitespace trimmed", () =>
    Effect.gen(function*() {
      const outcome = yield* callBash(tool, {
        command: "printf '\\n \\n  indented\\nlast  \\n\\n'; printf '\\n  warn  \\n' >&2"
      }, box.session)
      expect(textOf(tool, outcome)).toBe("  indented\nlast  \n\n\n  warn")
      const mixed = yield* callBash(tool, { command: "echo e1 >&2; echo o1; echo e2 >&2; echo o2" }, box.session)
      expect(textOf(tool, mixed)).toBe("e1\no1\ne2\no2")
    }))

  it.live("empty output gets the no-output notice", () =>
    Effect.gen(function*() {
      expect(textOf(tool, yield* callBash(tool, { command: "true" }, box.session))).toBe(
        "(Bash completed with no output)"
      )
    }))

  it.live("a non-zero exit is an error: Exit code N, then the output in the order written", () =>
    Effect.gen(function*() {
      const error = errorOf(yield* callBash(tool, { command: "echo out; echo err >&2; exit 3" }, box.session))
      expect(error.reason).toBe("Exit code 3\nout\nerr")
      expect(error.response).toEqual({
        stdout: "out\nerr",
        stderr: "",
        interrupted: false,
        isImage: false,
        noOutputExpected: false
      })
    }))

  it.live("`false` is a real failure", () =>
    Effect.gen(function*() {
      expect(errorOf(yield* callBash(tool, { command: "false" }, box.session)).reason).toBe("Exit code 1")
    }))

  it.live("grep with no match exits 1 and is a success; grep on a missing file (exit 2) is not", () =>
    Effect.gen(function*() {
      fs.writeFileSync(path.join(box.project, "file.txt"), "some text\n")
      const noMatch = yield* callBash(tool, { command: "grep nomatch file.txt" }, box.session)
      expect(textOf(tool, noMatch)).toBe("(Bash completed with no output)")
      expect(BashTool.hookResponse(Either.getOrThrow(noMatch).data)).toMatchObject({ stdout: "", interrupted: false })
      const piped = yield* callBash(tool, { command: "cat file.txt | grep -c nomatch" }, box.session)
      expect(textOf(tool, piped)).toBe("0")
      const missing = errorOf(yield* callBash(tool, { command: "grep x missing.txt" }, box.session))
      expect(missing.reason).toBe("Exit code 2\ngrep: missing.txt: No such file or directory")
      const andList = errorOf(yield* callBash(tool, { command: "false && grep nomatch file.txt" }, box.session))
      expect(andList.reason).toBe("Exit code 1")
    }))

  it.live("a command killed by a signal reports 128 + the signal number", () =>
    Effect.gen(function*() {
      expect(errorOf(yield* callBash(tool, { command: "echo before; kill -9 $$" }, box.session)).reason).toBe(
        "Exit code 137\nbefore"
      )
    }))

  it.live("a shell that cannot start is a tool error naming it", () =>
    Effect.gen(function*() {
      const broken = makeBashTool({ shell: "/nonexistent/bash" })
      const error = errorOf(yield* callBash(broken, { command: "true" }, box.session))
      expect(error.reason).toBe(`Could not start /nonexistent/bash in ${box.project}: spawn /nonexistent/bash ENOENT`)
    }))

  it.live("stdin is /dev/null", () =>
    Effect.gen(function*() {
      expect(textOf(tool, yield* callBash(tool, { command: "cat; echo read-done" }, box.session))).toBe("read-done")
    }))

  it.live("progress is reported while the command runs", () =>
    Effect.gen(function*() {
      const go = path.join(box.root, "go")
      const seen: Array<string> = []
      const quick = makeBashTool({ progressIntervalMs: 50 })
      const outcome = yield* callBash(
        quick,
        { command: `echo one; echo two; while [ ! -e '${go}' ]; do sleep 0.02; done; echo done` },
        box.session,
        {
          onProgress: (p) => {
            seen.push(p.message)
            fs.writeFileSync(go, "")
          }
        }
      )
      expect(textOf(quick, outcome)).toBe("one\ntwo\ndone")
      expect(seen.length).toBeGreaterThan(0)
      expect(seen[0]).toMatch(/^Running for \d+(\.\d)?m?s, \d+ lines? of output$/)
    }))
})

describe("Bash runs exactly the input string with a clean shell", () => {
  it.live("bash evaluates the input, byte for byte, as Claude Code's shell does (`eval`)", () =>
    Effect.gen(function*() {
      const out = path.join(box.root, "exec.txt")
      const command = `printf '%s' "$BASH_EXECUTION_STRING" > '${out}' # "quotes" $HOME \\ \`tick\` ünï 'it'\\''s'`
      textOf(tool, yield* callBash(tool, { command }, box.session))
      const script = fs.readFileSync(out, "utf8")
      expect(script).toBe(`: && eval ${shellQuote(command)}`)
      // the quoted word is the input again when bash reads it
      expect(spawnSync("/bin/bash", ["-c", `printf '%s' ${shellQuote(command)}`], { encoding: "utf8" }).stdout).toBe(
        command
      )
      expect(textOf(tool, yield* callBash(tool, { command: "echo \"$0\" $# \"$*\"" }, box.session))).toBe("/bin/bash 0")
      // a syntax error is named as Claude Code's shell names it
      expect(errorOf(yield* callBash(tool, { command: "echo a; echo (" }, box.session)).reason).toBe(
        "Exit code 2\n/bin/bash: eval: line 1: syntax error near unexpected token `newline'\n/bin/bash: eval: line 1: `echo a; echo ('"
      )
    }))

  it.live("environment variables do not persist, and the tool's own variables are not visible", () =>
    Effect.gen(function*() {
      textOf(
        tool,
        yield* callBash(tool, { command: "export TOOLGATE_TEST_VAR=1; echo $TOOLGATE_TEST_VAR" }, box.session)
      )
      const later = yield* callBash(tool, {
        command: "echo \"${TOOLGATE_TEST_VAR-unset} ${BASH_ENV-none} ${TOOLGATE_CWD_FILE-none}\""
      }, box.session)
      expect(textOf(tool, later)).toBe("unset none none")
    }))

  it.live("--noprofile --norc: rc files are not read, even where bash would read them (ssh detection)", () =>
    Effect.gen(function*() {
      const home = path.join(box.root, "home")
      fs.mkdirSync(home)
      for (const rc of [".bashrc", ".bash_profile", ".profile", ".bash_login"]) {
        fs.writeFileSync(path.join(home, rc), `echo FROM${rc}\n`)
      }
      const env = { ...process.env, HOME: home, SSH_CLIENT: "10.0.0.1 5000 22", SHLVL: "0" }
      // Control: this bash does read ~/.bashrc in this situation without --norc.
      const control = spawnSync("/bin/bash", ["-c", "echo cmd"], { env, encoding: "utf8" })
      const isolated = makeBashTool({ env })
      const outcome = yield* callBash(isolated, { command: "echo cmd" }, box.session)
      expect(textOf(isolated, outcome)).toBe("cmd")
      if (control.stdout.includes("FROM.bashrc")) expect(control.stdout).toBe("FROM.bashrc\ncmd\n")
    }))

  it.live("exported functions and SHELLOPTS from the environment do not reach the command", () =>
    Effect.gen(function*() {
      const env = { ...process.env, "BASH_FUNC_echo%%": "() { builtin echo hijacked; }", SHELLOPTS: "xtrace" }
      const isolated = makeBashTool({ env })
      expect(textOf(isolated, yield* callBash(isolated, { command: "echo plain" }, box.session))).toBe("plain")
    }))
})

describe("Bash timeouts and interruption kill the whole process tree", () => {
  // A child, a grandchild, and a grandchild that ignores SIGTERM (needs SIGKILL).
  const tree = (pids: string) =>
    [
      recordedInBackground("sleep 30", `'${pids}'`),
      recordedInBackground(`bash -c '${recordedInBackground("sleep 30", "\"$0\"")} wait' '${pids}'`, `'${pids}'`),
      `bash -c 'trap "" TERM; ${recordedInBackground("sleep 30", "\"$0\"")} wait' '${pids}' &`,
      waitForRecords(`'${pids}'`, 4),
      `echo started`,
      `wait`
    ].join("\n")

  it.live("on timeout: an error with the output so far and a timeout notice; nothing survives", () =>
    Effect.gen(function*() {
      const pids = path.join(box.root, "pids")
      const outcome = yield* callBash(tool, { command: tree(pids), timeout: 1500 }, box.session)
      const error = errorOf(outcome)
      expect(error.reason).toMatch(/^Exit code \d+\nCommand timed out after 1s\nstarted$/)
      expect(error.response).toMatchObject({ interrupted: true, stdout: "started" })
      const recorded = readPids(pids)
      expect(recorded).toHaveLength(4)
      for (const pid of recorded) expect(yield* waitUntilDead(pid)).toBe(true)
    }))

  it.live("on interruption of the fiber: nothing survives", () =>
    Effect.gen(function*() {
      const pids = path.join(box.root, "pids")
      const fiber = yield* Effect.fork(callBash(tool, { command: tree(pids) }, box.session))
      const recorded = (yield* waitForLines(pids, 4)).map(parsePidRecord)
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      for (const pid of recorded) expect(yield* waitUntilDead(pid)).toBe(true)
    }))

  it.live("processes left running with & are stopped when the command ends", () =>
    Effect.gen(function*() {
      const pidFile = path.join(box.root, "pid")
      const outcome = yield* callBash(tool, {
        command: `${recordedInBackground("sleep 30", `'${pidFile}'`)} ${waitForRecords(`'${pidFile}'`)} echo launched`
      }, box.session)
      expect(textOf(tool, outcome)).toBe("launched")
      expect(yield* waitUntilDead(readPids(pidFile)[0]!)).toBe(true)
    }))

  it.live("the timeout is clamped to the maximum, and BASH_DEFAULT_TIMEOUT_MS applies when none is given", () =>
    Effect.gen(function*() {
      const clamped = errorOf(
        yield* callBash(tool, { command: "sleep 30", timeout: 999_999_999 }, box.session, {
          config: { BASH_MAX_TIMEOUT_MS: "300", BASH_DEFAULT_TIMEOUT_MS: "200" }
        })
      )
      expect(clamped.reason).toMatch(/^Exit code \d+\nCommand timed out after 0s$/)
      const byDefault = errorOf(
        yield* callBash(tool, { command: "sleep 30" }, box.session, { config: { BASH_DEFAULT_TIMEOUT_MS: "250" } })
      )
      expect(byDefault.reason).toMatch(/^Exit code \d+\nCommand timed out after 0s$/)
    }))
})

describe("Bash output over the cap", () => {
  it.live("5 MB of output: a preview and the path in the result, the full output in the file", () =>
    Effect.gen(function*() {
      const size = 5_000_000
      const outcome = yield* callBash(tool, { command: `yes | head -c ${size}` }, box.session, {
        toolUseId: "toolu_big"
      })
      const text = textOf(tool, outcome)
      const file = path.join(box.sessionDir, "bash-output", "toolu_big.txt")
      expect(
        text.startsWith(
          `<persisted-output>\nOutput too large (4.8MB). Full output saved to: ${file}\n\nPreview (first 2KB):\ny\ny\ny\n`
        )
      ).toBe(true)
      expect(text.endsWith("y\n...\n</persisted-output>")).toBe(true)
      expect(text.length).toBeLessThan(2_200)
      const saved = fs.readFileSync(file, "utf8")
      expect(saved.length).toBe(size)
      expect(saved).toBe("y\n".repeat(size / 2))
      const data = Either.getOrThrow(outcome).data
      expect(data.outputFile).toBe(file)
      expect(data.stdout.length).toBeLessThanOrEqual(15_000 + 100)
    }))

  it.live("BASH_MAX_OUTPUT_LENGTH sets the cap; both streams go to the file in the order written; a failure shows the start", () =>
    Effect.gen(function*() {
      const command = "for i in $(seq 1 300); do echo out$i; echo err$i >&2; done; exit 4"
      const error = errorOf(
        yield* callBash(tool, { command }, box.session, {
          config: { BASH_MAX_OUTPUT_LENGTH: "1000" },
          toolUseId: "toolu/../x"
        })
      )
      const file = path.join(box.sessionDir, "bash-output", "toolu____x.txt")
      expect(error.reason.startsWith("Exit code 4\nout1\nerr1\nout2\nerr2\n")).toBe(true)
      expect(error.reason.length).toBeLessThanOrEqual("Exit code 4\n".length + 1000)
      const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n")
      expect(lines).toHaveLength(600)
      expect(new Set(lines)).toEqual(
        new Set(Array.from({ length: 300 }, (_, i) => [`out${i + 1}`, `err${i + 1}`]).flat())
      )
      expect(lines).toEqual(Array.from({ length: 300 }, (_, i) => [`out${i + 1}`, `err${i + 1}`]).flat())
    }))

  it.live("a second call with the same id never overwrites the first file", () =>
    Effect.gen(function*() {
      const config = { BASH_MAX_OUTPUT_LENGTH: "100" }
      yield* callBash(tool, { command: "seq 1 1000" }, box.session, { config, toolUseId: "dup" })
      const second = Either.getOrThrow(
        yield* callBash(tool, { command: "seq 2000 3000" }, box.session, { config, toolUseId: "dup" })
      )
      expect(second.data.outputFile).toBe(path.join(box.sessionDir, "bash-output", "dup-1.txt"))
      expect(fs.readFileSync(path.join(box.sessionDir, "bash-output", "dup.txt"), "utf8").startsWith("1\n2\n")).toBe(
        true
      )
    }))
})

describe("Bash cwd", () => {
  it.live("a cd inside the project carries over", () =>
    Effect.gen(function*() {
      fs.mkdirSync(path.join(box.project, "sub"))
      const outcome = Either.getOrThrow(yield* callBash(tool, { command: "cd sub" }, box.session))
      expect(tool.mapResult(outcome.data, "t")).toBe(
        `(Bash completed with no output)\n\n<system-reminder>\n# Environment update\n - Primary working directory: ${
          path.join(box.project, "sub")
        } (was ${box.project})\n</system-reminder>`
      )
      const next = outcome.contextModifier!(box.session)
      expect(next.cwd).toBe(path.join(box.project, "sub"))
      expect(textOf(tool, yield* callBash(tool, { command: "pwd" }, next))).toBe(path.join(box.project, "sub"))
    }))

  it.live("the cwd trap writes only its own file, whatever variables the command sets", () =>
    Effect.gen(function*() {
      const victim = path.join(box.project, "victim")
      fs.writeFileSync(victim, "keep")
      fs.mkdirSync(path.join(box.project, "sub"))
      for (
        const command of [
          `__toolgate_cwd_file=${victim}; cd sub`,
          `export __toolgate_cwd_file=${victim} TOOLGATE_CWD_FILE=${victim}; cd sub`,
          `declare -g __toolgate_cwd_file=${victim}; cd sub`
        ]
      ) {
        const outcome = yield* callBash(tool, { command }, box.session)
        expect(fs.readFileSync(victim, "utf8"), command).toBe("keep")
        if (Either.isLeft(outcome)) expect.fail(`${command}: ${errorOf(outcome).reason}`)
        expect(Either.getOrThrow(outcome).contextModifier!(box.session).cwd, command).toBe(
          path.join(box.project, "sub")
        )
      }
    }))

  it.live("a cd into an additional working directory carries over; outside them the cwd is reset", () =>
    Effect.gen(function*() {
      const extra = path.join(box.root, "extra")
      fs.mkdirSync(extra)
      const session = { ...box.session, additionalDirectories: [extra] }
      const inside = Either.getOrThrow(yield* callBash(tool, { command: `cd '${extra}'` }, session))
      expect(inside.contextModifier!(session).cwd).toBe(extra)
      const outside = yield* callBash(tool, { command: "cd / && echo moved" }, session)
      expect(textOf(tool, outside)).toBe(`moved\nShell cwd was reset to ${box.project}`)
      expect(Either.getOrThrow(outside).contextModifier).toBeUndefined()
    }))

  it.live("a symlink inside the project that leads outside does not count as inside", () =>
    Effect.gen(function*() {
      fs.symlinkSync(box.root, path.join(box.project, "escape"))
      fs.mkdirSync(path.join(box.project, "real"))
      fs.symlinkSync(path.join(box.project, "real"), path.join(box.project, "alias"))
      const escaped = yield* callBash(tool, { command: "cd escape" }, box.session)
      expect(textOf(tool, escaped)).toBe(`Shell cwd was reset to ${box.project}`)
      const aliased = Either.getOrThrow(yield* callBash(tool, { command: "cd alias" }, box.session))
      expect(aliased.contextModifier!(box.session).cwd).toBe(path.join(box.project, "alias"))
    }))

  it.live("a failing command that leaves the working directories says the cwd was reset", () =>
    Effect.gen(function*() {
      expect(errorOf(yield* callBash(tool, { command: "cd /; exit 2" }, box.session)).reason).toBe(
        `Exit code 2\nShell cwd was reset to ${box.project}`
      )
    }))

  it.live("CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR=1 always returns to the project directory", () =>
    Effect.gen(function*() {
      fs.mkdirSync(path.join(box.project, "sub"))
      const config = { CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: "1" }
      const outcome = yield* callBash(tool, { command: "cd sub; echo hi" }, box.session, { config })
      expect(textOf(tool, outcome)).toBe(`hi\nShell cwd was reset to ${box.project}`)
      expect(Either.getOrThrow(outcome).contextModifier).toBeUndefined()
      const fromSub = { ...box.session, cwd: path.join(box.project, "sub") }
      const back = Either.getOrThrow(yield* callBash(tool, { command: "true" }, fromSub, { config }))
      expect(back.contextModifier!(fromSub).cwd).toBe(box.project)
    }))

  it.live("a cwd that no longer exists falls back to the project directory", () =>
    Effect.gen(function*() {
      const gone = { ...box.session, cwd: path.join(box.project, "gone") }
      const outcome = yield* callBash(tool, { command: "pwd" }, gone)
      expect(textOf(tool, outcome)).toBe(`${box.project}\nShell cwd was reset to ${box.project}`)
      expect(Either.getOrThrow(outcome).contextModifier!(gone).cwd).toBe(box.project)
    }))
})

describe("Bash as a tool", () => {
  it("has a strict schema that coerces numeric and boolean strings", () => {
    expect(Either.isLeft(decodeInput(BashTool, { command: "ls", extra: 1 }))).toBe(true)
    expect(Either.isLeft(decodeInput(BashTool, {}))).toBe(true)
    expect(Either.getOrThrow(decodeInput(BashTool, { command: "ls", timeout: "1000", run_in_background: "false" })))
      .toEqual({
        command: "ls",
        timeout: 1000,
        run_in_background: false
      })
    expect(
      Schema.decodeUnknownSync(BashInput)({ command: "x", dangerouslyDisableSandbox: "true" }).dangerouslyDisableSandbox
    ).toBe(true)
    const json = inputJsonSchema(BashTool) as {
      properties: Record<string, { type: string; description?: string }>
      additionalProperties: boolean
    }
    expect(json.additionalProperties).toBe(false)
    expect(json.properties.timeout).toMatchObject({
      type: "number",
      description: expect.stringContaining("milliseconds")
    })
    expect(json.properties.run_in_background).toMatchObject({ type: "boolean" })
  })

  it.effect("without a background service, run_in_background is refused with a clear message before anything runs", () =>
    Effect.gen(function*() {
      const fileState = yield* makeFileState
      const check = { session: box.session, fileState, mode: "default" as const }
      const refused = yield* Effect.flip(BashTool.validateInput({ command: "sleep 1", run_in_background: true }, check))
      expect(refused.reason).toBe(BACKGROUND_NOT_AVAILABLE)
      yield* BashTool.validateInput({ command: "sleep 1" }, check)
    }))

  it.effect("flags, names and rendering", () =>
    Effect.gen(function*() {
      expect(BashTool.name).toBe("Bash")
      expect(BashTool.userFacingName({ command: "ls" })).toBe("Bash")
      expect(BashTool.maxResultSizeChars).toBe(30_000)
      expect(BashTool.interruptBehavior()).toBe("cancel")
      expect(BashTool.permissionSubject({ command: "git status" }, box.session)).toEqual({
        kind: "bash",
        command: "git status"
      })
      expect(BashTool.renderUse({ command: "echo a\u200bb\nrm -rf x\r" })).toBe("echo a\\u200bb\\nrm -rf x\\r")
      // Fail closed while the shell analyzer is not there: not read-only, not concurrency-safe.
      yield* BashTool.warmup
      expect(BashTool.isConcurrencySafe({ command: "rm -rf /" })).toBe(false)
      expect(BashTool.isReadOnly({ command: "rm -rf /" })).toBe(false)
      expect(yield* BashTool.footprint!({ command: "rm -rf /" }, box.session)).toEqual({ reads: ["/"], writes: ["/"] })
    }))

  it.effect("read-only and concurrency-safe come from the analyzer the tool was built with; without a working one nothing is", () =>
    Effect.gen(function*() {
      const analyzed = makeBashTool({ analyzer: yield* ShellAnalyzer.make })
      expect(analyzed.isReadOnly({ command: "ls -la" })).toBe(false) // before warmup: fail closed
      yield* analyzed.warmup
      expect([analyzed.isReadOnly({ command: "ls -la" }), analyzed.isConcurrencySafe({ command: "ls -la" })]).toEqual([
        true,
        true
      ])
      expect(yield* analyzed.footprint!({ command: "ls -la" }, box.session)).toEqual({ reads: ["/"], writes: [] })
      expect(analyzed.isReadOnly({ command: "ls -la", run_in_background: true })).toBe(false)
      expect(analyzed.isReadOnly({ command: "rm -rf x" })).toBe(false)
      expect(BashTool.isReadOnly({ command: "ls -la" })).toBe(false)
      const unavailable = makeBashTool({ analyzer: yield* ShellAnalyzer.makeUnavailable() })
      yield* unavailable.warmup
      expect(unavailable.isReadOnly({ command: "ls -la" })).toBe(false)
    }))
})
