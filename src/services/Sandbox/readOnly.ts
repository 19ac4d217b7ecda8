/**
 * The read-only profile, for commands nothing but the shell analyzer approved: bubblewrap with the
 * whole file system mounted read-only, fresh namespaces for everything (no network at all: a new
 * network namespace has nothing but its own loopback), no capabilities, Unix sockets blocked by
 * the seccomp helper, and the paths Read deny rules cover hidden. The only writable places are the
 * ones named in `writable` (a private scratch TMPDIR, the file toolgate's shell plumbing reports
 * the final directory in).
 *
 * Built on bwrap directly rather than through @anthropic-ai/sandbox-runtime: the library always
 * keeps some paths writable (`/tmp/claude`, `~/.npm/_logs`) and routes every sandbox's network
 * through its shared proxy with the session's allow list, neither of which fits "writes nothing,
 * reaches nothing".
 */
import type { ShellInvocation } from "./invocation.js"

export interface HiddenPaths {
  /** Replaced by an empty read-only directory. */
  readonly directories: ReadonlyArray<string>
  /** Replaced by an empty file (/dev/null). */
  readonly files: ReadonlyArray<string>
}

export interface ReadOnlyProfile {
  readonly bwrapPath: string
  readonly seccompHelper: string | undefined
  readonly cwd: string
  /** Files and directories bound writable (they must exist). */
  readonly writable: ReadonlyArray<string>
  readonly hidden: HiddenPaths
  /** The environment of the command. */
  readonly env: Readonly<Record<string, string>>
  /** The program and its arguments inside the sandbox. */
  readonly argv: ReadonlyArray<string>
}

/** Inside a fresh user namespace, root may still have to hand CAP_SETFCAP to the seccomp helper (see its docs). */
const isRoot = (): boolean => process.geteuid?.() === 0

export const readOnlyInvocation = (profile: ReadOnlyProfile): ShellInvocation => {
  const args: Array<string> = [
    // no --new-session: the command is spawned detached (a session of its own, no terminal to inject
    // into), and an inner bwrap in yet another session would miss the group signal that stops it
    "--die-with-parent",
    "--unshare-all",
    "--unshare-user",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc"
  ]
  // later mounts lie over earlier ones: what is writable first, what stays read-only in it, then what is hidden
  for (const place of profile.writable) args.push("--bind", place, place)
  for (const dir of profile.hidden.directories) args.push("--tmpfs", dir, "--remount-ro", dir)
  for (const file of profile.hidden.files) args.push("--ro-bind", "/dev/null", file)
  args.push("--cap-drop", "ALL")
  if (profile.seccompHelper !== undefined && isRoot()) args.push("--cap-add", "CAP_SETFCAP")
  args.push("--chdir", profile.cwd)
  if (profile.seccompHelper !== undefined) {
    // the helper refuses nested user namespaces unless told otherwise, and clears the variable
    args.push("--setenv", "SRT_ALLOW_NESTED_USERNS", "0", "--", profile.seccompHelper, ...profile.argv)
  } else {
    // without the helper, bubblewrap itself keeps the command from making user namespaces of its own
    args.push("--disable-userns", "--", ...profile.argv)
  }
  return { file: profile.bwrapPath, args, env: { ...profile.env } }
}
