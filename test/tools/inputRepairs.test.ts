/**
 * Inputs Claude Code repairs before validation (so the call runs): other field names, one-element
 * arrays, bounds that only mean "no bound".
 */
import { describe, expect, it } from "vitest"
import { repairBashInput, repairEditInput, repairReadInput } from "../../src/tools/inputRepairs.js"

describe("input repairs", () => {
  it("Read: unwraps one-element arrays, drops a negative offset and a limit of 0 or less, maps length, drops description", () => {
    expect(repairReadInput({ file_path: "a", limit: [1] })).toEqual({ file_path: "a", limit: 1 })
    expect(repairReadInput({ file_path: "a", offset: -3 })).toEqual({ file_path: "a" })
    expect(repairReadInput({ file_path: "a", offset: "-3" })).toEqual({ file_path: "a" })
    expect(repairReadInput({ file_path: "a", limit: 0 })).toEqual({ file_path: "a" })
    expect(repairReadInput({ file_path: "a", length: 5 })).toEqual({ file_path: "a", limit: 5 })
    expect(repairReadInput({ file_path: "a", length: 5, limit: 2 })).toEqual({ file_path: "a", limit: 2 })
    expect(repairReadInput({ file_path: "a", description: "x" })).toEqual({ file_path: "a" })
    expect(repairReadInput({ file_path: "a", offset: 1.5 })).toBeUndefined()
    expect(repairReadInput({ file_path: "a", offset: 2, limit: 3 })).toBeUndefined()
  })

  it("Edit: path, old_str, new_str and replace_name are its fields by other names", () => {
    expect(repairEditInput({ path: "/a", old_str: "x", new_str: "y", replace_name: "true" })).toEqual({
      file_path: "/a",
      old_string: "x",
      new_string: "y",
      replace_all: true
    })
    // the real name wins; the other stays (and is reported as unexpected)
    expect(repairEditInput({ file_path: "/a", path: "/b", old_string: "x", new_string: "y" })).toBeUndefined()
  })

  it("Bash: timeout_ms and command_description", () => {
    expect(repairBashInput({ command: "ls", timeout_ms: 5000 })).toEqual({ command: "ls", timeout: 5000 })
    expect(repairBashInput({ command: "ls", timeout_ms: "soon" })).toBeUndefined()
    expect(repairBashInput({ command: "ls", command_description: "list" })).toEqual({
      command: "ls",
      description: "list"
    })
    expect(repairBashInput({ command: "ls", description: "d", command_description: "list" })).toEqual({
      command: "ls",
      description: "d"
    })
  })
})
