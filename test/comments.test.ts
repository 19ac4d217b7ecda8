/**
 * A comment in src/ states its fact itself, or points at a file in this repository. It never
 * sends the reader to a document the repository does not hold (a spec, a security note, a design
 * note, an issue tracker): a newcomer could not follow the pointer.
 */
import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const ROOT = path.resolve(__dirname, "..")
const SRC = path.join(ROOT, "src")

/** Pointers at documents that are not in the repository, with what each one is. */
const OUTSIDE_POINTERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/claude-code-spec/i, "the Claude Code spec"],
  [/shell-security/i, "the shell security note"],
  [/peers-(?:sdk|cli)/i, "a study of other projects"],
  [/effect-style/i, "the Effect style study"],
  [/\bDESIGN\b/, "the design note"],
  [/\bseeds\//i, "the seed documents"],
  [/\breference\//i, "the reference folder"],
  [/\.\.\/shared\b/i, "a folder beside the repository"],
  [/§/, "a section of an outside document"],
  [/\bthe spec\b|\bspec's\b|\bspec\s+§/i, "the spec"],
  [/\boracle\b/i, "notes taken with the oracle"],
  [/\bissues?\s*#?\d+/i, "an issue number"],
  [/(?:^|[\s(])#\d+\b/, "an issue number"]
]

/** Files a comment may name: repository paths that end in .md must exist. */
const MD_PATH = /\b((?:docs|conformance|examples|test|bench|scripts|src)\/[\w./-]*\.md|[A-Z][A-Z_]+\.md)\b/g
const NAMED_ELSEWHERE = new Set(["SKILL.md", "CLAUDE.md", "AGENTS.md"])

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith(".ts") ? [full] : []
  })

interface CommentLine {
  readonly where: string
  readonly text: string
}

/** Every comment of a file, line by line, found by the TypeScript parser (not a regex over code). */
const commentLines = (file: string, text: string): ReadonlyArray<CommentLine> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const ranges = new Map<number, ts.CommentRange>()
  const visit = (node: ts.Node): void => {
    for (const r of ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []) ranges.set(r.pos, r)
    for (const r of ts.getTrailingCommentRanges(text, node.getEnd()) ?? []) ranges.set(r.pos, r)
    for (const child of node.getChildren(source)) visit(child)
  }
  visit(source)
  return [...ranges.values()].flatMap((r) => {
    const firstLine = text.slice(0, r.pos).split("\n").length
    return text
      .slice(r.pos, r.end)
      .split("\n")
      .map((line, i) => ({ where: `${path.relative(ROOT, file)}:${firstLine + i}`, text: line.trim() }))
  })
}

const outsidePointers = (lines: ReadonlyArray<CommentLine>): ReadonlyArray<string> =>
  lines.flatMap((line) =>
    OUTSIDE_POINTERS.filter(([pattern]) => pattern.test(line.text)).map(([, what]) =>
      `${line.where} names ${what}: ${line.text}`
    )
  )

const missingFiles = (lines: ReadonlyArray<CommentLine>): ReadonlyArray<string> =>
  lines.flatMap((line) =>
    [...line.text.matchAll(MD_PATH)]
      .map((m) => m[1]!)
      .filter((name) => !NAMED_ELSEWHERE.has(name) && !fs.existsSync(path.join(ROOT, name)))
      .map((name) => `${line.where} names ${name}, which is not in the repository`)
  )

describe("comments in src/", () => {
  const lines = sourceFiles(SRC).flatMap((file) => commentLines(file, fs.readFileSync(file, "utf8")))

  it("point at no document outside the repository", () => {
    expect(outsidePointers(lines)).toEqual([])
  })

  it("name only Markdown files the repository holds", () => {
    expect(missingFiles(lines)).toEqual([])
  })

  it("are told apart from code: a pattern in a string or a regex is not a comment", () => {
    const sample = [
      "const a = \"see claude-code-spec §1\" // fine so far",
      "const b = /issue #12/",
      "const c = `${a} // not a comment`",
      "/** Reads DESIGN.md (issue 22). */",
      "export const d = 1"
    ].join("\n")
    const found = outsidePointers(commentLines(path.join(SRC, "sample.ts"), sample))
    expect(found.map((f) => f.split(" names ")[1]!.split(":")[0])).toEqual(["the design note", "an issue number"])
  })
})
