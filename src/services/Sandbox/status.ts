/** What can sandbox commands on this machine, as detected once (see detect.ts). */

export interface SandboxAvailable {
  readonly _tag: "Available"
  readonly mechanism: "bubblewrap"
  /** `bubblewrap 0.8.0` as `bwrap --version` says it. */
  readonly version: string
  readonly bwrapPath: string
  /**
   * The seccomp helper of @anthropic-ai/sandbox-runtime that stops sandboxed commands from opening
   * Unix sockets (a socket such as docker.sock leads out of any sandbox); undefined when it cannot
   * be used here, and then Unix sockets stay reachable.
   */
  readonly seccompHelper: string | undefined
  /** socat, which the settings profile's network filter needs (the read-only profile has no network at all). */
  readonly socatPath: string | undefined
  /** ripgrep, which the settings profile uses to find protected files. */
  readonly ripgrepPath: string | undefined
}

export interface SandboxUnavailable {
  readonly _tag: "Unavailable"
  readonly reason: string
}

export type SandboxStatus = SandboxAvailable | SandboxUnavailable

/** Why the settings profile (Claude Code's sandbox) cannot run here, or undefined when it can. */
export const settingsProfileMissing = (status: SandboxStatus): string | undefined => {
  if (status._tag === "Unavailable") return status.reason
  const missing = [
    status.socatPath === undefined ? "socat" : undefined,
    status.ripgrepPath === undefined ? "ripgrep (rg)" : undefined
  ].filter(
    (m): m is string => m !== undefined
  )
  return missing.length === 0 ? undefined : `${missing.join(" and ")} not installed`
}
