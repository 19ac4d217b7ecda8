/**
 * Runs the hooks of one event: selects the configured command hooks and in-process hooks that
 * match (matcher, `if`), drops duplicates, runs them all in parallel to completion, and hands
 * their answers to the aggregation of that event. Async hooks run in the background, under the
 * scope of the Hooks layer.
 */
import { Cause, Effect, FiberSet } from "effect"
import { isReady } from "../../internal/ready.js"
import type { AnyTool } from "../../Tool.js"
import type { SessionContext } from "../../Session.js"
import type { SettingsSource } from "../Settings.js"
import type { ShellAnalyzerService } from "../ShellAnalyzer.js"
import { dedupeKey, handlerLabel, readHookConfig, type CommandHookHandler, type HookConfig } from "./config.js"
import { matcherMatches } from "./matcher.js"
import { ifMatches } from "./ifCondition.js"
import { argvOf, runHookProcess, type ProcessOutcome, type ProcessSpec } from "./runProcess.js"
import type { ProcessWrapper } from "../Sandbox.js"
import { acceptJson, interpretProcess, type HookRun, type HookRunBody } from "./output.js"
import { serialiseInput } from "./input.js"
import { capFor } from "./capText.js"
import { DEFAULT_TIMEOUT_SECONDS } from "./config.js"
import { MATCHED_FIELD, type HookEvent, type HookInput, type InProcessHook } from "./types.js"

export interface EngineOptions {
  /** The settings sources, highest precedence first (read on every event; parsed once per value). */
  readonly sources: Effect.Effect<ReadonlyArray<SettingsSource>>
  readonly inProcess: ReadonlyArray<InProcessHook>
  /** Where async hooks run; closing its scope kills them. */
  readonly background: FiberSet.FiberSet<unknown, unknown> | undefined
  /** The environment hooks inherit (before the per-session variables are added). */
  readonly baseEnv: Readonly<Record<string, string>>
  /** Leave what a hook started running after it ends (TOOLGATE_KEEP_HOOK_CHILDREN). */
  readonly keepChildren: boolean
  /** Splits Bash commands for `if` conditions. */
  readonly shell: ShellAnalyzerService
  /** Puts each hook process into a sandbox (a served session's); a hook that cannot be put there does not run. */
  readonly wrapProcess?: ProcessWrapper
}

export interface EventCall {
  readonly event: HookEvent
  /** The tool of a tool event (matchers and `if` apply); undefined for the other events. */
  readonly tool: AnyTool | undefined
  readonly toolInput: unknown
  readonly session: SessionContext
  readonly input: HookInput
}

type Candidate =
  | { readonly _tag: "Command"; readonly handler: CommandHookHandler }
  | { readonly _tag: "InProcess"; readonly hook: InProcessHook }

/** The process environment minus OpenTelemetry exporter settings. */
export const inheritedEnv = (env: NodeJS.ProcessEnv): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) if (value !== undefined && !key.startsWith("OTEL_")) out[key] = value
  return out
}

const sessionEnv = (baseEnv: Readonly<Record<string, string>>, session: SessionContext): Record<string, string> => ({
  ...baseEnv,
  CLAUDE_PROJECT_DIR: session.projectDir,
  CLAUDECODE: "1",
  CLAUDE_CODE_CHILD_SESSION: "1"
})

/** Exec-form placeholders are substituted literally (no shell sees them). */
const substitute = (text: string, env: Readonly<Record<string, string>>) =>
  text.replace(
    /\$\{(CLAUDE_PROJECT_DIR|CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)\}/g,
    (whole, name: string) => env[name] ?? whole
  )

const describeCause = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

/** What a matcher is matched against: the tool's name, or the event's matched field; undefined matches every hook. */
const matchSubject = (call: EventCall): string | undefined => {
  if (call.tool !== undefined) return call.tool.name
  const field = MATCHED_FIELD[call.event]
  if (field === undefined) return undefined
  const value = (call.input as unknown as Record<string, unknown>)[field]
  return typeof value === "string" ? value : ""
}

/** Events where a hook that gave no trustworthy answer blocks (fail closed) rather than being ignored. */
const failsClosed = (event: HookEvent) => event === "PreToolUse" || event === "UserPromptSubmit"

export const hookNameOf = (
  event: HookEvent,
  tool: AnyTool | undefined
) => (tool === undefined ? event : `${event}:${tool.name}`)

const YES = Effect.succeed(true)
const NO = Effect.succeed(false)

