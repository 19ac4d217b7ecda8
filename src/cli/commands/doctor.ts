/**
 * `toolgate doctor`: what protects this machine. The shell analyzer (does it load?), the kernel
 * sandbox (which mechanism and version, whether Unix sockets are blocked, whether Claude Code's
 * network filter can run), which profile applies to which commands, the settings in force, and
 * what ties the processes toolgate starts to its life.
 * Plain text, or `--json`.
 */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import * as os from "node:os"
import { leashStatus, type LeashStatus } from "../../internal/leash.js"
import {
  networkPolicy,
  runtimePackageVersion,
  Sandbox,
  settingsProfileMissing,
  servedSandbox,
  type SandboxStatus
} from "../../services/Sandbox.js"
import { Settings, type LoadedSettings, type SandboxSettings } from "../../services/Settings.js"
import { ShellAnalyzer } from "../../services/ShellAnalyzer.js"
import { metasOf } from "../flags.js"
import { commonFlags, commonOptions } from "../options.js"
import { bold, dim } from "../render.js"
import { withRuntime } from "../runtime.js"
import type { CommandSpec } from "../spec.js"

export const doctorSpec: CommandSpec = {
  path: ["doctor"],
  summary: "Show what protects this machine: the shell analyzer, the kernel sandbox, the settings in force",
  args: [],
  flags: metasOf(commonFlags)
}

interface Report {
  readonly shellAnalyzer: { readonly loaded: boolean; readonly reason?: string }
  readonly sandbox:
    | {
      readonly available: true
      readonly mechanism: string
      readonly version: string
      readonly path: string
      readonly runtime: string | null
      readonly unixSockets: "blocked" | "reachable"
      readonly networkFilter: string | null
      readonly ripgrep: string | null
    }
    | { readonly available: false; readonly reason: string }
  /** What only the analyzer approved: where it runs. */
  readonly readOnlyProfile: { readonly on: boolean; readonly detail: string }
  /** `toolgate serve`: where sessions' processes run, or why serve would not start. */
  readonly servedProfile: { readonly on: boolean; readonly detail: string }
  readonly settingsSandbox: {
    readonly enabled: boolean
    readonly active: boolean
    readonly reason?: string
    readonly autoAllowBashIfSandboxed: boolean
    readonly allowUnsandboxedCommands: boolean
    readonly failIfUnavailable: boolean
    readonly excludedCommands: ReadonlyArray<string>
    readonly allowedDomains: ReadonlyArray<string>
    readonly deniedDomains: ReadonlyArray<string>
    readonly sources: Readonly<Record<string, string>>
  }
  readonly permissions: { readonly mode: string; readonly allow: number; readonly ask: number; readonly deny: number }
  /** What ties the processes toolgate starts to its life (src/internal/leash.ts). */
  readonly processLifetime: { readonly namespace: boolean; readonly detail: string }
}

const sandboxPart = (status: SandboxStatus): Report["sandbox"] =>
  status._tag === "Unavailable"
    ? { available: false, reason: status.reason }
    : {
      available: true,
      mechanism: status.mechanism,
      version: status.version,
      path: status.bwrapPath,
      runtime: (() => {
        const version = runtimePackageVersion()
        return version === undefined ? null : `@anthropic-ai/sandbox-runtime ${version}`
      })(),
      unixSockets: status.seccompHelper === undefined ? "reachable" : "blocked",
      networkFilter: status.socatPath ?? null,
      ripgrep: status.ripgrepPath ?? null
    }

const settingsPart = (
  loaded: LoadedSettings,
  s: SandboxSettings,
  status: SandboxStatus,
  cwd: string
): Report["settingsSandbox"] => {
  const missing = settingsProfileMissing(status)
  const network = networkPolicy({
    settings: s,
    rules: loaded.rules,
    home: loaded.home ?? os.homedir(),
    cwd,
    workingDirectories: [cwd]
  })
  return {
    enabled: s.enabled,
    active: s.enabled && missing === undefined,
    ...(s.enabled && missing !== undefined ? { reason: missing } : {}),
    autoAllowBashIfSandboxed: s.autoAllowBashIfSandboxed,
    allowUnsandboxedCommands: s.allowUnsandboxedCommands,
    failIfUnavailable: s.failIfUnavailable,
    excludedCommands: s.excludedCommands,
    allowedDomains: network.allowedDomains,
    deniedDomains: network.deniedDomains,
    sources: s.sources
  }
}

const yesNo = (value: boolean) => (value ? "yes" : "no")
const list = (items: ReadonlyArray<string>) => (items.length === 0 ? "none" : items.join(", "))
const processLifetimePart = (status: LeashStatus): Report["processLifetime"] =>
  status._tag === "Namespace"
    ? {
      namespace: true,
      detail:
        `each in a PID namespace that dies with toolgate (${status.bwrap}): none outlives it, SIGKILL and setsid included`
    }
    : {
      namespace: false,
      detail:
        `process groups only (${status.reason}): a process that leaves its group, or toolgate killed with SIGKILL, can leave processes running`
    }

