/**
 * The sandbox's start cost per Bash call: `true` through the whole runtime (Runtime.layer, built
 * once per side), as it runs unsandboxed (approved by an allow rule), in the read-only profile
 * (approved only by the analyzer's read-only judgement) and in Claude Code's profile
 * (`sandbox.enabled`, approved by a rule; bubblewrap through @anthropic-ai/sandbox-runtime, with
 * its network proxy). Paired rounds in one process; wall time, since the work is in the child
 * processes (bwrap, the seccomp helper, socat), not in this one.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Runtime from "../src/layers/Runtime.js"
import { contentText } from "../src/Messages.js"
import { Sandbox } from "../src/services/Sandbox.js"
import * as Scheduler from "../src/services/Scheduler.js"
import { newSession } from "../src/Session.js"
import { now, pairedRounds, plainMetric, ratioMetric, type Benchmark } from "./harness.js"
import { tempDir } from "./runtime.js"

type Side = "unsandboxed" | "readOnly" | "settings"

const SETTINGS: Record<Side, Record<string, unknown>> = {
  unsandboxed: { permissions: { allow: ["Bash(true)"] } },
  readOnly: {},
  settings: { permissions: { allow: ["Bash(true)"] }, sandbox: { enabled: true } }
}

const openSide = (side: Side) =>
  Effect.gen(function*() {
    const root = fs.realpathSync(tempDir(`toolgate-bench-sandbox-${side}-`))
    const cwd = path.join(root, "project")
    fs.mkdirSync(cwd)
    const scope = yield* Scope.make()
    const layer = Runtime.layer({
      cwd,
      home: root,
      userConfigDir: path.join(root, ".claude"),
      managedDir: path.join(root, "managed"),
      settings: [JSON.stringify(SETTINGS[side])],
      mcp: false,
      extensions: { disabled: true }
    }) as Layer.Layer<Scheduler.Scheduler | Sandbox>
    const services = yield* Layer.buildWithScope(layer, scope)
    const status = yield* Context.get(services, Sandbox).status
    if (status._tag !== "Available") {
      return yield* Effect.die(new Error(`bench: no sandbox on this machine: ${status.reason}`))
    }
    const scheduler = Context.get(services, Scheduler.Scheduler)
    const session = newSession({ cwd, permissionMode: "default", sessionDir: path.join(root, "session") })
    let n = 0
    const call = Effect.gen(function*() {
      const run = yield* scheduler.runMessage([{
        type: "tool_use",
        id: `toolu_${side}_${n++}`,
        name: "Bash",
        input: { command: "true" }
      }], { session })
      const result = run.outcomes[0]!.result
      if (result.is_error === true) {
        return yield* Effect.die(
          new Error(`bench: \`true\` failed on the ${side} side: ${contentText(result.content)}`)
        )
      }
    })
    return { call, close: Scope.close(scope, Exit.void) }
  })

export const sandbox: Benchmark = {
  name: "sandbox",
  run: async () => {
    const sides = await Effect.runPromise(
      Effect.all({
        unsandboxed: openSide("unsandboxed"),
        readOnly: openSide("readOnly"),
        settings: openSide("settings")
      })
    )
    try {
      const timedCall = (side: Side) => async () => {
        const t0 = now()
        await Effect.runPromise(sides[side].call)
        return now() - t0
      }
      const samples = await pairedRounds(
        [
          ["unsandboxed", timedCall("unsandboxed")],
          ["readOnly", timedCall("readOnly")],
          ["settings", timedCall("settings")]
        ],
        { warmup: 3, rounds: 20 }
      )
      const baseline = { name: "unsandboxed Bash call", samples: samples.unsandboxed }
      const over = (side: "readOnly" | "settings") => samples[side].map((v, i) => v - samples.unsandboxed[i]!)
      return [
        plainMetric({ name: "sandbox.unsandboxed_call", unit: "ms wall" }, samples.unsandboxed),
        ratioMetric({ name: "sandbox.read_only_vs_unsandboxed", unit: "ms wall" }, samples.readOnly, baseline),
        ratioMetric({ name: "sandbox.settings_vs_unsandboxed", unit: "ms wall" }, samples.settings, baseline),
        plainMetric({
          name: "sandbox.read_only_start_cost",
          unit: "ms wall",
          note: "per call, over the unsandboxed call of the same round"
        }, over("readOnly")),
        plainMetric({
          name: "sandbox.settings_start_cost",
          unit: "ms wall",
          note: "per call, over the unsandboxed call of the same round"
        }, over("settings"))
      ]
    } finally {
      await Effect.runPromise(
        Effect.all([sides.unsandboxed.close, sides.readOnly.close, sides.settings.close], { discard: true })
      )
    }
  }
}
