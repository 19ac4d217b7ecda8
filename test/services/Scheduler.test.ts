import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, FastCheck as fc, Queue, Schema, Stream, TestClock, TestContext } from "effect"
import {
  Scheduler,
  interruptsFromAbortSignal,
  maxConcurrencyConfig,
  type CallStreamEvent
} from "../../src/services/Scheduler.js"
import { buildTool, type AnyTool } from "../../src/Tool.js"
import { fakeTool, makeProbe, type Probe } from "../support/fakeTools.js"
import { tempDir, testRuntime, testSession, toolUse } from "../support/runtime.js"
import * as Permission from "../../src/Permission.js"

const cwd = tempDir()
const session = testSession(cwd)

/** Lets every runnable fiber make progress without moving the clock. */
const settle = Effect.repeatN(Effect.yieldNow(), 100)

const tools = (probe: Probe, extra: ReadonlyArray<AnyTool> = []) => [
  fakeTool("R", { safe: true, probe }),
  fakeTool("W", { safe: false, probe }),
  fakeTool("Block", { safe: true, probe, interruptBehavior: "block" }),
  ...extra
]

const batchesOf = (timeline: ReadonlyArray<{ batch: number | undefined }>) => timeline.map((t) => t.batch)

describe("Scheduler: batches", () => {
  it.effect("[R,R,W,R,R] runs as three batches and W overlaps nothing", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const blocks = ["R", "R", "W", "R", "R"].map((name, i) => toolUse(`t${i}`, name, { ms: 100 }))
      const fiber = yield* Effect.fork(scheduler.runMessage(blocks, { session }))
      yield* TestClock.adjust("1 second")
      const run = yield* Fiber.join(fiber)
      expect(batchesOf(run.timeline)).toEqual([1, 1, 2, 3, 3])
      expect(run.outcomes.map((o) => o.toolUseId)).toEqual(["t0", "t1", "t2", "t3", "t4"])
      expect(probe.overlaps.filter((set) => set.includes("t2"))).toEqual([["t2"]])
      expect(run.timeline.map((t) => [t.startedMs, t.endedMs])).toEqual([[0, 100], [0, 100], [100, 200], [200, 300], [
        200,
        300
      ]])
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  it.effect("[W,R,R] runs as two batches", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const fiber = yield* Effect.fork(
        scheduler.runMessage(["W", "R", "R"].map((n, i) => toolUse(`t${i}`, n, { ms: 10 })), { session })
      )
      yield* TestClock.adjust("1 second")
      expect(batchesOf((yield* Fiber.join(fiber)).timeline)).toEqual([1, 2, 2])
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  it.effect("five safe calls under a cap of 2 never have more than 2 running, and do reach 2", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const blocks = [10, 30, 20, 10, 40].map((ms, i) => toolUse(`t${i}`, "R", { ms }))
      const fiber = yield* Effect.fork(scheduler.runMessage(blocks, { session, maxConcurrency: 2 }))
      yield* TestClock.adjust("1 second")
      const run = yield* Fiber.join(fiber)
      expect(probe.maxRunning).toBe(2)
      expect(Math.max(...probe.overlaps.map((s) => s.length))).toBe(2)
      expect(run.outcomes.every((o) => o.error === undefined)).toBe(true)
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  it.effect("unknown tools and bad input are answered at once and do not hold the queue", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const blocks = [
        toolUse("a", "R", { ms: 50 }),
        toolUse("b", "Nope"),
        toolUse("c", "W", { ms: "x" }),
        toolUse("d", "R", { ms: 50 })
      ]
      const fiber = yield* Effect.fork(scheduler.runMessage(blocks, { session }))
      yield* TestClock.adjust("1 second")
      const run = yield* Fiber.join(fiber)
      expect(run.outcomes.map((o) => o.error?._tag)).toEqual([undefined, "UnknownTool", "InvalidToolInput", undefined])
      expect(batchesOf(run.timeline)).toEqual([1, undefined, undefined, 1])
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  it.effect("a duplicate tool_use id gets an error result and is not run", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const run = yield* scheduler.runMessage([toolUse("same", "R"), toolUse("same", "W")], { session })
      expect(run.outcomes.map((o) => o.result.is_error)).toEqual([undefined, true])
      expect(run.outcomes[1]!.result.content).toBe(
        "<tool_use_error>Error: duplicate tool_use id same; only the first call with this id was run</tool_use_error>"
      )
      expect(probe.log.filter((l) => l.startsWith("start"))).toEqual(["start:same"])
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  it.effect("context modifiers apply between batches, in call order", () => {
    const seen: Array<string> = []
    const cd = buildTool({
      name: "Cd",
      inputSchema: Schema.Struct({ to: Schema.String }),
      description: "changes the cwd",
      checkPermissions: () => Effect.succeed(Permission.allow()),
      call: (input) => Effect.succeed({ data: "ok", contextModifier: (s) => ({ ...s, cwd: input.to }) })
    })
    const pwd = buildTool({
      name: "Pwd",
      inputSchema: Schema.Struct({}),
      description: "reads the cwd",
      isConcurrencySafe: () => true,
      checkPermissions: () => Effect.succeed(Permission.allow()),
      call: (_input, ctx) => Effect.sync(() => (seen.push(ctx.session.cwd), { data: ctx.session.cwd }))
    })
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const run = yield* scheduler.runMessage(
        [
          toolUse("1", "Pwd"),
          toolUse("2", "Cd", { to: "/a" }),
          toolUse("3", "Pwd"),
          toolUse("4", "Cd", { to: "/b" }),
          toolUse("5", "Pwd")
        ],
        { session }
      )
      expect(seen).toEqual([cwd, "/a", "/b"])
      expect(run.session.cwd).toBe("/b")
    }).pipe(Effect.provide(testRuntime({ tools: [cd, pwd], cwd })))
  })
})

describe("Scheduler: streaming", () => {
  const streamOf = (queue: Queue.Queue<CallStreamEvent | null>) =>
    Stream.fromQueue(queue).pipe(Stream.takeWhile((e): e is CallStreamEvent => e !== null))

  it.effect("a safe call starts before the message ends; an unsafe one waits until the model moved on", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const events = yield* Queue.unbounded<CallStreamEvent | null>()
      const fiber = yield* Effect.fork(scheduler.runStream(streamOf(events), { session }))
      yield* events.offer({ _tag: "ToolUse", block: toolUse("r1", "R", { ms: 10 }) })
      yield* settle
      expect(probe.log).toEqual(["start:r1"])
      yield* events.offer({ _tag: "ToolUse", block: toolUse("w1", "W", { ms: 10 }) })
      yield* TestClock.adjust("50 millis")
      expect(probe.log).toEqual(["start:r1", "end:r1"])
      yield* events.offer({ _tag: "BlockStarted" })
      yield* settle
      expect(probe.log).toContain("start:w1")
      yield* events.offer({ _tag: "StopReason", stopReason: "tool_use" })
      yield* events.offer(null)
      yield* TestClock.adjust("50 millis")
      const run = yield* Fiber.join(fiber)
      expect(run.outcomes.map((o) => o.error)).toEqual([undefined, undefined])
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  it.effect("an unsafe call holds back later safe calls until it has run", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const events = yield* Queue.unbounded<CallStreamEvent | null>()
      const fiber = yield* Effect.fork(scheduler.runStream(streamOf(events), { session }))
      yield* events.offer({ _tag: "ToolUse", block: toolUse("w", "W", { ms: 10 }) })
      yield* events.offer({ _tag: "ToolUse", block: toolUse("r", "R", { ms: 10 }) })
      yield* settle
      expect(probe.log).toEqual([])
      yield* events.offer({ _tag: "StopReason", stopReason: "tool_use" })
      yield* events.offer(null)
      yield* TestClock.adjust("100 millis")
      yield* Fiber.join(fiber)
      expect(probe.log).toEqual(["start:w", "end:w", "start:r", "end:r"])
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  it.effect("a message cut by max_tokens answers the calls that never started", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const stream = Stream.make<Array<CallStreamEvent>>(
        { _tag: "ToolUse", block: toolUse("r", "R", { ms: 10 }) },
        { _tag: "ToolUse", block: toolUse("w", "W", { ms: 10 }) },
        { _tag: "StopReason", stopReason: "max_tokens" }
      )
      const fiber = yield* Effect.fork(scheduler.runStream(stream, { session }))
      yield* TestClock.adjust("100 millis")
      const run = yield* Fiber.join(fiber)
      expect(run.outcomes[0]!.result.content).toBe("R r done")
      expect(run.outcomes[1]!.result).toEqual({
        type: "tool_result",
        tool_use_id: "w",
        content:
          "<tool_use_error>Error: this tool call was not run: the model's message ended with stop_reason \"max_tokens\" before the call could start</tool_use_error>",
        is_error: true
      })
      expect(probe.ran.has("w")).toBe(false)
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  it.effect("a stream error ends the message like a non-tool_use stop", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const stream = Stream.make<Array<CallStreamEvent>>({ _tag: "ToolUse", block: toolUse("w", "W") }).pipe(
        Stream.concat(Stream.fail("overloaded_error"))
      )
      const run = yield* scheduler.runStream(stream, { session })
      expect(run.outcomes[0]!.result.content).toMatch(/stream error/)
      expect(probe.ran.size).toBe(0)
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })
})

describe("Scheduler: interrupts and sibling cancellation", () => {
  it.effect("an interrupt cancels `cancel` calls, lets `block` calls finish, and answers every call", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const interrupts = yield* Queue.unbounded<void>()
      const blocks = [
        toolUse("c", "R", { ms: 1000 }),
        toolUse("b", "Block", { ms: 300 }),
        toolUse("w", "W", { ms: 10 })
      ]
      const fiber = yield* Effect.fork(
        scheduler.runMessage(blocks, { session, interrupts: Stream.fromQueue(interrupts) })
      )
      yield* TestClock.adjust("100 millis")
      yield* interrupts.offer(undefined)
      yield* TestClock.adjust("1 second")
      const run = yield* Fiber.join(fiber)
      expect(run.outcomes.map((o) => o.error?._tag)).toEqual(["Interrupted", undefined, "Interrupted"])
      expect(run.outcomes[1]!.result.content).toBe("Block b done")
      expect(run.timeline.map((t) => t.outcome)).toEqual(["interrupted", "ok", "interrupted"])
      expect(probe.ran.has("w")).toBe(false)
      expect(probe.running).toBe(0)
      expect(run.interrupted).toBe(true)
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  it.effect("a second interrupt stops block calls too (interrupts offered to a queue it takes from)", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const interrupts = yield* Queue.unbounded<void>()
      const fiber = yield* Effect.fork(
        scheduler.runMessage([toolUse("b", "Block", { ms: 5000 })], {
          session,
          interrupts
        })
      )
      yield* TestClock.adjust("10 millis")
      yield* interrupts.offer(undefined)
      yield* settle
      expect(probe.running).toBe(1)
      yield* interrupts.offer(undefined)
      const run = yield* Fiber.join(fiber)
      expect(run.outcomes[0]!.error?._tag).toBe("Interrupted")
      expect(probe.running).toBe(0)
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })

  const bash = (probe: Probe) => fakeTool("Bash", { safe: true, probe, cancelsSiblings: true })

  it.effect("a failing Bash call cancels its running and queued siblings", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const blocks = [
        toolUse("slow", "R", { ms: 1000 }),
        toolUse("bash", "Bash", { ms: 10, fail: "Exit code 2" }),
        toolUse("queued", "R", { ms: 10 }),
        toolUse("after", "W", { ms: 10 })
      ]
      const fiber = yield* Effect.fork(scheduler.runMessage(blocks, { session, maxConcurrency: 2 }))
      yield* TestClock.adjust("2 seconds")
      const run = yield* Fiber.join(fiber)
      expect(run.outcomes.map((o) => o.error?._tag)).toEqual([
        "CancelledBySibling",
        "ToolFailed",
        "CancelledBySibling",
        undefined
      ])
      expect(run.outcomes[0]!.result.content).toBe(
        "<tool_use_error>Cancelled: parallel tool call errored</tool_use_error>"
      )
      expect(probe.ran.has("queued")).toBe(false)
      expect(probe.log).not.toContain("end:slow")
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe, [bash(probe)]), cwd })))
  })

  it.effect("sibling cancellation can be turned off", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const blocks = [toolUse("slow", "R", { ms: 100 }), toolUse("bash", "Bash", { fail: "Exit code 2" })]
      const fiber = yield* Effect.fork(scheduler.runMessage(blocks, { session, siblingCancellation: false }))
      yield* TestClock.adjust("1 second")
      const run = yield* Fiber.join(fiber)
      expect(run.outcomes.map((o) => o.error?._tag)).toEqual([undefined, "ToolFailed"])
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe, [bash(probe)]), cwd })))
  })
})