const from = (
  sources: Readonly<Record<string, string>>,
  key: string
) => (sources[key] === undefined ? dim(" (default)") : dim(` (${sources[key]})`))

const render = (r: Report): ReadonlyArray<string> => {
  const s = r.settingsSandbox
  const lines = [
    bold("Shell analyzer"),
    r.shellAnalyzer.loaded
      ? "  loaded (tree-sitter-bash): a command runs without asking only when every part of it is understood"
      : `  not loaded: ${r.shellAnalyzer.reason}; every Bash command asks`,
    bold("Kernel sandbox")
  ]
  if (r.sandbox.available) {
    lines.push(
      `  ${r.sandbox.version} (${r.sandbox.path})${r.sandbox.runtime === null ? "" : `, with ${r.sandbox.runtime}`}`,
      `  Unix sockets: ${
        r.sandbox.unixSockets === "blocked" ? "blocked (seccomp)" : "reachable (the seccomp helper cannot run here)"
      }`,
      `  network filter for Claude Code's sandbox: ${
        r.sandbox.networkFilter === null ? "unavailable (socat not installed)" : `socat (${r.sandbox.networkFilter})`
      }`
    )
  } else lines.push(`  unavailable: ${r.sandbox.reason}`)
  lines.push(bold("Commands only the analyzer approved (read-only)"), `  ${r.readOnlyProfile.detail}`)
  lines.push(bold("Served sessions (toolgate serve)"), `  ${r.servedProfile.detail}`)
  lines.push(
    bold("Claude Code's sandbox (settings)"),
    `  sandbox.enabled: ${yesNo(s.enabled)}${from(s.sources, "enabled")}${
      s.enabled ? (s.active ? ": every Bash command runs in it" : `, but it cannot run: ${s.reason}`) : ""
    }`,
    `  autoAllowBashIfSandboxed: ${yesNo(s.autoAllowBashIfSandboxed)}${from(s.sources, "autoAllowBashIfSandboxed")}`,
    `  allowUnsandboxedCommands: ${yesNo(s.allowUnsandboxedCommands)}${from(s.sources, "allowUnsandboxedCommands")}`,
    `  failIfUnavailable: ${yesNo(s.failIfUnavailable)}${from(s.sources, "failIfUnavailable")}`,
    `  excludedCommands: ${list(s.excludedCommands)}`,
    `  allowed hosts: ${list(s.allowedDomains)}`,
    `  denied hosts: ${list(s.deniedDomains)}`,
    bold("Permission rules"),
    `  mode ${r.permissions.mode}; ${r.permissions.allow} allow, ${r.permissions.ask} ask, ${r.permissions.deny} deny`,
    bold("Processes toolgate starts"),
    `  ${r.processLifetime.detail}`
  )
  return lines
}

export const doctor = Command.make("doctor", commonOptions, (values) =>
  withRuntime(
    values,
    (session) =>
      Effect.gen(function*() {
        const loaded = yield* (yield* Settings).current
        const sandbox = yield* Sandbox
        const analyzerProblem = yield* (yield* ShellAnalyzer).unavailable
        const status = yield* sandbox.status
        const settings = yield* sandbox.settings
        const served = status._tag === "Available" ? yield* servedSandbox(os.tmpdir()) : status
        const report: Report = {
          shellAnalyzer: analyzerProblem === undefined ? { loaded: true } : { loaded: false, reason: analyzerProblem },
          sandbox: sandboxPart(status),
          readOnlyProfile: status._tag === "Available"
            ? {
              on: true,
              detail:
                "run in the read-only sandbox: no writes (a private $TMPDIR aside), no network, paths Read deny rules cover hidden"
            }
            : { on: false, detail: `run unsandboxed: ${status.reason}` },
          servedProfile: served._tag === "Available"
            ? {
              on: true,
              detail:
                "every command, hook and MCP server of a session runs in the served sandbox: only the system's programs and the session's directories visible, no network unless the server allows it, a scrubbed environment"
            }
            : {
              on: false,
              detail: `no sandbox (${served.reason}): toolgate serve refuses to start unless --unsandboxed`
            },
          settingsSandbox: settingsPart(loaded, settings, status, session.cwd),
          permissions: {
            mode: loaded.mode,
            allow: loaded.rules.filter((r) => r.behavior === "allow").length,
            ask: loaded.rules.filter((r) => r.behavior === "ask").length,
            deny: loaded.rules.filter((r) => r.behavior === "deny").length
          },
          processLifetime: processLifetimePart(leashStatus())
        }
        if (values.json) yield* Console.log(JSON.stringify(report, null, 2))
        else for (const line of render(report)) yield* Console.log(line)
      }),
    {},
    { mcpNotices: false }
  )).pipe(Command.withDescription(doctorSpec.summary))
