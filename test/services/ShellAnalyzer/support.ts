/**
 * Test support for the Bash analyzer: a temporary project, rules, and a small path checker that
 * stands in for the Permissions stage's (Edit/Read deny rules, protected names, working dirs).
 */
import type { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeRule } from "../../../src/PermissionRules.js"
import type { PermissionMode, PermissionRule, RuleSource } from "../../../src/Permission.js"
import type { BashCheckContext, PathVerdict } from "../../../src/services/ShellAnalyzer/index.js"
import type { Decision } from "../../../src/Permission.js"
import { sharedShellAnalyzer } from "../../support/shellAnalyzer.js"

/** A project directory that exists for the whole test file (real paths: symlinks resolved). */
export const makeProject = (): { readonly root: string; readonly cleanup: () => void } => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-shell-")))
  for (const dir of ["src", "packages/api", "build", ".git", ".claude"]) {
    fs.mkdirSync(path.join(root, dir), { recursive: true })
  }
  fs.writeFileSync(path.join(root, "README.md"), "hello\n")
  fs.writeFileSync(path.join(root, ".env"), "SECRET=1\n")
  return { root, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) }
}

export interface Rules {
  readonly allow?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
  readonly ask?: ReadonlyArray<string>
}

export const rulesOf = (
  rules: Rules,
  root: string,
  source: RuleSource = "localSettings"
): ReadonlyArray<PermissionRule> => [
  ...(rules.deny ?? []).map((r) => makeRule(r, "deny", source, root)),
  ...(rules.ask ?? []).map((r) => makeRule(r, "ask", source, root)),
  ...(rules.allow ?? []).map((r) => makeRule(r, "allow", source, root))
]

const PROTECTED = new Set([
  ".git",
  ".claude",
  ".vscode",
  ".idea",
  ".husky",
  ".bashrc",
  ".zshrc",
  ".profile",
  ".gitconfig",
  ".mcp.json"
])

const inside = (p: string, dir: string) => {
  const rel = path.relative(dir, p)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

export interface PathPolicy {
  /** Basenames whose reads and writes are denied (stands for Read/Edit deny rules). */
  readonly denyNames?: ReadonlyArray<string>
}

/** The context the Permissions stage would pass: a stand-in path checker, same rules of thumb. */
export const contextFor = (
  root: string,
  rules: Rules,
  mode: PermissionMode = "default",
  policy: PathPolicy = {}
): BashCheckContext => {
  const denyNames = new Set(policy.denyNames ?? [".env"])
  const checkWritePath = (abs: string): PathVerdict => {
    const within = inside(abs, root)
    if (denyNames.has(path.basename(abs))) return { behavior: "deny", reason: `edit of ${abs} denied`, within }
    const protectedName = abs.split(path.sep).find((part) => PROTECTED.has(part.toLowerCase()))
    if (protectedName !== undefined) {
      return { behavior: "ask", reason: `${abs} is a sensitive file`, within, protectedName }
    }
    if (!within) return { behavior: "ask", reason: `${abs} is outside the working directories`, within }
    return mode === "acceptEdits" || mode === "bypassPermissions"
      ? { behavior: "allow", reason: "inside the working directories", within }
      : { behavior: "ask", reason: "writes ask in this mode", within }
  }
  const checkReadPath = (abs: string): PathVerdict => {
    const within = inside(abs, root)
    return denyNames.has(path.basename(abs))
      ? { behavior: "deny", reason: `read of ${abs} denied`, within }
      : { behavior: "allow", reason: "no read rule", within }
  }
  return { rules: rulesOf(rules, root), mode, cwd: root, workingDirectories: [root], checkWritePath, checkReadPath }
}

export const check = (command: string, ctx: BashCheckContext): Effect.Effect<Decision> =>
  sharedShellAnalyzer.checkBash(command, ctx)
