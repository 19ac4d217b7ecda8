/**
 * Bash: runs a command in the session's working directory.
 * Exactly the input string runs, evaluated by `/bin/bash --noprofile --norc` (src/internal/shellScript.ts); the whole process group
 * is killed on timeout and on interruption; large output is kept on disk, not in memory; a `cd`
 * carries over to the next call only inside the working directories. With `run_in_background`
 * the command is handed to the BackgroundTasks service and the call returns at once.
 */
import { Effect, Schema } from "effect"
import * as path from "node:path"
import { ToolError } from "../Errors.js"
import { buildTool, reject, type ToolContext, type ToolResult } from "../Tool.js"
import type { SessionContext } from "../Session.js"
import type { BackgroundTasksService } from "./background/BackgroundTasks.js"
import {
  BACKGROUND_DISABLED,
  backgroundTasksDisabled,
  backgroundTimeoutMs,
  outputLimitNotice
} from "./background/settings.js"
import { bashHookOutput, bashHookResponse, noOutputExpected, type BashOutput } from "./bash/BashOutput.js"
import { isBenignExitOne } from "./bash/benignExit.js"
import { renderCommand } from "./bash/renderCommand.js"
import { cwdChangedReminder, failureText, formatDuration, successText } from "./bash/resultText.js"
import { runShell, type ShellPlumbing, type ShellProgress } from "./bash/runShell.js"
import { runMovable, startsWithSleep, type MovableOutcome } from "./bash/movableRun.js"
import { changesDirectory, movedText } from "./bash/movedText.js"
import { bashSettings, effectiveTimeoutMs } from "./bash/settings.js"
import type { ShellAnalyzerService } from "../services/ShellAnalyzer.js"
import type { SandboxService } from "../services/Sandbox.js"
import { nextDirectory, startingDirectory } from "./bash/shellCwd.js"
import { shellEnvironment } from "./bash/shellEnvironment.js"
import { BooleanLike, NumberLike, optional } from "./schemas.js"
import { repairBashInput } from "./inputRepairs.js"

export type { BashOutput } from "./bash/BashOutput.js"

// NumberLike/BooleanLike carry a `jsonSchema` annotation, so descriptions go inside it.
const numberField = (description: string) => NumberLike.annotations({ jsonSchema: { type: "number", description } })
const booleanField = (description: string) => BooleanLike.annotations({ jsonSchema: { type: "boolean", description } })

export const BashInput = Schema.Struct({
  command: Schema.String.annotations({ description: "The command to execute" }),
  timeout: optional(
    numberField("Optional timeout in milliseconds (default 120000, max 600000; larger values are lowered to the max)")
  ),
  description: optional(
    Schema.String.annotations({
      description: "A short description of what the command does, in active voice (5-10 words)"
    })
  ),
  run_in_background: optional(
    booleanField(
      "Set to true to run the command in the background: the call returns at once with a task ID; read the output with TaskOutput and stop it with TaskStop. timeout then bounds the whole run (default 1800000, max 7200000)."
    )
  ),
  dangerouslyDisableSandbox: optional(
    booleanField(
      "Set to true to run this command outside the sandbox. Only where the sandbox is what made it fail; it needs the user's approval."
    )
  )
})
export type BashInput = typeof BashInput.Type

/** With Claude Code's sandbox on, a call may also name the hosts it needs (used in auto mode; toolgate reads the allow lists only). */
export const SandboxedBashInput = Schema.Struct({
  ...BashInput.fields,
  allowed_domains: optional(
    Schema.Array(Schema.String.pipe(Schema.maxLength(260))).pipe(
      Schema.maxItems(100),
      // the filters' own titles stay out of what the model sees
      Schema.annotations({
        jsonSchema: {
          type: "array",
          maxItems: 100,
          items: { type: "string", maxLength: 260 },
          description:
            "Hosts this command must reach that the sandbox's network allow list lacks (a domain, *.wildcard or address, with an optional :port). Only reviewed in auto mode; elsewhere the allow list in the settings decides. When a connection is refused, the <sandbox_violations> block names the host."
        }
      })
    )
  )
})
export type BashCallInput = BashInput & { readonly allowed_domains?: ReadonlyArray<string> }

