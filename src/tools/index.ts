/**
 * The built-in tools of a default runtime. (The runtime swaps Bash for the Bash bound to its
 * BackgroundTasks and ShellAnalyzer, and adds TaskOutput and TaskStop; see
 * src/tools/background/BackgroundTools.ts. `BashTool` on its own counts no command as read-only.)
 *
 * @since 0.1.0
 */
import type { AnyTool } from "../Tool.js"
import { AskUserQuestionTool } from "./AskUserQuestion.js"
import { BashTool } from "./Bash.js"
import { EditTool } from "./Edit.js"
import { GlobTool } from "./Glob.js"
import { GrepTool } from "./Grep.js"
import { NotebookEditTool } from "./NotebookEdit.js"
import { ReadTool } from "./Read.js"
import { SleepTool } from "./Sleep.js"
import { TodoWriteTool } from "./TodoWrite.js"
import { ToolSearchTool } from "./ToolSearch.js"
import { WebFetchTool } from "./WebFetch.js"
import { WriteTool } from "./Write.js"

export {
  /**
   * @since 0.1.0
   * @category models
   */
  AskUserQuestionTool,
  /**
   * @since 0.1.0
   * @category models
   */
  BashTool,
  /**
   * @since 0.1.0
   * @category models
   */
  EditTool,
  /**
   * @since 0.1.0
   * @category models
   */
  GlobTool,
  /**
   * @since 0.1.0
   * @category models
   */
  GrepTool,
  /**
   * @since 0.1.0
   * @category models
   */
  NotebookEditTool,
  /**
   * @since 0.1.0
   * @category models
   */
  ReadTool,
  /**
   * @since 0.1.0
   * @category models
   */
  SleepTool,
  /**
   * @since 0.1.0
   * @category models
   */
  TodoWriteTool,
  /**
   * @since 0.1.0
   * @category models
   */
  ToolSearchTool,
  /**
   * @since 0.1.0
   * @category models
   */
  WebFetchTool,
  /**
   * @since 0.1.0
   * @category models
   */
  WriteTool
}

/**
 * @since 0.1.0
 * @category utils
 */
export const builtinTools: ReadonlyArray<AnyTool> = [
  AskUserQuestionTool,
  BashTool,
  EditTool,
  GlobTool,
  GrepTool,
  NotebookEditTool,
  ReadTool,
  SleepTool,
  TodoWriteTool,
  ToolSearchTool,
  WebFetchTool,
  WriteTool
]
