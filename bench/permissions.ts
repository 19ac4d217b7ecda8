/**
 * 5. Permission checks: decisions per second through the Permissions stage (rules of every
 * behavior, working directories, safety checks, the Bash analyzer with tree-sitter), for a corpus
 * of realistic Bash commands and of file paths. Bash is measured twice:
 *   - uncached: the analysis cache is emptied before every decision, so every command is parsed;
 *   - cached:   the corpus again after an unmeasured pass that filled the cache, so every
 *               decision is a cache hit (what a session repeating commands sees).
 * Every cached decision is compared with the uncached decision of the same command in the same
 * round (behavior, message, reason, suggestions, subcommands): the cache must change none. The
 * passes rotate their order each round, after WARMUP unmeasured rounds, so that neither side
 * always follows the other's garbage. Rates are per wall second and per CPU second (CPU counts
 * GC helper threads, so it can exceed wall time); the targets are per CPU second (issue 14).
 */
import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeAnalyses, makeShellAnalyzer, makeShellParser } from "../src/services/ShellAnalyzer/index.js"
import { ShellAnalyzer } from "../src/services/ShellAnalyzer.js"
import { behaviorOf, type Decision } from "../src/Permission.js"
import { decodeInput } from "../src/services/InputValidator.js"
import { Permissions } from "../src/services/Permissions.js"
import type { AnyTool } from "../src/Tool.js"
import { BashTool, EditTool, ReadTool, WriteTool } from "../src/tools/index.js"
import { BASH_COMMANDS, PATH_CASES, RULES } from "./corpus.js"
import { iqr, median, now, plainMetric, sink, type Benchmark, type Metric } from "./harness.js"
import { benchSession, makeBenchRuntime, tempDir } from "./runtime.js"

const tools: Record<string, AnyTool> = { Bash: BashTool, Read: ReadTool, Edit: EditTool, Write: WriteTool }

/** A decision as text, for comparing two passes. */
const fingerprint = (d: Decision): string =>
  JSON.stringify(d, (_key, value: unknown) => (typeof value === "function" ? undefined : value))

