/**
 * One agent session of `toolgate run` / `replay`: the transcript, the agent, the prompts (given,
 * from stdin, from a scripted session, or the prompt line), and the output in the format asked
 * for — the final answer (`-p`), the transcript view (a terminal, or `--verbose`), or Claude
 * Code's JSON messages (`--output-format json|stream-json`).
 */
import { Clock, Config, Effect, Option, Stream } from "effect"
import * as path from "node:path"
import type { BadRequest } from "../Errors.js"
import * as Agent from "../services/Agent.js"
import {
  newConversation,
  replayedCallsOf,
  openTranscript,
  TRANSCRIPT_FILE,
  TRANSCRIPT_VERSION,
  type ApprovalRecorder,
  type Conversation,
  type AgentEvent,
  type ReplayedCall,
  type ReplayReport
} from "../services/Agent.js"
import { Extensions } from "../services/Extensions.js"
import { McpClients } from "../services/McpClients.js"
import { DEFAULT_MAX_TOKENS, type ModelClientService } from "../services/ModelClient.js"
import { Sandbox } from "../services/Sandbox.js"
import { ToolRegistry } from "../services/ToolRegistry.js"
import type { SessionContext } from "../Session.js"
import * as AgentTool from "../tools/AgentTool.js"
import * as WebSearch from "../tools/WebSearch.js"
import { VERSION } from "../version.js"
import { interactive, SLASH_COMMANDS } from "./interactive.js"
import { terminationRequested, userInterrupts } from "./interrupts.js"
import type { CommonValues, ScheduleValues } from "./options.js"
import { schedulingOf } from "./options.js"
import {
  ClaudeJsonTracker,
  initMessage,
  isErrorOutcome,
  newStats,
  printedErrorOf,
  resultMessage,
  servedByAnthropicOf,
  toJsonLine,
  type InitInfo,
  type Line
} from "./present/claudeJson.js"
import { debugLine, debugLinesOf } from "./present/debug.js"
import { TextPresenter } from "./present/text.js"
import type { PromptContent } from "./promptInput.js"
import { bold, dim, red } from "./render.js"
import type { ResumedConversation } from "./sessions.js"
import { slashViews } from "./slashViews.js"

export type Format = "text" | "json" | "stream-json"

export interface SessionValues extends CommonValues, ScheduleValues {
  readonly maxTurns: Option.Option<number>
  readonly systemPrompt?: Option.Option<string>
  readonly appendSystemPrompt?: Option.Option<string>
  readonly verbose: boolean
  readonly toolgateEvents: boolean
}

export interface Prompt {
  readonly content: PromptContent
  /** Shown before it runs in the transcript view (it did not come from the command line). */
  readonly echo: boolean
}

export interface SessionPlan {
  readonly values: SessionValues
  /** The model the session runs on (the runtime's ModelClient). */
  readonly client: ModelClientService
  readonly format: Format
  readonly interactive: boolean
  /** The prompts of a non-interactive session, run one after the other until one fails. */
  readonly prompts: Stream.Stream<Prompt, BadRequest>
  /** Interactive: the prompt given on the command line, run first. */
  readonly firstPrompt?: string
  readonly recorder: ApprovalRecorder
  /** Where `ANTHROPIC_API_KEY` came from, for the init message (`none` for a scripted model). */
  readonly apiKeySource: string
  /** The scripted session's first prompt, shown as a hint on the prompt line. */
  readonly recordedPrompt?: string
  /** A session continued with `-c`/`-r`. */
  readonly resumed?: ResumedConversation
  /** Called with every call the session ran, after the last prompt (replay compares them). */
  readonly onDone?: (
    calls: ReadonlyArray<ReplayedCall>,
    session: SessionContext
  ) => Effect.Effect<ReplayReport | undefined>
}

const firstLine = (text: string | null) => (text === null ? "(no result)" : (text.split("\n")[0] ?? "").slice(0, 160))

