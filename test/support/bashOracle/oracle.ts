/**
 * The bash oracle: decides each command with the real Permissions stage; runs every command it
 * allows in real bash inside a sandbox slot, exactly as the Bash tool does; and judges what bash
 * ran and wrote against what the analyzer named.
 *
 * Paths: the scratch template (`layout`) is what the analyzer and the path checks see. Each slot
 * has a copy of it, mounted inside its sandbox at the template's own path, so commands, logs and
 * verdicts all speak of the same paths.
 */
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ShellAnalyzer from "../../../src/services/ShellAnalyzer.js"
import type { CommandAnalysis } from "../../../src/services/ShellAnalyzer.js"
import type { OracleContext } from "./contexts.js"
import { makeHarness } from "./harness.js"
import { judge, type Problem } from "./judge.js"
import { openSlot, sandboxProblem, type LoggedRun, type Slot } from "./sandbox.js"
import {
  buildTemplate,
  diff,
  restore,
  snapshot,
  undo,
  type Change,
  type ScratchLayout,
  type Snapshot
} from "./scratch.js"
import { makeVerdicts, type Verdicts } from "./verdicts.js"
import * as Permission from "../../../src/Permission.js"

export interface OracleCase {
  readonly command: string
  readonly context: OracleContext
}

export interface Checked {
  readonly case: OracleCase
  readonly behavior: "allow" | "ask" | "deny"
  /** What bash did (allowed commands only). */
  readonly bash?: {
    readonly status: string
    readonly runs: ReadonlyArray<LoggedRun>
    readonly changes: ReadonlyArray<Change>
  }
  readonly analysis?: CommandAnalysis
  readonly problems: ReadonlyArray<Problem>
}

export interface Oracle {
  readonly layout: ScratchLayout
  readonly analyzer: ShellAnalyzer.ShellAnalyzerService
  /** Decides every case, runs the allowed ones (spread over the slots) and judges them; results in input order. */
  readonly check: (cases: ReadonlyArray<OracleCase>) => Promise<Array<Checked>>
  /** Runs a command in bash regardless of its verdict and judges it against the given analysis (harness self-tests). */
  readonly runAndJudge: (command: string, context: OracleContext, analysis: CommandAnalysis) => Promise<Checked>
}

export interface OracleOptions {
  /** Sandbox slots run side by side. */
  readonly jobs: number
  readonly timeoutMs: number
}

/** Absolute paths under `from` moved under `to`. */
const rebase = (p: string, from: string, to: string) => path.join(to, path.relative(from, p))

interface SlotState {
  readonly slot: Slot
  readonly copy: string
  /** Where the cwd trap writes: anything else appearing there was written by the trap under another name. */
  readonly trapDir: string
  before: Snapshot
}

/** Files other than the trap's own that appeared beside it (the trap's variable was changed); removed. */
const strayTrapFiles = (dir: string): Array<Change> =>
  fs
    .readdirSync(dir)
    .filter((name) => name !== "cwd")
    .map((name) => {
      const full = path.join(dir, name)
      fs.rmSync(full, { recursive: true, force: true })
      return { path: full, kind: "created" as const, detail: "beside the cwd trap's file" }
    })

export const sandboxUnavailable = sandboxProblem

export const makeOracle = (options: OracleOptions): Effect.Effect<Oracle, never, Scope.Scope> =>
  Effect.gen(function*() {
    const base = yield* Effect.acquireRelease(
      Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bash-oracle-")))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 }))
    )
    const layout = buildTemplate(path.join(base, "scratch"))
    const managed = path.join(base, "managed")
    fs.mkdirSync(managed)
    // The analyzer expands `~` with the process's home; the commands' HOME is the scratch home.
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const previous = process.env.HOME
        process.env.HOME = layout.home
        return previous
      }),
      (previous) =>
        Effect.sync(() => {
          if (previous === undefined) delete process.env.HOME
          else process.env.HOME = previous
        })
    )
    const analyzer = yield* ShellAnalyzer.make
    yield* analyzer.warmup
    const verdicts: Verdicts = yield* Effect.acquireRelease(
      Effect.sync(() => makeVerdicts(layout, managed, analyzer)),
      (v) => Effect.promise(() => v.dispose())
    )
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: layout.home,
      TMPDIR: layout.tmp,
      LANG: "C.UTF-8",
      USER: "root",
      // `git status` would otherwise refresh .git/index: a write by a read-only command that no command line names
      GIT_OPTIONAL_LOCKS: "0"
    }
    const slots: Array<SlotState> = []
    for (let i = 0; i < Math.max(1, options.jobs); i++) {
      const harness = yield* makeHarness(path.join(base, `harness-${i}`))
      const copy = path.join(base, `slot-${i}`)
      restore(layout.root, copy)
      const slot = yield* Effect.acquireRelease(
        Effect.sync(() => openSlot({ harness, mounts: [[copy, layout.root]], env, timeoutMs: options.timeoutMs })),
        (s) => Effect.sync(() => s.close())
      )
      slots.push({ slot, copy, trapDir: path.dirname(harness.cwdFile), before: snapshot(copy) })
    }

    const runIn = async (
      state: SlotState,
      command: string,
      context: OracleContext,
      analysis: CommandAnalysis
    ): Promise<Checked["bash"] & { problems: Array<Problem> }> => {
      const cwd = path.join(layout.proj, context.cwd)
      const outcome = await state.slot.run(command, cwd)
      const after = snapshot(state.copy)
      const inCopy = diff(state.before, after)
      const changes = [
        ...inCopy.map((c) => ({ ...c, path: rebase(c.path, state.copy, layout.root) })),
        ...strayTrapFiles(state.trapDir)
      ]
      if (inCopy.length > 0) {
        undo(layout.root, state.copy, inCopy)
        state.before = snapshot(state.copy)
      } else state.before = after
      const problems = judge(analysis, outcome.runs, changes, {
        cwd,
        home: layout.home,
        workingDirectories: [layout.proj],
        writesApproved: context.mode === "acceptEdits",
        pathDirs: ["/usr/bin"]
      })
      return { status: outcome.status, runs: outcome.runs, changes, problems }
    }

    const analyze = (command: string) => Effect.runPromise(analyzer.analyze(command))

    const check = async (cases: ReadonlyArray<OracleCase>): Promise<Array<Checked>> => {
      const results: Array<Checked> = new Array(cases.length)
      const queue: Array<number> = []
      for (let i = 0; i < cases.length; i++) {
        const c = cases[i]!
        const decision = await verdicts.decide(c.command, c.context)
        results[i] = { case: c, behavior: Permission.behaviorOf(decision), problems: [] }
        if (Permission.behaviorOf(decision) === "allow") queue.push(i)
      }
      let next = 0
      await Promise.all(
        slots.map(async (state) => {
          while (next < queue.length) {
            const i = queue[next++]!
            const c = cases[i]!
            const analysis = await analyze(c.command)
            const { problems, ...bash } = await runIn(state, c.command, c.context, analysis)
            results[i] = { case: c, behavior: "allow", bash, analysis, problems }
          }
        })
      )
      return results
    }

    const runAndJudge = async (
      command: string,
      context: OracleContext,
      analysis: CommandAnalysis
    ): Promise<Checked> => {
      const { problems, ...bash } = await runIn(slots[0]!, command, context, analysis)
      return { case: { command, context }, behavior: "allow", bash, analysis, problems }
    }

    return { layout, analyzer, check, runAndJudge }
  })
