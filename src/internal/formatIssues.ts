/**
 * Turns a Schema parse failure into Claude Code's validation lines (claude-code-spec §4.3):
 * missing, unexpected and wrong-type parameters get the zod-derived sentences; anything else
 * keeps a plain message. Nested paths are written `a.b[0].c`.
 */
import { ParseResult, SchemaAST } from "effect"

type Path = ReadonlyArray<PropertyKey>

export const formatIssues = (issue: ParseResult.ParseIssue): ReadonlyArray<string> => {
  const lines = collect(issue, [])
  return lines.length === 0 ? ["Invalid input"] : Array.from(new Set(lines))
}

const collect = (issue: ParseResult.ParseIssue, path: Path): ReadonlyArray<string> => {
  switch (issue._tag) {
    case "Pointer":
      return collect(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Composite":
      return SchemaAST.isUnion(issue.ast) ? unionIssue(issue, path) : toArray(issue.issues).flatMap((i) => collect(i, path))
    case "Missing":
      return [`The required parameter \`${formatPath(path)}\` is missing`]
    case "Unexpected":
      return [`An unexpected parameter \`${formatPath(path)}\` was provided`]
    case "Type":
      return [typeMismatch(issue.ast, issue.actual, path, issue.message)]
    case "Refinement":
      return issue.kind === "From" ? collect(issue.issue, path) : [withPath(path, refinementMessage(issue))]
    case "Transformation":
      return collect(issue.issue, path)
    case "Forbidden":
      return [withPath(path, issue.message ?? "is not allowed")]
  }
}

const unionIssue = (issue: ParseResult.Composite, path: Path): ReadonlyArray<string> => {
  // `optional` fields add an `undefined` member; it never explains a failure of a present value.
  const members = toArray(issue.issues).filter(
    (i) => !(i._tag === "Type" && i.ast._tag === "UndefinedKeyword")
  )
  if (members.length === 1) return collect(members[0]!, path)
  const leaves = members.map(leafType)
  if (leaves.every((l): l is SchemaAST.AST => l !== undefined)) {
    if (leaves.every(SchemaAST.isLiteral)) {
      const expected = leaves.map((l) => `'${String(l.literal)}'`).join(" | ")
      return [withPath(path, `Invalid enum value. Expected ${expected}, received '${String(issue.actual)}'`)]
    }
    const expected = Array.from(new Set(leaves.map(typeName))).join(" | ")
    return [mismatch(expected, issue.actual, path)]
  }
  return members.flatMap((m) => collect(m, path))
}

const leafType = (issue: ParseResult.ParseIssue): SchemaAST.AST | undefined => {
  if (issue._tag === "Type") return issue.ast
  if (issue._tag === "Transformation" || (issue._tag === "Refinement" && issue.kind === "From")) return leafType(issue.issue)
  if (issue._tag === "Composite" && SchemaAST.isUnion(issue.ast)) {
    const inner = toArray(issue.issues).map(leafType)
    return inner.every((l) => l !== undefined && SchemaAST.isLiteral(l)) ? inner[0] : undefined
  }
  return undefined
}

const typeMismatch = (ast: SchemaAST.AST, actual: unknown, path: Path, message: string | undefined): string => {
  if (SchemaAST.isLiteral(ast)) {
    return withPath(path, `Invalid literal value, expected ${JSON.stringify(ast.literal)}`)
  }
  if (message !== undefined && !SchemaAST.isTypeLiteral(ast)) return withPath(path, message)
  return mismatch(typeName(ast), actual, path)
}

const mismatch = (expected: string, actual: unknown, path: Path): string =>
  path.length === 0
    ? `The input is expected as \`${expected}\` but provided as \`${receivedName(actual)}\``
    : `The parameter \`${formatPath(path)}\` type is expected as \`${expected}\` but provided as \`${receivedName(actual)}\``

const refinementMessage = (issue: ParseResult.Refinement): string => {
  const annotated = SchemaAST.getMessageAnnotation(issue.ast)
  if (annotated._tag === "Some") {
    const m = annotated.value(issue)
    if (typeof m === "string") return m
  }
  const description = SchemaAST.getDescriptionAnnotation(issue.ast)
  return description._tag === "Some" ? `Expected ${description.value}` : "Invalid value"
}

const typeName = (ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "string"
    case "NumberKeyword":
      return "number"
    case "BooleanKeyword":
      return "boolean"
    case "TypeLiteral":
      return "object"
    case "TupleType":
      return "array"
    case "Literal":
      return JSON.stringify(ast.literal)
    case "Refinement":
      return typeName(ast.from)
    case "Transformation":
      return typeName(ast.to)
    case "Union":
      return Array.from(new Set(ast.types.map(typeName))).join(" | ")
    case "Suspend":
      return typeName(ast.f())
    default:
      return "unknown"
  }
}

