/**
 * Imports point one way: internal <- contract <- services (stages) <- tools <- layers <- cli,
 * and the public barrel (src/index.ts) sits above the library (never the CLI). Type-only and
 * dynamic imports count too.
 */
import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import ts from "typescript"

const SRC = path.resolve(__dirname, "..", "src")

const LEVELS = ["internal", "contract", "services", "tools", "layers", "cli", "index"] as const
type Level = (typeof LEVELS)[number]

const levelOf = (root: string, file: string): Level => {
  const rel = path.relative(root, file).split(path.sep)
  if (rel.length === 1) return rel[0] === "index.ts" ? "index" : "contract"
  const top = rel[0]!
  if (top === "internal" || top === "services" || top === "tools" || top === "layers" || top === "cli") return top
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
        if (from === "index") return to === "cli"
        return LEVELS.indexOf(to) > LEVELS.indexOf(from)
      })
      .map((target) => `${path.relative(root, file)} -> ${path.relative(root, target)}`)
  )

describe("import directions", () => {
  it("no module imports from a layer above its own", () => {
    expect(layeringViolations(SRC, sourceFiles(SRC))).toEqual([])
  })

  it("the check catches a stage importing a tool and the contract importing a stage", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-layering-"))
    try {
      // A miniature tree with the same shape as src/, checked with the same rule.
      const at = (rel: string, text: string) => {
        const full = path.join(dir, rel)
        fs.mkdirSync(path.dirname(full), { recursive: true })
        fs.writeFileSync(full, text)
        return full
      }
      const files = [
        at("services/Stage.ts", 'import type { X } from "../tools/Thing.js"\n'),
        at("Tool.ts", 'export { y } from "./services/Stage.js"\n'),
        at("tools/Thing.ts", 'import { s } from "../services/Stage.js"\n')
      ]
      expect(layeringViolations(dir, files)).toEqual(["services/Stage.ts -> tools/Thing.ts", "Tool.ts -> services/Stage.ts"])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
