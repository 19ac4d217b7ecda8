/**
 * The shared context of a session: what tools see of where they run. Only tools that are not
 * concurrency-safe may change it, through `ToolResult.contextModifier`.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"
import type { PermissionMode } from "./Permission.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionContext {
  readonly sessionId: string
  /** Where this session keeps its files: spilled results, transcripts, background output. */
  readonly sessionDir: string
  /** The directory the session started in (CLAUDE_PROJECT_DIR for hooks). */
  readonly projectDir: string
  /** The current working directory; Bash `cd` moves it within the working directories. */
  readonly cwd: string
  /** Extra working directories (`--add-dir`, `permissions.additionalDirectories`). */
  readonly additionalDirectories: ReadonlyArray<string>
  readonly permissionMode: PermissionMode
  /** Set inside subagents; hooks see it as `agent_id` / `agent_type`. */
  readonly agent?: { readonly id: string; readonly type: string }
  /** The transcript file of the session, when one is recorded. */
  readonly transcriptPath?: string
  /**
   * The model whose calls these are (set by the agent loop; some of Claude Code's rules depend on
   * it). Undefined when calls come from elsewhere (`exec`, `call`, a library caller).
   */
  readonly model?: string
  /** Names the user prompt being worked on (hooks see it as `prompt_id`); absent before the first prompt. */
  readonly promptId?: string
}

/**
 * The working directories: where the session started plus the additional ones.
 *
 * @since 0.1.0
 * @category utils
 */
export const workingDirectories = (session: SessionContext): ReadonlyArray<string> => [
  session.projectDir,
  ...session.additionalDirectories
]

/**
 * @since 0.1.0
 * @category models
 */
export interface NewSessionOptions {
  readonly cwd: string
  readonly permissionMode: PermissionMode
  readonly additionalDirectories?: ReadonlyArray<string>
  readonly sessionId?: string
  /** Defaults to `~/.toolgate/projects/<cwd as a name>/<session id>`. */
  readonly sessionDir?: string
}

/**
 * Where sessions keep their files by default: `~/.toolgate/projects/<project>/<session id>`.
 *
 * @since 0.1.0
 * @category utils
 */
export const sessionsRoot = (): string => path.join(os.homedir(), ".toolgate", "projects")

/**
 * Turns a directory into one safe file name, as Claude Code names its project folders.
 *
 * @since 0.1.0
 * @category utils
 */
export const projectSlug = (dir: string): string => dir.replace(/[^A-Za-z0-9]/g, "-")

/**
 * @since 0.1.0
 * @category constructors
 */
export const newSession = (options: NewSessionOptions): SessionContext => {
  const cwd = path.resolve(options.cwd)
  const sessionId = options.sessionId ?? randomUUID()
  return {
    sessionId,
    sessionDir: path.resolve(options.sessionDir ?? path.join(sessionsRoot(), projectSlug(cwd), sessionId)),
    projectDir: cwd,
    cwd,
    additionalDirectories: options.additionalDirectories ?? [],
    permissionMode: options.permissionMode
  }
}
