/**
 * A subagent's file-read state: it starts knowing what its parent had read (as Claude Code
 * clones the read state for a subagent), and what it reads or writes itself stays its own, so
 * the parent never edits a file on the strength of a read it did not make.
 */
import { Effect, Option } from "effect"
import { FileState, type FileSnapshot, type FileStateService } from "../../FileState.js"

export const overlayFileState = (parent: FileStateService): FileStateService => {
  const own = new Map<string, FileSnapshot | "forgotten">()
  return FileState.of({
    record: (path, snapshot) => Effect.sync(() => void own.set(path, snapshot)),
    get: (path) =>
      Effect.suspend(() => {
        const mine = own.get(path)
        if (mine === "forgotten") return Effect.succeed(Option.none())
        return mine === undefined ? parent.get(path) : Effect.succeed(Option.some(mine))
      }),
    forget: (path) => Effect.sync(() => void own.set(path, "forgotten"))
  })
}
