/**
 * `toolgate exec <file|->`: runs every tool_use of an assistant message and prints the user
 * message of tool_result blocks, in tool_use order. `toolgate call <Tool> [input]`: one call
 * through the whole pipeline.
 */
import { Args, Command } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import { randomUUID } from "node:crypto"
import { BadRequest } from "../../Errors.js"
import type { ToolUseBlock } from "../../Messages.js"
import { Scheduler, type MessageRun, type SchedulerEvent } from "../../services/Scheduler.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import type { SessionContext } from "../../Session.js"
import { decodeToolInput, parseJson, readSource, toolUsesOf } from "../input.js"
import { closest } from "../../internal/closest.js"
import { UsageError } from "../usageError.js"
import { userInterrupts } from "../interrupts.js"
import { metasOf } from "../flags.js"
import { AnsweredCalls, cutShortRun } from "../cutShort.js"
import type { AnyTool } from "../../Tool.js"
import {
  commonFlags,
  commonOptions,
  cwdOf,
  scheduleFlags,
  scheduleOptions,
  schedulingOf,
  type CommonValues,
  type ScheduleValues
} from "../options.js"
import type { CommandSpec } from "../spec.js"
import { dim, renderOutcome, renderTimeline, renderUse } from "../render.js"
import { onAsking } from "../asking.js"
import { LiveCalls } from "../present/liveCalls.js"
import { callDebugLinesOf, debugLine } from "../present/debug.js"
import { terminalApproval } from "../mcpApproval.js"
import { withRuntime } from "../runtime.js"

const runCalls = (
  blocks: ReadonlyArray<ToolUseBlock>,
  session: SessionContext,
  values: ScheduleValues & CommonValues,
  answered: AnsweredCalls
) =>
  Effect.gen(function*() {
    const scheduler = yield* Scheduler
    const pool = yield* (yield* ToolRegistry).pool
    const maxConcurrency = Option.getOrUndefined(values.maxConcurrency)
    if (maxConcurrency !== undefined && maxConcurrency < 1) {
      return yield* new UsageError({ reason: "--max-concurrency must be at least 1" })
    }
    // on a terminal, the running calls are drawn in place on stderr (stdout gets the results)
    const live = process.stderr.isTTY === true ? new LiveCalls(process.stderr) : undefined
    const stopListening = live === undefined
      ? () => {}
      : onAsking({ started: () => live.askingStarted(), ended: () => live.askingEnded() })
    const onEvent = (event: SchedulerEvent) =>
      Effect.sync(() => {
        answered.record(event)
        if (values.debug) { for (const line of callDebugLinesOf(event)) process.stderr.write(debugLine(line)) }
        if (live === undefined) return
        if (event._tag === "CallStarted") {
          const block = blocks[event.index]
          live.start(
            event.toolUseId,
            block === undefined ? event.toolUseId : renderUse(pool.lookup(block.name), block.name, block.input),
            event.batch
          )
        } else if (event._tag === "CallProgress") {
          const data = event.progress.data as { readonly tail?: unknown } | undefined
          live.progress(
            event.toolUseId,
            event.progress.message,
            Array.isArray(data?.tail)
              ? data.tail.filter((l): l is string => typeof l === "string")
              : undefined
          )
        } else if (event._tag === "CallFinished") live.finish(event.outcome.toolUseId)
      })
    return yield* scheduler
      .runMessage(blocks, { session, ...schedulingOf(values), interrupts: userInterrupts, onEvent })
      .pipe(Effect.ensuring(Effect.sync(stopListening)))
  })

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

/** 130 after Ctrl-C, 1 when any call's result is an error, else 0. */
const exitCodeOf = (
  run: MessageRun
): number => (run.interrupted ? 130 : run.outcomes.some((o) => o.result.is_error === true) ? 1 : 0)

/** Prints the run; `lookup` finds a tool for its rendering (none when the runtime never started). */
const printRunWith = (
  run: MessageRun,
  values: CommonValues & ScheduleValues,
  lookup: (name: string) => AnyTool | undefined
) =>
  Effect.gen(function*() {
    if (values.json) {
      yield* Console.log(JSON.stringify(jsonReport(run), null, 2))
      return
    }
    for (const [i, outcome] of run.outcomes.entries()) {
      yield* Console.log(renderOutcome(outcome, lookup(outcome.toolName), run.timeline[i]))
    }
    const context = run.message.content.filter((b) => b.type === "text")
    for (const block of context) yield* Console.log(dim(block.type === "text" ? block.text : ""))
    if (values.timeline) yield* Console.log(`\n${renderTimeline(run.timeline)}`)
    if (run.interrupted) yield* Console.log(dim("(interrupted)"))
  })

const printRun = (run: MessageRun, values: CommonValues & ScheduleValues) =>
  Effect.flatMap(
    ToolRegistry,
    (registry) => Effect.flatMap(registry.pool, (pool) => printRunWith(run, values, (name) => pool.lookup(name)))
  )

/** `call --json` adds the call's result and new messages to the report. */
const printCall = (
  run: MessageRun,
  values: CommonValues & ScheduleValues,
  lookup: (name: string) => AnyTool | undefined
) => {
  const outcome = run.outcomes[0]!
  return values.json
    ? Console.log(
      JSON.stringify({ ...jsonReport(run), result: outcome.result, newMessages: outcome.newMessages }, null, 2)
    )
    : printRunWith(run, values, lookup)
}

/**
 * Runs `program` (which prints the run's answers) so that every call is answered on stdout
 * whatever ends it: a signal while the runtime starts (MCP servers), or the command stopped while
 * its calls run, prints the calls answered so far and the interrupt's answer for the others.
 */
