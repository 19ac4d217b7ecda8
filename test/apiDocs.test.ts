/**
 * Every name the package exports is documented as Effect's packages document theirs: a JSDoc with
 * `@since` and `@category` (docgen checks `@since` and the examples; the category is checked here).
 * The modules are the ones the entry points re-export as namespaces, and the Promise face.
 */
import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const ROOT = path.resolve(__dirname, "..")
const ENTRY = path.join(ROOT, "src", "index.ts")
const PROMISE = path.join(ROOT, "src", "promise", "index.ts")

const parse = (file: string): ts.SourceFile =>
  ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)

/** The modules `src/index.ts` re-exports with `export * as Name from "./x.js"`. */
const namespaceModules = (): ReadonlyArray<string> =>
  parse(ENTRY).statements.flatMap((s) =>
    ts.isExportDeclaration(s) && s.exportClause !== undefined && ts.isNamespaceExport(s.exportClause) &&
      s.moduleSpecifier !== undefined
      ? [path.resolve(path.dirname(ENTRY), (s.moduleSpecifier as ts.StringLiteral).text.replace(/\.js$/, ".ts"))]
      : []
  )

const lastJsDoc = (source: ts.SourceFile, node: ts.Node): string | undefined => {
  const text = source.getFullText()
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []
  const last = ranges[ranges.length - 1]
  const comment = last === undefined ? undefined : text.slice(last.pos, last.end)
  return comment?.startsWith("/**") === true ? comment : undefined
}

const isExported = (s: ts.Statement): boolean =>
  ts.canHaveModifiers(s) && (ts.getModifiers(s) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

const nameOf = (s: ts.Statement): string =>
  ts.isVariableStatement(s)
    ? s.declarationList.declarations.map((d) => d.name.getText()).join(", ")
    : ((s as ts.DeclarationStatement).name?.getText() ?? "?")

/** Each exported name of a module with its JSDoc (re-exported names carry theirs inside the braces). */
const exportsOf = (file: string): ReadonlyArray<{ readonly name: string; readonly doc: string | undefined }> => {
  const source = parse(file)
  return source.statements.flatMap((s) => {
    if (ts.isExportDeclaration(s)) {
      if (s.exportClause !== undefined && ts.isNamedExports(s.exportClause)) {
        return s.exportClause.elements.map((e) => ({ name: e.name.text, doc: lastJsDoc(source, e) }))
      }
      return [{ name: s.getText(), doc: lastJsDoc(source, s) }]
    }
    return isExported(s) ? [{ name: nameOf(s), doc: lastJsDoc(source, s) }] : []
  })
}

describe("the API docs", () => {
  const modules = [ENTRY, ...namespaceModules(), PROMISE]

  it("cover every namespace of the entry point", () => {
    expect(modules.length).toBeGreaterThan(20)
    for (const file of modules) expect(fs.existsSync(file), file).toBe(true)
  })

  it("give every exported name @since and @category", () => {
    const undocumented = modules.flatMap((file) =>
      exportsOf(file)
        .filter(({ doc }) => doc === undefined || !/@since \d+\.\d+\.\d+/.test(doc) || !/@category \S/.test(doc))
        .map(({ name }) => `${path.relative(ROOT, file)}: ${name}`)
    )
    expect(undocumented).toEqual([])
  })
})
