/**
 * `toolgate run [prompt]`: the agent. Interactive on a terminal (a prompt line, streaming text,
 * each call with its progress and result, permission questions, slash commands); `-p/--print`
 * runs headless (asks are denied) and prints the final answer, or Claude Code's JSON messages
 * with `--output-format json|stream-json`. The model is Claude (`ANTHROPIC_API_KEY`,
 * `ANTHROPIC_BASE_URL`, `--model`) or the scripted model (`--replay FILE`, `--model
 * scripted:FILE`). Every session is recorded to `<session dir>/transcript.jsonl`; `-c` continues
 * the latest session of the folder, `-r <id>` a given one.
 *
 * `toolgate replay <transcript>`: re-runs a recorded session through the whole pipeline with the
 * scripted model, answering permission questions as they were answered, and compares each
 * tool result with the recorded one (exit 1 when any differs).
 */
import { Args, Command } from "@effect/cli"
import { Config, Effect, Layer, Option, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as readline from "node:readline"
import { BadRequest } from "../../Errors.js"
import {
  layerReplayed,
  makeApprovalRecorder,
  compareReplay,
  SubagentModels,
  readTranscript
} from "../../services/Agent.js"
import * as Approver from "../../services/Approver.js"
import {
  anthropicFromConfig,
  loadScript,
  makeScripted,
  ModelClient,
  type ModelClientService,
  type Script
} from "../../services/ModelClient.js"
import { runSession, type Format, type Prompt, type SessionValues } from "../agentSession.js"
import * as F from "../flags.js"
import { readSource } from "../input.js"
import { commonFlags, cwdOf, runtimeOptions, scheduleFlags, type CommonValues } from "../options.js"
import { streamJsonPrompts } from "../promptInput.js"
import {
  firstPromptOf,
  findSession,
  loadConversation,
  sessionsOf,
  type ResumedConversation,
  type StoredSession
} from "../sessions.js"
import type { CommandSpec } from "../spec.js"
import { UsageError } from "../usageError.js"
import { withAgentRuntime } from "../runtime.js"
import { layerCliTerminal } from "../terminalApprover.js"
import { terminalApproval } from "../mcpApproval.js"
import type { McpClientsOptions } from "../../services/McpClients.js"
import { isRecord } from "../../internal/json.js"
import { builtinTools } from "../../tools/index.js"

const agent = { group: "agent" } as const

const outputFormat = F.choiceWithDefault(
  "output-format",
  ["text", "json", "stream-json"],
  "text",
  "With -p: text (the final answer), json (one result object), stream-json (one JSON message per line); Claude Code's formats",
  { ...agent, spellings: ["outputFormat"] }
)
const replaySpeed = F.floatWithDefault(
  "replay-speed",
  "<x>",
  1,
  "Scripted model timing: 1 = as recorded, 2 = twice as fast, 0 = no delays",
  agent
)
const maxTurns = F.optionalInteger("max-turns", "<n>", "Most model turns per prompt", {
  ...agent,
  spellings: ["maxTurns"]
})
const verbose = F.boolean(
  "verbose",
  "With -p: show the whole run (each call and its result, the tokens) instead of the answer alone",
  agent
)
const toolgateEvents = F.boolean(
  "toolgate-events",
  "With json or stream-json: add toolgate's own records (tool_call lines with batch and times; the call timeline on the result)",
  agent
)

const runFlags = {
  print: F.boolean("print", "Run headless and print the answer (permission questions are denied)", {
    ...agent,
    short: "p"
  }),
  outputFormat,
  inputFormat: F.choiceWithDefault(
    "input-format",
    ["text", "stream-json"],
    "text",
    "text (the prompt as an argument or on stdin) or stream-json (user messages on stdin, one JSON object a line; needs --output-format stream-json)",
    { ...agent, spellings: ["inputFormat"] }
  ),
  verbose,
  continue: F.boolean("continue", "Continue the most recent session of this folder", { ...agent, short: "c" }),
  resume: F.textWithOptionalValue(
    "resume",
    "<session>",
    "Resume a session by its id (or its folder or transcript); alone, pick one of this folder's sessions",
    (token) => !/\s/.test(token),
    { ...agent, short: "r" }
  ),
  dangerouslySkipPermissions: F.boolean(
    "dangerously-skip-permissions",
    "Same as --permission-mode bypassPermissions: nothing asks (deny rules and safety checks still apply)",
    agent
  ),
  model: F.optionalText(
    "model",
    "<model>",
    "A Claude model (default: ANTHROPIC_MODEL, else claude-sonnet-5-5), or scripted:FILE for the scripted model",
    agent
  ),
  replay: F.optionalText(
    "replay",
    "<file>",
    "Use the scripted model on a scripted session or transcript (JSONL); no API key needed",
    agent
  ),
  replaySpeed,
  maxTurns,
  systemPrompt: F.optionalText(
    "system-prompt",
    "<text>",
    "Replace the system prompt's frame (the tools' prompts are kept)",
    { ...agent, spellings: ["systemPrompt"] }
  ),
  appendSystemPrompt: F.optionalText("append-system-prompt", "<text>", "Text added at the end of the system prompt", {
    ...agent,
    spellings: ["appendSystemPrompt"]
  }),
  toolgateEvents,
  tools: F.optionalText(
    "tools",
    "<tools...>",
    "The built-in tools to offer, space- or comma-separated (\"\" none, \"default\" all), as Claude Code's --tools; custom and MCP tools stay",
    agent
  )
}

/**
 * Built-in tools beyond the runtime's list: Bash's TaskOutput and TaskStop, and what `run` adds
 * when a model runs it (the Agent tool also answers to Task).
 */
const OTHER_BUILTINS: ReadonlyArray<{ readonly name: string; readonly aliases: ReadonlyArray<string> }> = [
  { name: "TaskOutput", aliases: [] },
  { name: "TaskStop", aliases: [] },
  { name: "Agent", aliases: ["Task"] },
  { name: "WebSearch", aliases: [] }
]

/**
 * `--tools`: every built-in tool it does not name becomes a bare deny rule, which takes the tool
 * out of the pool (names it does not know are ignored, as Claude Code does).
 */
const deniedByToolsFlag = (tools: Option.Option<string>): ReadonlyArray<string> => {
  if (Option.isNone(tools)) return []
  const named = new Set(tools.value.split(/[\s,]+/).filter((n) => n !== ""))
  if (named.has("default")) return []
  return [...builtinTools, ...OTHER_BUILTINS].filter((t) => !named.has(t.name) && !t.aliases.some((a) => named.has(a)))
    .map((t) => t.name)
}

const replayFlags = { outputFormat, replaySpeed, maxTurns, toolgateEvents }

export const runSpec: CommandSpec = {
  path: ["run"],
  summary:
    "Run the agent: Claude (ANTHROPIC_API_KEY) or a scripted session (--replay FILE), with toolgate running every tool call",
  args: [{
    name: "prompt",
    optional: true,
    description: "The task (default: the prompt line on a terminal, stdin otherwise, or the scripted session's prompt)"
  }],
  flags: F.metasOf(runFlags, scheduleFlags, commonFlags),
  details: [
    "Sessions are kept in ~/.toolgate/projects/<folder>/<session id>/transcript.jsonl (or --session-dir); -c continues the latest one of the folder, -r <id> a given one.",
    "Exit code 1 when the prompt fails (a model error, --max-turns reached) or the command line is wrong, 0 after Ctrl-C (the output says the run was stopped), 143 after SIGTERM: as claude -p."
  ]
}

export const replaySpec: CommandSpec = {
  path: ["replay"],
  summary: "Replay a recorded session through the pipeline with the scripted model and compare its tool results",
  args: [
    {
      name: "transcript",
      description:
        "A session: its id, its folder, or its transcript.jsonl (`toolgate run` keeps them in ~/.toolgate/projects/<folder>/<session id>/, or in --session-dir); a scripted session file works too"
    }
  ],
  flags: F.metasOf(replayFlags, scheduleFlags, commonFlags),
  details: [
    "It runs in the session's recorded working directory unless --cwd names another (a copy of the folder, say), and answers permission questions as they were answered. It compares each call's result and the parallel batch it ran in; exit code 1 when any differs."
  ]
}

const mcpOptionsOf = (values: CommonValues, approveMcp: McpClientsOptions["approve"]) => {
  const mcp = runtimeOptions(values, approveMcp).mcp
  return mcp === false || mcp === undefined ? {} : mcp
}

const timeScaleOf = (speed: number) => (speed <= 0 ? 0 : 1 / speed)

/** A scripted session's `subagent_turn` lines answer its subagents; live, the model follows the call and the type. */
const subagentModelsOf = (scriptFile: string | undefined, cwd: string, speed: number) =>
  scriptFile === undefined
    ? SubagentModels.layerAnthropicConfig
    : SubagentModels.layerScripted(scriptFile, { cwd, timeScale: timeScaleOf(speed) })

const checkNumbers = (
  values: { readonly maxConcurrency: Option.Option<number>; readonly maxTurns: Option.Option<number> }
) =>
  Effect.gen(function*() {
    const cap = Option.getOrUndefined(values.maxConcurrency)
    if (cap !== undefined && cap < 1) return yield* new UsageError({ reason: "--max-concurrency must be at least 1" })
    const turns = Option.getOrUndefined(values.maxTurns)
    if (turns !== undefined && turns < 1) return yield* new UsageError({ reason: "--max-turns must be at least 1" })
  })

const scriptFileOf = (
  values: { readonly replay: Option.Option<string>; readonly model: Option.Option<string> }
): string | undefined => {
  const replay = Option.getOrUndefined(values.replay)
  if (replay !== undefined) return replay
  const model = Option.getOrUndefined(values.model)
  return model !== undefined && model.startsWith("scripted:") ? model.slice("scripted:".length) : undefined
}

const apiKeySource = Config.option(Config.string("ANTHROPIC_API_KEY")).pipe(
  Effect.map((key) => (Option.isSome(key) && key.value.trim() !== "" ? "ANTHROPIC_API_KEY" : "none")),
  Effect.orElseSucceed(() => "none")
)

/** `-r` alone on a terminal: the folder's sessions, newest first, and a number to pick. */
const pickSession = (cwd: string): Effect.Effect<StoredSession, BadRequest> =>
  Effect.gen(function*() {
    const sessions = sessionsOf(cwd).slice(0, 20)
    if (sessions.length === 0) return yield* new BadRequest({ reason: `no sessions to resume in ${cwd}` })
    const out = process.stdout
    out.write(`Sessions of ${cwd}, newest first:\n`)
    sessions.forEach((s, i) => {
      const prompt = (firstPromptOf(s) ?? "").replace(/\s+/g, " ").slice(0, 60)
      out.write(`  ${String(i + 1).padStart(2)}. ${new Date(s.mtimeMs).toLocaleString()}  ${s.sessionId}  ${prompt}\n`)
    })
    const answer = yield* Effect.async<string | undefined>((resume) => {
      const rl = readline.createInterface({ input: process.stdin, output: out, terminal: true })
      let done = false
      rl.question(`Resume which? [1-${sessions.length}] `, (line) => {
        done = true
        rl.close()
        resume(Effect.succeed(line))
      })
      rl.on("close", () => {
        if (!done) resume(Effect.succeed(undefined))
      })
    })
    const index = Number(answer?.trim()) - 1
    const chosen = sessions[index]
    if (chosen === undefined) return yield* new BadRequest({ reason: "no session chosen" })
    return chosen
  })

const resumedOf = (
  values: {
    readonly continue: boolean
    readonly resume: Option.Option<string>
    readonly sessionDir: Option.Option<string>
  },
  cwd: string,
  interactive: boolean
) =>
  Effect.gen(function*() {
    const resume = Option.getOrUndefined(values.resume)
    if (!values.continue && resume === undefined) return undefined
    if (values.continue && resume !== undefined) {
      return yield* new UsageError({ reason: "--continue and --resume cannot be used together" })
    }
    const sessionDir = Option.getOrUndefined(values.sessionDir)
    let stored: StoredSession | undefined
    if (values.continue) {
      stored = sessionDir === undefined ? sessionsOf(cwd)[0] : findSession(path.resolve(sessionDir), cwd)
      // `claude -p -c` with nothing to continue starts a new conversation; at a terminal the person is told
      if (stored === undefined && !interactive) return undefined
      if (stored === undefined) {
        return yield* new BadRequest({
          reason: `no session to continue in ${sessionDir === undefined ? cwd : path.resolve(sessionDir)}`
        })
      }
    } else if (resume === "") {
      if (!interactive) {
        return yield* new UsageError({
          reason:
            "--resume needs a session id with -p, JSON output or a non-terminal (toolgate run -p -r <session id> …)"
        })
      }
      stored = yield* pickSession(cwd)
    } else {
      stored = findSession(resume!, cwd)
      if (stored === undefined) {
        return yield* new BadRequest({
          reason:
            `--resume ${resume}: no such session (sessions of this folder are in ~/.toolgate/projects/; toolgate run -r alone lists them)`
        })
      }
    }
    return yield* loadConversation(stored)
  })

export const run = Command.make("run", {
  ...F.optionsOf(runFlags),
  ...F.optionsOf(scheduleFlags),
  ...F.optionsOf(commonFlags),
  prompt: Args.text({ name: "prompt" }).pipe(Args.optional)
}, (values) =>
  Effect.gen(function*() {
    yield* checkNumbers(values)
    if (values.continue && Option.isSome(values.resume)) {
      return yield* new UsageError({ reason: "--continue and --resume cannot be used together" })
    }
    const format: Format = values.json ? "json" : (values.outputFormat as Format)
    if (values.inputFormat === "stream-json" && format !== "stream-json") {
      return yield* new UsageError({ reason: "--input-format stream-json needs --output-format stream-json" })
    }
    let permissionMode = values.permissionMode
    if (values.dangerouslySkipPermissions) {
      if (Option.isSome(permissionMode) && permissionMode.value !== "bypassPermissions") {
        return yield* new UsageError({
          reason: `--dangerously-skip-permissions conflicts with --permission-mode ${permissionMode.value}`
        })
      }
      permissionMode = Option.some("bypassPermissions")
    }
    const tty = process.stdin.isTTY === true && process.stdout.isTTY === true
    const isInteractive = !values.print && format === "text" && values.inputFormat === "text" && tty
    const cwd = cwdOf(values)
    if (!fs.existsSync(cwd)) return yield* new BadRequest({ reason: `--cwd ${cwd}: no such directory` })
    const scriptFile = scriptFileOf(values)
    let script: Script | undefined
    let client: ModelClientService
    if (scriptFile !== undefined) {
      script = yield* loadScript(scriptFile)
      client = yield* makeScripted({ script, cwd, timeScale: timeScaleOf(values.replaySpeed) })
    } else {
      client = yield* anthropicFromConfig(Option.getOrUndefined(values.model))
    }
    const resumed: ResumedConversation | undefined = yield* resumedOf(values, cwd, tty && !values.print)
    const given = Option.getOrUndefined(values.prompt)
    let prompts: Stream.Stream<Prompt, BadRequest> = Stream.empty
    if (!isInteractive) {
      if (values.inputFormat === "stream-json") {
        if (given !== undefined) {
          return yield* new UsageError({
            reason: `with --input-format stream-json the prompts come on stdin, not as an argument ('${
              given.slice(0, 40)
            }')`
          })
        }
        prompts = Stream.map(streamJsonPrompts(process.stdin), (content) => ({ content, echo: false }))
      } else {
        let list: ReadonlyArray<Prompt> = given === undefined ? [] : [{ content: given, echo: false }]
        if (list.length === 0) {
          if (script !== undefined && script.prompts.length > 0 && resumed === undefined) {
            list = script.prompts.map((content) => ({ content, echo: true }))
          } else if (process.stdin.isTTY !== true) {
            list = [{ content: yield* readSource("-"), echo: false }]
          }
        }
        if (list.every((p) => typeof p.content === "string" && p.content.trim() === "")) {
          return yield* new UsageError({
            reason:
              "no prompt: give it as an argument or on stdin (or run on a terminal without -p for the prompt line)"
          })
        }
        prompts = Stream.fromIterable(list)
      }
    }
    const recorder = makeApprovalRecorder()
    const approver = recorder.wrap(isInteractive ? layerCliTerminal : Approver.layerDeny)
    const recordedPrompt = script?.prompts[0]
    const sessionValues: SessionValues = {
      ...values,
      permissionMode,
      disallowedTools: [...values.disallowedTools, ...deniedByToolsFlag(values.tools)]
    }
    // at a terminal a person approves the project's new MCP servers
    const approveMcp = isInteractive ? terminalApproval() : undefined
    yield* withAgentRuntime(
      sessionValues,
      {
        model: Layer.succeed(ModelClient, client),
        subagentModels: subagentModelsOf(scriptFile, cwd, values.replaySpeed)
      },
      runSession({
        values: sessionValues,
        client,
        format,
        interactive: isInteractive,
        prompts,
        recorder,
        apiKeySource: scriptFile === undefined ? yield* apiKeySource : "none",
        ...(isInteractive && given !== undefined ? { firstPrompt: given } : {}),
        ...(recordedPrompt === undefined ? {} : { recordedPrompt }),
        ...(resumed === undefined ? {} : { resumed })
      }),
      // at a terminal the model may start a sign-in for an MCP server that needs one (mcp__<server>__authenticate)
      {
        approver,
        ...(isInteractive ? { mcp: { ...mcpOptionsOf(sessionValues, approveMcp), offerAuthentication: true } } : {})
      },
      {
        ...(resumed === undefined
          ? {}
          : { session: { sessionId: resumed.session.sessionId, sessionDir: resumed.session.sessionDir } }),
        ...(approveMcp === undefined ? {} : { approveMcp })
      }
    )
  })).pipe(Command.withDescription(runSpec.summary))

const strings = (
  u: unknown
): ReadonlyArray<string> => (Array.isArray(u) ? u.filter((s): s is string => typeof s === "string") : [])

export const replay = Command.make(
  "replay",
  {
    ...F.optionsOf(replayFlags),
    ...F.optionsOf(scheduleFlags),
    ...F.optionsOf(commonFlags),
    transcript: Args.text({ name: "transcript" })
  },
  (values) =>
    Effect.gen(function*() {
      yield* checkNumbers(values)
      const file = fs.existsSync(values.transcript) && fs.statSync(values.transcript).isFile()
        ? values.transcript
        : findSession(values.transcript, process.cwd())?.transcript
      if (file === undefined) {
        return yield* new BadRequest({ reason: `${values.transcript}: no such transcript file or session` })
      }
      const read = yield* readTranscript(file)
      const recorded = isRecord(read.session?.options) ? read.session.options : {}
      const recordedCwd = read.script.recordedCwd
      if (Option.isNone(values.cwd) && recordedCwd !== undefined && !fs.existsSync(recordedCwd)) {
        return yield* new BadRequest({
          reason:
            `the recorded working directory ${recordedCwd} no longer exists: name the folder to replay in with --cwd`
        })
      }
      const cwd = Option.getOrElse(values.cwd, () => recordedCwd ?? process.cwd())
      if (!fs.existsSync(cwd)) return yield* new BadRequest({ reason: `--cwd ${cwd}: no such directory` })
      if (read.script.prompts.length === 0) {
        return yield* new BadRequest({ reason: `${file}: no prompt recorded (expected a line of type "user")` })
      }
      // The recording's permission flags apply unless given again here.
      const mode = typeof recorded.permission_mode === "string"
        ? Option.some(recorded.permission_mode)
        : Option.none<string>()
      const merged: SessionValues = {
        ...values,
        verbose: true,
        toolgateEvents: true,
        cwd: Option.some(path.resolve(cwd)),
        permissionMode: Option.orElse(values.permissionMode, () => mode),
        allowedTools: values.allowedTools.length > 0 ? values.allowedTools : strings(recorded.allowed_tools),
        disallowedTools: values.disallowedTools.length > 0
          ? values.disallowedTools
          : strings(recorded.disallowed_tools),
        settings: values.settings.length > 0 ? values.settings : strings(recorded.settings),
        addDir: values.addDir.length > 0 ? values.addDir : strings(recorded.add_dir),
        trustProject: values.trustProject || recorded.trust_project === true,
        maxTurns: Option.orElse(
          values.maxTurns,
          () => (typeof recorded.max_turns === "number" ? Option.some(recorded.max_turns) : Option.none())
        )
      }
      const client = yield* makeScripted({
        script: read.script,
        cwd: path.resolve(cwd),
        timeScale: timeScaleOf(values.replaySpeed)
      })
      const recorder = makeApprovalRecorder()
      const format = (values.json ? "json" : values.outputFormat) as Format
      const recordedSessionDir = typeof read.session?.session_id === "string" ? path.dirname(path.resolve(file)) : ""
      if (format === "text") process.stdout.write(`replaying ${file} in ${path.resolve(cwd)}\n`)
      yield* withAgentRuntime(
        merged,
        {
          model: Layer.succeed(ModelClient, client),
          subagentModels: subagentModelsOf(file, path.resolve(cwd), values.replaySpeed)
        },
        runSession({
          values: merged,
          client,
          format,
          interactive: false,
          prompts: Stream.fromIterable(read.script.prompts.map((content) => ({ content, echo: true }))),
          recorder,
          apiKeySource: "none",
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
).pipe(Command.withDescription(replaySpec.summary))