const answeringEveryCall = <A, E, R>(
  blocks: ReadonlyArray<ToolUseBlock>,
  values: CommonValues,
  program: (answered: AnsweredCalls, printed: () => void) => Effect.Effect<A, E, R>,
  print: (run: MessageRun) => Effect.Effect<void, never, never>
) =>
  Effect.suspend(() => {
    const answered = new AnsweredCalls()
    let printed = false
    return program(answered, () => (printed = true)).pipe(
      Effect.onInterrupt(() =>
        printed || blocks.length === 0
          ? Effect.void
          : Effect.suspend(() => {
            const run = cutShortRun(blocks, answered, cwdOf(values))
            process.exitCode = exitCodeOf(run)
            return print(run)
          })
      )
    )
  })

export const execSpec: CommandSpec = {
  path: ["exec"],
  summary: "Run every tool_use of an assistant message and print the tool_result message",
  args: [{
    name: "file",
    description:
      "A message JSON file (a Messages API response, an assistant message, or an array of tool_use blocks), or - for stdin"
  }],
  flags: metasOf(scheduleFlags, commonFlags),
  details: [
    "Exit code 1 when any call's result is an error (a denial, a failed tool), 130 when Ctrl-C interrupted the calls."
  ]
}

export const callSpec: CommandSpec = {
  path: ["call"],
  summary: "Run one tool call through the whole pipeline",
  args: [
    { name: "tool", description: "The tool's name" },
    {
      name: "input",
      optional: true,
      description: "The input as JSON, or - for stdin (default: stdin when it is not a terminal, else {})"
    }
  ],
  flags: metasOf(scheduleFlags, commonFlags),
  details: ["Exit code 1 when the result is an error, 2 for an unknown tool, 130 when Ctrl-C interrupted the call."]
}

export const exec = Command.make(
  "exec",
  {
    ...commonOptions,
    ...scheduleOptions,
    source: Args.text({ name: "file" }).pipe(Args.withDescription("A message JSON file, or - for stdin"))
  },
  (values) =>
    Effect.gen(function*() {
      // read first, so that the calls are answered even when a signal comes while MCP servers
      // start; a bad message is reported after a bad setting, as before
      const read = yield* Effect.either(
        Effect.flatMap(readSource(values.source), (text) =>
          Effect.flatMap(parseJson(text, values.source === "-" ? "stdin" : values.source), toolUsesOf))
      )
      return yield* answeringEveryCall(
        Either.getOrElse(read, () => []),
        values,
        (answered, printed) =>
          withRuntime(
            values,
            (session) =>
              Effect.gen(function*() {
                const blocks = yield* read
                const run = yield* runCalls(blocks, session, values, answered)
                printed()
                yield* printRun(run, values)
                process.exitCode = exitCodeOf(run)
              }),
            {},
            { approveMcp: terminalApproval() }
          ),
        (run) =>
          printRunWith(run, values, () => undefined)
      )
    })
).pipe(Command.withDescription(execSpec.summary))

export const call = Command.make(
  "call",
  {
    ...commonOptions,
    ...scheduleOptions,
    tool: Args.text({ name: "tool" }).pipe(Args.withDescription("The tool's name")),
    input: Args.text({ name: "input" }).pipe(
      Args.withDescription("The input as JSON, or - for stdin (default {})"),
      Args.optional
    )
  },
  (values) =>
    Effect.gen(function*() {
      // the input: an argument, `-` for stdin, stdin itself when it is not a terminal, else {}
      // (read first: the call is answered even when a signal comes while MCP servers start)
      const raw = Option.getOrUndefined(values.input)
      const fromStdin = raw === "-" || (raw === undefined && process.stdin.isTTY !== true)
      const read = yield* Effect.either(
        Effect.gen(function*() {
          const text = fromStdin ? yield* readSource("-") : raw
          const input = yield* decodeToolInput(
            text === undefined || (fromStdin && raw === undefined && text.trim() === "")
              ? {}
              : yield* parseJson(text, fromStdin ? "stdin" : "the input")
          )
          const block: ToolUseBlock = {
            type: "tool_use",
            id: `toolu_call_${randomUUID().replace(/-/g, "").slice(0, 20)}`,
            name: values.tool,
            input
          }
          return block
        })
      )
      return yield* answeringEveryCall(
        Either.isRight(read) ? [read.right] : [],
        values,
        (answered, printed) =>
          withRuntime(
            values,
            (session) =>
              Effect.gen(function*() {
                const pool = yield* (yield* ToolRegistry).pool
                // an MCP tool whose server is absent, unapproved or down runs into the pipeline's "No such tool available" result
                if (pool.lookup(values.tool) === undefined && !values.tool.startsWith("mcp__")) {
                  printed()
                  const removed = pool.removed.find((r) => r.name === values.tool)
                  if (removed !== undefined) {
                    return yield* new BadRequest({ reason: `${values.tool} is not in the pool: ${removed.reason}` })
                  }
                  const suggestion = closest(values.tool, pool.tools.map((t) => t.name))
                  return yield* new UsageError({
                    reason: `no tool named '${values.tool}'${
                      suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`
                    }; toolgate tools lists them`
                  })
                }
                const block = yield* read
                const run = yield* runCalls([block], session, values, answered)
                printed()
                yield* printCall(run, values, (name) => pool.lookup(name))
                process.exitCode = exitCodeOf(run)
              }),
            {},
            { approveMcp: terminalApproval({ toolName: values.tool }) }
          ),
        (run) => printCall(run, values, () => undefined)
      )
    })
).pipe(Command.withDescription(callSpec.summary))
