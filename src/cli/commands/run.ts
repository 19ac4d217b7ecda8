/**
 * `toolgate run [prompt]`: the agent. Interactive on a terminal (a prompt line, streaming text,
 * each call with its progress and result, concurrent calls grouped, permission questions,
 * Ctrl-C interrupts the turn); `-p/--print` runs one prompt headless (asks are denied) with
 * `--output-format text|json|stream-json`. The model is Claude (`ANTHROPIC_API_KEY`,
 * `ANTHROPIC_BASE_URL`, `--model`) or the scripted model (`--replay FILE`, `--model scripted:FILE`).
 * Every session is recorded to `<session dir>/transcript.jsonl`. With a model, the pool has the
 * Agent tool, with the project's and user's `.claude/agents` types: subagents run on Claude (the
 * model the call or the type asks for, see SubagentModels) or on a scripted session's
 * `subagent_turn` lines.
 *
 * `toolgate replay <transcript>`: re-runs a recorded session through the whole pipeline with the
 * scripted model, answering permission questions as they were answered, and compares each
 * tool result with the recorded one (exit 1 when any differs).
 */
import { Args, Command, Options } from "@effect/cli"
import { Clock, Effect, type Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { layerReplayed, makeApprovalRecorder, type ApprovalRecorder } from "../../services/Agent/approvals.js"
import { newConversation } from "../../services/Agent/conversation.js"
import type { AgentEvent } from "../../services/Agent/events.js"
import { interactive } from "../interactive.js"
import { CallCollector, isErrorOutcome, printJson, resultObject, StreamJsonPresenter, type RunInfo } from "../present/json.js"
import { TextPresenter } from "../present/text.js"
import { compareReplay, replayedCallsOf, type ReplayedCall, type ReplayReport } from "../../services/Agent/replay.js"
import { openTranscript, readTranscript, TRANSCRIPT_FILE, TRANSCRIPT_VERSION } from "../../services/Agent/transcript.js"
import * as SubagentModels from "../../services/Agent/subagents/SubagentModels.js"
import { BadRequest } from "../../Errors.js"
import type { ScriptError } from "../../services/ModelClient/errors.js"
import { ModelClient, anthropicFromConfig, type ModelClientService } from "../../services/ModelClient.js"
import { makeScripted } from "../../services/ModelClient/scripted.js"
import { loadScript, type Script } from "../../services/ModelClient/script.js"
import * as Agent from "../../services/Agent.js"
import * as Approver from "../../services/Approver.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import type { SessionContext } from "../../Session.js"
import * as AgentTool from "../../tools/AgentTool.js"
import { readSource } from "../input.js"
import { terminationRequested, userInterrupts } from "../interrupts.js"
import { commonOptions, cwdOf, scheduleOptions, schedulingOf, type CommonValues, type ScheduleValues } from "../options.js"
import { VERSION } from "../../version.js"
import { bold, dim, red } from "../render.js"
import { terminalApproval } from "../mcpApproval.js"
import { withRuntime } from "../runtime.js"
import { isRecord } from "../../internal/json.js"

const outputFormat = Options.choice("output-format", ["text", "json", "stream-json"]).pipe(
  Options.withDescription("With -p: text (what a person reads), json (one result object), stream-json (one JSON object per event)"),
  Options.withDefault("text")
)
const replaySpeed = Options.float("replay-speed").pipe(
  Options.withDescription("Scripted model timing: 1 = as recorded, 2 = twice as fast, 0 = no delays"),
  Options.withDefault(1)
)
const maxTurns = Options.integer("max-turns").pipe(Options.withDescription("Most model turns per prompt"), Options.optional)

const agentOptions = {
  print: Options.boolean("print").pipe(Options.withAlias("p"), Options.withDescription("Run one prompt headless and exit (permission questions are denied)")),
  outputFormat,
  model: Options.text("model").pipe(
    Options.withDescription("A Claude model (default: ANTHROPIC_MODEL, else claude-sonnet-5-5), or scripted:FILE for the scripted model"),
    Options.optional
  ),
  replay: Options.text("replay").pipe(
    Options.withDescription("Use the scripted model on a scripted session or transcript (JSONL); no API key needed"),
    Options.optional
  ),
  replaySpeed,
  maxTurns,
  systemPrompt: Options.text("system-prompt").pipe(Options.withDescription("Replace the system prompt's frame (the tools' prompts are kept)"), Options.optional),
  appendSystemPrompt: Options.text("append-system-prompt").pipe(Options.withDescription("Text added at the end of the system prompt"), Options.optional)
}

interface SessionValues extends CommonValues, ScheduleValues {
  readonly maxTurns: Option.Option<number>
  readonly systemPrompt?: Option.Option<string>
  readonly appendSystemPrompt?: Option.Option<string>
}

type Format = "text" | "json" | "stream-json"

interface Prompt {
  readonly text: string
  /** Shown before it runs (it did not come from the command line). */
  readonly echo: boolean
}

interface SessionPlan {
  readonly values: SessionValues
  readonly client: ModelClientService
  /** Which model each subagent runs on: the parent's, or a scripted session's subagent turns. */
  readonly subagents: Layer.Layer<SubagentModels.SubagentModels, ScriptError, ModelClient>
  readonly format: Format
  readonly interactive: boolean
  readonly prompts: ReadonlyArray<Prompt>
  readonly recorder: ApprovalRecorder
  /** The scripted session's first prompt, shown as a hint on the prompt line. */
  readonly recordedPrompt?: string
  /** Called with every call the session ran, after the last prompt (replay compares them). */
  readonly onDone?: (calls: ReadonlyArray<ReplayedCall>, session: SessionContext) => Effect.Effect<ReplayReport | undefined>
}

const timeScaleOf = (speed: number) => (speed <= 0 ? 0 : 1 / speed)

/** A scripted session's `subagent_turn` lines answer its subagents; live, the model follows the call and the type. */
const subagentModelsOf = (scriptFile: string | undefined, cwd: string, speed: number) =>
  scriptFile === undefined ? SubagentModels.layerAnthropicConfig : SubagentModels.layerScripted(scriptFile, { cwd, timeScale: timeScaleOf(speed) })

const checkNumbers = (values: SessionValues) =>
  Effect.gen(function* () {
    const cap = Option.getOrUndefined(values.maxConcurrency)
    if (cap !== undefined && cap < 1) return yield* new BadRequest({ reason: "--max-concurrency must be at least 1" })
    const turns = Option.getOrUndefined(values.maxTurns)
    if (turns !== undefined && turns < 1) return yield* new BadRequest({ reason: "--max-turns must be at least 1" })
  })



/** One session: the transcript, the agent, the prompts (or the prompt line), the output. */
const runSession = (plan: SessionPlan) => (session: SessionContext) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { values, format } = plan
      const transcript = yield* openTranscript(path.join(session.sessionDir, TRANSCRIPT_FILE))
      plan.recorder.attach(transcript)
      // With a model, the pool gets the Agent tool (subagents run on the same kind of model).
      yield* AgentTool.register().pipe(Effect.provide(plan.subagents), Effect.provideService(ModelClient, plan.client))
      const pool = yield* (yield* ToolRegistry).pool
      const agent = yield* Agent.make.pipe(Effect.provideService(ModelClient, plan.client))
      let conversation = newConversation({ ...session, transcriptPath: transcript.path })
      const warn = (notices: ReadonlyArray<string>) => Effect.sync(() => notices.forEach((n) => process.stderr.write(`${n}\n`)))
      const info: RunInfo = {
        sessionId: session.sessionId,
        model: plan.client.model,
        cwd: session.cwd,
        permissionMode: session.permissionMode,
        transcript: transcript.path,
        tools: pool.tools.map((t) => t.name)
      }
      yield* transcript.write({
        type: "session_start",
        version: TRANSCRIPT_VERSION,
        session_id: session.sessionId,
        at: new Date(yield* Clock.currentTimeMillis).toISOString(),
        toolgate: VERSION,
        cwd: session.cwd,
        model: plan.client.model,
        permission_mode: session.permissionMode,
        interactive: plan.interactive,
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

      const started = yield* agent.startSession(conversation, { source: "startup", transcript })
      conversation = started.conversation
      yield* warn(started.notices)
      // Written once: here at the end, or by the finaliser when the session is stopped (a signal).
      let ended = false
      const endSession = (reason: "prompt_input_exit" | "other") => Effect.gen(function* () {
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

      const text = format === "text" ? new TextPresenter({ out: process.stdout, pool, timeline: values.timeline }) : undefined
      const stream = format === "stream-json" ? new StreamJsonPresenter(process.stdout) : undefined
      const collector = new CallCollector()
      const ran: Array<ReplayedCall> = []
      if (text !== undefined) plan.recorder.setAround(text.aroundAsk)
      if (stream !== undefined) yield* stream.init(info)
      const onEvent = (event: AgentEvent) =>
        Effect.gen(function* () {
          ran.push(...replayedCallsOf(event))
          yield* collector.onEvent(event)
          if (text !== undefined) yield* text.onEvent(event)
          if (stream !== undefined) yield* stream.onEvent(event)
        })
      const replace = Option.getOrUndefined(values.systemPrompt ?? Option.none())
      const append = Option.getOrUndefined(values.appendSystemPrompt ?? Option.none())
      const systemPrompt = { ...(replace === undefined ? {} : { replace }), ...(append === undefined ? {} : { append }) }
      const turnsLimit = Option.getOrUndefined(values.maxTurns)
      const runOne = (prompt: string) =>
        Effect.gen(function* () {
          const started = yield* Clock.currentTimeMillis
          const outcome = yield* agent.prompt(conversation, prompt, {
            interrupts: userInterrupts,
            onEvent,
            transcript,
            scheduling: schedulingOf(values),
            systemPrompt,
            ...(turnsLimit === undefined ? {} : { maxTurns: turnsLimit })
          })
          conversation = outcome.conversation
          const durationMs = (yield* Clock.currentTimeMillis) - started
          if (text !== undefined) yield* text.promptEnded(outcome, durationMs)
          return { outcome, durationMs }
        })

      let last: Effect.Effect.Success<ReturnType<typeof runOne>> | undefined
      if (plan.interactive) {
        const out = process.stdout
        out.write(
          `${bold("toolgate")} ${dim(`· ${plan.client.model} · ${session.cwd} · mode ${session.permissionMode}`)}\n` +
            dim("Type a task and press Enter. Ctrl-C interrupts a turn; Ctrl-D or /exit quits.\n")
        )
        const first = plan.prompts[0]?.text
        if (first === undefined && plan.recordedPrompt !== undefined) {
          out.write(dim(`Scripted session; its recorded prompt: ${JSON.stringify(plan.recordedPrompt)} (the scripted model answers any prompt the same way)\n`))
        }
        yield* interactive({
          input: process.stdin,
          output: out,
          prompt: `${bold("›")} `,
          ...(first === undefined ? {} : { firstPrompt: first }),
          runPrompt: (line) => Effect.asVoid(runOne(line)),
          shouldStop: terminationRequested
        })
      } else {
        for (const prompt of plan.prompts) {
          if (text !== undefined && prompt.echo) text.line(`${bold("›")} ${prompt.text}`)
          last = yield* runOne(prompt.text)
          if (last.outcome.stop === "error" || last.outcome.stop === "interrupted") break
        }
      }
      const report = plan.onDone === undefined ? undefined : yield* plan.onDone(ran, conversation.session)
      yield* endSession(plan.interactive ? "prompt_input_exit" : "other")

      if (last !== undefined) {
        const { outcome, durationMs } = last
        const result = { ...resultObject(outcome, info, collector.calls, durationMs), ...(report === undefined ? {} : { replay: report }) }
        if (format === "json") yield* printJson(process.stdout, result)
        else if (stream !== undefined) yield* stream.result(result)
        else if (outcome.stop === "error") process.stderr.write(`toolgate: ${outcome.error?.message ?? "the model failed"}\n`)
        if (outcome.stop === "interrupted") process.exitCode = 130
        else if (isErrorOutcome(outcome)) process.exitCode = 1
      }
      if (report !== undefined) {
        if (format === "text") printReport(report)
        if (report.differences.length > 0 && (process.exitCode === undefined || process.exitCode === 0)) process.exitCode = 1
      }
      if (format === "text" && !plan.interactive) process.stderr.write(dim(`transcript: ${transcript.path}\n`))
      // a session whose record is incomplete did not fully succeed
      const lost = yield* transcript.failure
      if (lost !== undefined) {
        process.stderr.write(`toolgate: transcript ${transcript.path}: ${lost}\n`)
        if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = 1
      }
    })
  )

const firstLine = (text: string | null) => (text === null ? "(no result)" : (text.split("\n")[0] ?? "").slice(0, 160))

const printReport = (report: ReplayReport) => {
  const out = process.stdout
  if (report.differences.length === 0) {
    out.write(`${bold("replay:")} ${report.calls} tool call(s), all results identical to the recording\n`)
    return
  }
  out.write(red(`replay: ${report.calls} tool call(s), ${report.identical} identical, ${report.differences.length} different\n`))
  for (const d of report.differences) {
    out.write(`  ${d.name} ${d.tool_use_id}${d.line === null ? " (not in the recording)" : ` (transcript line ${d.line})`}\n`)
    out.write(dim(`    recorded: ${firstLine(d.recorded)}\n    replayed: ${firstLine(d.replayed)}\n`))
  }
}

const scriptFileOf = (values: { readonly replay: Option.Option<string>; readonly model: Option.Option<string> }): string | undefined => {
  const replay = Option.getOrUndefined(values.replay)
  if (replay !== undefined) return replay
  const model = Option.getOrUndefined(values.model)
  return model !== undefined && model.startsWith("scripted:") ? model.slice("scripted:".length) : undefined
}

export const run = Command.make(
  "run",
  {
    ...commonOptions,
    ...scheduleOptions,
    ...agentOptions,
    prompt: Args.text({ name: "prompt" }).pipe(Args.withDescription("The task (default: the prompt line on a terminal, stdin otherwise, or the scripted session's prompt)"), Args.optional)
  },
  (values) =>
    Effect.gen(function* () {
      yield* checkNumbers(values)
      const format: Format = values.json ? "json" : (values.outputFormat as Format)
      const tty = process.stdin.isTTY === true && process.stdout.isTTY === true
      const isInteractive = !values.print && format === "text" && tty
      const cwd = cwdOf(values)
      const scriptFile = scriptFileOf(values)
      let script: Script | undefined
      let client: ModelClientService
      if (scriptFile !== undefined) {
        script = yield* loadScript(scriptFile)
        client = yield* makeScripted({ script, cwd, timeScale: timeScaleOf(values.replaySpeed) })
      } else {
        client = yield* anthropicFromConfig(Option.getOrUndefined(values.model))
      }
      const given = Option.getOrUndefined(values.prompt)
      let prompts: ReadonlyArray<Prompt> = given === undefined ? [] : [{ text: given, echo: false }]
      if (!isInteractive && prompts.length === 0) {
        if (script !== undefined && script.prompts.length > 0) prompts = script.prompts.map((text) => ({ text, echo: true }))
        else if (process.stdin.isTTY !== true) prompts = [{ text: yield* readSource("-"), echo: false }]
      }
      if (!isInteractive && prompts.every((p) => p.text.trim() === "")) {
        return yield* new BadRequest({ reason: "no prompt: give it as an argument or on stdin (or run on a terminal without -p for the prompt line)" })
      }
      if (!fs.existsSync(cwd)) return yield* new BadRequest({ reason: `--cwd ${cwd}: no such directory` })
      const recorder = makeApprovalRecorder()
      const approver = recorder.wrap(isInteractive ? Approver.layerTerminal : Approver.layerDeny)
      const recordedPrompt = script?.prompts[0]
      yield* withRuntime(
        values,
        runSession({
          values,
          client,
          subagents: subagentModelsOf(scriptFile, cwd, values.replaySpeed),
          format,
          interactive: isInteractive,
          prompts,
          recorder,
          ...(recordedPrompt === undefined ? {} : { recordedPrompt })
        }),
        { approver },
        isInteractive ? terminalApproval() : undefined
      )
    })
).pipe(Command.withDescription("Run the agent: Claude (ANTHROPIC_API_KEY) or a scripted session (--replay FILE), with toolgate running every tool call"))

const strings = (u: unknown): ReadonlyArray<string> => (Array.isArray(u) ? u.filter((s): s is string => typeof s === "string") : [])

export const replay = Command.make(
  "replay",
  {
    ...commonOptions,
    ...scheduleOptions,
    outputFormat,
    replaySpeed,
    maxTurns,
    transcript: Args.text({ name: "transcript" }).pipe(Args.withDescription("A transcript.jsonl written by `toolgate run` (or a scripted session)"))
  },
  (values) =>
    Effect.gen(function* () {
      yield* checkNumbers(values)
      const read = yield* readTranscript(values.transcript)
      const recorded = isRecord(read.session?.options) ? read.session.options : {}
      const recordedCwd = read.script.recordedCwd
      const cwd = Option.getOrElse(values.cwd, () => (recordedCwd !== undefined && fs.existsSync(recordedCwd) ? recordedCwd : process.cwd()))
      if (!fs.existsSync(cwd)) return yield* new BadRequest({ reason: `--cwd ${cwd}: no such directory` })
      if (read.script.prompts.length === 0) {
        return yield* new BadRequest({ reason: `${values.transcript}: no prompt recorded (expected a line of type "user")` })
      }
      // The recording's permission flags apply unless given again here.
      const mode = typeof recorded.permission_mode === "string" ? Option.some(recorded.permission_mode) : Option.none<string>()
      const merged: SessionValues = {
        ...values,
        cwd: Option.some(path.resolve(cwd)),
        permissionMode: Option.orElse(values.permissionMode, () => mode),
        allowedTools: values.allowedTools.length > 0 ? values.allowedTools : strings(recorded.allowed_tools),
        disallowedTools: values.disallowedTools.length > 0 ? values.disallowedTools : strings(recorded.disallowed_tools),
        settings: values.settings.length > 0 ? values.settings : strings(recorded.settings),
        addDir: values.addDir.length > 0 ? values.addDir : strings(recorded.add_dir),
        trustProject: values.trustProject || recorded.trust_project === true,
        maxTurns: Option.orElse(values.maxTurns, () => (typeof recorded.max_turns === "number" ? Option.some(recorded.max_turns) : Option.none()))
      }
      const client = yield* makeScripted({ script: read.script, cwd: path.resolve(cwd), timeScale: timeScaleOf(values.replaySpeed) })
      const recorder = makeApprovalRecorder()
      const format = (values.json ? "json" : values.outputFormat) as Format
      const recordedSessionDir = typeof read.session?.session_id === "string" ? path.dirname(path.resolve(values.transcript)) : ""
      if (format === "text") {
        process.stdout.write(dim(`replaying ${values.transcript} in ${path.resolve(cwd)}\n`))
      }
      yield* withRuntime(
        merged,
        runSession({
          values: merged,
          client,
          subagents: subagentModelsOf(values.transcript, path.resolve(cwd), values.replaySpeed),
          format,
          interactive: false,
          prompts: read.script.prompts.map((text) => ({ text, echo: true })),
          recorder,
          onDone: (calls, session) =>
            Effect.succeed(
              compareReplay(
                read.calls,
                calls,
                [
                  [recordedSessionDir, "{{session}}"],
                  [recordedCwd ?? "", "{{cwd}}"]
                ],
                [
                  [session.sessionDir, "{{session}}"],
                  [session.projectDir, "{{cwd}}"]
                ]
              )
            )
        }),
        { approver: recorder.wrap(layerReplayed(read.approvals)) }
      )
    })
).pipe(Command.withDescription("Replay a recorded session through the pipeline with the scripted model and compare its tool results"))