export const permissions: Benchmark = {
  name: "permissions",
  run: async () => {
    const cwd = fs.realpathSync(tempDir("toolgate-bench-permissions-"))
    for (const dir of ["src/services", "test/services", ".claude", "secrets", "docs/guide"]) {
      fs.mkdirSync(path.join(cwd, dir), { recursive: true })
    }
    for (
      const file of [
        "package.json",
        "README.md",
        "src/Tool.ts",
        "src/services/Scheduler.ts",
        ".env",
        ".claude/settings.json"
      ]
    ) {
      fs.writeFileSync(path.join(cwd, file), "{}\n")
    }
    // The analyzer's own cache, so the uncached pass can empty it.
    const parser = makeShellParser()
    const analyses = makeAnalyses(parser)
    const shellAnalyzer = Layer.succeed(ShellAnalyzer, makeShellAnalyzer(parser, analyses))
    const runtime = makeBenchRuntime({
      tools: Object.values(tools),
      cwd,
      allow: RULES.allow,
      deny: RULES.deny,
      ask: RULES.ask,
      shellAnalyzer
    })
    const session = benchSession(cwd)
    const service = await runtime.runPromise(Permissions)

    const prepare = (toolName: string, raw: Record<string, unknown>) => {
      const tool = tools[toolName]!
      const decoded = decodeInput(tool, raw)
      if (Either.isLeft(decoded)) {
        throw new Error(`bench: corpus input for ${toolName} does not decode: ${decoded.left.message}`)
      }
      return { tool, input: tool.expandInput(decoded.right, session) }
    }
    const home = os.homedir()
    const bash = BASH_COMMANDS.map((command) => prepare("Bash", { command }))
    const paths = PATH_CASES.map(({ tool, path: p }) => {
      const file = p.replace("{{cwd}}", cwd).replace(/^~(?=\/)/, home)
      return prepare(
        tool,
        tool === "Read"
          ? { file_path: file }
          : tool === "Edit"
          ? { file_path: file, old_string: "a", new_string: "b" }
          : { file_path: file, content: "x" }
      )
    })

    /** One pass over a corpus in one fiber; returns the decisions and the elapsed ms. */
    const pass = (corpus: typeof bash, uncached: boolean) =>
      runtime.runPromise(
        Effect.gen(function*() {
          const decisions: Array<Decision> = []
          const c0 = process.cpuUsage()
          const t0 = now()
          for (const { tool, input } of corpus) {
            if (uncached) analyses.clear()
            decisions.push(yield* service.decide({ tool, input, session }))
          }
          const wall = now() - t0
          const cpu = process.cpuUsage(c0)
          return { decisions, ms: wall, cpu: (cpu.user + cpu.system) / 1000 }
        })
      )

    // The parser loads on first use; that is start-up, not a decision.
    await pass(bash.slice(0, 1), true)

    const rates = {
      uncached: [] as Array<number>,
      cached: [] as Array<number>,
      paths: [] as Array<number>,
      uncachedCpu: [] as Array<number>,
      cachedCpu: [] as Array<number>,
      pathsCpu: [] as Array<number>
    }
    let mismatches = 0
    let compared = 0
    const mismatched: Array<string> = []
    const WARMUP = 10
    const rounds = 15
    type Pass = Awaited<ReturnType<typeof pass>>
    const order = ["uncached", "cached", "paths"] as const
    for (let round = 0; round < WARMUP + rounds; round++) {
      const results: Partial<Record<(typeof order)[number], Pass>> = {}
      // rotate which pass goes first; the cached pass is always preceded by a pass that fills the cache
      for (let k = 0; k < order.length; k++) {
        const which = order[(round + k) % order.length]!
        if (which === "uncached") results.uncached = await pass(bash, true)
        else if (which === "cached") {
          await pass(bash, false)
          results.cached = await pass(bash, false)
        } else results.paths = await pass(paths, false)
      }
      const cold = results.uncached!
      const warm = results.cached!
      const files = results.paths!
      if (round < WARMUP) continue
      rates.uncached.push((bash.length / cold.ms) * 1000)
      rates.uncachedCpu.push((bash.length / cold.cpu) * 1000)
      rates.cached.push((bash.length / warm.ms) * 1000)
      rates.cachedCpu.push((bash.length / warm.cpu) * 1000)
      rates.paths.push((paths.length / files.ms) * 1000)
      rates.pathsCpu.push((paths.length / files.cpu) * 1000)
      cold.decisions.forEach((d, i) => {
        compared++
        if (fingerprint(d) !== fingerprint(warm.decisions[i]!)) {
          mismatches++
          if (mismatched.length < 5) mismatched.push(BASH_COMMANDS[i]!)
        }
      })
      sink(cold.decisions.length + warm.decisions.length + files.decisions.length)
    }
    const last = await pass(bash, false)
    const tally = (decisions: ReadonlyArray<Decision>) => {
      const count = { allow: 0, deny: 0, ask: 0 }
      for (const d of decisions) count[behaviorOf(d)]++
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
          note: `${BASH_COMMANDS.length} commands, every one parsed with tree-sitter; ${tally(last.decisions)}`
        },
        rates.uncached
      ),
      plainMetric(
        {
          name: "permissions.cpu.bash_uncached",
          unit: "decisions/s (cpu)",
          target: ">= 10000/s",
          meets: (v) => v >= 10_000,
          note: "per CPU second of the process, GC helper threads included"
        },
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
      plainMetric(
        {
          name: "permissions.cpu.bash_cached",
          unit: "decisions/s (cpu)",
          target: ">= 50000/s",
          meets: (v) => v >= 50_000,
          note: "every decision a cache hit (cache filled by an unmeasured pass)"
        },
        rates.cachedCpu
      ),
      {
        name: "permissions.cache_changed_decisions",
        value: mismatches,
        unit: "decisions",
        baseline: undefined,
        ratio: undefined,
        spread: undefined,
        target: "0",
        meets: mismatches === 0 && compared > 0,
        note: mismatches === 0
          ? `cached hit = uncached verdict for ${compared} decisions (${BASH_COMMANDS.length} commands × ${rounds} rounds)`
          : `differs on: ${mismatched.join(" | ")}`
      },
      plainMetric({
        name: "permissions.paths",
        unit: "decisions/s",
        note: `${PATH_CASES.length} Read/Edit/Write paths; ${tally(pathDecisions.decisions)}`
      }, rates.paths),
      plainMetric({
        name: "permissions.cpu.paths",
        unit: "decisions/s (cpu)",
        target: ">= 20000/s",
        meets: (v) => v >= 20_000
      }, rates.pathsCpu)
    ]
    return metrics
  }
}