/** The input schemas without `run_in_background`: what the model sees when background tasks are disabled. */
const { run_in_background: _background, ...foregroundFields } = BashInput.fields
const { run_in_background: _sandboxedBackground, ...sandboxedForegroundFields } = SandboxedBashInput.fields
const ForegroundBashInput = Schema.Struct(foregroundFields)
const SandboxedForegroundBashInput = Schema.Struct(sandboxedForegroundFields)

const inputSchemaOf = (options: BashToolOptions) =>
  options.backgroundSchema === false
    ? options.sandboxSchema === true
      ? SandboxedForegroundBashInput
      : ForegroundBashInput
    : options.sandboxSchema === true
    ? SandboxedBashInput
    : BashInput

export interface BashToolOptions {
  /** The shell binary (default `/bin/bash`). */
  readonly shell?: string
  /** The base environment of commands (default `process.env`), before the unsafe variables are dropped. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Time between SIGTERM and SIGKILL when a command is stopped (default 1000 ms). */
  readonly killGraceMs?: number
  /** How often a running command reports progress (default 1000 ms). */
  readonly progressIntervalMs?: number
  /** Where `run_in_background` commands go; without it they are refused. */
  readonly background?: BackgroundTasksService
  /**
   * Tells which commands are read-only (those may run beside other read-only calls); without it
   * no command counts as read-only (fail closed). The runtime's Bash has the runtime's analyzer.
   */
  readonly analyzer?: ShellAnalyzerService
  /** Where commands run: the sandbox their approval calls for. Without it, every command runs unsandboxed. */
  readonly sandbox?: SandboxService
  /** Claude Code's sandbox is on: offer `allowed_domains` and say how the sandbox works. */
  readonly sandboxSchema?: boolean
  /** false: background tasks are disabled (`CLAUDE_CODE_DISABLE_BACKGROUND_TASKS`), `run_in_background` is not offered. */
  readonly backgroundSchema?: boolean
}

export const BACKGROUND_NOT_AVAILABLE =
  "run_in_background is not available in this runtime (it has no background task service). Run the command in the foreground (leave run_in_background out), with a timeout if it may take long."

/** Claude Code's text for a command started in the background. */
export const backgroundStartedText = (taskId: string, outputFile: string): string =>
  `Command running in background with ID: ${taskId}. Output is being written to: ${outputFile}. You will be notified when it completes. To check interim output, use Read on that file path.`

const PROMPT = `Runs a bash command in the current working directory and returns its output.

- The command runs in /bin/bash --noprofile --norc, with no input (stdin is /dev/null).
- A cd carries over to later calls while it stays inside the working directories; environment variables, functions and aliases do not.
- timeout is in milliseconds: 120000 by default, at most 600000. A command still running at its timeout is moved to the background: the call returns the output so far and the task ID, the command goes on writing to its output file (read it with Read), TaskStop stops it, and it is stopped 10 minutes later. A command that starts with sleep is stopped at its timeout instead, together with every process it started.
- Output over 30000 characters is saved to a file; you get its start and end and the file's path.
- Anything the command starts is stopped when it ends: do not leave servers running with &. For a server, a watcher or a long build, set run_in_background: the call returns at once with a task ID; TaskOutput reads the new output (waiting for the end if asked), TaskStop stops it. Background commands are stopped when the session ends.
- Quote paths that contain spaces. Prefer the Read, Edit, Write, Glob and Grep tools for files and searches.`

const SANDBOX_PROMPT = `

- Commands run inside a sandbox: writes only in the working directories and $TMPDIR (use $TMPDIR for temporary files, not /tmp), network only to the hosts the settings allow. A refused connection is reported in a <sandbox_violations> block after the output.
- Only when the sandbox is what made a command fail (a "Read-only file system" or "Operation not permitted" error, a refused connection), run it again with dangerouslyDisableSandbox: true; the user is asked first. Otherwise keep every command in the sandbox.`

const safeFileName = (toolUseId: string): string => toolUseId.replace(/[^A-Za-z0-9_-]/g, "_") || "bash"