describe("Scheduler: footprints", () => {
  const footprinted = (name: string, safe: boolean, probe: Probe, kind: "read" | "write") =>
    buildTool({
      name,
      inputSchema: Schema.Struct({ path: Schema.String, ms: Schema.Number }),
      description: `${kind}s a path`,
      isConcurrencySafe: () => safe,
      checkPermissions: () => Effect.succeed(Permission.allow()),
      footprint: (input) =>
        Effect.succeed(kind === "read" ? { reads: [input.path], writes: [] } : { reads: [], writes: [input.path] }),
      call: (input, ctx) =>
        Effect.gen(function*() {
          probe.active.add(ctx.toolUseId)
          probe.overlaps.push([...probe.active])
          yield* Effect.sleep(`${input.ms} millis`)
          probe.active.delete(ctx.toolUseId)
          return { data: `${name} ${input.path}` }
        })
    })

  it.effect("a write starts while unrelated reads run; conflicting calls wait; results equal batch mode", () => {
    const probe = makeProbe()
    const blocks = [
      toolUse("r1", "FRead", { path: "/p/a", ms: 100 }),
      toolUse("w1", "FWrite", { path: "/p/b", ms: 100 }),
      toolUse("r2", "FRead", { path: "/p/b", ms: 100 }),
      toolUse("r3", "FRead", { path: "/p/c", ms: 100 })
    ]
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const fp = yield* Effect.fork(scheduler.runMessage(blocks, { session, mode: "footprints" }))
      yield* TestClock.adjust("1 second")
      const footprints = yield* Fiber.join(fp)
      const batch = yield* Effect.fork(scheduler.runMessage(blocks, { session }))
      yield* TestClock.adjust("1 second")
      const batches = yield* Fiber.join(batch)
      expect(footprints.message).toEqual(batches.message)
      expect(footprints.timeline.map((t) => t.startedMs)).toEqual([0, 0, 100, 0])
      expect(batches.timeline.map((t) => t.startedMs)).toEqual([0, 100, 200, 200])
    }).pipe(
      Effect.provide(
        testRuntime({
          tools: [footprinted("FRead", true, probe, "read"), footprinted("FWrite", false, probe, "write")],
          cwd
        })
      )
    )
  })
})

