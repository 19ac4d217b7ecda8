/**
 * The hooks of the agent loop and the session as the Hooks stage answers them, with real hook
 * processes: what each event reads on stdin, its matcher, and what its output means
 * (blocking, context, continue: false), worded as Claude Code words it.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Hooks from "../../../src/services/Hooks.js"
import {
  cmd,
  fixture,
  hooksLayer,
  hooksSettings,
  makeProject,
  readJson,
  removeProject,
  sessionFor,
  type SourceSpec
} from "./support.js"
import { layerSharedShellAnalyzer } from "../../support/shellAnalyzer.js"

let project: string
beforeEach(() => {
  project = makeProject()
})
afterEach(() => removeProject(project))

const withHooks = <A>(sources: ReadonlyArray<SourceSpec>, f: (hooks: Hooks.HooksService) => Effect.Effect<A>) =>
  Effect.flatMap(Hooks.Hooks, f).pipe(Effect.provide(hooksLayer(project, sources)))

const echo = (json: unknown) => cmd(`cat > /dev/null; echo '${JSON.stringify(json)}'`)
const wrap = (text: string) => `<system-reminder>\n${text}\n</system-reminder>`

describe("UserPromptSubmit", () => {
  const submit = (handlers: ReadonlyArray<Record<string, unknown>>, matcher?: string) =>
    withHooks(
      [{ settings: hooksSettings("UserPromptSubmit", matcher, handlers) }],
      (hooks) => hooks.userPromptSubmit({ prompt: "fix it", session: sessionFor(project, { promptId: "p-1" }) })
    )

  it.live("reads the prompt and prompt_id; JSON context and plain stdout become reminders; a matcher is ignored", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const outcome = yield* submit(
        [
          cmd(
            `${
              fixture("record.sh")
            } ${out}; echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"  as JSON\\n"}}'`
          ),
          cmd("echo '  plain words  '")
        ],
        "NoSuchTool"
      )
      expect(outcome).toEqual({
        reminders: [
          "UserPromptSubmit hook additional context:   as JSON\n",
          "UserPromptSubmit hook success: plain words"
        ],
        notices: []
      })
      expect(readJson(`${out}.json`)).toMatchObject({
        hook_event_name: "UserPromptSubmit",
        prompt: "fix it",
        prompt_id: "p-1",
        permission_mode: "default"
      })
    }))

  it.live("decision block, exit 2 and continue: false block the prompt with Claude Code's words", () =>
    Effect.gen(function*() {
      expect((yield* submit([echo({ decision: "block", reason: "not now" })])).blocked).toBe(
        "UserPromptSubmit operation blocked by hook:\nnot now\n\nOriginal prompt: fix it"
      )
      expect(
        (yield* submit([
          echo({
            decision: "block",
            reason: "quiet",
            hookSpecificOutput: { hookEventName: "UserPromptSubmit", suppressOriginalPrompt: true }
          })
        ])).blocked
      ).toBe(
        "UserPromptSubmit operation blocked by hook:\nquiet"
      )
      expect((yield* submit([cmd("echo nope >&2; exit 2")])).blocked).toBe(
        "UserPromptSubmit operation blocked by hook:\n[echo nope >&2; exit 2]: nope\n\n\nOriginal prompt: fix it"
      )
      expect((yield* submit([echo({ continue: false, stopReason: "closed" })])).blocked).toBe(
        "Operation stopped by hook: closed"
      )
    }))

  it.live("an in-process hook that times out blocks the prompt (it cannot be known what it would have said)", () =>
    Effect.gen(function*() {
      const outcome = yield* Effect.flatMap(
        Hooks.Hooks,
        (hooks) => hooks.userPromptSubmit({ prompt: "x", session: sessionFor(project) })
      ).pipe(
        Effect.provide(
          Hooks.layerInProcess([{ event: "UserPromptSubmit", name: "slow", timeout: 0.05, run: () => Effect.never }])
            .pipe(Layer.provide(layerSharedShellAnalyzer))
        )
      )
      expect(outcome.blocked).toBe(
        "UserPromptSubmit operation blocked by hook:\nslow timed out after 0.05 seconds\n\nOriginal prompt: x"
      )
    }))
})

describe("Stop and SubagentStop", () => {
  const stop = (event: "Stop" | "SubagentStop", handlers: ReadonlyArray<Record<string, unknown>>) =>
    withHooks([{ settings: hooksSettings(event, undefined, handlers) }], (hooks) =>
      hooks.stop({
        session: sessionFor(project, event === "SubagentStop" ? { agent: { id: "a1", type: "Explore" } } : {}),
        stopHookActive: false,
        lastAssistantMessage: "All done."
      }))

  it.live("a block keeps the model going with the blocking error and the framed feedback; exit 2 with the feedback only", () =>
    Effect.gen(function*() {
      const block = echo({ decision: "block", reason: "run the tests" })
      const blocked = yield* stop("Stop", [block])
      expect(blocked.stop).toBeUndefined()
      expect(blocked.continueWith).toHaveLength(2)
      expect(blocked.continueWith[0]).toBe(
        `${wrap(`Stop hook blocking error from command: "${block.command}": run the tests`)}\n`
      )
      expect(blocked.continueWith[1]).toMatch(
        /^<system-reminder>\nThe text below is the output of a hook .*\nStop hook feedback:\nrun the tests\n<\/system-reminder>$/s
      )
      const exit2 = yield* stop("SubagentStop", [cmd("echo again >&2; exit 2")])
      expect(exit2.continueWith).toHaveLength(1)
      expect(exit2.continueWith[0]).toMatch(
        /\nStop hook feedback:\n\[echo again >&2; exit 2\]: again\n\n<\/system-reminder>$/
      )
    }))

  it.live("additionalContext keeps the model going too; continue: false ends the turn whatever else was said", () =>
    Effect.gen(function*() {
      const context = yield* stop("SubagentStop", [
        echo({ hookSpecificOutput: { hookEventName: "SubagentStop", additionalContext: "one more thing" } })
      ])
      expect(context.continueWith).toEqual([wrap("SubagentStop hook additional context: one more thing")])
      const stopped = yield* stop("Stop", [
        echo({ continue: false, stopReason: "enough" }),
        echo({ decision: "block", reason: "go on" })
      ])
      expect(stopped).toMatchObject({ continueWith: [], stop: { reason: "enough" } })
    }))

  it.live("a subagent's stop runs SubagentStop (with its agent fields), never Stop", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const sources = [{
        settings: {
          hooks: {
            Stop: [{ hooks: [cmd(`touch ${out}.stop`)] }],
            SubagentStop: [{ hooks: [cmd(`${fixture("record.sh")} ${out}`)] }]
          }
        }
      }]
      yield* withHooks(sources, (hooks) =>
        hooks.stop({
          session: sessionFor(project, { agent: { id: "a1", type: "Explore" }, promptId: "p-2" }),
          stopHookActive: true,
          lastAssistantMessage: "found it"
        }))
      expect(readJson(`${out}.json`)).toMatchObject({
        hook_event_name: "SubagentStop",
        stop_hook_active: true,
        agent_id: "a1",
        agent_type: "Explore",
        agent_transcript_path: path.join(project, ".session", "transcript.jsonl"),
        last_assistant_message: "found it",
        prompt_id: "p-2"
      })
      expect(fs.existsSync(`${out}.stop`)).toBe(false)
    }))
})

describe("SessionStart, SessionEnd, Notification", () => {
  it.live("SessionStart matches its source; context and plain stdout (named with the source) go to the model; no permission mode", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const sources = [
        {
          settings: {
            hooks: {
              SessionStart: [
                {
                  matcher: "startup",
                  hooks: [
                    cmd(
                      `${
                        fixture("record.sh")
                      } ${out}; echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}'`
                    )
                  ]
                },
                { matcher: "startup", hooks: [cmd("echo hello")] },
                { matcher: "resume|compact", hooks: [cmd("echo never")] }
              ]
            }
          }
        }
      ]
      const outcome = yield* withHooks(
        sources,
        (hooks) => hooks.sessionStart({ session: sessionFor(project), source: "startup" })
      )
      expect(outcome.reminders).toEqual([
        "SessionStart hook additional context: ctx",
        "SessionStart:startup hook success: hello"
      ])
      const input = readJson(`${out}.json`)
      expect(input).toMatchObject({ hook_event_name: "SessionStart", source: "startup" })
      expect(input.permission_mode).toBeUndefined()
    }))

  it.live("SessionEnd matches its reason; Notification its type; their output only ever reaches the person", () =>
    Effect.gen(function*() {
      const out = path.join(project, "rec")
      const sources = [
        {
          settings: {
            hooks: {
              SessionEnd: [{
                matcher: "other",
                hooks: [cmd(`${fixture("record.sh")} ${out}-end; echo '{"systemMessage":"bye"}'`)]
              }],
              Notification: [
                { matcher: "permission_prompt", hooks: [cmd(`${fixture("record.sh")} ${out}-note`)] },
                { matcher: "idle_prompt", hooks: [cmd(`touch ${out}-idle`)] }
              ]
            }
          }
        }
      ]
      const [ended, notified] = yield* withHooks(sources, (hooks) =>
        Effect.all([
          hooks.sessionEnd({ session: sessionFor(project), reason: "other" }),
          hooks.notification({
            session: sessionFor(project),
            message: "Claude needs your permission to use Bash",
            notificationType: "permission_prompt"
          })
        ]))
      expect(ended.notices).toEqual(["bye"])
      expect(notified.notices).toEqual([])
      expect(readJson(`${out}-end.json`)).toMatchObject({ hook_event_name: "SessionEnd", reason: "other" })
      expect(readJson(`${out}-note.json`)).toMatchObject({
        hook_event_name: "Notification",
        message: "Claude needs your permission to use Bash",
        notification_type: "permission_prompt"
      })
      expect(fs.existsSync(`${out}-idle`)).toBe(false)
    }))
})
