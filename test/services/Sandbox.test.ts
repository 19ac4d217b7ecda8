/**
 * The kernel sandbox through the default runtime (Runtime.layer): what only the shell analyzer's
 * read-only judgement approved runs where the kernel keeps it read-only. The analyzer here is a
 * test double that makes the mistakes an attacker looks for (it calls `touch`, a redirect, curl,
 * a Unix socket client and a read of a denied file read-only); real bwrap, real files, a real
 * server on 127.0.0.1 and a real Unix socket show that nothing gets written, reached or read.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { contentText } from "../../src/Messages.js"
import * as Runtime from "../../src/layers/Runtime.js"
import * as Sandbox from "../../src/services/Sandbox.js"
import * as Scheduler from "../../src/services/Scheduler.js"
import * as ShellAnalyzer from "../../src/services/ShellAnalyzer.js"
import { newSession } from "../../src/Session.js"
import type { PermissionMode } from "../../src/Permission.js"
import { sharedShellAnalyzer } from "../support/shellAnalyzer.js"
import { tempDir, toolUse } from "../support/runtime.js"
import * as Permission from "../../src/Permission.js"

/**
 * An analyzer that judges the given commands read-only where the real one would ask (a rule's
 * allow or deny still counts), and everything else as the real one does.
 */
const mistakenAnalyzer = (mistakes: ReadonlySet<string>): Layer.Layer<ShellAnalyzer.ShellAnalyzer> =>
  Layer.succeed(ShellAnalyzer.ShellAnalyzer, {
    ...sharedShellAnalyzer,
    isReadOnly: (command) => mistakes.has(command) || sharedShellAnalyzer.isReadOnly(command),
    checkBash: (command, ctx) =>
      Effect.map(
        sharedShellAnalyzer.checkBash(command, ctx),
        (real): Permission.Decision =>
          !mistakes.has(command) || real._tag !== "Ask"
            ? real
            : Permission.allow({ type: "readOnly", detail: "judged read-only (test double)" }, { subcommands: [] })
      )
  })

interface Box {
  readonly root: string
  readonly project: string
  readonly outside: string
}

const makeBox = (): Box => {
  const root = fs.realpathSync(tempDir("toolgate-sandbox-"))
  const project = path.join(root, "project")
  const outside = path.join(root, "outside")
  fs.mkdirSync(project)
  fs.mkdirSync(outside)
  fs.mkdirSync(path.join(root, "home"))
  return { root, project, outside }
}

const runtimeOf = (box: Box, mistakes: ReadonlyArray<string>, extra: Partial<Runtime.RuntimeOptions> = {}) =>
  Runtime.layer({
    cwd: box.project,
    home: path.join(box.root, "home"),
    userConfigDir: path.join(box.root, "home", ".claude"),
    managedDir: path.join(box.root, "managed"),
    mcp: false,
    extensions: { disabled: true },
    shellAnalyzer: mistakenAnalyzer(new Set(mistakes)),
    ...extra
  })

/** Runs each command as a message of its own (a failure must not cancel the others) and gives each result. */
const runEach = (
  box: Box,
  mistakes: ReadonlyArray<string>,
  calls: ReadonlyArray<Record<string, unknown>>,
  extra: Partial<Runtime.RuntimeOptions> = {},
  permissionMode: PermissionMode = "default"
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const services = yield* Layer.buildWithScope(
      runtimeOf(box, mistakes, extra) as Layer.Layer<Scheduler.Scheduler | Sandbox.Sandbox>,
      scope
    )
    const scheduler = Context.get(services, Scheduler.Scheduler)
    const session = newSession({ cwd: box.project, permissionMode, sessionDir: path.join(box.root, "session") })
    const results: Array<{ readonly text: string; readonly isError: boolean }> = []
    for (const [i, input] of calls.entries()) {
      const run = yield* scheduler.runMessage([toolUse(`t${i}`, "Bash", input)], { session })
      const result = run.outcomes[0]!.result
      results.push({ text: contentText(result.content), isError: result.is_error === true })
    }
    yield* Scope.close(scope, Exit.void)
    return results
  })

const listen = <S extends http.Server | net.Server>(server: S, where: number | string) =>
  new Promise<void>((
    resolve
  ) => (typeof where === "number" ? server.listen(where, "127.0.0.1", resolve) : server.listen(where, resolve)))

