/**
 * The approval prompt of the terminal: the call, a coloured diff for Edit and Write (what the
 * file would become), the reason it asks, and the choices — where "always" offers the narrowest
 * rule that covers the call (the file itself, never its whole folder or project) and names the
 * settings file it is saved to.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  displayValue,
  escapeForDisplay,
  offeredRules,
  questionView,
  type ApprovalRequest,
  type PromptView
} from "../services/Approver.js"
import { parseRuleText } from "../PermissionRules.js"
import { applyEdit } from "../tools/files/editText.js"
import { structuredPatch } from "../tools/files/structuredPatch.js"
import { bold, dim, green, red } from "./render.js"

const FILE_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"])
const MAX_DIFF_LINES = 40

const isObject = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === "object" && !Array.isArray(u)

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

/** The diff an Edit or Write would make, coloured; undefined for other calls. */
export const diffLines = (toolName: string, input: unknown): ReadonlyArray<string> | undefined => {
  if (!isObject(input) || typeof input.file_path !== "string") return undefined
  const before = readText(input.file_path)
  let after: string
  if (toolName === "Write" && typeof input.content === "string") after = input.content
  else if (toolName === "Edit" && typeof input.old_string === "string" && typeof input.new_string === "string") {
    if (before === undefined && input.old_string !== "") return undefined
    after = applyEdit(before ?? "", input.old_string, input.new_string, input.replace_all === true)
  } else return undefined
  const hunks = structuredPatch(before ?? "", after)
  if (hunks.length === 0) return [dim("  (no change)")]
  const lines: Array<string> = [
    dim(before === undefined ? `  new file, ${after.split("\n").length} lines` : `  ${input.file_path}`)
  ]
  for (const hunk of hunks) {
    lines.push(dim(`  @@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`))
    for (const line of hunk.lines) {
      const text = `  ${line[0]} ${escapeForDisplay(line.slice(1))}`
      lines.push(line[0] === "+" ? green(text) : line[0] === "-" ? red(text) : text)
    }
  }
  if (lines.length > MAX_DIFF_LINES) {
    return [...lines.slice(0, MAX_DIFF_LINES), dim(`  … ${lines.length - MAX_DIFF_LINES} more lines`)]
  }
  return lines
}

/** The folder a path rule's prefix names (`/src/` in the project, `//abs/`, `~/`). */
const folderOf = (prefix: string, projectDir: string): string =>
  prefix.startsWith("//")
    ? prefix.slice(1)
    : prefix.startsWith("~/")
    ? path.join(os.homedir(), prefix.slice(2))
    : path.join(projectDir, prefix)

/**
 * A folder rule for a file tool (`Edit(/**)`, `Edit(/src/**)`) narrowed to the file the call
 * touches (`Edit(/src/math.js)`); other rules as they are.
 */
export const narrowRule = (rule: string, file: string | undefined, projectDir: string): string => {
  const { toolName, content } = parseRuleText(rule)
  if (file === undefined || content === undefined || !FILE_TOOLS.has(toolName) || !content.endsWith("/**")) return rule
  if (/[*?[\]{}()\\]/.test(file)) return rule
  const prefix = content.slice(0, -2)
  const folder = folderOf(prefix, projectDir)
  const relative = path.relative(folder, file)
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return rule
  return `${toolName}(${prefix}${relative.split(path.sep).join("/")})`
}

const filePathOf = (input: unknown): string | undefined =>
  isObject(input)
    ? (typeof input.file_path === "string"
      ? input.file_path
      : typeof input.notebook_path === "string"
      ? input.notebook_path
      : undefined)
    : undefined

/** Where "always" saves rules: the project's local settings. */
export const localSettingsFileOf = (projectDir: string) => path.join(projectDir, ".claude", "settings.local.json")

export const renderApproval = (request: ApprovalRequest): PromptView => {
  const file = filePathOf(request.input)
  const rules = Array.from(
    new Set(offeredRules(request.suggestions).map((rule) => narrowRule(rule, file, request.session.projectDir)))
  )
  const lines: Array<string> = ["", bold(`── Permission request: ${escapeForDisplay(request.tool.name)} ──`)]
  const diff = diffLines(request.tool.name, request.input)
  if (isObject(request.input)) {
    for (const [key, value] of Object.entries(request.input)) {
      // the diff shows these
      if (diff !== undefined && (key === "old_string" || key === "new_string" || key === "content")) continue
      lines.push(`  ${escapeForDisplay(key)}: ${displayValue(value)}`)
    }
  } else lines.push(`  ${displayValue(request.input)}`)
  if (diff !== undefined) lines.push(...diff)
  return questionView(
    lines,
    request,
    rules,
    (list) => `  3. Yes, and always allow ${list} (saved to ${localSettingsFileOf(request.session.projectDir)})`
  )
}
