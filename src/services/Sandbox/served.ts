/**
 * The profile of a served session (`toolgate serve`): every Bash command, hook and MCP server of
 * the session runs in it, whatever approved it. Where the read-only profile shows the whole file
 * system read-only, this one shows almost nothing of the host:
 *   - the system's program folders (/usr, /bin, /lib…) and a few files of /etc that programs need
 *     (users, name resolution, certificates, time zone), read-only;
 *   - the session's working directories (writable unless the command was only judged read-only)
 *     and the folders the server names read-only (the session's own folder, extra program folders);
 *   - a private /tmp and /dev, a /proc of its own process namespace (no other process's environ);
 *   - no network unless the server allows it; no capabilities; Unix sockets blocked where the
 *     seccomp helper runs.
 * $HOME, the server's state folder, its database and token files are not mounted at all; server
 * paths that lie inside a working directory are covered over.
 */
import * as fs from "node:fs"
import type { ShellInvocation } from "./invocation.js"

/** What a served session's processes may see; fixed when the session's runtime is built. */
export interface ServedProfile {
  readonly bwrapPath: string
  readonly seccompHelper: string | undefined
  /** The session's working directories (real paths): the only place of the host a process may write. */
  readonly workingDirectories: ReadonlyArray<string>
  /** Folders shown read-only besides the system's (the session's own folder, extra program folders). */
  readonly readOnly: ReadonlyArray<string>
  /** The server's own files and folders: covered over wherever they would show. */
  readonly hidden: ReadonlyArray<string>
  /** The host's network (else a network namespace of its own, with nothing in it). */
  readonly network: boolean
}

export interface ServedProcess {
  /** The program and its arguments inside the sandbox. */
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  /** The whole environment of the process (nothing else passes into the sandbox). */
  readonly env: Readonly<Record<string, string>>
  /** A private folder of this process (TMPDIR, HOME). */
  readonly scratch: string
  /** The working directories are writable (false: a command only the analyzer judged read-only). */
  readonly writable: boolean
  /** Files of toolgate's own plumbing: shown read-only, or writable. */
  readonly readableFiles?: ReadonlyArray<string>
  readonly writableFiles?: ReadonlyArray<string>
}

const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]

/** What programs read in /etc: users and groups, name resolution, shared libraries, certificates, time. */
const ETC_ENTRIES = [
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/hosts",
  "/etc/host.conf",
  "/etc/resolv.conf",
  "/etc/gai.conf",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/ssl/certs",
  "/etc/ca-certificates",
  "/etc/ca-certificates.conf",
  "/etc/os-release",
  "/etc/debian_version",
  "/etc/protocols",
  "/etc/services",
  "/etc/mime.types",
  "/etc/inputrc",
  "/etc/bash.bashrc",
  "/etc/profile",
  "/etc/environment",
  "/etc/gitconfig",
  "/etc/magic",
  "/etc/papersize"
]

const lstat = (p: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(p)
  } catch {
    return undefined
  }
}

/** `/bin` → `usr/bin` on merged-/usr systems is kept a symlink; a real folder is bound. */
const systemMounts = (): Array<string> => {
  const args: Array<string> = []
  for (const folder of SYSTEM_FOLDERS) {
    const stat = lstat(folder)
    if (stat === undefined) continue
    if (stat.isSymbolicLink()) args.push("--symlink", fs.readlinkSync(folder), folder)
    else if (stat.isDirectory()) args.push("--ro-bind", folder, folder)
  }
  for (const entry of ETC_ENTRIES) {
    if (lstat(entry) !== undefined) args.push("--ro-bind-try", entry, entry)
  }
  return args
}

let cachedSystemMounts: ReadonlyArray<string> | undefined

const isWithin = (root: string, p: string) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`)

/** Inside a fresh user namespace, root may still have to hand CAP_SETFCAP to the seccomp helper. */
const isRoot = (): boolean => process.geteuid?.() === 0

export const servedInvocation = (profile: ServedProfile, process_: ServedProcess): ShellInvocation => {
  cachedSystemMounts ??= systemMounts()
  const args: Array<string> = [
    // no --new-session: the command is spawned detached (a session of its own, no terminal to inject
    // into), and an inner bwrap in yet another session would miss the group signal that stops it
    "--die-with-parent",
    "--unshare-all",
    "--unshare-user",
    ...(profile.network ? ["--share-net"] : []),
    "--clearenv",
    ...cachedSystemMounts,
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--dir",
    "/var/tmp"
  ]
  // later mounts lie over earlier ones: read-only folders, working directories, then the server's own paths covered
  for (const dir of profile.readOnly) if (lstat(dir) !== undefined) args.push("--ro-bind", dir, dir)
  const bind = process_.writable ? "--bind" : "--ro-bind"
  for (const dir of profile.workingDirectories) if (lstat(dir) !== undefined) args.push(bind, dir, dir)
  for (const hidden of profile.hidden) {
    if (
      !profile.workingDirectories.some((dir) => isWithin(dir, hidden)) &&
      !profile.readOnly.some((dir) => isWithin(dir, hidden))
    ) continue
    const stat = lstat(hidden)
    if (stat === undefined) continue
    if (stat.isDirectory()) args.push("--tmpfs", hidden, "--remount-ro", hidden)
    else args.push("--ro-bind", "/dev/null", hidden)
  }
  // the session's own folder stays readable even when the server's state folder is covered
  for (const dir of profile.readOnly) {
    if (profile.hidden.some((hidden) => isWithin(hidden, dir)) && lstat(dir) !== undefined) {
      args.push("--ro-bind", dir, dir)
    }
  }
  args.push("--bind", process_.scratch, process_.scratch)
  for (const file of process_.readableFiles ?? []) args.push("--ro-bind", file, file)
  for (const file of process_.writableFiles ?? []) args.push("--bind", file, file)
  if (profile.seccompHelper !== undefined) args.push("--ro-bind", profile.seccompHelper, profile.seccompHelper)
  for (const [name, value] of Object.entries(process_.env)) args.push("--setenv", name, value)
  args.push("--cap-drop", "ALL")
  if (profile.seccompHelper !== undefined && isRoot()) args.push("--cap-add", "CAP_SETFCAP")
  args.push("--chdir", process_.cwd)
  if (profile.seccompHelper !== undefined) {
    args.push("--setenv", "SRT_ALLOW_NESTED_USERNS", "0", "--", profile.seccompHelper, ...process_.argv)
  } else {
    args.push("--disable-userns", "--", ...process_.argv)
  }
  return { file: profile.bwrapPath, args, env: { PATH: process_.env.PATH ?? "/usr/bin:/bin" } }
}