describe("the read-only sandbox (default on)", () => {
  it.live("a command the analyzer wrongly judged read-only cannot write, connect, reach a Unix socket or read a denied file", () =>
    Effect.gen(function*() {
      const box = makeBox()
      fs.writeFileSync(path.join(box.project, "secret.txt"), "the secret\n")
      let httpHits = 0
      const server = http.createServer((_req, res) => {
        httpHits++
        res.end("reached\n")
      })
      yield* Effect.promise(() => listen(server, 0))
      const port = (server.address() as net.AddressInfo).port
      let socketHits = 0
      const socketPath = path.join(box.outside, "daemon.sock")
      const daemon = net.createServer((c) => {
        socketHits++
        c.end()
      })
      yield* Effect.promise(() => listen(daemon, socketPath))
      const commands = [
        "touch made-by-mistake",
        `echo leaked > ${box.outside}/note.txt`,
        `curl -sS -m 5 http://127.0.0.1:${port}/`,
        `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${socketPath}'); print('connected')"`,
        `python3 -c "print(open('secret.txt').read())"`
      ]
      const results = yield* runEach(
        box,
        commands,
        commands.map((command) => ({ command })),
        { settings: [JSON.stringify({ permissions: { deny: ["Read(./secret.txt)"] } })] }
      ).pipe(Effect.ensuring(Effect.sync(() => (server.close(), daemon.close()))))

      expect(results[0]).toEqual({
        isError: true,
        text: "Exit code 1\ntouch: cannot touch 'made-by-mistake': Read-only file system"
      })
      expect(results[1]).toEqual({
        isError: true,
        text: `Exit code 1\n/bin/bash: line 1: ${box.outside}/note.txt: Read-only file system`
      })
      expect(results[2]!.isError).toBe(true)
      expect(results[2]!.text).toMatch(/^Exit code 7\ncurl: \(7\) Failed to connect to 127\.0\.0\.1 port \d+/)
      expect(results[3]!.isError).toBe(true)
      expect(results[3]!.text).toContain("PermissionError")
      // hidden behind an unreadable empty file, as Claude Code's sandbox hides a denied file
      expect(results[4]!.isError).toBe(true)
      expect(results[4]!.text).toMatch(/PermissionError: \[Errno 13\] Permission denied: 'secret\.txt'$/)
      expect(fs.existsSync(path.join(box.project, "made-by-mistake"))).toBe(false)
      expect(fs.existsSync(path.join(box.outside, "note.txt"))).toBe(false)
      expect(httpHits).toBe(0)
      expect(socketHits).toBe(0)
    }))

  it.live("reads, a private TMPDIR and the cwd reported back still work; background shells stay in the sandbox", () =>
    Effect.gen(function*() {
      const box = makeBox()
      fs.writeFileSync(path.join(box.project, "a.txt"), "alpha\n")
      fs.mkdirSync(path.join(box.project, "sub"))
      const scratch = "f=\"$TMPDIR/x\" && echo scratch > \"$f\" && cat \"$f\""
      const background = "sleep 0.2; touch from-background"
      const results = yield* runEach(box, [scratch, background], [
        { command: "cat a.txt" },
        { command: scratch },
        { command: "cd sub && pwd" },
        { command: background, run_in_background: true },
        { command: "sleep 1; ls" }
      ])
      expect(results[0]).toEqual({ isError: false, text: "alpha" })
      expect(results[1]).toEqual({ isError: false, text: "scratch" })
      expect(results[2]!.text).toContain(path.join(box.project, "sub"))
      expect(results[3]!.isError).toBe(false)
      expect(results[4]).toEqual({ isError: false, text: "a.txt\nsub" })
      expect(fs.existsSync(path.join(box.project, "from-background"))).toBe(false)
    }))

  it.live("in acceptEdits a redirect the mode approved is not read-only, so it writes; what was judged read-only writes nothing, in the working directories either", () =>
    Effect.gen(function*() {
      const box = makeBox()
      fs.mkdirSync(path.join(box.project, ".git", "hooks"), { recursive: true })
      const hook = "echo evil > .git/hooks/pre-commit"
      const outside = `echo leaked > ${box.outside}/note.txt`
      const inside = `python3 -c "open('inside.txt', 'w').write('x')"`
      const results = yield* runEach(
        box,
        [hook, outside, inside],
        [{ command: "echo edited > out.txt" }, { command: hook }, { command: outside }, { command: inside }],
        {},
        "acceptEdits"
      )
      expect(results[0]).toEqual({ isError: false, text: "(Bash completed with no output)" })
      expect(fs.readFileSync(path.join(box.project, "out.txt"), "utf8")).toBe("edited\n")
      expect(results[1]).toEqual({
        isError: true,
        text: "Exit code 1\n/bin/bash: line 1: .git/hooks/pre-commit: Read-only file system"
      })
      expect(results[2]).toEqual({
        isError: true,
        text: `Exit code 1\n/bin/bash: line 1: ${box.outside}/note.txt: Read-only file system`
      })
      expect(fs.existsSync(path.join(box.project, ".git", "hooks", "pre-commit"))).toBe(false)
      expect(results[3]!.isError).toBe(true)
      expect(fs.existsSync(path.join(box.project, "inside.txt"))).toBe(false)
    }))

  it.live("a command an allow rule approved runs as before: the sandbox is for what only the analyzer approved", () =>
    Effect.gen(function*() {
      const box = makeBox()
      const results = yield* runEach(box, ["touch made-by-mistake"], [{ command: "touch made-by-mistake" }], {
        settings: [JSON.stringify({ permissions: { allow: ["Bash(touch:*)"] } })]
      })
      expect(results[0]).toEqual({ isError: false, text: "(Bash completed with no output)" })
      expect(fs.existsSync(path.join(box.project, "made-by-mistake"))).toBe(true)
    }))

  it.live("where no sandbox can start: one line on stderr, and commands run as they did before", () =>
    Effect.gen(function*() {
      const box = makeBox()
      const lines: Array<string> = []
      const none = Sandbox.layer({
        detect: Effect.succeed({ _tag: "Unavailable", reason: "bubblewrap (bwrap) is not installed" }),
        notify: (line) => Effect.sync(() => void lines.push(line))
      })
      const results = yield* runEach(box, ["touch one", "touch two"], [{ command: "touch one" }, {
        command: "touch two"
      }], { sandbox: none })
      expect(results.map((r) => r.isError)).toEqual([false, false])
      expect(fs.existsSync(path.join(box.project, "one")) && fs.existsSync(path.join(box.project, "two"))).toBe(true)
      expect(lines).toEqual([
        "toolgate: warning: no sandbox: bubblewrap (bwrap) is not installed; Bash commands run without one (toolgate doctor shows what protects this machine)"
      ])
    }))
})
