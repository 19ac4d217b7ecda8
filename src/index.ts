/**
 * toolgate's public API: one namespace per module, in the style of `@effect/ai` and
 * `@effect/platform`. Anything not reachable from here is internal and may change.
 *
 *   import { Runtime, Scheduler, Session, Tool } from "toolgate"
 *
 * @since 0.1.0
 */

/**
 * The tool contract: `buildTool`, its fail-closed defaults, `ToolResult`, `ToolContext`.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Tool from "./Tool.js"
/**
 * Tagged errors of every stage and the text the model sees for each.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Errors from "./Errors.js"
/**
 * Anthropic content blocks as Schemas: `ToolUseBlock`, `ToolResultBlock`, …
 *
 * @since 0.1.0
 * @category modules
 */
export * as Messages from "./Messages.js"
/**
 * A session: working directory, permission mode, session folder.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Session from "./Session.js"
/**
 * The permission vocabulary: modes, rules, subjects, decisions.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Permission from "./Permission.js"

/**
 * Claude Code settings from every source, merged, each rule with its source.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Settings from "./services/Settings.js"
/**
 * The tool pool: built-ins, minus denied tools, plus MCP and custom tools; API schemas.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ToolRegistry from "./services/ToolRegistry.js"
/**
 * The tool's schema, then its `validateInput`.
 *
 * @since 0.1.0
 * @category modules
 */
export * as InputValidator from "./services/InputValidator.js"
/**
 * PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, PostToolBatch.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Hooks from "./services/Hooks.js"
/**
 * Bash commands parsed into simple commands and checked against Bash rules (tree-sitter, loaded on first use).
 *
 * @since 0.1.0
 * @category modules
 */
export * as ShellAnalyzer from "./services/ShellAnalyzer.js"
/**
 * Where Bash commands run: the read-only kernel sandbox, Claude Code's `sandbox` settings.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Sandbox from "./services/Sandbox.js"
/**
 * allow / ask / deny from rules, mode, working directories, safety checks.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Permissions from "./services/Permissions.js"
/**
 * Answers an "ask": a terminal prompt, a callback, or deny.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Approver from "./services/Approver.js"
/**
 * One `tool_use` through every stage to one `tool_result`.
 *
 * @since 0.1.0
 * @category modules
 */
export * as CallPipeline from "./services/CallPipeline.js"
/**
 * Large results spilled to a file, a preview for the model.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ResultStore from "./services/ResultStore.js"
/**
 * What each file looked like when it was read, for Edit and Write.
 *
 * @since 0.1.0
 * @category modules
 */
export * as FileState from "./services/FileState.js"
/**
 * A message's calls: batches, cap, streaming start, interrupts, sibling cancellation.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Scheduler from "./services/Scheduler.js"
/**
 * MCP servers as tools.
 *
 * @since 0.1.0
 * @category modules
 */
export * as McpClients from "./services/McpClients.js"
/**
 * The model: the Anthropic SDK, or a scripted model.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ModelClient from "./services/ModelClient.js"
/**
 * The loop of turns.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Agent from "./services/Agent.js"
/**
 * Tools listed by name only until ToolSearch loads them.
 *
 * @since 0.1.0
 * @category modules
 */
export * as DeferredTools from "./services/DeferredTools.js"
/**
 * Skills and custom tool modules.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Extensions from "./services/Extensions.js"

/**
 * The built-in tools.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Tools from "./tools/index.js"
/**
 * Background shells (Bash `run_in_background`, TaskOutput, TaskStop).
 *
 * @since 0.1.0
 * @category modules
 */
export * as BackgroundTasks from "./tools/background/BackgroundTasks.js"
/**
 * The Agent tool (subagents).
 *
 * @since 0.1.0
 * @category modules
 */
export * as AgentTool from "./tools/AgentTool.js"
/**
 * Composed runtimes: every stage wired, each replaceable.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Runtime from "./layers/Runtime.js"
/**
 * Test your own tools and stages: a temporary workspace, settings in memory, a scripted model, a recorded approver.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Testing from "./layers/Testing.js"
