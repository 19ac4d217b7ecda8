/**
 * Command hooks run without a controlling terminal, even when toolgate itself has one.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { removeBundles, ROOT, runInPty } from "../Approver/pty.js"

afterAll(removeBundles)

describe("no controlling terminal (§2.5)", () => {
  it.live("a hook cannot open /dev/tty while a plain child of the same process can", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const term = yield* runInPty(path.join(ROOT, "test/services/Hooks/ttyHarness.ts"), [])
        const match = yield* term.waitFor(/RESULT plain=(\w+) hook=(\w+)/)
        expect(match[1]).toBe("present")
        expect(match[2]).toBe("none")
      })
    ))
})