const printReport = (report: ReplayReport) => {
  const out = process.stdout
  const moved = report.rescheduled.length
  const movedNote = moved === 0
    ? ""
    : dim(`  (${moved} call(s) ran in another parallel batch than recorded; the model saw the same results)\n`)
  if (report.differences.length === 0) {
    out.write(`${bold("replay:")} ${report.calls} tool call(s), all results identical to the recording\n${movedNote}`)
    return
  }
  out.write(movedNote)
  out.write(
    red(`replay: ${report.calls} tool call(s), ${report.identical} identical, ${report.differences.length} different\n`)
  )
  for (const d of report.differences) {
    out.write(
      `  ${d.name} ${d.tool_use_id}${d.line === null ? " (not in the recording)" : ` (transcript line ${d.line})`}\n`
    )
    if (d.batch !== undefined) {
      out.write(`    ran in batch ${d.batch.replayed ?? "-"}, recorded in batch ${d.batch.recorded ?? "-"}\n`)
    }
    if (d.first_difference !== undefined) {
      const f = d.first_difference
      out.write(
        dim(
          `    result line ${f.line}:\n      recorded: ${f.recorded.slice(0, 200)}\n      replayed: ${
            f.replayed.slice(0, 200)
          }\n`
        )
      )
    } else if (d.recorded === null || d.replayed === null) {
      out.write(dim(`    recorded: ${firstLine(d.recorded)}\n    replayed: ${firstLine(d.replayed)}\n`))
    }
  }
}

const promptTextOf = (content: PromptContent): string =>
  typeof content === "string" ? content : content.filter((b) => b.type === "text").map((b) => String(b.text)).join("\n")

/**
 * A session whose record could not be written (a full disk) ends with exit 1: its result must not
 * say "success". Same keys, an honest subtype.
 */
const honestResult = (result: Line, transcriptFailure: string | undefined): Line =>
  transcriptFailure === undefined || result.subtype !== "success"
    ? result
    : { ...result, subtype: "error_during_execution", is_error: true }

