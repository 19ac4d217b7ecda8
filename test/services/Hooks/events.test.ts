/**
 * The other tool events with real hook processes: stdin fields and environment (§2.4, §2.9),
 * PermissionRequest (§2.6.3), PostToolUse / PostToolUseFailure / PostToolBatch (§2.6.4), async hooks.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Hooks from "../../../src/services/Hooks.js"
import {
  bashTool,
  cmd,
  fixture,
  hooksLayer,
  hooksSettings,
  isGone,
  readHangPids,
  makeProject,
  mcpTool,
  preToolUse,
  readJson,
  removeProject,
  sessionFor,
  waitGone,
  writeTool,
  type SourceSpec
} from "./support.js"

let project: string
beforeEach(() => {
  project = makeProject()
})
afterEach(() => removeProject(project))

const withHooks = <A>(sources: ReadonlyArray<SourceSpec>, f: (hooks: Hooks.HooksService) => Effect.Effect<A>) =>
  Effect.flatMap(Hooks.Hooks, f).pipe(Effect.provide(hooksLayer(project, sources)))

describe("stdin JSON and environment (§2.4, §2.9)", () => {
  it.live("PreToolUse input, CLAUDE_PROJECT_DIR, CLAUDECODE, cwd, no terminal", () =>
    Effect.gen(function*() {
      const sub = path.join(project, "pkg")
      fs.mkdirSync(sub)
      const out = path.join(project, "rec")
      const session = sessionFor(project, { cwd: sub, permissionMode: "acceptEdits" })
      yield* preToolUse(
        project,
        [{ settings: hooksSettings("PreToolUse", "Bash", [cmd(`${fixture("record.sh")} ${out}`)]) }],
        bashTool,
        { command: "ls" },
        { session }
      )
      expect(readJson(`${out}.json`)).toEqual({
        session_id: "session-123",
        transcript_path: path.join(project, ".session", "transcript.jsonl"),
        cwd: sub,
        permission_mode: "acceptEdits",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "ls" },
        tool_use_id: "toolu_01"
      })
      const env = readJson(`${out}.env.json`)
      expect(env.CLAUDE_PROJECT_DIR).toBe(project)
      expect(env.CLAUDECODE).toBe("1")
      expect(env.pwd).toBe(sub)
      expect(env.tty).toBe("none")
    }))

  it.live("mcp_server for MCP tools, agent_id/agent_type inside subagents", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const session = sessionFor(project, { agent: { id: "agent-7", type: "Explore" } })
      yield* preToolUse(
        project,
        [{ settings: hooksSettings("PreToolUse", "mcp__memory__.*", [cmd(`${fixture("record.sh")} ${out}`)]) }],
        mcpTool,
        { entities: ["a"] },
        { session }
      )
      const input = readJson(`${out}.json`)
      expect(input.mcp_server).toEqual({ name: "memory", source: "project" })
      expect(input.agent_id).toBe("agent-7")
      expect(input.agent_type).toBe("Explore")
      expect(input.tool_name).toBe("mcp__memory__create_entities")
    }))

  it.live("exec form: no shell, placeholders substituted literally", () =>
    Effect.gen(function*() {
      const handler = cmd(fixture("record.sh"), { args: ["${CLAUDE_PROJECT_DIR}/exec rec"] })
      yield* preToolUse(project, [{ settings: hooksSettings("PreToolUse", "Bash", [handler]) }], bashTool, {
        command: "ls"
      })
      expect(fs.existsSync(path.join(project, "exec rec.done"))).toBe(true)
    }))
})

describe("PermissionRequest (§2.4.2, §2.6.3)", () => {
  const suggestions = [{ rule: "Bash(npm test:*)", behavior: "allow" as const }]
  const request = (hooks: Hooks.HooksService) =>
    hooks.permissionRequest({
      tool: bashTool,
      toolInput: { command: "npm test" },
      session: sessionFor(project),
      suggestions
    })

  it.live("input has permission_suggestions and no tool_use_id; allow with updatedInput and updatedPermissions", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const answer = {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: {
            behavior: "allow",
            updatedInput: { command: "npm test -- --ci" },
            updatedPermissions: [{
              type: "addRules",
              rules: [{ toolName: "Bash", ruleContent: "npm test:*" }],
              behavior: "allow",
              destination: "session"
            }]
          }
        }
      }
      const outcome = yield* withHooks(
        [{
          settings: hooksSettings("PermissionRequest", "Bash", [
            cmd(`${fixture("record.sh")} ${out}; echo '${JSON.stringify(answer)}'`)
          ])
        }],
        request
      )
      expect(outcome.decision).toEqual(answer.hookSpecificOutput.decision)
      const input = readJson(`${out}.json`)
      expect(input.hook_event_name).toBe("PermissionRequest")
      expect(input.tool_use_id).toBeUndefined()
      expect(input.permission_suggestions).toEqual([
        {
          type: "addRules",
          rules: [{ toolName: "Bash", ruleContent: "npm test:*" }],
          behavior: "allow",
          destination: "localSettings"
        }
      ])
    }))

  it.live("exit 2 is ignored; deny (with message and interrupt) beats allow", () =>
    Effect.gen(function*() {
      const ignored = yield* withHooks([{
        settings: hooksSettings("PermissionRequest", "*", [cmd("echo nope >&2; exit 2")])
      }], request)
      expect(ignored).toEqual({ notices: [] })
      const allow = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
      const deny =
        `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not now","interrupt":true}}}`
      const outcome = yield* withHooks([{
        settings: hooksSettings("PermissionRequest", "*", [cmd(`echo '${allow}'`), cmd(`echo '${deny}'`)])
      }], request)
      expect(outcome.decision).toEqual({ behavior: "deny", message: "not now", interrupt: true })
    }))

  it.live("a malformed decision is a notice, never an approval", () =>
    Effect.gen(function*() {
      const bad = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"yes"}}}`
      const outcome = yield* withHooks(
        [{ settings: hooksSettings("PermissionRequest", "*", [cmd(`echo '${bad}'`)]) }],
        request
      )
      expect(outcome.decision).toBeUndefined()
      expect(outcome.notices[0]).toContain("JSON validation failed")
    }))
})

describe("PostToolUse, PostToolUseFailure, PostToolBatch (§2.4.3–§2.4.5, §2.6.4)", () => {
  it.live("PostToolUse: tool_response and duration_ms in; additionalContext, block reason, exit-2 feedback, MCP output out", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const ctx = `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint passed"}}`
      const block = `{"decision":"block","reason":"formatting changed the file"}`
      const mcpOut =
        `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"content":[{"type":"text","text":"redacted"}]}}}`
      const sources = [
        {
          settings: hooksSettings("PostToolUse", "*", [
            cmd(`${fixture("record.sh")} ${out}; echo '${ctx}'`),
            cmd(`echo '${block}'`),
            cmd("echo 'tests failed' >&2; exit 2"),
            cmd(`echo '${mcpOut}'`)
          ])
        }
      ]
      const outcome = yield* withHooks(
        sources,
        (hooks) =>
          hooks.postToolUse({
            tool: mcpTool,
            toolInput: { entities: [] },
            toolUseId: "toolu_9",
            toolResponse: { ok: true },
            durationMs: 12.4,
            session: sessionFor(project)
          })
      )
      const name = "PostToolUse:mcp__memory__create_entities"
      const label = (command: string) => `${name} hook blocking error from command: "${command}"`
      expect(outcome.reminders).toEqual([
        `${name} hook additional context: lint passed`,
        `${label(`echo '${block}'`)}: formatting changed the file`,
        `${label("echo 'tests failed' >&2; exit 2")}: [echo 'tests failed' >&2; exit 2]: tests failed\n`
      ])
      expect(outcome.updatedOutput).toEqual({ content: [{ type: "text", text: "redacted" }] })
      const input = readJson(`${out}.json`)
      expect(input).toMatchObject({
        hook_event_name: "PostToolUse",
        tool_use_id: "toolu_9",
        tool_response: { ok: true },
        duration_ms: 12
      })
    }))

  it.live("updatedMCPToolOutput is ignored for built-in tools", () =>
    Effect.gen(function*() {
      const mcpOut = `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":"x"}}`
      const outcome = yield* withHooks(
        [{ settings: hooksSettings("PostToolUse", "*", [cmd(`echo '${mcpOut}'`)]) }],
        (hooks) =>
          hooks.postToolUse({
            tool: bashTool,
            toolInput: { command: "ls" },
            toolUseId: "t",
            toolResponse: {},
            durationMs: 1,
            session: sessionFor(project)
          })
      )
      expect(outcome.updatedOutput).toBeUndefined()
    }))

  it.live("PostToolUseFailure: error and is_interrupt in; additionalContext and exit-2 stderr out", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const ctx = `{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"try --force"}}`
      const outcome = yield* withHooks(
        [{
          settings: hooksSettings("PostToolUseFailure", "Bash", [
            cmd(`${fixture("record.sh")} ${out}; echo '${ctx}'`),
            cmd("echo bad >&2; exit 2")
          ])
        }],
        (hooks) =>
          hooks.postToolUseFailure({
            tool: bashTool,
            toolInput: { command: "false" },
            toolUseId: "toolu_5",
            error: `Exit code 1\n${"y".repeat(20_000)}`,
            isInterrupt: false,
            durationMs: 3,
            session: sessionFor(project)
          })
      )
      expect(outcome.reminders).toEqual([
        "PostToolUseFailure:Bash hook additional context: try --force",
        "PostToolUseFailure:Bash hook blocking error from command: \"echo bad >&2; exit 2\": [echo bad >&2; exit 2]: bad\n"
      ])
      const input = readJson(`${out}.json`)
      expect(input.is_interrupt).toBe(false)
      expect(input.error.length).toBeLessThan(10_100)
      expect(input.error).toMatch(/^Exit code 1\ny+\.\.\. \[\d+ characters truncated\] \.\.\.y+$/)
    }))

  it.live("PostToolBatch: tool_calls in; matchers ignored; decision block stops the loop", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const outcome = yield* withHooks(
        [{
          settings: hooksSettings("PostToolBatch", "NoSuchTool", [
            cmd(`${fixture("record.sh")} ${out}; echo '{"decision":"block","reason":"enough"}'`)
          ])
        }],
        (hooks) =>
          hooks.postToolBatch({
            calls: [{ toolName: "Bash", toolInput: { command: "ls" }, toolUseId: "toolu_1", toolResponse: "a\nb" }],
            session: sessionFor(project)
          })
      )
      expect(outcome.stop).toEqual({ reason: "enough" })
      expect(readJson(`${out}.json`).tool_calls).toEqual([{
        tool_name: "Bash",
        tool_input: { command: "ls" },
        tool_use_id: "toolu_1",
        tool_response: "a\nb"
      }])
    }))
})

describe("async hooks", () => {
  it.live("run in the background without holding the call, and end with the layer's scope", () =>
    Effect.gen(function*() {
      const pidFile = path.join(project, "async.pid")
      const sources = [{
        settings: hooksSettings("PreToolUse", "Bash", [cmd(`${fixture("hang.sh")} ${pidFile}`, { async: true })])
      }]
      const pids = yield* Effect.gen(function*() {
        const hooks = yield* Hooks.Hooks
        const outcome = yield* hooks.preToolUse({
          tool: bashTool,
          toolInput: { command: "ls" },
          toolUseId: "t",
          session: sessionFor(project)
        })
        expect(outcome.decision).toBeUndefined()
        for (let i = 0; i < 200 && !fs.existsSync(pidFile); i++) yield* Effect.sleep("25 millis")
        const pids = readHangPids(pidFile)
        expect(pids.every((p) => !isGone(p))).toBe(true)
        return pids
      }).pipe(Effect.provide(hooksLayer(project, sources)))
      for (const pid of pids) expect(yield* waitGone(pid)).toBe(true)
    }))
})

describe("interruption", () => {
  it.live("interrupting a call kills its running hook processes", () =>
    Effect.gen(function*() {
      const pidFile = path.join(project, "hang.pid")
      const layer = hooksLayer(project, [{
        settings: hooksSettings("PreToolUse", "Bash", [cmd(`${fixture("hang.sh")} ${pidFile}`)])
      }])
      yield* Effect.gen(function*() {
        const hooks = yield* Hooks.Hooks
        const fiber = yield* Effect.fork(
          hooks.preToolUse({
            tool: bashTool,
            toolInput: { command: "ls" },
            toolUseId: "t",
            session: sessionFor(project)
          })
        )
        for (let i = 0; i < 200 && !fs.existsSync(pidFile); i++) yield* Effect.sleep("25 millis")
        const exit = yield* Fiber.interrupt(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
      }).pipe(Effect.provide(Layer.fresh(layer)))
      const [shellPid, sleepPid] = readHangPids(pidFile)
      expect(yield* waitGone(shellPid!)).toBe(true)
      expect(yield* waitGone(sleepPid!)).toBe(true)
    }))
})

describe("write tool input as hooks see it", () => {
  it.live("file_path is passed as given by the pipeline (absolute)", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const file = path.join(project, "x.txt")
      yield* preToolUse(
        project,
        [{ settings: hooksSettings("PreToolUse", "Write", [cmd(`${fixture("record.sh")} ${out}`)]) }],
        writeTool,
        { file_path: file, content: "c" }
      )
      expect(readJson(`${out}.json`).tool_input).toEqual({ file_path: file, content: "c" })
    }))
})
