/**
 * Drives `Approver.layerTerminal` on a real terminal for the pseudo-terminal tests.
 * usage: harness <request.json> [count]
 * Asks `count` (default 1) approvals concurrently and prints each answer as `ANSWER <i> <json>`.
 * A request file holds { tool, input, message, suggestions, subcommands }.
 */
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import { buildTool } from "../../../src/Tool.js"
import * as Approver from "../../../src/services/Approver.js"
import type { RuleSuggestion, SubcommandVerdict } from "../../../src/Permission.js"
import * as Permission from "../../../src/Permission.js"

interface RequestFile {
  readonly tool: string
  readonly input: Record<string, unknown>
  readonly message: string
  readonly suggestions: ReadonlyArray<RuleSuggestion>
  readonly subcommands?: ReadonlyArray<SubcommandVerdict>
}

const spec = JSON.parse(fs.readFileSync(process.argv[2]!, "utf8")) as RequestFile
const count = Number(process.argv[3] ?? "1")

const tool = buildTool({
  name: spec.tool,
  inputSchema: Schema.Struct({ command: Schema.String }),
  description: "test tool",
  call: () => Effect.succeed({ data: "" })
})

const ask = (i: number) =>
  Effect.gen(function*() {
    const approver = yield* Approver.Approver
    const answer = yield* approver.request({
      tool,
      input: spec.input,
      toolUseId: `toolu_${i}`,
      message: spec.message,
      decision: Permission.ask(spec.message, {
        reason: { type: "default", detail: "test" },
        suggestions: spec.suggestions,
        subcommands: spec.subcommands
      }),
      suggestions: spec.suggestions,
      session: {
        sessionId: "s",
        sessionDir: "/tmp",
        projectDir: process.cwd(),
        cwd: process.cwd(),
        additionalDirectories: [],
        permissionMode: "default"
      }
    })
    process.stdout.write(`\nANSWER ${i} ${JSON.stringify(answer)}\n`)
  })

const program = Effect.gen(function*() {
  const approver = yield* Approver.Approver
  process.stdout.write(`READY canAsk=${approver.canAsk}\n`)
  yield* Effect.forEach(Array.from({ length: count }, (_, i) => i), ask, { concurrency: "unbounded", discard: true })
}).pipe(Effect.provide(Approver.layerTerminal))

Effect.runPromise(program).then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`harness failed: ${String(e)}\n`)
    process.exit(1)
  }
)
