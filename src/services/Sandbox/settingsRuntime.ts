/**
 * The settings profile (Claude Code's sandbox) through @anthropic-ai/sandbox-runtime, which Claude
 * Code itself uses: bubblewrap with the working directories writable, the files it must never let
 * a sandboxed command write (.bashrc, .git/hooks, .claude/settings.json, …) read-only, and all
 * network through its filtering proxy.
 *
 * The library keeps one sandbox manager per process (its proxy servers, its configuration), so it
 * is shared here between every runtime of the process that needs it, counted, and reset when the
 * last one closes. What differs between sessions goes with each command: the file system sets in
 * the command's own configuration, the allowed hosts in a list registered under the command's
 * random id (the id the proxy sees). A host nobody allowed is refused; the deny lists of all
 * sessions apply to all (a session may be refused a host another one denies, never the reverse).
 */
import { Effect, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import { SandboxError } from "./errors.js"
import { shellQuote, type ShellInvocation } from "./invocation.js"
import { commandArgs } from "../../internal/shellScript.js"
import { loadRuntimePackage } from "./runtimePackage.js"

type RuntimePackage = ReturnType<typeof loadRuntimePackage>
type Manager = RuntimePackage["SandboxManager"]

/** What one runtime needs from the process-wide manager. */
export interface ManagerNeeds {
  readonly deniedDomains: ReadonlyArray<string>
  readonly allowAllUnixSockets: boolean
  readonly allowLocalBinding: boolean
  readonly enableWeakerNestedSandbox: boolean
}

interface Shared {
  readonly manager: Manager
  readonly ready: Promise<void>
  readonly users: Map<symbol, ManagerNeeds>
}

let shared: Shared | undefined

const union = (lists: ReadonlyArray<ReadonlyArray<string>>) => [...new Set(lists.flat())]

/** The one configuration for all users: nothing allowed but per command, every deny, the strictest switches. */
const globalConfig = (users: ReadonlyMap<symbol, ManagerNeeds>) => {
  const all = [...users.values()]
  const every = (f: (n: ManagerNeeds) => boolean) => all.length > 0 && all.every(f)
  return {
    network: {
      allowedDomains: [],
      deniedDomains: union(all.map((n) => n.deniedDomains)),
      allowAllUnixSockets: every((n) => n.allowAllUnixSockets),
      allowLocalBinding: every((n) => n.allowLocalBinding)
    },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    enableWeakerNestedSandbox: every((n) => n.enableWeakerNestedSandbox)
  }
}

const failure = (cause: unknown) =>
  new SandboxError({ stage: "settings profile", reason: cause instanceof Error ? cause.message : String(cause) })

export interface ManagerHandle {
  /** Tells the manager this runtime's needs now (its deny lists may have grown). */
  readonly update: (needs: ManagerNeeds) => Effect.Effect<void, SandboxError>
  readonly wrap: (request: WrapRequest) => Effect.Effect<WrappedCommand, SandboxError, Scope.Scope>
}

export interface WrapRequest {
  /** The command exactly as it will run (the innermost shell runs it). */
  readonly command: string
  readonly shell: string
  readonly cwd: string
  /** The environment of the innermost shell only (BASH_ENV and its friends must not reach the wrapper shells). */
  readonly innerEnv: Readonly<Record<string, string>>
  /** The environment of the process started. */
  readonly env: Readonly<Record<string, string>>
  readonly filesystem: {
    readonly allowWrite: ReadonlyArray<string>
    readonly denyWrite: ReadonlyArray<string>
    readonly denyRead: ReadonlyArray<string>
    readonly allowRead: ReadonlyArray<string>
  }
  readonly allowedDomains: ReadonlyArray<string>
}

export interface WrappedCommand {
  readonly invocation: ShellInvocation
  /** The `<sandbox_violations>` block of what the sandbox refused this command, if anything. */
  readonly violations: () => string | undefined
}

/** Joins the process-wide manager for the life of the scope (starting it when nobody has). */
export const acquireManager = (needs: ManagerNeeds): Effect.Effect<ManagerHandle, SandboxError, Scope.Scope> =>
  Effect.gen(function*() {
    const token = Symbol("toolgate-sandbox-user")
    const joined = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          if (shared === undefined) {
            const { SandboxManager } = loadRuntimePackage()
            const users = new Map<symbol, ManagerNeeds>([[token, needs]])
            // Nobody can be asked about a host from inside a Bash call: a host no list allows is refused.
            const ready = SandboxManager.initialize(globalConfig(users) as never, async () => false)
            shared = { manager: SandboxManager, ready, users }
          } else {
            shared.users.set(token, needs)
            shared.manager.updateConfig(globalConfig(shared.users) as never)
          }
          return shared
        },
        catch: failure
      }),
      (joined) =>
        Effect.promise(async () => {
          joined.users.delete(token)
          if (joined.users.size > 0) {
            try {
              joined.manager.updateConfig(globalConfig(joined.users) as never)
            } catch {
              // the remaining users keep the configuration they had
            }
            return
          }
          if (shared === joined) shared = undefined
          await joined.ready.catch(() => undefined)
          await joined.manager.reset().catch(() => undefined)
        })
    )
    yield* Effect.tryPromise({ try: () => joined.ready, catch: failure })

    const update = (next: ManagerNeeds) =>
      Effect.try({
        try: () => {
          const before = joined.users.get(token)
          joined.users.set(token, next)
          if (before !== undefined && JSON.stringify(before) === JSON.stringify(next)) return
          joined.manager.updateConfig(globalConfig(joined.users) as never)
        },
        catch: failure
      })

    const wrap = (request: WrapRequest): Effect.Effect<WrappedCommand, SandboxError, Scope.Scope> =>
      Effect.gen(function*() {
        // 128 random bits: the proxy binds a connection to this command's allow list by it
        const commandId = randomBytes(16).toString("base64url")
        const assignments = Object.entries(request.innerEnv)
          .map(([name, value]) => `${name}=${shellQuote(value)}`)
          .join(" ")
        const inner = `${assignments} exec ${
          [request.shell, ...commandArgs(request.command)].map(shellQuote).join(" ")
        }`
        const { argv } = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: (signal) =>
              joined.manager.wrapWithSandboxArgv(
                inner,
                request.shell,
                {
                  filesystem: {
                    allowWrite: [...request.filesystem.allowWrite],
                    denyWrite: [...request.filesystem.denyWrite],
                    denyRead: [...request.filesystem.denyRead],
                    allowRead: [...request.filesystem.allowRead]
                  }
                },
                signal,
                request.cwd,
                { commandId, commandText: request.command }
              ),
            catch: failure
          }),
          // the mount points bubblewrap needed are removed once the command has ended
          () => Effect.sync(() => joined.manager.cleanupAfterCommand())
        )
        if (request.allowedDomains.length > 0) {
          yield* Effect.acquireRelease(
            Effect.try({
              try: () =>
                joined.manager.registerCommandNetworkLists(commandId, { allowedDomains: [...request.allowedDomains] }),
              catch: failure
            }),
            () => Effect.sync(() => joined.manager.unregisterCommandNetworkLists(commandId))
          )
        }
        const [file, ...args] = argv
        if (file === undefined) {
          return yield* new SandboxError({
            stage: "settings profile",
            reason: "the sandbox runtime gave no command to run"
          })
        }
        return {
          invocation: { file, args, env: { ...request.env } },
          violations: () => {
            const annotated = joined.manager.annotateStderrWithSandboxFailures(commandId, "")
            const start = annotated.indexOf("<sandbox_violations>")
            return start === -1 ? undefined : annotated.slice(start)
          }
        }
      })

    return { update, wrap }
  })
