/**
 * The parser loads inside an esbuild CJS bundle run from a package directory (how the CLI ships:
 * dist/toolgate.cjs beside node_modules), whatever the working directory.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const repo = path.resolve(__dirname, "../../..")
const pkg = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bundle-")))

describe("the analyzer in a CJS bundle", () => {
  afterAll(() => fs.rmSync(pkg, { recursive: true, force: true }))

  it("loads the grammar from node_modules beside the bundle", async () => {
    const entry = path.join(pkg, "entry.ts")
    fs.writeFileSync(
      entry,
      [
        `import { Effect } from "effect"`,
        `import { ShellAnalyzer, layer } from ${JSON.stringify(path.join(repo, "src/services/ShellAnalyzer.ts"))}`,
        `const program = Effect.gen(function* () {`,
        `  const shell = yield* ShellAnalyzer`,
        `  const a = yield* shell.analyze("git status && r\\\\m -rf x")`,
        `  console.log(JSON.stringify({ kind: a.kind, argv: a.kind === "simple" ? a.commands.map((c) => c.argv) : [], readOnly: shell.isReadOnly("ls -la") }))`,
        `})`,
        `Effect.runPromise(Effect.provide(program, layer))`
      ].join("\n")
    )
    fs.mkdirSync(path.join(pkg, "dist"))
    fs.symlinkSync(path.join(repo, "node_modules"), path.join(pkg, "node_modules"), "dir")
    const outfile = path.join(pkg, "dist", "toolgate.cjs")
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      outfile,
      logLevel: "silent",
      nodePaths: [path.join(repo, "node_modules")]
    })
    const result = spawnSync(process.execPath, [outfile], { cwd: os.tmpdir(), encoding: "utf8", timeout: 30_000 })
    expect(result.stderr).toBe("")
    expect(JSON.parse(result.stdout)).toEqual({
      kind: "simple",
      argv: [["git", "status"], ["rm", "-rf", "x"]],
      readOnly: true
    })
  }, 60_000)
})
