/**
 * Protected directories and files (the list Claude Code's current documentation gives): a write to them
 * is never auto-approved by an allow rule or `acceptEdits`. Names compare case-insensitively on
 * every volume: over-protecting on a case-sensitive one is harmless.
 */
import * as path from "node:path"

export const PROTECTED_DIRECTORIES: ReadonlyArray<string> = [
  ".git",
  ".config/git",
  ".vscode",
  ".idea",
  ".husky",
  ".cargo",
  ".devcontainer",
  ".yarn",
  ".mvn",
  ".claude",
  // toolgate's own project folder: custom tools there are imported at start
  ".toolgate",
  // keys and authorized keys
  ".ssh",
  ".gnupg",
  ".config/fish",
  ".docker"
]

/** Inside `.claude/`, these are not protected. */
export const CLAUDE_DIR_EXCEPTIONS: ReadonlyArray<string> = ["worktrees"]

export const PROTECTED_FILES: ReadonlyArray<string> = [
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
  ".login",
  ".logout",
  ".kshrc",
  ".mkshrc",
  ".cshrc",
  ".tcshrc",
  ".inputrc",
  ".xprofile",
  ".xinitrc",
  ".xsession",
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
]

const protectedFiles = new Set(PROTECTED_FILES.map((f) => f.toLowerCase()))
const protectedDirs = PROTECTED_DIRECTORIES.map((d) => d.toLowerCase().split("/"))
const claudeExceptions = new Set(CLAUDE_DIR_EXCEPTIONS.map((e) => e.toLowerCase()))

/** The protected name a path runs into, or undefined. */
export const protectedComponent = (absolutePath: string): string | undefined => {
  const parts = absolutePath.split(path.sep).filter((c) => c !== "").map((c) => c.toLowerCase())
  const base = parts[parts.length - 1]
  if (base !== undefined && protectedFiles.has(base)) return base
  for (let i = 0; i < parts.length; i++) {
    for (const dir of protectedDirs) {
      if (!dir.every((segment, k) => parts[i + k] === segment)) continue
      const after = parts[i + dir.length]
      // `.claude/worktrees/...` is not protected by `.claude` itself (it may still be by another name)
      if (dir.length === 1 && dir[0] === ".claude" && after !== undefined && claudeExceptions.has(after)) continue
      return dir.join("/")
    }
  }
  return undefined
}

/** Files under `.claude/` that configure Claude Code itself: settings, agents, commands, skills. */
const CLAUDE_CONFIG = /(?:^|\/)\.claude\/(?:settings(?:\.local)?\.json$|(?:agents|commands|skills)\/)/i

/**
 * Protected paths that configure the agent: Claude Code asks to "write to" them rather than
 * naming them a sensitive file.
 */
export const isAgentConfigPath = (absolutePath: string): boolean =>
  CLAUDE_CONFIG.test(absolutePath.split(path.sep).join("/"))
