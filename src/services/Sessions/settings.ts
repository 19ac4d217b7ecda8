/**
 * How this process serves sessions: its name among the runners, where session folders live,
 * which folders sessions may work in, the default wait for a permission answer, what a create
 * request may ask for, and what a session's processes get of the host (environment, sandbox).
 */
import { Context, Layer } from "effect"
import type { SandboxAvailable } from "../Sandbox.js"
import type { ServePolicy } from "../../ServePolicy.js"

/** The name of the one-process server's runner (a runner among several is named `host:port`). */
export const EMBEDDED_RUNNER = "embedded"

export interface ServeSettingsService {
  /** This runner as the others see it (`host:port`; `EMBEDDED_RUNNER` for the one-process server). */
  readonly runner: string
  /** Session folders (spilled results, background output, transcript files) live in `<stateDir>/sessions/<id>`. */
  readonly stateDir: string
  /** A session's cwd must be inside this folder (a real path); undefined allows any folder. */
  readonly workspaceRoot: string | undefined
  /** Default wait for a permission answer before the call is denied. */
  readonly approvalTimeoutMs: number
  /** What a create request may ask for. */
  readonly policy: ServePolicy
  /** The server's own files and folders (state folder, database, token and policy files), as real paths. */
  readonly serverPaths: ReadonlyArray<string>
  /** The environment of every session's processes (already scrubbed). */
  readonly sessionEnv: Readonly<Record<string, string>>
  /** The sandbox sessions' processes run in; undefined: none (`--unsandboxed`). */
  readonly sandbox: SandboxAvailable | undefined
  /** The user settings folder of served sessions (instead of the server user's `~/.claude`). */
  readonly configDir: string
  /** Shards per group of the cluster (the same on every runner). */
  readonly shardsPerGroup: number
  /** A session idle this long (no input, nothing running) is deleted; undefined: never. */
  readonly sessionTtlMs: number | undefined
  /** New inputs are refused (429) while this many run on this runner; undefined: no limit. */
  readonly maxRunningInputs?: number | undefined
}

export class ServeSettings
  extends Context.Tag("toolgate/Sessions/ServeSettings")<ServeSettings, ServeSettingsService>()
{}

export const layer = (settings: ServeSettingsService): Layer.Layer<ServeSettings> =>
  Layer.succeed(ServeSettings, settings)