describe("Scheduler: properties", () => {
  const arbitraryCall = fc.record({
    tool: fc.constantFrom("R", "W", "Block", "Bash", "Nope"),
    ms: fc.integer({ min: 0, max: 50 }),
    fail: fc.boolean(),
    badInput: fc.boolean()
  })

  it.effect("one result per id, in order; the cap holds; nothing overlaps an unsafe call", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.array(arbitraryCall, { minLength: 1, maxLength: 12 }),
          fc.integer({ min: 1, max: 4 }),
          fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
          fc.constantFrom("batches" as const, "footprints" as const),
          async (calls, cap, interruptAt, mode) => {
            const probe = makeProbe()
            const blocks = calls.map((c, i) =>
              toolUse(
                `id${i}`,
                c.tool,
                c.badInput ? { ms: "bad" } : c.fail ? { ms: c.ms, fail: `Exit code 1` } : { ms: c.ms }
              )
            )
            const program = Effect.gen(function*() {
              const scheduler = yield* Scheduler
              const interrupts = yield* Queue.unbounded<void>()
              const fiber = yield* Effect.fork(
                scheduler.runMessage(blocks, {
                  session,
                  maxConcurrency: cap,
                  mode,
                  // both forms: a stream of interrupts, or the queue they are offered to
                  interrupts: mode === "batches" ? Stream.fromQueue(interrupts) : interrupts
                })
              )
              if (interruptAt !== undefined) {
                yield* TestClock.adjust(`${interruptAt} millis`)
                yield* interrupts.offer(undefined)
              }
              yield* TestClock.adjust("10 seconds")
              return yield* Fiber.join(fiber)
            }).pipe(
              Effect.provide(
                testRuntime({
                  tools: tools(probe, [fakeTool("Bash", { safe: true, probe, cancelsSiblings: true })]),
                  cwd
                })
              )
            )
            const run = await Effect.runPromise(
              program.pipe(Effect.provide(TestContext.TestContext)) as Effect.Effect<any>
            )
            expect(run.outcomes.map((o: { toolUseId: string }) => o.toolUseId)).toEqual(blocks.map((b) => b.id))
            expect(run.message.content.filter((b: { type: string }) => b.type === "tool_result")).toHaveLength(
              blocks.length
            )
            expect(probe.maxRunning).toBeLessThanOrEqual(cap)
            const unsafe = new Set(blocks.filter((b) => b.name === "W").map((b) => b.id))
            for (const set of probe.overlaps) if (set.some((id) => unsafe.has(id))) expect(set).toHaveLength(1)
            expect(probe.running).toBe(0)
          }
        ),
        { numRuns: 60, seed: 42 }
      )
    ))
})

