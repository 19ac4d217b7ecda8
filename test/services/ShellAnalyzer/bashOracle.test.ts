/**
 * Bash as the oracle (issue 22; shell-security §4). Every command the Permissions stage lets run
 * without asking is run in real bash, as the Bash tool runs it, in a sandbox where every program
 * is a logging stub (reading programs run for real after logging) and the scratch tree shows
 * every write. Bash must run only what the analyzer named, where it said, and write only what it
 * named and approved. The harness is checked first (it must catch what it is for and nothing
 * else), then the named regression cases, then a generated corpus with a fixed seed
 * (`SHELL_ORACLE_SEED`, `SHELL_ORACLE_COUNT`; `npm run fuzz:shell` for long runs).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as path from "node:path"
import { loadRegressions } from "../../support/bashOracle/cases.js"
import { showContext, type OracleContext } from "../../support/bashOracle/contexts.js"
import { generateCorpus } from "../../support/bashOracle/corpus.js"
import type { ProblemKind } from "../../support/bashOracle/judge.js"
import { makeOracle, sandboxUnavailable, type Checked, type Oracle } from "../../support/bashOracle/oracle.js"

const SEED = Number(process.env.SHELL_ORACLE_SEED ?? 20261202)
const COUNT = Number(process.env.SHELL_ORACLE_COUNT ?? 4000)

const unavailable = sandboxUnavailable()
if (unavailable !== undefined) {
  // CI machines that can run it say so, and then a missing sandbox fails instead of skipping
  if (process.env.TOOLGATE_REQUIRE_BASH_ORACLE === "1") throw new Error(`the bash oracle cannot run: ${unavailable}`)
  process.stderr.write(`bash oracle skipped: ${unavailable}\n`)
}

const DEFAULT: OracleContext = { mode: "default", allow: [], cwd: "" }
const EDITS: OracleContext = { mode: "acceptEdits", allow: [], cwd: "" }

describe.skipIf(unavailable !== undefined)("bash as the oracle", () => {
  let scope: Scope.CloseableScope
  let oracle: Oracle

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    oracle = await Effect.runPromise(Scope.extend(makeOracle({ jobs: 2, timeoutMs: 15_000 }), scope))
  }, 60_000)
  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const analysis = (command: string) => Effect.runPromise(oracle.analyzer.analyze(command))
  /** Runs `command` and judges it against the analysis of `as` (a stand-in for a wrong analysis). */
  const judgedAs = async (command: string, as: string, context: OracleContext = DEFAULT) =>
    oracle.runAndJudge(command, context, await analysis(as))
  const kinds = (checked: Checked): ReadonlyArray<ProblemKind> => checked.problems.map((p) => p.kind)
  const scratch = (...parts: ReadonlyArray<string>) => path.join(oracle.layout.root, ...parts)

  const report = (checked: ReadonlyArray<Checked>) =>
    checked
      .filter((c) => c.problems.length > 0)
      .map((c) =>
        `${JSON.stringify(c.case.command)} (${showContext(c.case.context)}):\n  ${
          [...new Set(c.problems.map((p) => p.detail.replaceAll(oracle.layout.root, "<scratch>")))].join("\n  ")
        }`
      )

  describe("the harness", () => {
    it("passes commands that run and write exactly what the analyzer named", async () => {
      for (
        const command of [
          "cat README.md | sort | uniq -c",
          "ls src | xargs -n1 echo",
          "grep -rn alpha . | head -3",
          "cat *.md",
          "cd src && cat a.ts",
          "git status && git diff --stat"
        ]
      ) {
        const checked = await oracle.runAndJudge(command, DEFAULT, await analysis(command))
        expect({ command, problems: checked.problems }).toEqual({ command, problems: [] })
        expect(checked.bash!.runs.length).toBeGreaterThan(0)
      }
      const [write] = await oracle.check([{ command: "echo hi > out.txt", context: EDITS }])
      expect(write!.behavior).toBe("allow")
      expect(write!.bash!.changes.map((c) => [c.kind, c.path])).toEqual([["created", scratch("proj", "out.txt")]])
      expect(write!.problems).toEqual([])
    })

    it("catches a program the analyzer did not name, and other arguments", async () => {
      const hidden = await judgedAs("cat README.md; touch M", "cat README.md")
      expect(hidden.problems).toContainEqual(
        expect.objectContaining({ kind: "unnamed-program", program: "/usr/bin/touch" })
      )
      expect(kinds(await judgedAs("echo a b", "echo a"))).toEqual(["argv-mismatch"])
      // a program started by a program (git runs the pager command through sh)
      expect(kinds(await judgedAs("git grep -Otouch alpha", "git grep alpha"))).toContain("unnamed-program")
      // absolute paths reach the stubs too, and nothing real is removed
      const removal = await judgedAs("rm -rf src; /bin/rm -rf docs; test -e src/a.ts && test -e docs/guide.md", "true")
      expect(removal.problems.filter((p) => p.kind === "unnamed-program").map((p) => p.program)).toEqual([
        "/usr/bin/rm",
        "/usr/bin/rm",
        "/usr/bin/test",
        "/usr/bin/test"
      ])
      expect(removal.bash!.status).toBe("0")
      expect(removal.bash!.changes).toEqual([])
    })

    it("catches writes the analyzer did not name and approve", async () => {
      expect(kinds(await judgedAs("echo x > out.txt", "echo x", EDITS))).toEqual(["unnamed-write"])
      // outside acceptEdits no write is approved, even a named one
      expect(kinds(await judgedAs("echo x > out.txt", "echo x > out.txt"))).toEqual(["unnamed-write"])
      // what the real program does with its options shows (sort -o writes its output file)
      expect(kinds(await judgedAs("sort -o sorted.txt notes.txt", "sort -o sorted.txt notes.txt", EDITS))).toEqual([
        "unnamed-write"
      ])
      expect(kinds(await judgedAs("echo x > ../outside/o.txt", "echo x > ../outside/o.txt", EDITS))).toEqual([
        "write-outside"
      ])
      expect(kinds(await judgedAs("echo x > .git/o.txt", "echo x > .git/o.txt", EDITS))).toEqual(["protected-write"])
      // the scratch tree is put back after each command
      expect((await judgedAs("test -e out.txt", "test -e out.txt")).bash!.status).toBe("1")
    })

    it("sees toolgate's cwd trap write only its own file, and catches a command running in another directory", async () => {
      // The trap names its file literally: the variable it once read changes nothing.
      const trap = await judgedAs("__toolgate_cwd_file=moved.txt", "true")
      expect(trap.bash!.changes).toEqual([])
      expect(kinds(await judgedAs("cd src && cat a.ts", "cat a.ts"))).toEqual(["wrong-directory"])
    })
  })

  it("replays the named regression cases: none fails", async () => {
    const regressions = loadRegressions()
    const checked = await oracle.check(regressions)
    const failing = checked.flatMap((
      c,
      i
    ) => (c.problems.length === 0 ? [] : [`${regressions[i]!.name} [${regressions[i]!.class}]`]))
    process.stderr.write(
      `bash oracle: ${regressions.length} regression cases, ${
        checked.filter((c) => c.behavior === "allow").length
      } allowed, ${failing.length} failed\n`
    )
    expect({ failing, details: report(checked) }).toEqual({ failing: [], details: [] })
  }, 120_000)

  it(`runs a generated corpus (seed ${SEED}): bash does only what the analyzer named`, async () => {
    const corpus = generateCorpus(SEED, COUNT)
    const started = Date.now()
    const checked = await oracle.check(corpus)
    const allowed = checked.filter((c) => c.behavior === "allow")
    const failed = checked.filter((c) => c.problems.length > 0)
    const timedOut = allowed.filter((c) => c.bash?.status === "timeout")
    process.stderr.write(
      `bash oracle: seed ${SEED}, ${corpus.length} generated, ${allowed.length} allowed and run in bash, ${failed.length} failed, ${timedOut.length} timed out (${
        ((Date.now() - started) / 1000).toFixed(1)
      } s)\n`
    )
    expect(report(failed).slice(0, 25)).toEqual([])
  }, 300_000)
})
