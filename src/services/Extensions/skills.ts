/**
 * Claude Code skills: `<dir>/.claude/skills/<name>/SKILL.md` in the project and
 * `~/.claude/skills/<name>/SKILL.md` for the user (Claude Code's `skills`
 * docs). Front matter: `name` (defaults to the folder name), `description`, `allowed-tools`,
 * `argument-hint`, `disable-model-invocation`, and toolgate's own `toolgate-tool` (a module in
 * the folder that adds a custom tool, see customTools.ts). When two skills share a name the
 * user's wins over the project's, as in Claude Code.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { listValue, parseFrontMatter, stringValue } from "../../internal/frontMatter.js"

export type ExtensionSource = "project" | "user"

export interface Skill {
  readonly name: string
  readonly description: string
  readonly allowedTools: ReadonlyArray<string>
  readonly argumentHint: string | undefined
  /** `disable-model-invocation: true`: only the user may run it, not the Skill tool. */
  readonly disableModelInvocation: boolean
  /** The instructions: SKILL.md without its front matter. */
  readonly body: string
  readonly dir: string
  readonly file: string
  readonly source: ExtensionSource
  /** `toolgate-tool`: a module path relative to the skill folder. */
  readonly toolModule: string | undefined
}

export interface SkillScan {
  readonly skills: ReadonlyArray<Skill>
  readonly warnings: ReadonlyArray<string>
}

/** Claude Code's rule for skill names: lower-case letters, digits and hyphens, at most 64. */
export const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/

export const MAX_SKILL_FILE_BYTES = 1024 * 1024

const firstParagraph = (body: string): string => {
  const text = body
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.replace(/^#+\s.*$/gm, "").trim())
    .find((p) => p !== "")
  return text === undefined ? "" : text.replace(/\s+/g, " ").slice(0, 250)
}

const readSkill = (dir: string, source: ExtensionSource, warnings: Array<string>): Skill | undefined => {
  const file = path.join(dir, "SKILL.md")
  let stat: fs.Stats
  try {
    stat = fs.statSync(file)
  } catch {
    return undefined
  }
  if (!stat.isFile()) return undefined
  if (stat.size > MAX_SKILL_FILE_BYTES) {
    warnings.push(`skill ${file} was skipped: it is larger than 1 MB`)
    return undefined
  }
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (error) {
    warnings.push(`skill ${file} was skipped: ${error instanceof Error ? error.message : String(error)}`)
    return undefined
  }
  const { data, body } = parseFrontMatter(text)
  const name = stringValue(data.name)?.trim() || path.basename(dir)
  if (!SKILL_NAME.test(name)) {
    warnings.push(
      `skill ${file} was skipped: its name ${
        JSON.stringify(name)
      } must be lower-case letters, digits and hyphens (at most 64)`
    )
    return undefined
  }
  const description = stringValue(data.description)?.trim() || firstParagraph(body)
  return {
    name,
    description,
    allowedTools: listValue(data["allowed-tools"]),
    argumentHint: stringValue(data["argument-hint"]),
    disableModelInvocation: data["disable-model-invocation"] === true,
    body: body.trim(),
    dir,
    file,
    source,
    toolModule: stringValue(data["toolgate-tool"])?.trim() || undefined
  }
}

const skillDirs = (root: string): ReadonlyArray<string> => {
  try {
    return fs
      .readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.isSymbolicLink())
      .map((e) => path.join(root, e.name))
      .sort()
  } catch {
    return []
  }
}

export interface SkillRoots {
  /** `<project>/.claude/skills` */
  readonly project: string | undefined
  /** `~/.claude/skills` */
  readonly user: string | undefined
}

export const skillRoots = (projectDir: string, userConfigDir: string): SkillRoots => ({
  project: path.join(projectDir, ".claude", "skills"),
  user: path.join(userConfigDir, "skills")
})

/** Every skill of both roots; the user's wins a name clash. Sorted by name. */
export const scanSkills = (roots: SkillRoots): SkillScan => {
  const warnings: Array<string> = []
  const byName = new Map<string, Skill>()
  const add = (root: string | undefined, source: ExtensionSource) => {
    if (root === undefined) return
    for (const dir of skillDirs(root)) {
      const skill = readSkill(dir, source, warnings)
      if (skill === undefined) continue
      const existing = byName.get(skill.name)
      if (existing !== undefined) {
        warnings.push(`skill ${skill.file} was skipped: the skill ${skill.name} is already defined by ${existing.file}`)
        continue
      }
      byName.set(skill.name, skill)
    }
  }
  add(roots.user, "user")
  if (roots.project !== roots.user) add(roots.project, "project")
  return { skills: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), warnings }
}
