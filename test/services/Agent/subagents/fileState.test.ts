/**
 * A subagent's file-read state: it sees what the parent had read, and its own reads, writes and
 * forgets stay its own.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { overlayFileState } from "../../../../src/services/Agent/subagents/fileState.js"
import * as FileState from "../../../../src/services/FileState.js"

const snap = (mtimeMs: number) => ({ mtimeMs, contentHash: `h${mtimeMs}`, partial: false })

describe("a subagent's file-read state", () => {
  it.effect("starts from the parent's, and never writes back to it", () =>
    Effect.gen(function*() {
      const parent = yield* FileState.make
      yield* parent.record("/p/a.txt", snap(1))
      const child = overlayFileState(parent)
      expect(yield* child.get("/p/a.txt")).toEqual(Option.some(snap(1)))
      yield* child.record("/p/b.txt", snap(2))
      yield* child.record("/p/a.txt", snap(3))
      expect(yield* parent.get("/p/b.txt")).toEqual(Option.none())
      expect(yield* parent.get("/p/a.txt")).toEqual(Option.some(snap(1)))
      expect(yield* child.get("/p/a.txt")).toEqual(Option.some(snap(3)))
      yield* child.forget("/p/a.txt")
      expect(yield* child.get("/p/a.txt")).toEqual(Option.none())
      expect(yield* parent.get("/p/a.txt")).toEqual(Option.some(snap(1)))
    }))
})