/** The session, with the services of the runtime with the agent (`Runtime.layerWithAgent`). */
export const runSession = (plan: SessionPlan) => (session: SessionContext) =>
  Effect.scoped(
    Effect.gen(function*() {
      const { values, format } = plan
      const transcript = yield* openTranscript(path.join(session.sessionDir, TRANSCRIPT_FILE))
      plan.recorder.attach(transcript)
      // the runtime put the Agent tool in the pool; these are the agent types it offers
      const agentTypes = yield* AgentTool.AgentTypes
      // WebSearch asks the Messages API: only a session on Claude has it
      if (!plan.client.model.startsWith("scripted:")) yield* WebSearch.register(plan.client)
      const pool = yield* (yield* ToolRegistry).pool
      const agent = yield* Agent.Agent
      const extensions = yield* Effect.serviceOption(Extensions)
      const servers = yield* (yield* McpClients).servers
      let conversation: Conversation = {
        ...newConversation({ ...session, transcriptPath: transcript.path }),
        ...(plan.resumed === undefined
          ? {}
          : { messages: plan.resumed.messages, usage: plan.resumed.usage, turns: plan.resumed.turns })
      }
      const skills = Option.match(extensions, { onNone: () => [], onSome: (e) => e.loaded.skills.map((s) => s.name) })
      const sandbox = yield* Effect.serviceOption(Sandbox)
      const sandboxEnabled = Option.isSome(sandbox) ? yield* sandbox.value.settingsProfileActive : false
      const baseUrl = yield* Config.option(Config.string("ANTHROPIC_BASE_URL")).pipe(
        Effect.orElseSucceed(() => Option.none<string>())
      )
      const servedByAnthropic = servedByAnthropicOf(plan.client.model, Option.getOrUndefined(baseUrl))
      const maxOutputTokens = yield* Config.integer("TOOLGATE_MAX_OUTPUT_TOKENS").pipe(
        Config.withDefault(DEFAULT_MAX_TOKENS),
        Effect.orElseSucceed(() => DEFAULT_MAX_TOKENS)
      )
      const info: InitInfo = {
        sessionId: session.sessionId,
        model: plan.client.model,
        cwd: session.cwd,
        permissionMode: session.permissionMode,
        tools: pool.tools.map((t) => t.name),
        mcpServers: servers.map((s) => ({ name: s.name, status: s.state })),
        slashCommands: [...SLASH_COMMANDS.map((c) => c.name), ...skills],
        apiKeySource: plan.apiKeySource,
        agents: agentTypes.definitions.map((d) => d.name),
        skills,
        additionalDirectories: session.additionalDirectories,
        version: VERSION,
        transcript: transcript.path,
        terminalSlashCommands: SLASH_COMMANDS.map((c) => c.name),
        sandboxEnabled,
        servedByAnthropic
      }
      const startRecord = {
        session_id: session.sessionId,
        at: new Date(yield* Clock.currentTimeMillis).toISOString(),
        toolgate: VERSION,
        cwd: session.cwd,
        model: plan.client.model,
        permission_mode: session.permissionMode,
        interactive: plan.interactive
      }
      if (plan.resumed === undefined) {
        yield* transcript.write({
          type: "session_start",
          version: TRANSCRIPT_VERSION,
          ...startRecord,
          options: {
            permission_mode: Option.getOrNull(values.permissionMode),
            allowed_tools: values.allowedTools,
            disallowed_tools: values.disallowedTools,
            settings: values.settings,
            add_dir: values.addDir,
            trust_project: values.trustProject,
            max_turns: Option.getOrNull(values.maxTurns),
            schedule: values.schedule,
            max_concurrency: Option.getOrNull(values.maxConcurrency),
            sibling_cancellation: values.siblingCancellation
          },
          tools: info.tools
        })
      } else yield* transcript.write({ type: "session_resume", ...startRecord, tools: info.tools })

      const warn = (notices: ReadonlyArray<string>) =>
        Effect.sync(() => notices.forEach((n) => process.stderr.write(`${n}\n`)))
      const started = yield* agent.startSession(conversation, {
        source: plan.resumed === undefined ? "startup" : "resume",
        transcript
      })
      conversation = started.conversation
      yield* warn(started.notices)
      // Written once: here at the end, or by the finaliser when the session is stopped (a signal).
      let ended = false
      const endSession = (reason: "prompt_input_exit" | "other") =>
        Effect.gen(function*() {
          if (ended) return
          ended = true
          yield* warn(yield* agent.endSession(conversation, reason))
          yield* transcript.write({
            type: "session_end",
            at: new Date(yield* Clock.currentTimeMillis).toISOString(),
            turns: conversation.turns,
            usage: conversation.usage
          })
        })
      yield* Effect.addFinalizer(() => endSession("other"))

      const out = process.stdout
      const write = (line: Line) => Effect.sync(() => void out.write(toJsonLine(line)))
      const viewing = format === "text" && (plan.interactive || values.verbose)
      const text = viewing ? new TextPresenter({ out, pool, timeline: values.timeline }) : undefined
      const ran: Array<ReplayedCall> = []
      const replace = Option.getOrUndefined(values.systemPrompt ?? Option.none())
      const append = Option.getOrUndefined(values.appendSystemPrompt ?? Option.none())
      const systemPrompt = {
        ...(replace === undefined ? {} : { replace }),
        ...(append === undefined ? {} : { append })
      }
      const turnsLimit = Option.getOrUndefined(values.maxTurns)

      const runOne = (content: PromptContent, index: number) =>
        Effect.gen(function*() {
          const started = yield* Clock.currentTimeMillis
          const tracker = format === "text"
            ? undefined
            : new ClaudeJsonTracker(session.sessionId, newStats(started), values.toolgateEvents, Date.now)
          if (format === "stream-json") yield* write(initMessage(info))
          const onEvent = (event: AgentEvent) =>
            Effect.gen(function*() {
              ran.push(...replayedCallsOf(event))
              if (values.debug) { for (const line of debugLinesOf(event)) process.stderr.write(debugLine(line)) }
              if (text !== undefined) yield* text.onEvent(event)
              else if (format === "text" && event._tag === "Retrying") {
                const i = event.info
                process.stderr.write(
                  `toolgate: the API request failed (${i.reason}); retrying in ${i.delayMs} ms (attempt ${
                    i.attempt + 1
                  } of ${i.maxAttempts})\n`
                )
              }
              if (tracker !== undefined) {
                const lines = tracker.onEvent(event)
                if (format === "stream-json") { for (const line of lines) yield* write(line) }
              }
            })
          const outcome = yield* agent.prompt(conversation, content, {
            interrupts: userInterrupts,
            onEvent,
            transcript,
            scheduling: schedulingOf(values),
            systemPrompt,
            ...(turnsLimit === undefined ? {} : { maxTurns: turnsLimit })
          })
          conversation = outcome.conversation
          const now = yield* Clock.currentTimeMillis
          if (text !== undefined) yield* text.promptEnded(outcome, now - started)
          if (tracker !== undefined) {
            const toolgate = values.toolgateEvents
              ? {
                stop: outcome.stop,
                halt: outcome.halt ?? null,
                error: outcome.error === undefined
                  ? null
                  : { type: outcome.error._tag, message: outcome.error.message },
                tool_calls: tracker.stats.calls,
                transcript: transcript.path,
                model_turns: outcome.turns
              }
              : undefined
            const result = resultMessage(outcome, info, tracker.stats, now, turnsLimit, {
              resultIndex: index,
              maxOutputTokens,
              sinceLastResult: format === "stream-json",
              ...(toolgate === undefined ? {} : { toolgate })
            })
            if (format === "stream-json") yield* write(honestResult(result, yield* transcript.failure))
            else lastResult = result
          } else if (text === undefined) {
            // -p: the answer only; an error is the answer, as `claude -p` prints it on stdout
            // SIGTERM ends `claude -p` without a word on stdout
            const failure = terminationRequested() ? undefined : printedErrorOf(outcome, turnsLimit)
            // toolgate's own account of a model failure (what failed, where) stays on stderr for the person
            if (outcome.stop === "error") {
              process.stderr.write(`toolgate: ${outcome.error?.message ?? "the model failed"}\n`)
            }
            if (failure !== undefined) out.write(failure)
            else if (outcome.stop !== "interrupted" && outcome.text !== "") {
              out.write(outcome.text.endsWith("\n") ? outcome.text : `${outcome.text}\n`)
            }
          }
          // the last prompt decides the exit code; after Ctrl-C `claude -p` exits 0 (its result says what
          // happened), and SIGTERM's 143 is set where the signal is handled
          process.exitCode = isErrorOutcome(outcome) ? 1 : 0
          return outcome
        })

      let lastResult: Line | undefined
      if (plan.interactive) {
        out.write(
          `${bold("toolgate")} ${dim(`· ${plan.client.model} · ${session.cwd} · mode ${session.permissionMode}`)}\n` +
            dim(
              plan.resumed === undefined
                ? "Type a task and press Enter; /help lists commands. Ctrl-C interrupts a turn; Ctrl-D or /exit quits.\n"
                : `Resumed session ${session.sessionId} (${plan.resumed.prompts} earlier prompt${
                  plan.resumed.prompts === 1 ? "" : "s"
                }). /help lists commands; Ctrl-D or /exit quits.\n`
            )
        )
        if (plan.firstPrompt === undefined && plan.recordedPrompt !== undefined) {
          out.write(
            dim(
              `Scripted session; its recorded prompt: ${
                JSON.stringify(plan.recordedPrompt)
              } (the scripted model answers any prompt the same way)\n`
            )
          )
        }
        let index = 0
        yield* interactive({
          input: process.stdin,
          output: out,
          prompt: `${bold("›")} `,
          ...(plan.firstPrompt === undefined ? {} : { firstPrompt: plan.firstPrompt }),
          runPrompt: (line) => Effect.asVoid(runOne(line, index++)),
          shouldStop: terminationRequested,
          slash: yield* slashViews(
            () => conversation.session,
            () => void (conversation = { ...conversation, messages: [] })
          )
        })
      } else {
        let index = 0
        yield* plan.prompts.pipe(
          Stream.runForEachWhile((prompt) =>
            Effect.gen(function*() {
              if (text !== undefined && prompt.echo) text.line(`${bold("›")} ${promptTextOf(prompt.content)}`)
              const outcome = yield* runOne(prompt.content, index++)
              return outcome.stop !== "error" && outcome.stop !== "interrupted"
            })
          )
        )
      }
      const report = plan.onDone === undefined ? undefined : yield* plan.onDone(ran, conversation.session)
      yield* endSession(plan.interactive ? "prompt_input_exit" : "other")
      if (lastResult !== undefined) {
        const honest = honestResult(lastResult, yield* transcript.failure)
        const result = report === undefined ? honest : { ...honest, replay: report }
        yield* Effect.sync(() => void out.write(toJsonLine(result)))
      }
      if (report !== undefined) {
        if (format === "text") printReport(report)
        if (report.differences.length > 0 && (process.exitCode === undefined || process.exitCode === 0)) {
          process
            .exitCode = 1
        }
      }
      text?.close()
      if (format === "text" && values.verbose && !plan.interactive) {
        process.stderr.write(
          dim(`transcript: ${transcript.path}\n`)
        )
      }
      // a session whose record is incomplete did not fully succeed
      const lost = yield* transcript.failure
      if (lost !== undefined) {
        process.stderr.write(`toolgate: transcript ${transcript.path}: ${lost}\n`)
        if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = 1
      }
    })
  )
