/**
 * The small pieces under the decisions: candidate paths (shell-security §3.3), protected names
 * (claude-code-spec §1.12), domain patterns (§1.8), rule grammar and validation (§1.3).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  domainMatches,
  domainOfSpecifier,
  urlHostname,
  makeRule,
  parseRuleText,
  checkRule
} from "../../../src/PermissionRules.js"
import { MAX_SYMLINK_HOPS, resolveCandidates } from "../../../src/services/Permissions/pathResolution.js"
import { protectedComponent } from "../../../src/ProtectedPaths.js"
import { pathRuleSuggestion } from "../../../src/services/Permissions/suggestions.js"

describe("resolveCandidates", () => {
  let root: string
  beforeAll(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-cand-")))
    fs.mkdirSync(path.join(root, "a", "b"), { recursive: true })
    fs.mkdirSync(path.join(root, "t"), { recursive: true })
    fs.symlinkSync(path.join(root, "a", "b"), path.join(root, "l"))
    fs.symlinkSync("l", path.join(root, "l2"))
  })
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

  it("applies `..` after a symlink to the target's parent", () => {
    const r = resolveCandidates(`${root}/l/../t`)
    expect(r.ok && r.realPath).toBe(path.join(root, "a", "t"))
    expect(r.candidates).toContain(path.join(root, "t")) // the lexical spelling is a candidate too
  })

  it("lists every hop of a chain and the real path", () => {
    const r = resolveCandidates(`${root}/l2/file`)
    expect(r.ok).toBe(true)
    expect(r.candidates).toEqual(expect.arrayContaining([`${root}/l2/file`, `${root}/l/file`, `${root}/a/b/file`]))
    expect(r.ok && r.exists).toBe(false)
  })

  it("gives up (not ok) on a loop", () => {
    fs.symlinkSync("x2", path.join(root, "x1"))
    fs.symlinkSync("x1", path.join(root, "x2"))
    const r = resolveCandidates(`${root}/x1`)
    expect(r.ok).toBe(false)
    expect(MAX_SYMLINK_HOPS).toBe(40)
  })
})

describe("protectedComponent (§1.12)", () => {
  it.each([
    ["/p/.git/config", ".git"],
    ["/p/.config/git/ignore", ".config/git"],
    ["/p/.claude/settings.json", ".claude"],
    ["/p/.claude/worktrees/x/a.ts", undefined],
    ["/p/.claude/worktrees/x/.git/HEAD", ".git"],
    ["/home/u/.BASHRC", ".bashrc"],
    ["/p/a/gradle-wrapper.properties", "gradle-wrapper.properties"],
    ["/p/.gitignore", undefined],
    ["/p/.github/workflows/ci.yml", undefined],
    ["/p/config/git/x", undefined]
  ])("%s → %s", (p, expected) => {
    expect(protectedComponent(p)).toBe(expected)
  })
})

describe("domains (§1.8)", () => {
  it.each([
    ["example.com", "example.com", true],
    ["example.com", "www.example.com", false],
    ["*.example.com", "a.b.example.com", true],
    ["*.example.com", "example.com", false],
    ["*.example.com", "badexample.com", false],
    ["example.*", "example.org", true],
    ["example.*", "example.evil.com", false],
    ["*", "anything.test", true],
    ["docs.*.com", "docs.python.com", true],
    ["docs.*.com", "docs.a.b.com", false]
  ])("%s vs %s → %s", (pattern, host, expected) => {
    expect(domainMatches(pattern, host)).toBe(expected)
  })

  it("hostnames: lower-case, trailing dot dropped, userinfo ignored, junk undefined", () => {
    expect(urlHostname("https://Example.COM./x")).toBe("example.com")
    expect(urlHostname("https://example.com@evil.com/")).toBe("evil.com")
    expect(urlHostname("not a url")).toBeUndefined()
    expect(domainOfSpecifier("domain: Example.com.")).toBe("example.com")
    expect(domainOfSpecifier("example.com")).toBeUndefined()
  })
})

describe("rule grammar and validation (§1.3)", () => {
  it.each([
    ["Bash(npm run test:*)", "Bash", "npm run test:*"],
    ["Bash(*)", "Bash", undefined],
    ["Bash()", "Bash", undefined],
    ["WebFetch(domain:*)", "WebFetch", undefined],
    ["Task(Explore)", "Agent", "Explore"],
    ["KillShell", "TaskStop", undefined],
    ["Read(/a\\(b\\).md)", "Read", "/a(b).md"],
    ["Bash(echo (x)", "Bash", "echo (x"],
    ["Bash(x) y", "Bash(x) y", undefined]
  ])("%s", (raw, tool, content) => {
    expect(parseRuleText(raw)).toEqual({ toolName: tool, content })
  })

  it.each(
    [
      ["allow", "*", false],
      ["deny", "*", true],
      ["allow", "mcp__srv__get_*", true],
      ["allow", "mcp__*", false],
      ["allow", "Write(/x)", false],
      ["allow", "Write", true],
      ["deny", "Bash(command:rm *)", false],
      ["deny", "Bash(command:*)", true],
      ["deny", "Agent(model:opus)", true],
      ["allow", "", false],
      ["deny", "B*(x)", false]
    ] as const
  )("%s %s usable=%s", (behavior, raw, usable) => {
    expect(checkRule(makeRule(raw, behavior, "userSettings", "/")).usable).toBe(usable)
  })
})

describe("path rule suggestions", () => {
  it("never suggests the root or the home directory as a whole", () => {
    expect(pathRuleSuggestion("Read", "/etc/passwd", false, "/p", "/home/u")).toEqual([{
      rule: "Read(//etc/**)",
      behavior: "allow"
    }])
    expect(pathRuleSuggestion("Read", "/x.txt", false, "/p", "/home/u")).toEqual([{
      rule: "Read(//x.txt)",
      behavior: "allow"
    }])
    expect(pathRuleSuggestion("Read", "/home/u/.bashrc", false, "/p", "/home/u")).toEqual([{
      rule: "Read(//home/u/.bashrc)",
      behavior: "allow"
    }])
    expect(pathRuleSuggestion("Read", "/home", true, "/p", "/home/u")).toEqual([])
    expect(pathRuleSuggestion("Edit", "/p/src/a.ts", false, "/p", "/home/u")).toEqual([{
      rule: "Edit(/src/**)",
      behavior: "allow"
    }])
    expect(pathRuleSuggestion("Edit", "/p/we*rd/a.ts", false, "/p", "/home/u")).toEqual([])
  })
})
