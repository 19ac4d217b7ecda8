/**
 * `npm run conformance -- --area x --only y` must say so when nothing matches: a selection that
 * runs no scenario would otherwise pass silently.
 */
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { select } from "../../conformance/src/Scenario.js"
import { suite } from "./replay.js"

const pick = (filter: { only?: ReadonlyArray<string>; areas?: ReadonlyArray<string> }) =>
  Effect.runSync(Effect.either(select(suite.scenarios, filter)))

describe("choosing scenarios", () => {
  it("a name and an area that do not meet is an error naming both", () => {
    const chosen = pick({ only: ["parallel-max-tokens"], areas: ["mcp"] })
    expect(Either.isLeft(chosen)).toBe(true)
    if (Either.isLeft(chosen)) {
      expect(chosen.left.message).toBe("no scenario matches --only parallel-max-tokens --area mcp")
    }
  })

  it("an area with no scenario is an error", () => {
    const chosen = pick({ areas: ["nosuch"] })
    expect(Either.isLeft(chosen) && chosen.left.message).toBe("no scenario matches --area nosuch")
  })

  it("a name in its own area, or no filter at all, picks scenarios", () => {
    expect(Either.getOrThrow(pick({ only: ["parallel-max-tokens"], areas: ["parallel"] })).map((s) => s.name)).toEqual([
      "parallel-max-tokens"
    ])
    expect(Either.getOrThrow(pick({})).length).toBe(suite.scenarios.length)
  })
})
