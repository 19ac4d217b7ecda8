/**
 * Imports point one way: internal <- contract <- services (stages) <- tools <- layers <- cli <-
 * promise (the Promise face, which prints Claude Code's stream-json messages as the CLI does), and
 * the public barrel (src/index.ts) sits above the library (never the CLI nor the Promise face).
 * Type-only and dynamic imports count too.
 *
 * One door per stage: what a stage offers is `src/services/X.ts`; only that file and the files of
 * `src/services/X/` import from inside `src/services/X/`. The rule is for src/: tests and benches
 * may import a stage's internals (a unit test of one part of a stage is legitimate).
 */
import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import ts from "typescript"

const SRC = path.resolve(__dirname, "..", "src")

const LEVELS = ["internal", "contract", "services", "tools", "layers", "cli", "promise", "index"] as const
type Level = (typeof LEVELS)[number]

const levelOf = (root: string, file: string): Level => {
  const rel = path.relative(root, file).split(path.sep)
  if (rel.length === 1) return rel[0] === "index.ts" ? "index" : "contract"
  const top = rel[0]!
  if (
    top === "internal" || top === "services" || top === "tools" || top === "layers" || top === "cli" ||
    top === "promise"
  ) return top
  throw new Error(`${file} is in a folder the layering does not know: src/${top}/`)
}

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith(".ts") ? [full] : []
  })

const importsOf = (file: string): ReadonlyArray<string> =>
  ts
    .preProcessFile(fs.readFileSync(file, "utf8"), true, true)
    .importedFiles.map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts"))

const layeringViolations = (root: string, files: ReadonlyArray<string>): ReadonlyArray<string> =>
  files.flatMap((file) =>
    importsOf(file)
      .filter((target) => {
        const from = levelOf(root, file)
        const to = levelOf(root, target)
        if (from === "index") return to === "cli" || to === "promise"
        return LEVELS.indexOf(to) > LEVELS.indexOf(from)
      })
      .map((target) => `${path.relative(root, file)} -> ${path.relative(root, target)}`)
  )

/** The stage whose private folder holds `file` (`services/<stage>/…`), if any. */
const stageFolderOf = (root: string, file: string): string | undefined => {
  const rel = path.relative(path.join(root, "services"), file).split(path.sep)
  return rel.length > 1 && rel[0] !== ".." ? rel[0] : undefined
}

const reachIns = (root: string, files: ReadonlyArray<string>): ReadonlyArray<string> =>
  files.flatMap((file) =>
    importsOf(file)
      .filter((target) => {
        const stage = stageFolderOf(root, target)
        return stage !== undefined && file !== path.join(root, "services", `${stage}.ts`) &&
          stageFolderOf(root, file) !== stage
      })
      .map((target) => `${path.relative(root, file)} -> ${path.relative(root, target)}`)
  )

/** A miniature tree with the same shape as src/, to check a rule on known cases. */
const withTree = (body: (at: (rel: string, text: string) => string, dir: string) => void): void => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-layering-"))
  try {
    body((rel, text) => {
      const full = path.join(dir, rel)
      fs.mkdirSync(path.dirname(full), { recursive: true })
      fs.writeFileSync(full, text)
      return full
    }, dir)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe("import directions", () => {
  it("no module imports from a layer above its own", () => {
    expect(layeringViolations(SRC, sourceFiles(SRC))).toEqual([])
  })

  it("the check catches a stage importing a tool and the contract importing a stage", () => {
    withTree((at, dir) => {
      const files = [
        at("services/Stage.ts", "import type { X } from \"../tools/Thing.js\"\n"),
        at("Tool.ts", "export { y } from \"./services/Stage.js\"\n"),
        at("tools/Thing.ts", "import { s } from \"../services/Stage.js\"\n")
      ]
      expect(layeringViolations(dir, files)).toEqual([
        "services/Stage.ts -> tools/Thing.ts",
        "Tool.ts -> services/Stage.ts"
      ])
    })
  })
})

describe("one door per stage", () => {
  it("no src/ module imports from inside another stage's folder", () => {
    expect(reachIns(SRC, sourceFiles(SRC))).toEqual([])
  })

  it("the check catches reach-ins from other stages, tools, layers and the CLI, and lets a stage use its own folder", () => {
    withTree((at, dir) => {
      const files = [
        at("services/Stage.ts", "export { part } from \"./Stage/part.js\"\nimport type { O } from \"./Other.js\"\n"),
        at(
          "services/Stage/part.ts",
          "import { deep } from \"./deep/deeper.js\"\nimport { Stage } from \"../Stage.js\"\n"
        ),
        at("services/Stage/deep/deeper.ts", "import type { P } from \"../part.js\"\n"),
        at("services/Other.ts", "import { part } from \"./Stage/part.js\"\n"),
        at(
          "services/Other/inner.ts",
          "import type { D } from \"../Stage/deep/deeper.js\"\nimport { Stage } from \"../Stage.js\"\n"
        ),
        at("tools/Thing.ts", "const m = await import(\"../services/Stage/part.js\")\n"),
        at("layers/Preset.ts", "import { Stage } from \"../services/Stage.js\"\n"),
        at("cli/command.ts", "export type { P } from \"../services/Stage/part.js\"\n")
      ]
      expect(reachIns(dir, files)).toEqual([
        "services/Other.ts -> services/Stage/part.ts",
        "services/Other/inner.ts -> services/Stage/deep/deeper.ts",
        "tools/Thing.ts -> services/Stage/part.ts",
        "cli/command.ts -> services/Stage/part.ts"
      ])
    })
  })
})
