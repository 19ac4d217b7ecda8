/**
 * The agent loop's hooks end to end: real hook scripts in a project's `.claude/settings.json`,
 * `toolgate run -p` (in this process, runCliInProcess; the first session through the built CLI),
 * and the real Anthropic SDK against a fake Messages API on 127.0.0.1 where what the model is sent
 * matters (the fake server records every request); the scripted model (`--replay`) elsewhere.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { framesOf, sse, startFakeAnthropic, type FakeAnthropic } from "../support/fakeAnthropic.js"
import { tempDir } from "../support/runtime.js"
import { cleanEnv, runCli, runCliInProcess } from "../services/Agent/cliSupport.js"

let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-test" })
})
afterAll(() => fake.close())

const start = {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 }
  }
}
const end = (stopReason: string) => [
  { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } },
  { type: "message_stop" }
]
const says = (text: string) =>
  sse(
    framesOf([
      start,
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
      { type: "content_block_stop", index: 0 },
      ...end("end_turn")
    ])
  )
const calls = (id: string, name: string, input: unknown) =>
  sse(
    framesOf([
      start,
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id, name, input: {} } },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(input) }
      },
      { type: "content_block_stop", index: 0 },
      ...end("tool_use")
    ])
  )

/** A project whose `.claude/settings.json` runs these hook scripts (bash bodies) for these events. */
const projectWith = (hooks: Record<string, { readonly matcher?: string; readonly script: string }>) => {
  const project = fs.realpathSync(tempDir("toolgate-loop-hooks-"))
  fs.mkdirSync(path.join(project, ".claude", "hooks"), { recursive: true })
  const settings: Record<string, unknown> = {}
  for (const [event, { matcher, script }] of Object.entries(hooks)) {
    const file = path.join(project, ".claude", "hooks", `${event}.sh`)
    fs.writeFileSync(file, `#!/bin/bash\n${script}`, { mode: 0o755 })
    settings[event] = [{ ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: "command", command: file }] }]
  }
  fs.writeFileSync(path.join(project, ".claude", "settings.json"), JSON.stringify({ hooks: settings }))
  return project
}

const live = (project: string, prompt: string, run = runCliInProcess) =>
  run([
    "run",
    "-p",
    prompt,
    "--output-format",
    "json",
    "--model",
    "claude-test",
    "--cwd",
    project,
    "--session-dir",
    path.join(project, ".session")
  ], {
    cwd: project,
    env: cleanEnv({ ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: fake.url }),
    timeoutMs: 60_000
  })

const lines = (file: string): Array<any> => fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l))
const texts = (message: any): Array<string> =>
  message.content.map((b: any) => (b.type === "text" ? b.text : `[${b.type}]`))

