/**
 * The handler `if` field (claude-code-spec §2.1): one permission rule; Bash patterns per
 * subcommand, inside `$()`/backticks, after `VAR=`; unparseable commands run the hook.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  bashPatternMatches,
  domainMatches,
  ifMatches,
  pathPatternMatches
} from "../../../src/services/Hooks/ifCondition.js"
import { bashCandidates, splitCommand, stripWrappers } from "../../../src/services/Hooks/bashSubcommands.js"
import * as ShellAnalyzer from "../../../src/services/ShellAnalyzer.js"
import { sharedShellAnalyzer } from "../../support/shellAnalyzer.js"
import {
  agentTool,
  bashTool,
  cmd,
  editTool,
  hooksSettings,
  makeProject,
  mcpTool,
  preToolUse,
  readTool,
  removeProject,
  sessionFor,
  webFetchTool,
  writeTool
} from "./support.js"

describe("Bash specifiers (§1.5)", () => {
  const table: ReadonlyArray<readonly [string, string, boolean]> = [
    ["git commit:*", "git commit -m x", true],
    ["git commit:*", "git commit", true],
    ["git commit:*", "git committer", false],
    ["npm:*", "npmx i", false],
    ["git *", "git", true],
    ["git *", "git log --all", true],
    ["git *", "gitk", false],
    ["ls*", "lsof", true],
    ["git * main", "git push origin main", true],
    ["git  *", "git   status", true], // whitespace runs collapse
    ["rm -rf build", "rm -rf build", true],
    ["rm -rf build", "rm -rf build2", false],
    ["echo \\*", "echo *", true],
    ["echo \\*", "echo x", false]
  ]
  for (const [spec, command, expected] of table) {
    it(`Bash(${spec}) vs ${JSON.stringify(command)} → ${expected}`, () =>
      expect(bashPatternMatches(spec, command)).toBe(expected))
  }
})

// Without a parser, `if` conditions are matched on the splitter's subcommands.
const splitterOnly = Effect.runSync(ShellAnalyzer.makeUnavailable())

describe("fallback splitter", () => {
  it("splits at operators outside quotes and looks into substitutions", () => {
    expect(splitCommand("ls && git push; echo 'a;b' | wc -l")).toEqual(["ls", "git push", "echo 'a;b'", "wc -l"])
    expect(splitCommand("echo \"$(git log -1)\" `whoami`")).toEqual([
      "git log -1",
      "whoami",
      "echo \"$(git log -1)\" `whoami`"
    ])
    expect(splitCommand("diff <(cat a) <(cat b)")).toEqual(["cat a", "cat b", "diff <(cat a) <(cat b)"])
    expect(splitCommand("(cd x && make) || true")).toEqual(["cd x", "make", "true"])
    expect(splitCommand("make 2>&1 | tee log & wait")).toEqual(["make 2>&1", "tee log", "wait"])
    expect(splitCommand("echo a # ; rm -rf /")).toEqual(["echo a"])
  })

  it("is unparseable for here-documents and unbalanced quotes or parentheses", () => {
    expect(splitCommand("cat <<EOF\nhi\nEOF")).toBeUndefined()
    expect(splitCommand("echo 'oops")).toBeUndefined()
    expect(splitCommand("echo $(ls")).toBeUndefined()
    expect(splitCommand("echo )")).toBeUndefined()
  })

  it("strips assignments, keywords and transparent wrappers", () => {
    expect(stripWrappers("FOO=1 BAR=2 git status")).toEqual(["git status"])
    expect(stripWrappers("timeout -s KILL 10 nice -n 5 git push")).toEqual([
      "timeout -s KILL 10 nice -n 5 git push",
      "nice -n 5 git push",
      "git push"
    ])
    expect(stripWrappers("env A=1 git push")).toEqual(["env A=1 git push", "git push"])
    expect(stripWrappers("command -v git")).toEqual(["command -v git"])
    expect(stripWrappers("xargs -n1 rm")).toEqual(["xargs -n1 rm"])
  })

  it.effect("candidates include the whole command; commands over 10,000 characters are unparseable", () =>
    Effect.gen(function*() {
      expect(yield* bashCandidates(splitterOnly, "ls && FOO=1 git push")).toEqual([
        "ls && FOO=1 git push",
        "ls",
        "git push"
      ])
      expect(yield* bashCandidates(splitterOnly, `echo ${"a".repeat(10_001)}`)).toBeUndefined()
      expect(yield* bashCandidates(splitterOnly, "echo a\0b")).toBeUndefined()
    }))
})

describe("ifMatches", async () => {
  const session = sessionFor("/work/proj", { cwd: "/work/proj/pkg" })
  const check = (rule: string, tool: Parameters<typeof ifMatches>[2], input: unknown) =>
    Effect.runPromise(ifMatches(splitterOnly, rule, tool, input, session))

  it("tool names, bare rules and legacy names", async () => {
    expect(await check("Bash", bashTool, { command: "ls" })).toBe(true)
    expect(await check("Write", bashTool, { command: "ls" })).toBe(false)
    expect(await check("Task(Explore)", agentTool, { prompt: "", subagent_type: "Explore" })).toBe(true)
    expect(await check("Agent(Plan)", agentTool, { prompt: "", subagent_type: "Explore" })).toBe(false)
    expect(await check("mcp__memory", mcpTool, { entities: [] })).toBe(true)
    expect(await check("mcp__other", mcpTool, { entities: [] })).toBe(false)
  })

  it("Bash: per subcommand, inside $( ) and backticks, after VAR=; unparseable runs the hook", async () => {
    const bash = (command: string) => check("Bash(git *)", bashTool, { command })
    expect(await bash("git status")).toBe(true)
    expect(await bash("ls -la")).toBe(false)
    expect(await bash("ls && git push")).toBe(true)
    expect(await bash("echo \"$(git log -1)\"")).toBe(true)
    expect(await bash("echo `git rev-parse HEAD`")).toBe(true)
    expect(await bash("GIT_DIR=x git status")).toBe(true)
    expect(await bash("timeout 5 git fetch")).toBe(true)
    expect(await bash("echo git")).toBe(false)
    expect(await bash("cat <<EOF\nx\nEOF")).toBe(true)
    expect(await bash("echo 'unterminated")).toBe(true)
    expect(await check("Bash(git commit:*)", bashTool, { command: "npm test && git commit -m wip" })).toBe(true)
  })

  it("Edit and Read rules cover their tool families through the path (§1.7 anchors)", async () => {
    expect(await check("Edit(*.ts)", writeTool, { file_path: "/work/proj/pkg/src/a.ts", content: "" })).toBe(true)
    expect(
      await check("Edit(*.ts)", editTool, { file_path: "/work/proj/pkg/src/a.js", old_string: "", new_string: "" })
    ).toBe(false)
    expect(await check("Edit(src/**)", writeTool, { file_path: "/work/proj/pkg/src/deep/a.js", content: "" })).toBe(
      true
    )
    expect(await check("Edit(/pkg/**)", writeTool, { file_path: "/work/proj/pkg/a.js", content: "" })).toBe(true)
    expect(await check("Edit(//etc/**)", writeTool, { file_path: "/etc/passwd", content: "" })).toBe(true)
    expect(await check("Edit(*.ts)", writeTool, { file_path: "/elsewhere/a.ts", content: "" })).toBe(false)
    expect(await check("Read(.env)", readTool, { file_path: "/work/proj/pkg/deep/.env" })).toBe(true)
    expect(await check("Read(.env)", writeTool, { file_path: "/work/proj/pkg/.env", content: "" })).toBe(false)
  })

  it("WebFetch domains and parameter rules", async () => {
    expect(
      await check("WebFetch(domain:*.example.com)", webFetchTool, { url: "https://a.b.example.com/x", prompt: "" })
    ).toBe(true)
    expect(await check("WebFetch(domain:*.example.com)", webFetchTool, { url: "https://example.com/", prompt: "" }))
      .toBe(false)
    expect(await check("Agent(model:opus*)", agentTool, { prompt: "", subagent_type: "x", model: "opus-4" })).toBe(true)
    expect(await check("Agent(model:opus*)", agentTool, { prompt: "", subagent_type: "x" })).toBe(false)
    expect(await check("Bash(run_in_background:true)", bashTool, { command: "x", run_in_background: true })).toBe(true)
  })

  it("helpers: domains and path anchors", async () => {
    expect(domainMatches("example.*", "https://example.org")).toBe(true)
    expect(domainMatches("example.*", "https://example.evil.com")).toBe(false)
    expect(domainMatches("Example.COM.", "https://example.com./")).toBe(true)
    expect(pathPatternMatches("~/secrets/**", path.join(os.homedir(), "secrets/k"), session)).toBe(true)
  })
})

describe("`if` decides whether a hook process runs", () => {
  let project: string
  beforeEach(() => {
    project = makeProject()
  })
  afterEach(() => removeProject(project))

  it.live("a Bash(git *) hook runs for git subcommands only; an Edit(*.ts) hook for .ts writes", () =>
    Effect.gen(function*() {
      const marker = path.join(project, "ran")
      const sources = [
        { settings: hooksSettings("PreToolUse", "Bash", [cmd(`touch ${marker}-git`, { if: "Bash(git *)" })]) },
        {
          source: "userSettings" as const,
          settings: hooksSettings("PreToolUse", "Edit|Write", [cmd(`touch ${marker}-ts`, { if: "Edit(*.ts)" })])
        }
      ]
      yield* preToolUse(project, sources, bashTool, { command: "ls -la" })
      expect(fs.existsSync(`${marker}-git`)).toBe(false)
      yield* preToolUse(project, sources, bashTool, { command: "npm test && git push" })
      expect(fs.existsSync(`${marker}-git`)).toBe(true)
      yield* preToolUse(project, sources, writeTool, { file_path: path.join(project, "a.js"), content: "" })
      expect(fs.existsSync(`${marker}-ts`)).toBe(false)
      yield* preToolUse(project, sources, writeTool, { file_path: path.join(project, "a.ts"), content: "" })
      expect(fs.existsSync(`${marker}-ts`)).toBe(true)
    }))
})

describe("with the project's shell analyzer", () => {
  const session = sessionFor("/work/proj")
  const bash = (command: string) =>
    Effect.runPromise(ifMatches(sharedShellAnalyzer, "Bash(git *)", bashTool, { command }, session))

  it("subcommands, substitutions, assignments, wrappers and nested shells", async () => {
    expect(await bash("ls && git push")).toBe(true)
    expect(await bash("ls -la")).toBe(false)
    expect(await bash("echo \"$(git log -1)\"")).toBe(true)
    expect(await bash("GIT_DIR=x git status")).toBe(true)
    expect(await bash("timeout 5 git fetch")).toBe(true)
    expect(await bash("bash -c 'git status'")).toBe(true)
    expect(await bash("echo git")).toBe(false)
    // what the analyzer cannot resolve runs the hook
    expect(await bash("echo 'unterminated")).toBe(true)
  })
})

describe("Bash `if` filters judge the parsed command as deny rules do (issue 22)", () => {
  const session = sessionFor("/work/proj")
  const matches = (rule: string, command: string) =>
    Effect.runPromise(ifMatches(sharedShellAnalyzer, rule, bashTool, { command }, session))

  it("options before the subcommand, equivalent spellings, wrappers and nested shells do not hide the command", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["Bash(git push:*)", "git --no-pager push"],
      ["Bash(git push:*)", "git -C . push"],
      ["Bash(git push:*)", "timeout 5 git push"],
      ["Bash(git push:*)", "bash -c 'git push'"],
      ["Bash(git push:*)", "git p"],
      ["Bash(git push --force:*)", "git push -f"],
      ["Bash(git push --force:*)", "git push origin main --force"],
      ["Bash(rm -rf:*)", "rm -Rf build"],
      ["Bash(rm -rf:*)", "rm --recursive --force build"],
      ["Bash(npm publish:*)", "npm publis"],
      ["Bash(rm:*)", "/bin/rm -f x"],
      ["Bash(git push:*)", "git push $REMOTE"]
    ]
    for (const [rule, command] of cases) {
      expect({ rule, command, runs: await matches(rule, command) }).toEqual({ rule, command, runs: true })
    }
  })

  it("commands the rule does not name still skip the hook", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["Bash(git push:*)", "git pull"],
      ["Bash(git push --force:*)", "git push origin main"],
      ["Bash(rm -rf:*)", "rm -r build"],
      ["Bash(npm publish:*)", "npm pack"]
    ]
    for (const [rule, command] of cases) {
      expect({ rule, command, runs: await matches(rule, command) }).toEqual({ rule, command, runs: false })
    }
  })
})
