/**
 * Matcher semantics (claude-code-spec §2.2), as a table, plus a run through real processes.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { matcherMatches } from "../../../src/services/Hooks/matcher.js"
import {
  agentTool,
  cmd,
  fixture,
  makeProject,
  mcpTool,
  notebookEditTool,
  preToolUse,
  removeProject,
  writeTool
} from "./support.js"

describe("matcherMatches (§2.2)", () => {
  const table: ReadonlyArray<readonly [string | undefined, string, boolean]> = [
    [undefined, "Bash", true],
    ["", "Bash", true],
    ["*", "mcp__x__y", true],
    ["Bash", "Bash", true],
    ["Bash", "BashOutput", false],
    ["bash", "Bash", false], // case-sensitive
    ["Edit|Write", "Write", true],
    ["Edit|Write", "NotebookEdit", false],
    ["Edit, Write", "Write", true],
    [" Edit , Write ", "Edit", true],
    ["Edit,Write|Read", "Read", true],
    ["my-tool", "my-tool", true],
    ["Edit.*", "NotebookEdit", true], // unanchored regex
    ["^Edit$", "NotebookEdit", false],
    ["^Edit$", "Edit", true],
    ["Write|Edit.*", "MultiEdit", true],
    ["mcp__memory", "mcp__memory__create_entities", false],
    ["mcp__memory__.*", "mcp__memory__create_entities", true],
    ["mcp__.*__write.*", "mcp__fs__write_file", true],
    ["(", "Bash", false], // invalid regex matches nothing
    ["[", "[", false],
    ["Task", "Agent", true], // legacy alias on the matcher side
    ["Agent", "Task", true], // and on the tool side
    ["^Task$", "Agent", true], // the regex is tried against legacy aliases
    ["KillShell", "TaskStop", true],
    ["BashOutput", "TaskOutput", true]
  ]
  for (const [matcher, tool, expected] of table) {
    it(`${JSON.stringify(matcher)} vs ${tool} → ${expected}`, () => {
      expect(matcherMatches(matcher, tool)).toBe(expected)
    })
  }
})

describe("matchers select which hook processes run", () => {
  let project: string
  beforeEach(() => {
    project = makeProject()
  })
  afterEach(() => removeProject(project))

  it.live("exact list, unanchored regex, invalid regex, legacy alias, mcp server prefix", () =>
    Effect.gen(function*() {
      const rec = (name: string) => cmd(`${fixture("record.sh")} ${path.join(project, name)}`)
      const groups = [
        { matcher: "Edit|Write", hooks: [rec("exact")] },
        { matcher: "Edit.*", hooks: [rec("regex")] },
        { matcher: "(unclosed", hooks: [rec("invalid")] },
        { matcher: "Task", hooks: [rec("legacy")] },
        { matcher: "mcp__memory", hooks: [rec("mcp-exact")] },
        { matcher: "mcp__memory__.*", hooks: [rec("mcp-regex")] }
      ]
      const sources = [{ settings: { hooks: { PreToolUse: groups } } }]
      const ran = () =>
        ["exact", "regex", "invalid", "legacy", "mcp-exact", "mcp-regex"].filter((n) =>
          fs.existsSync(path.join(project, `${n}.done`))
        )
      const clear = () => {
        for (const f of fs.readdirSync(project)) if (f.endsWith(".done")) fs.rmSync(path.join(project, f))
      }

      yield* preToolUse(project, sources, writeTool, { file_path: path.join(project, "a"), content: "" })
      expect(ran()).toEqual(["exact"])
      clear()
      yield* preToolUse(project, sources, notebookEditTool, { notebook_path: path.join(project, "n.ipynb") })
      expect(ran()).toEqual(["regex"])
      clear()
      yield* preToolUse(project, sources, agentTool, { prompt: "p", subagent_type: "Explore" })
      expect(ran()).toEqual(["legacy"])
      clear()
      yield* preToolUse(project, sources, mcpTool, { entities: [] })
      expect(ran()).toEqual(["mcp-regex"])
    }))
})
