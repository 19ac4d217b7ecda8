/**
 * The file tools of a served session run inside the server process, so no sandbox holds them:
 * each call is held to the session's directories instead, whatever approved it. The paths a call
 * names (its footprint, symlinks resolved) must lie in the session's working directories (reads
 * and writes) or its read-only folders (reads), and never in the server's own files; a path that
 * is a dangling symlink is refused, since following it could land anywhere. The check runs before
 * the tool looks at the file at all (its input checks read files too) and again right before it
 * runs, on the input it runs with (a hook or an answer may have replaced it). The tool then opens
 * its files under a `FileGuard` holding the same limits, checked on what it really opened.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { InputRejected, ToolError } from "../../Errors.js"
import { FileGuard, type FileGuardService } from "../../internal/fileGuard.js"
import type { AnyTool, Footprint } from "../../Tool.js"
import type { SessionContext } from "../../Session.js"
import { isWithin } from "./policy.js"
import { SearchSandbox, type SearchSandboxService } from "../../internal/searchSandbox.js"

export interface Confinement {
  /** Real paths a call may read and write. */
  readonly writable: ReadonlyArray<string>
  /** Real paths a call may only read (extra program folders the server shows). */
  readonly readOnly: ReadonlyArray<string>
  /** The session's own folder (spilled results, background output), read-only; it lies in the server's state folder. */
  readonly own: string
  /** The server's own files: never, wherever they lie (but the session's own folder). */
  readonly hidden: ReadonlyArray<string>
}

/** True when `p` or the first missing part of it is a symlink that leads nowhere (or in a loop). */
const danglingLink = (p: string): boolean => {
  for (let current = p; current !== path.dirname(current); current = path.dirname(current)) {
    let stat: fs.Stats
    try {
      stat = fs.lstatSync(current)
    } catch {
      continue
    }
    if (!stat.isSymbolicLink()) return false
    try {
      fs.realpathSync(current)
      return false
    } catch {
      return true
    }
  }
  return false
}

const allowedRead = (c: Confinement, p: string) =>
  isWithin(c.own, p) ||
  ([...c.writable, ...c.readOnly].some((dir) => isWithin(dir, p)) && !c.hidden.some((h) => isWithin(h, p)))

const allowedWrite = (c: Confinement, p: string) =>
  c.writable.some((dir) => isWithin(dir, p)) &&
  !c.hidden.some((h) => isWithin(h, p)) &&
  !c.readOnly.some((dir) => isWithin(dir, p)) &&
  !isWithin(c.own, p)

/** Why the footprint leaves the session's directories, or undefined when it does not. */
export const outsideReason = (c: Confinement, footprint: Footprint): string | undefined => {
  const directories = [...c.writable, c.own, ...c.readOnly].join(", ")
  for (const p of [...footprint.reads, ...footprint.writes]) {
    if (danglingLink(p)) {
      return `${p} is a symlink that leads outside what this session can see; served sessions do not follow it`
    }
  }
  const read = footprint.reads.find((p) => !allowedRead(c, p))
  if (read !== undefined) {
    return `${read} is outside this session's directories (${directories}); a served session cannot read it`
  }
  const write = footprint.writes.find((p) => !allowedWrite(c, p))
  if (write !== undefined) {
    return `${write} is outside this session's writable directories (${
      c.writable.join(", ")
    }); a served session cannot write it`
  }
  return undefined
}

/** The real path of `p`, or of its deepest existing ancestor joined with the rest. */
const realOrAncestor = (p: string): string => {
  try {
    return fs.realpathSync(p)
  } catch {
    const parent = path.dirname(p)
    return parent === p ? p : path.join(realOrAncestor(parent), path.basename(p))
  }
}

/** More places a call reads than its footprint names (Glob's absolute pattern searches where it says). */
export type ExtraReads = (input: any, session: SessionContext) => ReadonlyArray<string>

const check = (
  tool: AnyTool,
  c: Confinement,
  input: unknown,
  session: SessionContext,
  extraReads: ExtraReads | undefined
) =>
  Effect.map(
    tool.footprint!(input, session),
    (footprint) =>
      outsideReason(
        c,
        extraReads === undefined
          ? footprint
          : { ...footprint, reads: [...footprint.reads, ...extraReads(input, session).map(realOrAncestor)] }
      )
  )

/**
 * The same limits on the file a tool really opened (the kernel's path of its descriptor): the
 * footprint check names paths, and a symlink swapped in after it must not take the open elsewhere.
 */
export const guardOf = (c: Confinement): FileGuardService => ({
  refuses: (realPath, access) => {
    if (access === "read") {
      return allowedRead(c, realPath)
        ? undefined
        : `${realPath} is outside this session's directories; a served session cannot read it`
    }
    return allowedWrite(c, realPath)
      ? undefined
      : `${realPath} is outside this session's writable directories; a served session cannot write it`
  }
})

/** The tool, held to the session's directories (it must declare a footprint). */
export const confineTool = (
  tool: AnyTool,
  c: Confinement,
  extraReads?: ExtraReads,
  searchSandbox?: SearchSandboxService
): AnyTool => {
  const guard = guardOf(c)
  const held = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.provideService(effect, FileGuard, guard).pipe(Effect.provideService(SearchSandbox, searchSandbox))
  return {
    ...tool,
    validateInput: (input, ctx) =>
      Effect.flatMap(check(tool, c, input, ctx.session, extraReads), (reason) =>
        reason === undefined
          ? held(tool.validateInput(input, ctx))
          : Effect.fail(new InputRejected({ toolName: tool.name, reason }))),
    call: (input, ctx) =>
      Effect.flatMap(
        check(tool, c, input, ctx.session, extraReads),
        (reason) =>
          reason === undefined
            ? held(tool.call(input, ctx))
            : Effect.fail(new ToolError({ reason }))
      )
  }
}

/** A tool a served session may not use at all (its calls are answered with why). */
export const refuseTool = (tool: AnyTool, why: string): AnyTool => ({
  ...tool,
  validateInput: () => Effect.fail(new InputRejected({ toolName: tool.name, reason: why })),
  call: () => Effect.fail(new ToolError({ reason: why }))
})
