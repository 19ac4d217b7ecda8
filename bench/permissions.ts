/**
 * 5. Permission checks: decisions per second through the Permissions stage (rules of every
 * behavior, working directories, safety checks, the Bash analyzer with tree-sitter), for a corpus
 * of realistic Bash commands and of file paths. Bash is measured twice:
 *   - uncached: the analysis cache is emptied before every decision, so every command is parsed;
 *   - cached:   the corpus again with the cache warm (what a session repeating commands sees).
 * The cache must not change any decision: every decision of the cached pass is compared with
 * the uncached one (behavior, message, reason, suggestions, subcommands). Rates are per wall
 * second (CPU time is reported beside: it counts GC helper threads, so it can exceed wall time).
 */
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { clearAnalysisCache } from "../src/services/Permissions/shell/analyze.js"
import type { PermissionDecision } from "../src/Permission.js"
import { decodeInput } from "../src/services/InputValidator.js"
import { Permissions } from "../src/services/Permissions.js"
import type { AnyTool } from "../src/Tool.js"
import { BashTool, EditTool, ReadTool, WriteTool } from "../src/tools/index.js"
import { BASH_COMMANDS, PATH_CASES, RULES } from "./corpus.js"
import { iqr, median, now, plainMetric, sink, type Benchmark, type Metric } from "./harness.js"
import { benchSession, makeBenchRuntime, tempDir } from "./runtime.js"

const tools: Record<string, AnyTool> = { Bash: BashTool, Read: ReadTool, Edit: EditTool, Write: WriteTool }

/** A decision as text, for comparing two passes. */
const fingerprint = (d: PermissionDecision): string => JSON.stringify(d, (_key, value: unknown) => (typeof value === "function" ? undefined : value))

export const permissions: Benchmark = {
  name: "permissions",
  run: async () => {
    const cwd = fs.realpathSync(tempDir("toolgate-bench-permissions-"))
    for (const dir of ["src/services", "test/services", ".claude", "secrets", "docs/guide"]) fs.mkdirSync(path.join(cwd, dir), { recursive: true })
    for (const file of ["package.json", "README.md", "src/Tool.ts", "src/services/Scheduler.ts", ".env", ".claude/settings.json"]) {
      fs.writeFileSync(path.join(cwd, file), "{}\n")
    }
    const runtime = makeBenchRuntime({ tools: Object.values(tools), cwd, allow: RULES.allow, deny: RULES.deny, ask: RULES.ask })
    const session = benchSession(cwd)
    const service = await runtime.runPromise(Permissions)

    const prepare = (toolName: string, raw: Record<string, unknown>) => {
      const tool = tools[toolName]!
      const decoded = decodeInput(tool, raw)
      if (Either.isLeft(decoded)) throw new Error(`bench: corpus input for ${toolName} does not decode: ${decoded.left.message}`)
      return { tool, input: tool.expandInput(decoded.right, session) }
    }
    const home = os.homedir()
    const bash = BASH_COMMANDS.map((command) => prepare("Bash", { command }))
    const paths = PATH_CASES.map(({ tool, path: p }) => {
      const file = p.replace("{{cwd}}", cwd).replace(/^~(?=\/)/, home)
      return prepare(tool, tool === "Read" ? { file_path: file } : tool === "Edit" ? { file_path: file, old_string: "a", new_string: "b" } : { file_path: file, content: "x" })
    })

    /** One pass over a corpus in one fiber; returns the decisions and the elapsed ms. */
    const pass = (corpus: typeof bash, uncached: boolean) =>
      runtime.runPromise(
        Effect.gen(function* () {
          const decisions: Array<PermissionDecision> = []
          const c0 = process.cpuUsage()
          const t0 = now()
          for (const { tool, input } of corpus) {
            if (uncached) clearAnalysisCache()
            decisions.push(yield* service.decide({ tool, input, session }))
          }
          const wall = now() - t0
          const cpu = process.cpuUsage(c0)
          return { decisions, ms: wall, cpu: (cpu.user + cpu.system) / 1000 }
        })
      )

    // The parser loads on first use; that is start-up, not a decision.
    await pass(bash.slice(0, 1), true)

    const rates = { uncached: [] as Array<number>, cached: [] as Array<number>, paths: [] as Array<number>, uncachedCpu: [] as Array<number> }
    let mismatches = 0
    const mismatched: Array<string> = []
    const rounds = 15
    for (let round = 0; round < rounds + 1; round++) {
      const cold = await pass(bash, true)
      const warm = await pass(bash, false)
      const files = await pass(paths, false)
      if (round === 0) continue
      rates.uncached.push((bash.length / cold.ms) * 1000)
      rates.uncachedCpu.push((bash.length / cold.cpu) * 1000)
      rates.cached.push((bash.length / warm.ms) * 1000)
      rates.paths.push((paths.length / files.ms) * 1000)
      cold.decisions.forEach((d, i) => {
        if (fingerprint(d) !== fingerprint(warm.decisions[i]!)) {
          mismatches++
          if (mismatched.length < 5) mismatched.push(BASH_COMMANDS[i]!)
        }
      })
      sink(cold.decisions.length + warm.decisions.length + files.decisions.length)
    }
    const last = await pass(bash, false)
    const tally = (decisions: ReadonlyArray<PermissionDecision>) => {
      const count = { allow: 0, deny: 0, ask: 0 }
      for (const d of decisions) count[d.behavior]++
      return `allow ${count.allow}, ask ${count.ask}, deny ${count.deny}`
    }
    const pathDecisions = await pass(paths, false)
    await runtime.dispose()

    const uncachedRate = median(rates.uncached)
    const metrics: Array<Metric> = [
      plainMetric(
        {
          name: "permissions.bash_uncached",
          unit: "decisions/s",
          target: "> 2000/s",
          meets: (v) => v > 2000,
          note: `${BASH_COMMANDS.length} commands, every one parsed with tree-sitter; ${tally(last.decisions)}`
        },
        rates.uncached
      ),
      plainMetric(
        { name: "permissions.cpu.bash_uncached", unit: "decisions/s (cpu)", note: "per CPU second of the process, GC helper threads included" },
        rates.uncachedCpu
      ),
      {
        name: "permissions.bash_cached_vs_uncached",
        value: median(rates.cached),
        unit: "decisions/s",
        baseline: { name: "uncached", value: uncachedRate },
        ratio: median(rates.cached.map((v, i) => v / rates.uncached[i]!)),
        spread: iqr(rates.cached),
        ratioSpread: iqr(rates.cached.map((v, i) => v / rates.uncached[i]!)),
        rounds: rates.cached.length
      },
      {
        name: "permissions.cache_changed_decisions",
        value: mismatches,
        unit: "decisions",
        baseline: undefined,
        ratio: undefined,
        spread: undefined,
        target: "0",
        meets: mismatches === 0,
        note: mismatches === 0 ? `cached = uncached for ${BASH_COMMANDS.length} commands × ${rounds} rounds` : `differs on: ${mismatched.join(" | ")}`
      },
      plainMetric({ name: "permissions.paths", unit: "decisions/s", note: `${PATH_CASES.length} Read/Edit/Write paths; ${tally(pathDecisions.decisions)}` }, rates.paths)
    ]
    return metrics
  }
}