const receivedName = (actual: unknown): string => {
  if (actual === null) return "null"
  if (Array.isArray(actual)) return "array"
  return typeof actual
}

const withPath = (path: Path, message: string): string =>
  path.length === 0 ? message : `The parameter \`${formatPath(path)}\` is invalid: ${message}`

export const formatPath = (path: Path): string =>
  path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`),
    ""
  )

const toArray = <A>(x: A | ReadonlyArray<A>): ReadonlyArray<A> => (Array.isArray(x) ? x : [x as A])

/**
 * A configuration file's first problem, named by its path inside the document:
 * `field "args[1]" must be a string, got a number`, `field "url" is missing`. What a field must
 * be comes from the schema's `title` annotation (e.g. "a non-empty string"), else its type.
 */
export const formatDocumentIssue = (issue: ParseResult.ParseIssue, path: Path = [], expected?: string): string => {
  switch (issue._tag) {
    case "Pointer":
      return formatDocumentIssue(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Composite": {
      const first = toArray(issue.issues)[0]
      return first === undefined || SchemaAST.getTitleAnnotation(issue.ast)._tag === "Some" && first._tag !== "Pointer"
        ? documentMismatch(issue.ast, issue.actual, path, expected)
        : formatDocumentIssue(first, path)
    }
    case "Missing":
      return `${fieldLabel(path)} is missing`
    case "Refinement":
      // a wrong type under a refinement is described by the refinement ("a non-empty string")
      return issue.kind === "From" ? formatDocumentIssue(issue.issue, path, expected ?? expectedOf(issue.ast)) : documentMismatch(issue.ast, issue.actual, path, expected)
    case "Transformation":
      return formatDocumentIssue(issue.issue, path, expected)
    case "Type":
    case "Forbidden":
      return documentMismatch(issue.ast, issue.actual, path, expected)
    case "Unexpected":
      return `${fieldLabel(path)} is not expected here`
  }
}

const fieldLabel = (path: Path) => (path.length === 0 ? "the document" : `field "${formatPath(path)}"`)

const documentMismatch = (ast: SchemaAST.AST, actual: unknown, path: Path, expected?: string): string =>
  `${fieldLabel(path)} must be ${expected ?? expectedOf(ast)}, got ${kindOfValue(actual)}`

const expectedOf = (ast: SchemaAST.AST): string => {
  // keywords carry their type name as a title ("string"); only titles given by a schema count
  const title = SchemaAST.isTypeLiteral(ast) || SchemaAST.isTupleType(ast) || SchemaAST.isRefinement(ast) ? SchemaAST.getTitleAnnotation(ast) : undefined
  if (title?._tag === "Some") return title.value
  if (ast._tag === "Refinement") return expectedOf(ast.from)
  if (SchemaAST.isLiteral(ast)) return JSON.stringify(ast.literal)
  const name = typeName(ast)
  return name === "object" || name === "array" ? `an ${name}` : `a ${name}`
}

const kindOfValue = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : typeof u === "object" ? "an object" : typeof u === "string" && u.trim() === "" ? "an empty string" : `a ${typeof u}`
