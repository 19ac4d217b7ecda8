/**
 * Protected directories and files (claude-code-spec §1.12, current docs list). Used for paths
 * that shell file commands write (`cp x .bashrc`, `tee .git/config`): such writes always
 * prompt, whatever allow rule approved the command. Compared case-insensitively everywhere
 * (over-blocking on case-sensitive volumes is harmless).
 */
import * as path from "node:path"

const PROTECTED_DIRS = [".git", ".vscode", ".idea", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn", ".claude"]
const PROTECTED_CONFIG_GIT = [".config", "git"]
const PROTECTED_FILES = new Set(
  [
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_aliases",
    ".bash_logout",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".profile",
    ".envrc",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnp.cjs",
    ".pnp.loader.mjs",
    ".pnpmfile.cjs",
    "bunfig.toml",
    ".bunfig.toml",
    ".bazelrc",
    ".bazelversion",
    ".bazeliskrc",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yml",
    ".lefthook.yaml",
    "gradle-wrapper.properties",
    "maven-wrapper.properties",
    ".devcontainer.json",
    ".ripgreprc",
    "pyrightconfig.json",
    ".mcp.json",
    ".claude.json"
  ].map((name) => name.toLowerCase())
)

/** Why writing this absolute path is sensitive, or undefined. */
export const protectedReason = (abs: string): string | undefined => {
  const parts = path.resolve(abs).split(path.sep).map((p) => p.toLowerCase())
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    // `.claude/worktrees` is the one exception in the current docs.
    if (PROTECTED_DIRS.includes(part) && !(part === ".claude" && parts[i + 1] === "worktrees")) return `${abs} is inside a protected directory (${part})`
    if (part === PROTECTED_CONFIG_GIT[0] && parts[i + 1] === PROTECTED_CONFIG_GIT[1]) return `${abs} is inside a protected directory (.config/git)`
  }
  const base = parts[parts.length - 1] ?? ""
  return PROTECTED_FILES.has(base) ? `${abs} is a protected file` : undefined
}