export const makeEngine = (options: EngineOptions) => {
  let cached: { readonly sources: ReadonlyArray<SettingsSource>; readonly config: HookConfig } | undefined

  const config = Effect.gen(function*() {
    const sources = yield* options.sources
    if (cached !== undefined && cached.sources === sources) return cached.config
    const parsed = readHookConfig(sources)
    cached = { sources, config: parsed }
    for (const notice of parsed.notices) yield* Effect.logWarning(`hooks: ${notice}`)
    return parsed
  })

  const conditionHolds = (condition: string | undefined, call: EventCall) =>
    condition === undefined || call.tool === undefined
      ? Effect.succeed(condition === undefined)
      : ifMatches(options.shell, condition, call.tool, call.toolInput, call.session).pipe(
        Effect.catchAllCause(() => Effect.succeed(true))
      )

  const select = (call: EventCall) =>
    Effect.gen(function*() {
      const { handlers } = yield* config
      const subject = matchSubject(call)
      const matches = (matcher: string | undefined) => subject === undefined || matcherMatches(matcher, subject)
      const commands = yield* Effect.filter(
        handlers.filter((h) => h.event === call.event && matches(h.matcher)),
        (h) => conditionHolds(h.if, call)
      )
      const seen = new Set<string>()
      const unique = commands.filter((h) => {
        const key = dedupeKey(h)
        if (seen.has(key)) return false
        seen.add(key)
        return true
      })
      const inProcess = yield* Effect.filter(
        options.inProcess.filter((h) => h.event === call.event && matches(h.matcher)),
        (h) => conditionHolds(h.if, call)
      )
      return [
        ...unique.map((handler): Candidate => ({ _tag: "Command", handler })),
        ...inProcess.map((hook): Candidate => ({ _tag: "InProcess", hook }))
      ]
    })

  const processSpec = (handler: CommandHookHandler, call: EventCall, stdin: string): ProcessSpec => {
    const env = sessionEnv(options.baseEnv, call.session)
    const exec = handler.args !== undefined
    return {
      command: exec ? substitute(handler.command, env) : handler.command,
      args: exec ? handler.args!.map((a) => substitute(a, env)) : undefined,
      shell: handler.shell,
      cwd: call.session.cwd,
      env,
      stdin,
      timeoutMs: handler.timeoutMs,
      keepChildren: options.keepChildren
    }
  }

  const runProcess = (spec: ProcessSpec): Effect.Effect<ProcessOutcome> => {
    const wrap = options.wrapProcess
    if (wrap === undefined) return runHookProcess(spec)
    const [file, args] = argvOf(spec)
    return Effect.scoped(
      wrap({ argv: [file, ...args], cwd: spec.cwd, env: spec.env }).pipe(
        Effect.matchEffect({
          onFailure: (error) => Effect.succeed<ProcessOutcome>({ _tag: "SpawnFailed", message: error.message }),
          onSuccess: (invocation) => runHookProcess(invocation === undefined ? spec : { ...spec, invocation })
        })
      )
    )
  }

  const runCommand = (
    handler: CommandHookHandler,
    call: EventCall,
    hookName: string,
    stdin: string
  ): Effect.Effect<HookRunBody> =>
    runProcess(processSpec(handler, call, stdin)).pipe(
      Effect.map((outcome) => interpretProcess(call.event, hookName, handlerLabel(handler), outcome))
    )

  const runInProcess = (hook: InProcessHook, call: EventCall, hookName: string): Effect.Effect<HookRunBody> => {
    const seconds = hook.timeout ?? DEFAULT_TIMEOUT_SECONDS
    const name = hook.name ?? "in-process hook"
    return Effect.suspend(() => hook.run(call.input)).pipe(
      Effect.timeoutOption(Math.round(seconds * 1000)),
      Effect.map((result): HookRunBody => {
        if (result._tag === "None") {
          return failsClosed(call.event)
            ? { failClosed: `${name} timed out after ${seconds} seconds`, notices: [] }
            : { notices: [`${hookName} hook error: ${name} timed out after ${seconds} seconds`] }
        }
        const value: unknown = result.value
        if (value === undefined || value === null) return { notices: [] }
        if (typeof value !== "object" || Array.isArray(value)) {
          return { notices: [`${hookName} hook error: ${name} returned something that is not an object`] }
        }
        const accepted = acceptJson(call.event, hookName, name, value)
        return accepted.json === undefined ? { notices: [accepted.notice!] } : { json: accepted.json, notices: [] }
      }),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.interrupt
          : Effect.succeed<HookRunBody>({
            notices: [`${hookName} hook error: ${name} failed: ${describeCause(cause)}`]
          })
      )
    )
  }

  /** Runs every matching hook of an event; returns their runs in configuration order. */
  const runEvent = (call: EventCall): Effect.Effect<ReadonlyArray<HookRun>> =>
    Effect.gen(function*() {
      const candidates = yield* select(call)
      if (candidates.length === 0) return []
      const hookName = hookNameOf(call.event, call.tool)
      const stdin = serialiseInput(call.input)
      let finished = 0
      const runOne = (c: Candidate): Effect.Effect<HookRun | undefined> => {
        if (c._tag === "Command" && c.handler.async) {
          const background = runCommand(c.handler, call, hookName, stdin).pipe(
            Effect.tap((body) =>
              Effect.forEach(body.notices, (n) => Effect.logWarning(`async hook: ${n}`), { discard: true })
            )
          )
          return (options.background === undefined ? Effect.void : FiberSet.run(options.background, background)).pipe(
            Effect.as(undefined)
          )
        }
        const label = c._tag === "Command" ? handlerLabel(c.handler) : (c.hook.name ?? "in-process hook")
        const body = c._tag === "Command"
          ? runCommand(c.handler, call, hookName, stdin)
          : runInProcess(c.hook, call, hookName)
        return body.pipe(Effect.map((b): HookRun => ({ ...b, label, order: ++finished })))
      }
      const runs = candidates.length === 1
        ? [yield* runOne(candidates[0]!)]
        : yield* Effect.forEach(candidates, runOne, { concurrency: "unbounded" })
      return runs.filter((r): r is HookRun => r !== undefined)
    })

  /** Bounds what the model reads of one event's hooks (files named after the event and the call). */
  const capOf = (session: SessionContext, event: HookEvent, toolUseId?: string) =>
    capFor({ sessionDir: session.sessionDir, event, ...(toolUseId === undefined ? {} : { toolUseId }) })

  // Without settings sources the answer never changes: a ready Effect, read without a fiber step.
  const noSources = isReady(options.sources) && options.sources.value.length === 0
  const inProcessEvents = new Set(options.inProcess.map((h) => h.event))

  /** Is any hook (command or in-process) configured for the event? When not, no input is built. */
  const listens = (event: HookEvent): Effect.Effect<boolean> =>
    inProcessEvents.has(event)
      ? YES
      : noSources
      ? NO
      : Effect.map(config, ({ handlers }) => handlers.some((h) => h.event === event))

  return { runEvent, capOf, listens }
}
