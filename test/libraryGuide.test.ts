/**
 * Every `ts` block of docs/library.md type-checks against the package's sources, as a module of its
 * own that imports `toolgate` and `toolgate/promise` as a user would (resolved to src/ here).
 */
import { describe, expect, it } from "vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const ROOT = path.resolve(__dirname, "..")
const GUIDE = path.join(ROOT, "docs", "library.md")
const CHECKER = path.join(__dirname, "support", "typecheckBlocks.mjs")

interface Block {
  readonly name: string
  readonly code: string
}

/** The guide's `ts` blocks, each named after the line it starts on. */
const blocksOf = (markdown: string): ReadonlyArray<Block> =>
  [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => ({
    name: `library.md-line-${markdown.slice(0, m.index).split("\n").length + 1}`,
    code: m[1]!
  }))

const typeErrors = (blocks: ReadonlyArray<Block>): Promise<ReadonlyArray<string>> =>
  new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CHECKER],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error === null
          ? resolve(JSON.parse(stdout) as ReadonlyArray<string>)
          : reject(new Error(`${error.message}\n${stderr}`))
    )
    child.stdin?.end(JSON.stringify(blocks))
  })

describe("docs/library.md", () => {
  const blocks = blocksOf(fs.readFileSync(GUIDE, "utf8"))

  it("has a code block for each part of the guide", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5)
  })

  it("type-checks every ts block, and names the block and line of an error", { timeout: 240_000 }, async () => {
    const broken: Block = {
      name: "broken",
      code: `import { Runtime } from "toolgate"\nexport const x: number = Runtime.layer\n`
    }
    const errors = await typeErrors([...blocks, broken])
    expect(errors.filter((e) => !e.startsWith("broken:"))).toEqual([])
    expect(errors.filter((e) => e.startsWith("broken:2: "))).toHaveLength(1)
  })
})
