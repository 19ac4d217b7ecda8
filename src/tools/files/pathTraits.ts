/**
 * The path-related parts of a file tool's definition, from the one field that names its path:
 * how hooks and permission checks see the input (path made absolute), the permission subject,
 * and the footprint (the real path, for footprint scheduling).
 */
import { Effect } from "effect"
import type { Footprint } from "../../Tool.js"
import type { SessionContext } from "../../Session.js"
import { expandLenient, realPathOrAncestor } from "./paths.js"

type Access = "read" | "write"

const footprintAt = (access: Access, file: string): Effect.Effect<Footprint> =>
  Effect.sync(() => {
    const real = realPathOrAncestor(file)
    return access === "read" ? { reads: [real], writes: [] } : { reads: [], writes: [real] }
  })

/** A tool whose input names one file in `field` (Read, Write, Edit, NotebookEdit). */
export const fileAt = <K extends string, I extends { readonly [key in K]: string }>(field: K, access: Access) => {
  const at = (input: I, session: SessionContext) => expandLenient(input[field], session.cwd)
  return {
    expandInput: (input: I, session: SessionContext): I => ({ ...input, [field]: at(input, session) }),
    permissionSubject: (input: I, session: SessionContext) => ({ kind: access, path: at(input, session) }),
    footprint: (input: I, session: SessionContext) => footprintAt(access, at(input, session))
  }
}

/** A search under an optional `path`, the cwd when it is left out (Glob, Grep). */
export const searchUnder = <I extends { readonly path?: string }>() => {
  const root = (input: I, session: SessionContext) => expandLenient(input.path ?? session.cwd, session.cwd)
  return {
    root,
    expandInput: (input: I, session: SessionContext): I =>
      input.path === undefined ? input : { ...input, path: expandLenient(input.path, session.cwd) },
    permissionSubject: (input: I, session: SessionContext) => ({ kind: "read" as const, path: root(input, session) }),
    footprint: (input: I, session: SessionContext) => footprintAt("read", root(input, session))
  }
}