/** The sandbox hook of a shell run: the call's approval and input decide the profile. */
const sandboxFor = (
  input: BashInput,
  ctx: ToolContext,
  options: BashToolOptions,
  cwd: string,
  env: Readonly<Record<string, string>>,
  shell: string
) => {
  const sandbox = options.sandbox
  if (sandbox === undefined) return undefined
  const pathRules = ctx.pathRules
  return (plumbing: ShellPlumbing) =>
    sandbox
      .prepare({
        command: input.command,
        cwd,
        session: ctx.session,
        approvedBecause: ctx.approvedBecause,
        disableSandbox: input.dangerouslyDisableSandbox === true,
        isReadDenied: pathRules === undefined || !pathRules.anyReadDeny ? undefined : (p) => pathRules.denials(p).read,
        shell,
        env,
        innerEnv: plumbing.innerEnv,
        writableFiles: plumbing.writableFiles
      })
      .pipe(Effect.mapError((error) => new ToolError({ reason: error.message })))
}

const runBash = (
  input: BashInput,
  ctx: ToolContext,
  options: BashToolOptions
): Effect.Effect<ToolResult<BashOutput>, ToolError> =>
  Effect.gen(function*() {
    const settings = yield* bashSettings
    const timeoutMs = effectiveTimeoutMs(input.timeout, settings)
    const start = startingDirectory(ctx.session)
    const env = shellEnvironment(options.env ?? process.env)
    const shell = options.shell ?? "/bin/bash"
    const sandbox = sandboxFor(input, ctx, options, start.cwd, env, shell)
    const spillPath = path.join(ctx.session.sessionDir, "bash-output", `${safeFileName(ctx.toolUseId)}.txt`)
    const progressIntervalMs = options.progressIntervalMs ?? 1000
    const onProgress = ({ elapsedMs, lines, chars, tail }: ShellProgress) =>
      ctx.reportProgress({
        message: `Running for ${formatDuration(elapsedMs)}, ${lines} ${lines === 1 ? "line" : "lines"} of output`,
        data: { elapsedMs, lines, chars, tail }
      })
    const background = yield* movableTo(input, options)
    const ran: MovableOutcome = background === undefined
      ? {
        _tag: "Finished",
        outcome: yield* runShell({
          command: input.command,
          cwd: start.cwd,
          env,
          timeoutMs,
          maxOutputChars: settings.maxOutputChars,
          spillPath,
          maxSpillBytes: settings.maxSpillBytes,
          limitNotice: outputLimitNotice(settings.maxSpillBytes),
          killGraceMs: options.killGraceMs ?? 1000,
          shell,
          progressIntervalMs,
          ...(sandbox === undefined ? {} : { sandbox }),
          onProgress
        })
      }
      : yield* runMovable({
        command: input.command,
        description: input.description,
        cwd: start.cwd,
        env,
        shell,
        timeoutMs,
        maxOutputChars: settings.maxOutputChars,
        spillPath,
        maxSpillBytes: settings.maxSpillBytes,
        sessionDir: ctx.session.sessionDir,
        progressIntervalMs,
        onProgress,
        ...(sandbox === undefined ? {} : { sandbox }),
        background
      })
    if (ran._tag === "Moved") return movedResult(input, ctx, start, timeoutMs, ran)
    const outcome = ran.outcome
    const next = nextDirectory({
      session: ctx.session,
      ranIn: start.cwd,
      final: outcome.finalCwd,
      maintainProjectDir: settings.maintainProjectDir
    })
    const { output: captured } = outcome
    const cwdNotice = next.notice ?? start.notice
    const notices = [
      ...(captured.limitNotice === undefined ? [] : [captured.limitNotice]),
      ...(cwdNotice === undefined ? [] : [cwdNotice])
    ]
    const output: BashOutput = {
      stdout: captured.stdout,
      stderr: captured.stderr,
      combined: captured.combined,
      totalChars: captured.totalChars,
      totalBytes: captured.totalBytes,
      truncated: captured.truncated,
      exitCode: outcome.exitCode,
      interrupted: outcome.timedOut || outcome.outputLimited,
      timedOut: outcome.timedOut,
      timeoutMs,
      noOutputExpected: noOutputExpected(input.command),
      ...(outcome.sandboxViolations !== undefined ? { sandboxViolations: outcome.sandboxViolations } : {}),
      ...(captured.outputFile !== undefined ? { outputFile: captured.outputFile } : {}),
      ...(captured.truncated && captured.outputFile === undefined
        ? {
          notices: [
            `[The output was cut at ${settings.maxOutputChars} characters; the rest could not be saved: ${
              captured.spillError ?? "unknown error"
            }]`,
            ...notices
          ]
        }
        : { notices }),
      ...(cwdNotice === undefined && next.cwd !== ctx.session.cwd
        ? { cwdChange: { from: ctx.session.cwd, to: next.cwd } }
        : {})
    }
    const succeeded = !outcome.timedOut && !outcome.outputLimited &&
      (outcome.exitCode === 0 || (outcome.exitCode === 1 && isBenignExitOne(input.command)))
    if (!succeeded) return yield* new ToolError({ reason: failureText(output), response: bashHookResponse(output) })
    return next.cwd === ctx.session.cwd
      ? { data: output }
      : { data: output, contextModifier: (session: SessionContext) => ({ ...session, cwd: next.cwd }) }
  }).pipe(Effect.scoped)

