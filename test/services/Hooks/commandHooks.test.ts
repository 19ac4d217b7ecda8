/**
 * Command hooks run as real processes (bash + jq, python3, node): exit codes, JSON answers,
 * timeouts, garbage, missing scripts, parallel aggregation (claude-code-spec §2.5–§2.7, §2.10).
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { HookBlocked } from "../../../src/Errors.js"
import {
  bashTool,
  cmd,
  fixture,
  hooksSettings,
  readHangPids,
  waitGone,
  makeProject,
  preToolUse,
  removeProject,
  writeTool
} from "./support.js"

let project: string
beforeEach(() => {
  project = makeProject()
})
afterEach(() => removeProject(project))

const bash = (command: string) => ({ command })
const pre = (
  matcher: string | undefined,
  handlers: ReadonlyArray<Record<string, unknown>>
) => [{ settings: hooksSettings("PreToolUse", matcher, handlers) }]

describe("exit code 2 (§2.5)", () => {
  it.live("a bash + jq hook blocks with its stderr; the model text names the command", () =>
    Effect.gen(function*() {
      const command = fixture("protect-files.sh")
      const outcome = yield* preToolUse(project, pre("Edit|Write", [cmd(command)]), writeTool, {
        file_path: path.join(project, ".env"),
        content: "SECRET=1"
      })
      expect(outcome.decision).toBe("deny")
      // stderr as the hook wrote it, trailing newline included (as Claude Code sends it)
      expect(outcome.block).toEqual({
        command,
        reason: `Blocked: ${path.join(project, ".env")} matches protected pattern '.env'\n`
      })
      const text = new HookBlocked({ toolName: "Write", event: "PreToolUse", ...outcome.block! }).message
      expect(text).toBe(
        `PreToolUse:Write hook error: [${command}]: Blocked: ${
          path.join(project, ".env")
        } matches protected pattern '.env'\n`
      )

      const fine = yield* preToolUse(project, pre("Edit|Write", [cmd(command)]), writeTool, {
        file_path: path.join(project, "a.ts"),
        content: ""
      })
      expect(fine.decision).toBeUndefined()
      expect(fine.notices).toEqual([])
    }))

  it.live("a python validator exits 2 with `• ` advice lines; other commands and tools pass", () =>
    Effect.gen(function*() {
      const command = `python3 ${fixture("bash_validator.py")}`
      const blocked = yield* preToolUse(project, pre("Bash", [cmd(command)]), bashTool, bash("grep -r TODO src"))
      expect(blocked.decision).toBe("deny")
      expect(blocked.block?.command).toBe(command)
      expect(blocked.block?.reason).toBe("• Use 'rg' (ripgrep) instead of 'grep' for better performance and features\n")

      const find = yield* preToolUse(project, pre("Bash", [cmd(command)]), bashTool, bash("find . -name '*.ts'"))
      expect(find.block?.reason).toContain("• Use 'rg --files | rg pattern'")

      const piped = yield* preToolUse(project, pre("Bash", [cmd(command)]), bashTool, bash("cat x | grep y"))
      expect(piped.decision).toBeUndefined()
      const other = yield* preToolUse(project, pre("", [cmd(command)]), writeTool, { file_path: "/tmp/x", content: "" })
      expect(other.decision).toBeUndefined()
    }))

  it.live("exit 2 blocks even when stdout says allow", () =>
    Effect.gen(function*() {
      const command = fixture("exit2-with-allow.sh")
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(command)]), bashTool, bash("ls"))
      expect(outcome.decision).toBe("deny")
      expect(outcome.block).toEqual({ command, reason: "exit code 2 says no\n" })
    }))

  it.live("exit 2 without stderr says `No stderr output`", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(project, pre("Bash", [cmd("exit 2")]), bashTool, bash("ls"))
      expect(outcome.block).toEqual({ command: "exit 2", reason: "No stderr output" })
    }))
})

describe("JSON answers (§2.6)", () => {
  it.live("bash + jq block-rm.sh: JSON deny for rm -rf, nothing otherwise", () =>
    Effect.gen(function*() {
      const settings = pre("Bash", [cmd(fixture("block-rm.sh"))])
      const denied = yield* preToolUse(project, settings, bashTool, bash("rm -rf build"))
      expect(denied.decision).toBe("deny")
      expect(denied.block).toEqual({ reason: "Destructive command blocked by hook: rm -rf build" })
      expect(new HookBlocked({ toolName: "Bash", event: "PreToolUse", ...denied.block! }).message).toBe(
        "PreToolUse:Bash hook error: Destructive command blocked by hook: rm -rf build"
      )
      const fine = yield* preToolUse(project, settings, bashTool, bash("ls -la"))
      expect(fine.decision).toBeUndefined()
    }))

  it.live("node hook: JSON deny with its reason, or ask when configured through the environment", () =>
    Effect.gen(function*() {
      const script = fixture("deny-dangerous.js")
      const denied = yield* preToolUse(
        project,
        pre("Bash", [cmd(`node ${script}`)]),
        bashTool,
        bash("git reset --hard HEAD~1")
      )
      expect(denied.decision).toBe("deny")
      expect(denied.block?.reason).toBe("⛔ [git-reset-hard] git reset --hard discards uncommitted work")
      const asked = yield* preToolUse(
        project,
        pre("Bash", [cmd(`HOOK_ASK_GIT_RESET_HARD=true node ${script}`)]),
        bashTool,
        bash("git reset --hard")
      )
      expect(asked.decision).toBe("ask")
      expect(asked.reason).toBe("⛔ [git-reset-hard] git reset --hard discards uncommitted work")
      const empty = yield* preToolUse(project, pre("Bash", [cmd(`node ${script}`)]), bashTool, bash("git status"))
      expect(empty.decision).toBeUndefined()
      expect(empty.notices).toEqual([])
    }))

  it.live("JSON allow: the outcome says allow (a deny rule still overrides it in the pipeline, §2.8)", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(project, pre("*", [cmd(fixture("allow.sh"))]), bashTool, bash("rm -rf /"))
      expect(outcome.decision).toBe("allow")
      expect(outcome.reason).toBe("approved by allow.sh")
      expect(outcome.block).toBeUndefined()
    }))

  it.live("updatedInput replaces the whole input", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(fixture("update-input.sh"))]), bashTool, {
        command: "ls",
        timeout: 5
      })
      expect(outcome.decision).toBe("allow")
      expect(outcome.updatedInput).toEqual({ command: "echo ls", timeout: 5 })
    }))

  it.live("deprecated top-level decision: approve → allow, block → deny with its reason", () =>
    Effect.gen(function*() {
      const script = fixture("deprecated.sh")
      const approved = yield* preToolUse(project, pre("Bash", [cmd(`${script} approve`)]), bashTool, bash("ls"))
      expect(approved.decision).toBe("allow")
      expect(approved.reason).toBe("legacy approve")
      const blocked = yield* preToolUse(
        project,
        pre("Bash", [cmd(`${script} block 'not today'`)]),
        bashTool,
        bash("ls")
      )
      expect(blocked.decision).toBe("deny")
      expect(blocked.block).toEqual({ reason: "not today" })
    }))

  it.live("a JSON deny without any reason is `Blocked by hook`", () =>
    Effect.gen(function*() {
      const json = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(`echo '${json}'`)]), bashTool, bash("ls"))
      expect(outcome.block).toEqual({ reason: "Blocked by hook" })
    }))

  it.live("a wrong hookEventName is a non-blocking error; the decision is ignored", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(fixture("wrong-event.sh"))]), bashTool, bash("ls"))
      expect(outcome.decision).toBeUndefined()
      expect(outcome.notices).toEqual([
        "PreToolUse:Bash hook error: JSON validation failed at hookSpecificOutput.hookEventName: Hook returned incorrect event name: expected 'PreToolUse' but got 'PostToolUse'"
      ])
    }))

  it.live("a valid JSON object decides even with a non-zero exit", () =>
    Effect.gen(function*() {
      const json =
        `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json wins"}}`
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [cmd(`echo '${json}'; echo oops >&2; exit 1`)]),
        bashTool,
        bash("ls")
      )
      expect(outcome.decision).toBe("deny")
      expect(outcome.block).toEqual({ reason: "json wins" })
      expect(outcome.notices).toEqual([])
    }))

  it.live("continue:false, systemMessage and additionalContext", () =>
    Effect.gen(function*() {
      const json = JSON.stringify({
        continue: false,
        stopReason: "stop now",
        systemMessage: "careful",
        hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "extra context" }
      })
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(`echo '${json}'`)]), bashTool, bash("ls"))
      expect(outcome.stop).toEqual({ reason: "stop now" })
      expect(outcome.notices).toEqual(["careful"])
      expect(outcome.reminders).toEqual(["PreToolUse:Bash hook additional context: extra context"])
    }))

  it.live("context over 10,000 characters becomes a preview and a saved file; a blocking error over 50,000 keeps head and tail", () =>
    Effect.gen(function*() {
      const command =
        `python3 -c 'import json; print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "x" * 25000}}))'`
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(command)]), bashTool, bash("ls"))
      const ctx = outcome.reminders[0]!
      const saved = /Full output saved to: (\S+)\n/.exec(ctx)![1]!
      expect(ctx).toBe(
        `PreToolUse:Bash hook additional context: <persisted-output>\nOutput too large (24.4KB). Full output saved to: ${saved}\n\nPreview (first 2KB):\n${
          "x".repeat(2000)
        }\n...\n</persisted-output>`
      )
      expect(saved.startsWith(path.join(project, ".session", "tool-results", "hook-toolu_01-PreToolUse-"))).toBe(true)
      expect(fs.readFileSync(saved, "utf8")).toBe("x".repeat(25000))

      const deny =
        `python3 -c 'import json; print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "a" + "y" * 60000 + "z"}}))'`
      const denied = yield* preToolUse(project, pre("Bash", [cmd(deny)]), bashTool, bash("ls"))
      const reason = denied.block!.reason
      expect(
        reason.startsWith(
          `a${"y".repeat(24999)}\n\n... [10002 characters truncated] ...\n\n${
            "y".repeat(24999)
          }z\n\n<persisted-output>\nOutput too large (58.6KB).`
        )
      ).toBe(true)
      expect(reason.endsWith(`Preview (first 2KB):\na${"y".repeat(1999)}\n...\n</persisted-output>`)).toBe(true)
    }))
})

describe("broken hooks never approve (§2.5)", () => {
  it.live("a hook that hangs past its timeout is cancelled, its whole process group killed", () =>
    Effect.gen(function*() {
      const pidFile = path.join(project, "hang.pid")
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [cmd(`${fixture("hang.sh")} ${pidFile}`, { timeout: 1 }), cmd(fixture("allow.sh"))]),
        bashTool,
        bash("ls")
      )
      // the allow of the other hook stands; the hung one contributed nothing but a notice
      expect(outcome.decision).toBe("allow")
      expect(outcome.notices).toEqual([
        "PreToolUse:Bash hook error: the hook timed out and was cancelled; its output was discarded"
      ])
      const [shellPid, sleepPid] = readHangPids(pidFile)
      expect(yield* waitGone(shellPid!)).toBe(true)
      expect(yield* waitGone(sleepPid!)).toBe(true)
    }))

  it.live("a timed-out hook alone gives no decision", () =>
    Effect.gen(function*() {
      const pidFile = path.join(project, "hang.pid")
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [cmd(`${fixture("hang.sh")} ${pidFile}`, { timeout: 0.5 })]),
        bashTool,
        bash("ls")
      )
      expect(outcome.decision).toBeUndefined()
      expect(outcome.block).toBeUndefined()
    }))

  it.live("garbage on stdout is plain text: no decision, no crash", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(fixture("garbage.sh"))]), bashTool, bash("ls"))
      expect(outcome.decision).toBeUndefined()
      expect(outcome.updatedInput).toBeUndefined()
      expect(outcome.notices).toEqual([])
    }))

  it.live("broken JSON after a `{` is plain text too", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [cmd(`echo '{"hookSpecificOutput": {"permissionDecision": "allow"'`)]),
        bashTool,
        bash("ls")
      )
      expect(outcome.decision).toBeUndefined()
    }))

  it.live("a missing hook script (exit 127) is a non-blocking error", () =>
    Effect.gen(function*() {
      const missing = path.join(project, "no-such-hook.sh")
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(missing)]), bashTool, bash("rm -rf /"))
      expect(outcome.decision).toBeUndefined()
      expect(outcome.notices).toHaveLength(1)
      expect(outcome.notices[0]).toMatch(
        /^PreToolUse:Bash hook error: Failed with non-blocking status code: .*No such file or directory/
      )
    }))

  it.live("a missing executable in exec form fails to start: a notice", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [cmd(path.join(project, "nope"), { args: ["x"] })]),
        bashTool,
        bash("ls")
      )
      expect(outcome.decision).toBeUndefined()
      expect(outcome.notices[0]).toMatch(/^PreToolUse:Bash hook error: could not start the hook: .*ENOENT/)
    }))

  it.live("exit 1 is non-blocking; the notice has the first stderr line", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(fixture("exit1.sh"))]), bashTool, bash("ls"))
      expect(outcome.decision).toBeUndefined()
      expect(outcome.notices).toEqual([
        "PreToolUse:Bash hook error: Failed with non-blocking status code: something broke"
      ])
    }))

  it.live("a hook killed by a signal gives no decision", () =>
    Effect.gen(function*() {
      const json = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [cmd(`echo '${json}'; kill -SEGV $$`)]),
        bashTool,
        bash("ls")
      )
      expect(outcome.decision).toBeUndefined()
      expect(outcome.notices[0]).toBe("PreToolUse:Bash hook error: the hook was killed by SIGSEGV")
    }))
})

describe("parallel hooks (§2.7)", () => {
  it.live("deny beats allow, and every hook ran to completion", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [cmd(fixture("allow.sh")), cmd(fixture("block-rm.sh")), cmd(`${fixture("record.sh")} ${out}`)]),
        bashTool,
        bash("rm -rf build")
      )
      expect(outcome.decision).toBe("deny")
      expect(outcome.block?.reason).toBe("Destructive command blocked by hook: rm -rf build")
      expect(fs.existsSync(`${out}.done`)).toBe(true)
    }))

  it.live("exit 2 in one hook beats a JSON allow in another", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [cmd(fixture("allow.sh")), cmd("echo no >&2; exit 2")]),
        bashTool,
        bash("ls")
      )
      expect(outcome.decision).toBe("deny")
      expect(outcome.block).toEqual({ command: "echo no >&2; exit 2", reason: "no\n" })
    }))

  it.live("ask beats allow; defer beats ask", () =>
    Effect.gen(function*() {
      const decide = (d: string) =>
        cmd(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${d}"}}'`)
      const asked = yield* preToolUse(project, pre("Bash", [decide("allow"), decide("ask")]), bashTool, bash("ls"))
      expect(asked.decision).toBe("ask")
      const deferred = yield* preToolUse(
        project,
        pre("Bash", [decide("ask"), decide("defer"), decide("allow")]),
        bashTool,
        bash("ls")
      )
      expect(deferred.decision).toBe("defer")
    }))

  it.live("updatedInput comes from the last hook to finish among the winners", () =>
    Effect.gen(function*() {
      const first = path.join(project, "first")
      const second = path.join(project, "second")
      const script = fixture("wait-then.sh")
      // configured second, finishes first
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [cmd(`${script} ${first} ${second} allow cmd-late`), cmd(`${script} - ${first} allow cmd-early`)]),
        bashTool,
        bash("ls")
      )
      expect(outcome.decision).toBe("allow")
      expect(outcome.updatedInput).toEqual({ command: "cmd-late" })
      expect(outcome.reason).toBe("from cmd-late")
    }))

  it.live("the updatedInput of an allow is dropped when another hook asks", () =>
    Effect.gen(function*() {
      const outcome = yield* preToolUse(
        project,
        pre("Bash", [
          cmd(fixture("update-input.sh")),
          cmd(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'`)
        ]),
        bashTool,
        bash("ls")
      )
      expect(outcome.decision).toBe("ask")
      expect(outcome.updatedInput).toBeUndefined()
    }))

  it.live("all additionalContext values are delivered", () =>
    Effect.gen(function*() {
      const ctx = (text: string) =>
        cmd(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"${text}"}}'`)
      const outcome = yield* preToolUse(project, pre("Bash", [ctx("one"), ctx("two")]), bashTool, bash("ls"))
      expect(outcome.decision).toBeUndefined()
      expect([...outcome.reminders].sort()).toEqual([
        "PreToolUse:Bash hook additional context: one",
        "PreToolUse:Bash hook additional context: two"
      ])
    }))
})

describe("background jobs of a hook", () => {
  it.live("a job that keeps stdout open does not hold the call once the hook exited", () =>
    Effect.gen(function*() {
      const pidFile = path.join(project, "bg.pid")
      const command =
        `sleep 60 & echo $! > ${pidFile}; echo '{"decision":"block","reason":"decided before the job ended"}'`
      const outcome = yield* preToolUse(project, pre("Bash", [cmd(command, { timeout: 20 })]), bashTool, bash("ls"))
      process.kill(Number(fs.readFileSync(pidFile, "utf8").trim()), "SIGKILL")
      expect(outcome.decision).toBe("deny")
      expect(outcome.block).toEqual({ reason: "decided before the job ended" })
    }))
})
