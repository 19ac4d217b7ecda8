/**
 * The contexts a command is judged in: a permission mode, Bash allow rules (given as
 * `--allowed-tools`), and the directory the command starts in (relative to the project).
 */
import { Schema } from "effect"

export const OracleMode = Schema.Literal("default", "plan", "acceptEdits", "dontAsk")
export type OracleMode = typeof OracleMode.Type

export const OracleContext = Schema.Struct({
  mode: OracleMode,
  allow: Schema.Array(Schema.String),
  /** The starting directory, relative to the project ("" is the project itself). */
  cwd: Schema.String
})
export type OracleContext = typeof OracleContext.Type

/** Rules for programs that are not read-only, so that commands built on them get allowed (and checked). */
export const RUNNER_RULES: ReadonlyArray<string> = [
  "Bash(npm test:*)",
  "Bash(git status:*)",
  "Bash(make test:*)",
  "Bash(npm run lint)",
  "Bash(./scripts/test.sh:*)"
]
export const TOOL_RULES: ReadonlyArray<string> = [
  "Bash(python3 -m pytest:*)",
  "Bash(git diff:*)",
  "Bash(docker ps:*)",
  "Bash(node --version)"
]

export const CONTEXTS: ReadonlyArray<OracleContext> = [
  { mode: "default", allow: [], cwd: "" },
  { mode: "acceptEdits", allow: [], cwd: "" },
  { mode: "plan", allow: [], cwd: "" },
  { mode: "dontAsk", allow: [], cwd: "" },
  { mode: "default", allow: RUNNER_RULES, cwd: "" },
  { mode: "acceptEdits", allow: RUNNER_RULES, cwd: "src" },
  { mode: "dontAsk", allow: [...RUNNER_RULES, ...TOOL_RULES], cwd: "" },
  { mode: "default", allow: TOOL_RULES, cwd: "src" }
]

export const showContext = (ctx: OracleContext): string =>
  `mode ${ctx.mode}, allow ${ctx.allow.length === 0 ? "(none)" : ctx.allow.join(" ")}, cwd ${
    ctx.cwd === "" ? "<project>" : `<project>/${ctx.cwd}`
  }`