/** Where a foreground command goes when it passes its timeout; undefined: it is stopped there (Claude Code's rules). */
const movableTo = (input: BashInput, options: BashToolOptions): Effect.Effect<BackgroundTasksService | undefined> =>
  options.background === undefined || startsWithSleep(input.command)
    ? Effect.succeed(undefined)
    : Effect.map(backgroundTasksDisabled, (disabled) => (disabled ? undefined : options.background))

/** The answer for a command moved to the background: it runs on; the session's directory stays where it was. */
const movedResult = (
  input: BashInput,
  ctx: ToolContext,
  start: ReturnType<typeof startingDirectory>,
  timeoutMs: number,
  moved: Extract<MovableOutcome, { _tag: "Moved" }>
): ToolResult<BashOutput> => {
  const text = movedText({
    taskId: moved.task.id,
    outputFile: moved.task.outputFile,
    timeoutMs,
    tail: moved.tail,
    totalChars: moved.totalChars,
    sessionCwd: start.cwd,
    changesDirectory: changesDirectory(input.command)
  })
  const output: BashOutput = {
    stdout: "",
    stderr: "",
    combined: "",
    totalChars: moved.totalChars,
    totalBytes: moved.totalBytes,
    truncated: false,
    exitCode: 0,
    interrupted: false,
    timedOut: false,
    timeoutMs,
    noOutputExpected: noOutputExpected(input.command),
    backgroundTaskId: moved.task.id,
    outputFile: moved.task.outputFile,
    notices: [...(start.notice !== undefined ? [start.notice] : []), text]
  }
  return start.cwd === ctx.session.cwd
    ? { data: output }
    : { data: output, contextModifier: (session: SessionContext) => ({ ...session, cwd: start.cwd }) }
}

const runInBackground = (
  input: BashInput,
  ctx: ToolContext,
  options: BashToolOptions
): Effect.Effect<ToolResult<BashOutput>, ToolError> =>
  Effect.gen(function*() {
    if (yield* backgroundTasksDisabled) return yield* new ToolError({ reason: BACKGROUND_DISABLED })
    if (options.background === undefined) return yield* new ToolError({ reason: BACKGROUND_NOT_AVAILABLE })
    const start = startingDirectory(ctx.session)
    const env = shellEnvironment(options.env ?? process.env)
    const shell = options.shell ?? "/bin/bash"
    const sandbox = sandboxFor(input, ctx, options, start.cwd, env, shell)
    const task = yield* options.background.start({
      command: input.command,
      ...(input.description !== undefined ? { description: input.description } : {}),
      cwd: start.cwd,
      env,
      shell,
      timeoutMs: backgroundTimeoutMs(input.timeout),
      sessionDir: ctx.session.sessionDir,
      ...(sandbox === undefined ? {} : { sandbox })
    })
    const output: BashOutput = {
      stdout: "",
      stderr: "",
      combined: "",
      totalChars: 0,
      totalBytes: 0,
      truncated: false,
      exitCode: 0,
      interrupted: false,
      timedOut: false,
      timeoutMs: task.timeoutMs,
      backgroundTaskId: task.id,
      outputFile: task.outputFile,
      notices: [...(start.notice !== undefined ? [start.notice] : []), backgroundStartedText(task.id, task.outputFile)]
    }
    // The cwd the command started in stays the session's (a background shell's cd is not followed).
    return start.cwd === ctx.session.cwd
      ? { data: output }
      : { data: output, contextModifier: (session: SessionContext) => ({ ...session, cwd: start.cwd }) }
  })