describe("UserPromptSubmit, SessionStart, Stop with the real SDK", () => {
  it("SessionStart and UserPromptSubmit context open the first request; a Stop hook that blocks once makes one more request carrying its feedback (built CLI)", async () => {
    const project = projectWith({
      SessionStart: {
        matcher: "startup",
        script:
          `jq -c '{hookSpecificOutput: {hookEventName: "SessionStart", additionalContext: ("started from " + .source)}}'\n`
      },
      UserPromptSubmit: { script: `jq -c . >> "$CLAUDE_PROJECT_DIR/ups.log"\necho "today is a holiday"\n` },
      Stop: {
        script:
          `jq -c . >> "$CLAUDE_PROJECT_DIR/stop.log"\nif [ "$(wc -l < "$CLAUDE_PROJECT_DIR/stop.log")" -gt 1 ]; then exit 0; fi\necho '{"decision": "block", "reason": "run the tests first"}'\n`
      }
    })
    const first = fake.requests.length
    fake.enqueue(says("Done."), says("Tests pass. Done."))
    const ran = await live(project, "fix the bug", runCli)
    expect(ran.code).toBe(0)
    expect(JSON.parse(ran.stdout)).toMatchObject({ is_error: false, result: "Tests pass. Done.", num_turns: 2 })

    const requests = fake.requests.slice(first).map((r) => r.body)
    expect(requests).toHaveLength(2)
    expect(texts(requests[0].messages[0])).toEqual([
      "<system-reminder>\nSessionStart hook additional context: started from startup\n</system-reminder>",
      "<system-reminder>\nUserPromptSubmit hook success: today is a holiday\n</system-reminder>",
      "fix the bug"
    ])
    const stopCommand = path.join(project, ".claude", "hooks", "Stop.sh")
    const last = requests[1].messages.at(-1)
    expect(last.role).toBe("user")
    expect(texts(last)).toEqual([
      `<system-reminder>\nStop hook blocking error from command: "${stopCommand}": run the tests first\n</system-reminder>\n`,
      expect.stringMatching(
        /^<system-reminder>\nThe text below is the output of a hook .*\nStop hook feedback:\nrun the tests first\n<\/system-reminder>$/s
      )
    ])
    expect(requests[1].messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"])

    const [submitted] = lines(path.join(project, "ups.log"))
    expect(submitted).toMatchObject({
      hook_event_name: "UserPromptSubmit",
      prompt: "fix the bug",
      permission_mode: "default",
      cwd: project
    })
    expect(submitted.prompt_id).toMatch(/^[0-9a-f-]{36}$/)
    const stops = lines(path.join(project, "stop.log"))
    expect(stops.map((s) => [s.hook_event_name, s.stop_hook_active, s.last_assistant_message])).toEqual([
      ["Stop", false, "Done."],
      ["Stop", true, "Tests pass. Done."]
    ])
    expect(stops[0].prompt_id).toBe(submitted.prompt_id)
  })

  it("a UserPromptSubmit hook that blocks: nothing is sent to the model, the result says why", async () => {
    const project = projectWith({
      UserPromptSubmit: { script: `cat > /dev/null\necho "prompts are closed" >&2\nexit 2\n` }
    })
    const first = fake.requests.length
    const ran = await live(project, "do something")
    expect(fake.requests.length).toBe(first)
    expect(ran.code).toBe(0)
    const command = path.join(project, ".claude", "hooks", "UserPromptSubmit.sh")
    expect(JSON.parse(ran.stdout)).toMatchObject({
      is_error: false,
      num_turns: 0,
      result:
        `UserPromptSubmit operation blocked by hook:\n[${command}]: prompts are closed\n\n\nOriginal prompt: do something`
    })
  })

  it("PostToolUse feedback is folded into the tool_result it follows", async () => {
    const project = projectWith({
      PostToolUse: {
        matcher: "Read",
        script:
          `jq -c '{decision: "block", reason: "stale file", hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: ("read " + (.tool_response.file.numLines | tostring) + " lines")}}'\n`
      }
    })
    fs.writeFileSync(path.join(project, "a.txt"), "alpha\n")
    const first = fake.requests.length
    fake.enqueue(calls("toolu_r", "Read", { file_path: path.join(project, "a.txt") }), says("ok"))
    const ran = await live(project, "read it")
    expect(ran.code).toBe(0)
    const [result] = fake.requests[first + 1]!.body.messages.at(-1).content
    const command = path.join(project, ".claude", "hooks", "PostToolUse.sh")
    expect(result).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_r",
      content: "1\talpha\n2\n\n" +
        `<system-reminder>\nPostToolUse:Read hook blocking error from command: "${command}": stale file\n</system-reminder>\n\n` +
        "<system-reminder>\nPostToolUse:Read hook additional context: read 2 lines\n</system-reminder>"
    })
  })
})

