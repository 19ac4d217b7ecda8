/**
 * `toolgate exec <file|->`: runs every tool_use of an assistant message and prints the user
 * message of tool_result blocks, in tool_use order. `toolgate call <Tool> [input]`: one call
 * through the whole pipeline.
 */
import { Args, Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { BadRequest } from "../../Errors.js"
import type { ToolUseBlock } from "../../Messages.js"
import { Scheduler, type MessageRun, type SchedulerEvent } from "../../services/Scheduler.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import type { SessionContext } from "../../Session.js"
import { parseJson, readSource, toolUsesOf } from "../input.js"
import { userInterrupts } from "../interrupts.js"
import { metasOf } from "../flags.js"
import { commonFlags, commonOptions, scheduleFlags, scheduleOptions, schedulingOf, type CommonValues, type ScheduleValues } from "../options.js"
import type { CommandSpec } from "../spec.js"
import { dim, renderOutcome, renderTimeline } from "../render.js"
import { withRuntime } from "../runtime.js"

const runCalls = (blocks: ReadonlyArray<ToolUseBlock>, session: SessionContext, values: ScheduleValues) =>
  Effect.gen(function* () {
    const scheduler = yield* Scheduler
    const maxConcurrency = Option.getOrUndefined(values.maxConcurrency)
    if (maxConcurrency !== undefined && maxConcurrency < 1) {
      return yield* new BadRequest({ reason: "--max-concurrency must be at least 1" })
    }
    return yield* scheduler.runMessage(blocks, {
      session,
      ...schedulingOf(values),
      interrupts: userInterrupts,
      ...(process.stderr.isTTY === true ? { onEvent: showLive(blocks) } : {})
    })
  })

/** On a terminal, calls starting and their progress appear on stderr as they happen. */
const showLive = (blocks: ReadonlyArray<ToolUseBlock>) => (event: SchedulerEvent) => {
  switch (event._tag) {
    case "CallStarted":
      return Console.error(dim(`  ▸ ${blocks[event.index]?.name ?? "?"} started (batch ${event.batch}, ${event.atMs} ms)`))
    case "CallProgress": {
      const name = blocks.find((b) => b.id === event.toolUseId)?.name ?? "?"
      return Console.error(dim(`  … ${name}: ${event.progress.message}`))
    }
    default:
      return Effect.void
  }
}

const jsonReport = (run: MessageRun) => ({
  message: run.message,
  calls: run.timeline.map((t, i) => ({
    tool_use_id: t.toolUseId,
    name: t.toolName,
    batch: t.batch ?? null,
    started_ms: t.startedMs ?? null,
    ended_ms: t.endedMs,
    outcome: t.outcome,
    is_error: run.outcomes[i]!.result.is_error === true,
    error: run.outcomes[i]!.error?._tag ?? null
  })),
  cwd: run.session.cwd,
  interrupted: run.interrupted,
  halt: run.halt ?? null,
  notices: run.outcomes.flatMap((o) => o.notices)
})

const printRun = (run: MessageRun, values: CommonValues & ScheduleValues) =>
  Effect.gen(function* () {
    if (values.json) {
      yield* Console.log(JSON.stringify(jsonReport(run), null, 2))
      return
    }
    const pool = yield* (yield* ToolRegistry).pool
    for (const [i, outcome] of run.outcomes.entries()) {
      yield* Console.log(renderOutcome(outcome, pool.lookup(outcome.toolName), run.timeline[i]))
    }
    const context = run.message.content.filter((b) => b.type === "text")
    for (const block of context) yield* Console.log(dim(block.type === "text" ? block.text : ""))
    if (values.timeline) yield* Console.log(`\n${renderTimeline(run.timeline)}`)
    if (run.interrupted) yield* Console.log(dim("(interrupted)"))
  })

export const execSpec: CommandSpec = {
  path: ["exec"],
  summary: "Run every tool_use of an assistant message and print the tool_result message",
  args: [{ name: "file", description: "A message JSON file (a Messages API response, an assistant message, or an array of tool_use blocks), or - for stdin" }],
  flags: metasOf(scheduleFlags, commonFlags),
  details: ["Exit code 1 when any call's result is an error (a denial, a failed tool, an interrupted call)."]
}

export const callSpec: CommandSpec = {
  path: ["call"],
  summary: "Run one tool call through the whole pipeline",
  args: [
    { name: "tool", description: "The tool's name" },
    { name: "input", optional: true, description: "The input as JSON, or - for stdin (default: stdin when it is not a terminal, else {})" }
  ],
  flags: metasOf(scheduleFlags, commonFlags),
  details: ["Exit code 1 when the result is an error."]
}

export const exec = Command.make(
  "exec",
  { ...commonOptions, ...scheduleOptions, source: Args.text({ name: "file" }).pipe(Args.withDescription("A message JSON file, or - for stdin")) },
  (values) =>
    withRuntime(values, (session) =>
      Effect.gen(function* () {
        const text = yield* readSource(values.source)
        const blocks = yield* toolUsesOf(yield* parseJson(text, values.source === "-" ? "stdin" : values.source))
        const run = yield* runCalls(blocks, session, values)
        yield* printRun(run, values)
      })
    )
).pipe(Command.withDescription(execSpec.summary))

export const call = Command.make(
  "call",
  {
    ...commonOptions,
    ...scheduleOptions,
    tool: Args.text({ name: "tool" }).pipe(Args.withDescription("The tool's name")),
    input: Args.text({ name: "input" }).pipe(Args.withDescription("The input as JSON, or - for stdin (default {})"), Args.optional)
  },
  (values) =>
    withRuntime(values, (session) =>
      Effect.gen(function* () {
        const raw = Option.getOrUndefined(values.input)
        const input = raw === undefined ? {} : yield* parseJson(raw === "-" ? yield* readSource("-") : raw, "the input")
        if (input === null || typeof input !== "object" || Array.isArray(input)) {
          return yield* new BadRequest({ reason: "the input must be a JSON object" })
        }
        const block: ToolUseBlock = { type: "tool_use", id: `toolu_call_${randomUUID().replace(/-/g, "").slice(0, 20)}`, name: values.tool, input }
        const run = yield* runCalls([block], session, values)
        const outcome = run.outcomes[0]!
        if (values.json) {
          yield* Console.log(JSON.stringify({ ...jsonReport(run), result: outcome.result, newMessages: outcome.newMessages }, null, 2))
        } else {
          yield* printRun(run, values)
        }
        if (outcome.result.is_error === true) process.exitCode = 1
      })
    )
).pipe(Command.withDescription(callSpec.summary))