const isBackground = (input: BashInput): boolean => input.run_in_background === true

/** A background run is never read-only or concurrency-safe: it leaves a process running. */
const readOnlyRun = (analyzer: ShellAnalyzerService | undefined, input: BashInput): boolean =>
  analyzer !== undefined && !isBackground(input) && analyzer.isReadOnly(input.command)

/**
 * A read-only command that changes directory still changes the session's cwd, and only calls
 * that are not concurrency-safe may change shared context: such a command runs alone.
 */
const CHANGES_DIRECTORY = /(^|[\s;&|(`])(cd|pushd|popd)(?=$|[\s;&|)`])/
const concurrencySafeRun = (analyzer: ShellAnalyzerService | undefined, input: BashInput): boolean =>
  readOnlyRun(analyzer, input) && !CHANGES_DIRECTORY.test(input.command)

/** Builds the Bash tool; the options exist for embedding and tests. */
export const makeBashTool = (options: BashToolOptions = {}) => {
  const readOnly = (input: BashInput) => readOnlyRun(options.analyzer, input)
  return buildTool<BashCallInput, BashOutput>({
    name: "Bash",
    knownAs: ["bash_tool"],
    repairInput: repairBashInput,
    inputSchema: inputSchemaOf(options) as Schema.Schema<BashCallInput, any>,
    description:
      "Executes a bash command in the session's working directory, with an optional timeout, and returns its output.",
    prompt: options.sandboxSchema === true ? PROMPT + SANDBOX_PROMPT : PROMPT,
    isReadOnly: readOnly,
    isConcurrencySafe: (input) => concurrencySafeRun(options.analyzer, input),
    isDestructive: (input) => !readOnly(input),
    interruptBehavior: () => "cancel",
    siblingCancellationLabel: (input) =>
      `Bash(${input.command.length > 40 ? `${input.command.slice(0, 40)}…` : input.command})`,
    maxResultSizeChars: 30_000,
    validateInput: (input) =>
      !isBackground(input)
        ? Effect.void
        : Effect.flatMap(backgroundTasksDisabled, (disabled) =>
          disabled
            ? reject("Bash", BACKGROUND_DISABLED)
            : options.background === undefined
            ? reject("Bash", BACKGROUND_NOT_AVAILABLE)
            : Effect.void),
    permissionSubject: (input) =>
      input.dangerouslyDisableSandbox === true
        ? { kind: "bash", command: input.command, disableSandbox: true }
        : { kind: "bash", command: input.command },
    call: (input, ctx) => (isBackground(input) ? runInBackground(input, ctx, options) : runBash(input, ctx, options)),
    mapResult: (output) => {
      const text = successText(output)
      const shown = text === "" ? "(Bash completed with no output)" : text
      return output.cwdChange === undefined
        ? shown
        : `${shown}\n\n${cwdChangedReminder(output.cwdChange.from, output.cwdChange.to)}`
    },
    hookResponse: bashHookResponse,
    hookOutput: bashHookOutput,
    // A read-only command may read anything and writes nothing; any other command may touch everything.
    footprint: (input) =>
      Effect.succeed(readOnly(input) ? { reads: ["/"], writes: [] } : { reads: ["/"], writes: ["/"] }),
    userFacingName: () => "Bash",
    renderUse: (
      input
    ) => (isBackground(input) ? `${renderCommand(input.command)} (in the background)` : renderCommand(input.command)),
    renderResult: (output) => {
      const lines = successText(output).split("\n")
      return lines.length > 20
        ? `${lines.slice(0, 20).join("\n")}\n… (${lines.length - 20} more lines)`
        : lines.join("\n")
    },
    warmup: options.analyzer?.warmup ?? Effect.void
  })
}

export const BashTool = makeBashTool()