describe("the loop's hooks with the scripted model", () => {
  const scripted = (
    project: string,
    script: ReadonlyArray<Record<string, unknown>>,
    extra: ReadonlyArray<string> = []
  ) => {
    const file = path.join(project, ".session-script.jsonl")
    fs.writeFileSync(file, script.map((l) => JSON.stringify(l)).join("\n"))
    return runCliInProcess(
      [
        "run",
        "-p",
        "--replay",
        file,
        "--replay-speed",
        "0",
        "--output-format",
        "json",
        "--cwd",
        project,
        "--session-dir",
        path.join(project, ".session"),
        ...extra
      ],
      { cwd: project, env: cleanEnv(), timeoutMs: 60_000 }
    )
  }
  const turn = (...content: ReadonlyArray<Record<string, unknown>>) => ({ type: "turn", content })

  it("SessionStart and SessionEnd frame the session; a SessionStart matcher other than the source does not fire", async () => {
    const project = projectWith({
      SessionStart: { matcher: "startup|resume", script: `jq -c . >> "$CLAUDE_PROJECT_DIR/session.log"\n` },
      SessionEnd: { script: `jq -c . >> "$CLAUDE_PROJECT_DIR/session.log"\n` }
    })
    // a second SessionStart group that must not fire on startup
    const settingsFile = path.join(project, ".claude", "settings.json")
    const settings = JSON.parse(fs.readFileSync(settingsFile, "utf8"))
    settings.hooks.SessionStart.push({
      matcher: "clear",
      hooks: [{ type: "command", command: `echo cleared >> "$CLAUDE_PROJECT_DIR/cleared.log"` }]
    })
    fs.writeFileSync(settingsFile, JSON.stringify(settings))
    const ran = await scripted(project, [{ type: "user", text: "hello" }, turn({ type: "text", text: "Hi." })])
    expect(ran.code).toBe(0)
    const [started, ended] = lines(path.join(project, "session.log"))
    expect(started).toMatchObject({ hook_event_name: "SessionStart", source: "startup", cwd: project })
    expect(Object.keys(started).sort()).toEqual(["cwd", "hook_event_name", "session_id", "source", "transcript_path"])
    expect(ended).toMatchObject({ hook_event_name: "SessionEnd", reason: "other", session_id: started.session_id })
    expect(fs.existsSync(ended.transcript_path)).toBe(true)
    expect(fs.existsSync(path.join(project, "cleared.log"))).toBe(false)
  })

  it("a SubagentStop hook that blocks keeps the subagent going; Stop stays quiet for it", async () => {
    const project = projectWith({
      SubagentStop: {
        script:
          `jq -c . >> "$CLAUDE_PROJECT_DIR/substop.log"\nif [ "$(wc -l < "$CLAUDE_PROJECT_DIR/substop.log")" -gt 1 ]; then exit 0; fi\necho "check once more" >&2\nexit 2\n`
      },
      Stop: { script: `jq -c . >> "$CLAUDE_PROJECT_DIR/stop.log"\n` }
    })
    const ran = await scripted(project, [
      { type: "user", text: "delegate" },
      turn({
        type: "tool_use",
        id: "toolu_a",
        name: "Agent",
        input: { description: "look around", prompt: "Look around.", subagent_type: "general-purpose" }
      }),
      { type: "subagent_turn", agent: "look around", content: [{ type: "text", text: "Looked." }] },
      { type: "subagent_turn", agent: "look around", content: [{ type: "text", text: "Looked twice." }] },
      turn({ type: "text", text: "Done." })
    ])
    expect(ran.code).toBe(0)
    expect(JSON.parse(ran.stdout)).toMatchObject({ is_error: false, result: "Done." })
    const substops = lines(path.join(project, "substop.log"))
    expect(substops.map((s) => [s.hook_event_name, s.stop_hook_active, s.last_assistant_message, s.agent_type]))
      .toEqual([
        ["SubagentStop", false, "Looked.", "general-purpose"],
        ["SubagentStop", true, "Looked twice.", "general-purpose"]
      ])
    expect(substops[0].agent_id).toMatch(/^a[0-9a-f]+$/)
    const stops = lines(path.join(project, "stop.log"))
    expect(stops.map((s) => [s.hook_event_name, s.last_assistant_message])).toEqual([["Stop", "Done."]])
  })

  it("a PreToolUse hook that defers a call stops the run before it: nothing runs, nothing more is asked of the model", async () => {
    const project = projectWith({
      PreToolUse: {
        matcher: "Bash",
        script:
          `cat > /dev/null\necho '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}'\n`
      }
    })
    const ran = await scripted(
      project,
      [
        { type: "user", text: "touch it" },
        turn({ type: "tool_use", id: "toolu_t", name: "Bash", input: { command: "touch touched" } }),
        turn({ type: "text", text: "never reached" })
      ],
      ["--allowed-tools", "Bash"]
    )
    expect(ran.code).toBe(0)
    const result = JSON.parse(ran.stdout)
    expect(result).toMatchObject({
      is_error: false,
      terminal_reason: "tool_deferred",
      num_turns: 1,
      deferred_tool_use: { id: "toolu_t", name: "Bash", input: { command: "touch touched" } }
    })
    expect(fs.existsSync(path.join(project, "touched"))).toBe(false)
  })
})