describe("Scheduler: configuration and library entry points", () => {
  it.effect("the cap comes from TOOLGATE_MAX_TOOL_USE_CONCURRENCY, then CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY, else 10", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        maxConcurrencyConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
      expect(yield* read({})).toBe(10)
      expect(yield* read({ CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: "3" })).toBe(3)
      expect(yield* read({ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: "2", CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: "3" })).toBe(2)
      expect(yield* Effect.either(read({ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: "0" }))).toMatchObject({ _tag: "Left" })
    }))

  it.effect("the configured cap is what a message runs under", () => {
    const probe = makeProbe()
    return Effect.gen(function*() {
      const fiber = yield* Effect.fork(
        (yield* Scheduler).runMessage([0, 1, 2, 3].map((i) => toolUse(`t${i}`, "R", { ms: 10 })), { session })
      )
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect(probe.maxRunning).toBe(2)
    }).pipe(
      Effect.provide(testRuntime({ tools: tools(probe), cwd })),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["TOOLGATE_MAX_TOOL_USE_CONCURRENCY", "2"]])))
    )
  })

  it.live("an AbortSignal interrupts a message like Ctrl-C", () => {
    const probe = makeProbe()
    const controller = new AbortController()
    return Effect.gen(function*() {
      const fiber = yield* Effect.fork(
        (yield* Scheduler).runMessage([toolUse("long", "R", { ms: 60_000 })], {
          session,
          interrupts: interruptsFromAbortSignal(controller.signal)
        })
      )
      while (probe.running === 0) yield* Effect.sleep("5 millis")
      controller.abort()
      const run = yield* Fiber.join(fiber)
      expect(run.outcomes[0]!.error?._tag).toBe("Interrupted")
      expect(run.interrupted).toBe(true)
    }).pipe(Effect.provide(testRuntime({ tools: tools(probe), cwd })))
  })
})
