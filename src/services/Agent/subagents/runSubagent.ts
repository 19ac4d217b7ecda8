/**
 * One subagent run: the nested agent loop with its own pool, pipeline and scheduler, built over
 * the parent runtime's stages (the same permissions, hooks, approver, result store and settings),
 * so its tool calls are checked exactly like the parent's. Its session is the parent's at the
 * time of the call plus `agent: {id, type}` (hooks see `agent_id` / `agent_type`), its own
 * session folder (`<parent>/subagents/<id>`: spilled results, todos) and its own file-read state.
 *
 * Interruption is the parent's: when the parent interrupts the Agent call's fiber, the nested
 * loop, its model stream, its scheduler and every call it runs are interrupted with it (a Bash
 * call kills its process group) — there is no separate interrupt stream for subagents.
 */
import { Clock, Context, Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { newConversation } from "../conversation.js"
import type { AgentEvent } from "../events.js"
import { environmentSection } from "../systemPrompt.js"
import { noTranscript, openTranscript, type Transcript } from "../transcript.js"
import { ToolError } from "../../../Errors.js"
import { ModelClient } from "../../ModelClient.js"
import * as AgentLoop from "../../Agent.js"
import type { Approver } from "../../Approver.js"
import * as CallPipeline from "../../CallPipeline.js"
import { FileState } from "../../FileState.js"
import type { Hooks } from "../../Hooks.js"
import type { InputValidator } from "../../InputValidator.js"
import type { Permissions } from "../../Permissions.js"
import type { ResultStore } from "../../ResultStore.js"
import * as Scheduler from "../../Scheduler.js"
import type { Settings } from "../../Settings.js"
import { ToolRegistry } from "../../ToolRegistry.js"
import type { SessionContext } from "../../../Session.js"
import type { ToolContext } from "../../../Tool.js"
import type { AgentOutput } from "./output.js"
import type { AgentDefinition } from "./definitions.js"
import { overlayFileState } from "./fileState.js"
import { narrowedPoolEffect } from "./pool.js"
import type { SubagentModelsService } from "./SubagentModels.js"
import { subagentTranscript } from "./subagentTranscript.js"

/** The parent runtime's stages a subagent's pipeline is built from. */
export type SubagentDeps =
  | ToolRegistry
  | InputValidator
  | Hooks
  | Permissions
  | Approver
  | ResultStore
  | FileState
  | Settings

export interface SubagentRequest {
  readonly definition: AgentDefinition
  readonly description: string
  readonly prompt: string
  /** The call's `model`, if it gave one. */
  readonly model: string | undefined
  readonly ctx: ToolContext
}

const newAgentId = () => `a${randomBytes(8).toString("hex")}`

/** The subagent's system prompt: its type's prompt, then the environment. */
export const subagentSystemPrompt = (definition: AgentDefinition, session: SessionContext): string =>
  [
    definition.systemPrompt.trim() === "" ? `You are the ${definition.name} subagent.` : definition.systemPrompt.trim(),
    "",
    environmentSection(session)
  ].join("\n")

const stopFailure = (outcome: AgentLoop.PromptOutcome, definition: AgentDefinition): string | undefined => {
  const said = outcome.text.trim() === "" ? "" : `\nIts last message:\n${outcome.text}`
  switch (outcome.stop) {
    case "end_turn":
      return undefined
    case "error":
      return `The ${definition.name} subagent failed: ${outcome.error?.message ?? "the model failed"}${said}`
    case "max_turns":
      return `The ${definition.name} subagent stopped at its turn limit (${outcome.turns} turns) before finishing.${said}`
    case "hook_stop":
      return `A hook stopped the ${definition.name} subagent: ${outcome.halt?.reason ?? "no reason given"}${said}`
    case "tool_deferred":
      return `A hook deferred a ${
        outcome.halt?.toolUse?.name ?? ""
      } call of the ${definition.name} subagent, so it stopped before that call ran.${said}`
    case "prompt_blocked":
      return `A hook blocked the ${definition.name} subagent's prompt: ${outcome.text}`
    case "interrupted":
      return `The ${definition.name} subagent was interrupted.${said}`
    case "refusal":
      return `The ${definition.name} subagent's model refused the request.${said}`
    case "max_tokens":
      return `The ${definition.name} subagent's answer was cut at the output token limit.${said}`
    case "context_window":
      return `The ${definition.name} subagent ran out of context window.${said}`
  }
}

export const runSubagent = (
  context: Context.Context<SubagentDeps>,
  models: SubagentModelsService,
  request: SubagentRequest
): Effect.Effect<AgentOutput, ToolError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const { definition, ctx } = request
      const startedAt = yield* Clock.currentTimeMillis
      const agentId = newAgentId()
      const model = request.model ?? definition.model

      // The nested stages: the parent's, with a narrower registry and the subagent's own read state.
      const parentRegistry = Context.get(context, ToolRegistry)
      const registry = ToolRegistry.of({
        pool: narrowedPoolEffect(parentRegistry.pool, definition),
        setSource: () => Effect.void,
        withhold: () => Effect.void
      })
      const stages = context.pipe(
        Context.add(ToolRegistry, registry),
        Context.add(FileState, overlayFileState(Context.get(context, FileState)))
      )
      const pipeline = yield* Effect.provide(CallPipeline.make, stages)
      const scheduler = yield* Effect.provide(Scheduler.make, Context.add(stages, CallPipeline.CallPipeline, pipeline))
      const client = yield* models
        .clientFor({
          agentId,
          agentType: definition.name,
          description: request.description,
          prompt: request.prompt,
          model
        })
        .pipe(Effect.mapError((e) =>
          new ToolError({ reason: `The ${definition.name} subagent has no model to run on: ${e.message}` })
        ))
      const loop = yield* Effect.provide(
        AgentLoop.make,
        stages.pipe(Context.add(Scheduler.Scheduler, scheduler), Context.add(ModelClient, client))
      )

      const session: SessionContext = {
        ...ctx.session,
        sessionDir: path.join(ctx.session.sessionDir, "subagents", agentId),
        agent: { id: agentId, type: definition.name }
      }
      const transcript: Transcript = ctx.session.transcriptPath === undefined || ctx.session.transcriptPath === ""
        ? noTranscript
        : subagentTranscript(
          yield* openTranscript(ctx.session.transcriptPath).pipe(Effect.orElseSucceed(() =>
            noTranscript
          )),
          {
            agent: request.description,
            agent_id: agentId,
            agent_type: definition.name,
            parent_tool_use_id: ctx.toolUseId
          }
        )
      const pool = yield* registry.pool
      yield* transcript.write({
        type: "start",
        at: new Date(startedAt).toISOString(),
        description: request.description,
        prompt: request.prompt,
        model: client.model,
        requested_model: model,
        tools: pool.tools.map((t) => t.name)
      })

      // Progress for the parent's renderers: turns and the subagent's calls as they start and end.
      const names = new Map<string, string>()
      let toolUseCount = 0
      const progress = (message: string, data: Record<string, unknown>) =>
        ctx.reportProgress({
          message: `${definition.name}: ${message}`,
          data: { agentId, agentType: definition.name, ...data }
        })
      const onEvent = (event: AgentEvent): Effect.Effect<void> => {
        if (event._tag === "TurnStarted") return progress(`turn ${event.turn}`, { event: "turn", turn: event.turn })
        if (event._tag !== "Call") return Effect.void
        const call = event.event
        switch (call._tag) {
          case "CallArrived":
            names.set(call.toolUseId, call.toolName)
            return Effect.void
          case "CallStarted": {
            const toolName = names.get(call.toolUseId) ?? "?"
            return progress(`${toolName} started`, { event: "call_started", toolUseId: call.toolUseId, toolName })
          }
          case "CallFinished": {
            toolUseCount++
            const isError = call.outcome.result.is_error === true
            return progress(`${call.outcome.toolName} ${isError ? "failed" : "done"}`, {
              event: "call_finished",
              toolUseId: call.outcome.toolUseId,
              toolName: call.outcome.toolName,
              isError
            })
          }
          default:
            return Effect.void
        }
      }

      const outcome = yield* loop.prompt(newConversation(session), request.prompt, {
        onEvent,
        transcript,
        systemPrompt: { replace: subagentSystemPrompt(definition, session) },
        ...(definition.maxTurns === undefined ? {} : { maxTurns: definition.maxTurns })
      })
      const output: AgentOutput = {
        agentId,
        agentType: definition.name,
        description: request.description,
        prompt: request.prompt,
        model: client.model,
        text: outcome.text,
        stop: outcome.stop,
        turns: outcome.turns,
        usage: outcome.usage,
        toolUseCount,
        durationMs: (yield* Clock.currentTimeMillis) - startedAt
      }
      const failure = stopFailure(outcome, definition)
      if (failure !== undefined) return yield* new ToolError({ reason: failure, response: output })
      return output
    })
  ).pipe(Effect.withSpan("Agent.subagent", { attributes: { agentType: request.definition.name } }))
