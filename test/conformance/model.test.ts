import { describe, expect, it } from "vitest"
import { AREA_GROUPS, replayAreas, suite, throughBuiltCli } from "./replay.js"

describe("the conformance suite", () => {
  it("has the shared tool definitions and the baseline golden", () => {
    expect(suite.definitions, "conformance/goldens/_tool-definitions.json is missing: npm run conformance:record")
      .toBeDefined()
    expect(suite.goldens.has("baseline-read")).toBe(true)
  })

  it("runs a scenario of each process-heavy area through the built CLI, and the one about a hook's leftover job", () => {
    expect(throughBuiltCli.size).toBe(5)
    expect(throughBuiltCli.has("hooks-process-child-after-exit")).toBe(true)
  })

  it("replays every area in exactly one test file", () => {
    const grouped: Array<string> = Object.values(AREA_GROUPS).flat()
    expect(new Set(grouped).size).toBe(grouped.length)
    expect(Array.from(new Set(suite.scenarios.map((s) => s.area))).sort()).toEqual([...grouped].sort())
  })
})

replayAreas("model")
