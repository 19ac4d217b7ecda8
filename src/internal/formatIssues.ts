/**
 * The validation text the model reads when a tool's input does not match its schema, as Claude
 * Code writes it. Claude Code validates with zod 4, so a Schema parse failure is first turned
 * into zod's issue objects (same codes, fields, field order and messages), then written by
 * Claude Code's rules:
 * - when no issue is about a missing, unexpected or mistyped parameter, the model gets zod's own
 *   issue list (pretty-printed JSON), unless that list is long or names odd keys;
 * - otherwise sentences: missing parameters, then unexpected ones, then type mismatches (at most
 *   20, then a count), then the other issues ("The parameter `x` is invalid: …", at most 20).
 * Paths are written `a.b[0].c`, with odd characters escaped and long paths shortened.
 */
import type { ParseResult } from "effect"
import { SchemaAST } from "effect"

type Path = ReadonlyArray<PropertyKey>

/** One zod 4 issue: `code`, `path` and `message` plus the fields of its code, in zod's order. */
export type ValidationIssue = Readonly<Record<string, unknown>> & {
  readonly code: string
  readonly path: Path
  readonly message: string
}

/**
 * A refinement's zod issue: put on a Schema filter (`annotations({ [ZodIssue]: … })`) so that a
 * failure is reported as zod reports the matching check. Returns the issue without its path.
 */
export const ZodIssue = Symbol.for("toolgate/ZodIssue")
export type ZodIssueBuilder = (
  actual: unknown
) => Record<string, unknown> & { readonly code: string; readonly message: string }

const quote = (value: unknown) => JSON.stringify(value)

export const zodIssue = {
  invalidType: (expected: string, received: string, extra: Record<string, unknown> = {}) => ({
    expected,
    code: "invalid_type",
    ...extra,
    message: `Invalid input: expected ${expected}, received ${received}`
  }),
  invalidValue: (values: ReadonlyArray<unknown>) => ({
    code: "invalid_value",
    values,
    message: values.length === 1
      ? `Invalid input: expected ${quote(values[0])}`
      : `Invalid option: expected one of ${values.map(quote).join("|")}`
  }),
  tooSmall: (origin: "number" | "string" | "array", minimum: number, inclusive: boolean) => ({
    origin,
    code: "too_small",
    minimum,
    inclusive,
    message: `Too small: expected ${origin} to ${sizePhrase(origin, inclusive ? ">=" : ">", minimum)}`
  }),
  /** Past the safe integers (zod's `int()` bound). */
  unsafeInteger: () => ({
    code: "too_big",
    maximum: Number.MAX_SAFE_INTEGER,
    note: "Integers must be within the safe integer range.",
    origin: "int",
    inclusive: true,
    message: `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`
  }),
  invalidFormat: (format: string, message: string) => ({ code: "invalid_format", format, message }),
  custom: (message: string) => ({ code: "custom", message })
}

const sizePhrase = (origin: string, op: string, n: number) =>
  origin === "number" ? `be ${op}${n}` : origin === "string" ? `have ${op}${n} characters` : `have ${op}${n} items`

/** zod's name for what was received. */
export const receivedName = (actual: unknown): string => {
  if (actual === undefined) return "undefined"
  if (actual === null) return "null"
  if (Array.isArray(actual)) return "array"
  if (typeof actual === "number") return Number.isNaN(actual) ? "NaN" : Number.isFinite(actual) ? "number" : "Infinity"
  return typeof actual
}

// ---------------------------------------------------------------------------------------------
// Schema parse issues → zod issues
// ---------------------------------------------------------------------------------------------

/** The zod issues of a Schema parse failure, in the order zod reports them. */
export const zodIssues = (issue: ParseResult.ParseIssue): ReadonlyArray<ValidationIssue> => {
  const out: Array<ValidationIssue> = []
  const unexpected = new Map<string, { path: Path; keys: Array<PropertyKey> }>()
  collect(issue, [], out, unexpected)
  // zod reports an object's unknown keys in one issue, after the issues of its properties
  for (const { path, keys } of unexpected.values()) {
    out.push({
      code: "unrecognized_keys",
      keys,
      path,
      message: keys.length === 1
        ? `Unrecognized key: ${quote(String(keys[0]))}`
        : `Unrecognized keys: ${keys.map((k) => quote(String(k))).join(", ")}`
    })
  }
  return out
}

const withPath = (issue: Record<string, unknown> & { code: string; message: string }, path: Path): ValidationIssue => {
  const { message, ...rest } = issue
  return { ...rest, path, message } as ValidationIssue
}

const collect = (
  issue: ParseResult.ParseIssue,
  path: Path,
  out: Array<ValidationIssue>,
  unexpected: Map<string, { path: Path; keys: Array<PropertyKey> }>
): void => {
  switch (issue._tag) {
    case "Pointer":
      return collect(
        issue.issue,
        [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])],
        out,
        unexpected
      )
    case "Composite": {
      if (SchemaAST.isUnion(issue.ast)) return unionIssue(issue, path, out, unexpected)
      for (const inner of toArray(issue.issues)) collect(inner, path, out, unexpected)
      return
    }
    case "Missing": {
      // `ast` is the property signature's type holder
      const literals = literalsOf(issue.ast.type)
      out.push(
        withPath(
          literals !== undefined
            ? zodIssue.invalidValue(literals)
            : zodIssue.invalidType(typeName(issue.ast.type), "undefined"),
          path
        )
      )
      return
    }
    case "Unexpected": {
      const parent = path.slice(0, -1)
      const key = JSON.stringify(parent.map(String))
      const entry = unexpected.get(key) ?? { path: parent, keys: [] }
      entry.keys.push(path[path.length - 1]!)
      unexpected.set(key, entry)
      return
    }
    case "Type": {
      const literals = literalsOf(issue.ast)
      out.push(
        withPath(
          literals !== undefined
            ? zodIssue.invalidValue(literals)
            : zodIssue.invalidType(typeName(issue.ast), receivedName(issue.actual)),
          path
        )
      )
      return
    }
    case "Refinement":
      if (issue.kind === "From") return collect(issue.issue, path, out, unexpected)
      out.push(withPath(refinementIssue(issue), path))
      return
    case "Transformation":
      return collect(issue.issue, path, out, unexpected)
    case "Forbidden":
      out.push(withPath(zodIssue.custom(issue.message ?? "Invalid input"), path))
      return
  }
}

const unionIssue = (
  issue: ParseResult.Composite,
  path: Path,
  out: Array<ValidationIssue>,
  unexpected: Map<string, { path: Path; keys: Array<PropertyKey> }>
) => {
  const literals = literalsOf(issue.ast)
  if (literals !== undefined) {
    out.push(withPath(zodIssue.invalidValue(literals), path))
    return
  }
  // `optional` fields add an `undefined` member; it never explains a failure of a present value
  const members = toArray(issue.issues).filter((i) => !(i._tag === "Type" && i.ast._tag === "UndefinedKeyword"))
  if (members.length === 1) return collect(members[0]!, path, out, unexpected)
  out.push({ code: "invalid_union", errors: [], path, message: "Invalid input" })
}

const refinementIssue = (issue: ParseResult.Refinement) => {
  const builder = issue.ast.annotations[ZodIssue] as ZodIssueBuilder | undefined
  if (builder !== undefined) return builder(issue.actual)
  const annotated = SchemaAST.getMessageAnnotation(issue.ast)
  if (annotated._tag === "Some") {
    const m = annotated.value(issue)
    if (typeof m === "string") return zodIssue.custom(m)
  }
  const description = SchemaAST.getDescriptionAnnotation(issue.ast)
  return zodIssue.custom(description._tag === "Some" ? `Expected ${description.value}` : "Invalid input")
}

/** The values of a literal or a union of literals (zod's enum), else undefined. */
const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<unknown> | undefined => {
  if (SchemaAST.isLiteral(ast)) return [ast.literal]
  if (SchemaAST.isUnion(ast)) {
    const members = ast.types.filter((t) => t._tag !== "UndefinedKeyword")
    if (members.length > 0 && members.every(SchemaAST.isLiteral)) {
      return members.map((m) => (m as SchemaAST.Literal).literal)
    }
  }
  return undefined
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
    case "Refinement":
      return typeName(ast.from)
    case "Transformation":
      return typeName(ast.to)
    case "Union": {
      const members = ast.types.filter((t) => t._tag !== "UndefinedKeyword")
      return members.length === 1 ? typeName(members[0]!) : Array.from(new Set(members.map(typeName))).join(" | ")
    }
    case "Suspend":
      return typeName(ast.f())
    default:
      return "unknown"
  }
}

const toArray = <A>(x: A | ReadonlyArray<A>): ReadonlyArray<A> => (Array.isArray(x) ? x : [x as A])

// ---------------------------------------------------------------------------------------------
// zod issues → the text the model reads
// ---------------------------------------------------------------------------------------------

const MAX_LISTED_PARAMETERS = 20
const MAX_LISTED_ISSUES = 20
const MAX_ISSUE_MESSAGE = 500
const MAX_RAW_LIST = 4000
const MAX_PATH = 64
const PATH_TAIL = 24

/** How an issue is written: a missing parameter, an unexpected one, a mistyped one, or another. */
const isMissing = (i: ValidationIssue) => i.code === "invalid_type" && i.message.includes("received undefined")
const isOther = (i: ValidationIssue) => i.code !== "invalid_type" && i.code !== "unrecognized_keys"

/**
 * zod's issue list as it prints it (pretty JSON), which Claude Code sends as it is when no issue
 * is about a missing, unexpected or mistyped parameter, the list is short and every key in it
 * prints as itself; else undefined (the sentences are sent).
 */
export const rawIssueList = (issues: ReadonlyArray<ValidationIssue>): string | undefined => {
  if (issues.length === 0 || !issues.every(isOther) || !issues.every(namesArePlain)) return undefined
  const raw = JSON.stringify(issues, null, 2)
  return raw.length <= MAX_RAW_LIST ? raw : undefined
}

/** The text after "InputValidationError: ": the raw list, or `<tool> failed due to the following issue(s):` and the sentences. */
export const validationText = (toolName: string, issues: ReadonlyArray<ValidationIssue>): string => {
  const raw = rawIssueList(issues)
  if (raw !== undefined) return raw
  const lines = sentences(issues)
  return `${toolName} failed due to the following ${lines.length > 1 ? "issues" : "issue"}:\n${lines.join("\n")}`
}

/** The sentence lines for a set of issues (also used where a list of lines is wanted). */
export const sentences = (issues: ReadonlyArray<ValidationIssue>): ReadonlyArray<string> => {
  const missing = issues.filter(isMissing).map((i) => i.path)
  const unexpected = issues.filter((i) => i.code === "unrecognized_keys").flatMap((i) =>
    (i.keys as ReadonlyArray<PropertyKey>).map((k) => [...i.path, k])
  )
  const mistyped = issues.filter((i) => i.code === "invalid_type" && !isMissing(i))
  const others = issues.filter(isOther)
  const counted = missing.length + unexpected.length + mistyped.length
  const room = counted === MAX_LISTED_PARAMETERS + 1 ? counted : MAX_LISTED_PARAMETERS
  const shownMissing = missing.slice(0, room)
  const shownMistyped = mistyped.slice(0, room - shownMissing.length)
  const shownUnexpected = unexpected.slice(0, room - shownMissing.length - shownMistyped.length)
  const lines = [
    ...shownMissing.map((p) => `The required parameter \`${displayPath(p)}\` is missing`),
    ...shownUnexpected.map((p) => `An unexpected parameter \`${displayPath(p)}\` was provided`),
    ...shownMistyped.map((i) => {
      const received = /received (\w+)/.exec(i.message)?.[1] ?? "unknown"
      return `The parameter \`${displayPath(i.path)}\` type is expected as \`${
        String(i.expected)
      }\` but provided as \`${received}\``
    })
  ]
  const unlisted = counted - lines.length
  if (unlisted > 0) lines.push(`(${unlisted} more ${unlisted === 1 ? "parameter" : "parameters"} not listed)`)
  for (const issue of others.slice(0, MAX_LISTED_ISSUES)) {
    const shown = displayPath(issue.path)
    const subject = shown === "" ? "The input" : `The parameter \`${shown}\``
    const detail = capText(issue.message.replace(/^Invalid input(?:: |$)/, ""), MAX_ISSUE_MESSAGE)
    lines.push(
      detail !== ""
        ? `${subject} is invalid: ${detail}`
        : issue.code === "invalid_union"
        ? `${subject} matches none of the accepted forms`
        : `${subject} is invalid`
    )
  }
  const more = others.length - MAX_LISTED_ISSUES
  if (more > 0) lines.push(`(${more} more ${more === 1 ? "issue" : "issues"} not listed)`)
  return lines
}

const capText = (
  text: string,
  max: number
) => (text.length <= max ? text : `${text.slice(0, max)}\u2026 [+${text.length - max} chars]`)

/** True when every key named in the issues (paths, unknown keys) prints as itself. */
const namesArePlain = (issue: ValidationIssue): boolean =>
  [...issue.path, ...((issue.keys as ReadonlyArray<PropertyKey> | undefined) ?? [])].every((k) =>
    typeof k !== "string" || displayName(k) === k
  )

const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2065\u3164\uFE00-\uFE0F\uFFA0\uFFF0-\uFFF8\u{E0000}-\u{E0FFF}]/u

const escapeChar = (ch: string, edge: boolean): string => {
  if (edge || INVISIBLE.test(ch)) return `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`
  return ch === "`" ? "'" : ch === "<" ? "\u2039" : ch === ">" ? "\u203A" : ch
}

/** A key or path as the model is shown it: odd characters escaped, a long one cut in the middle. */
export const displayName = (name: string): string => {
  const leading = name.length - name.trimStart().length
  const trailingFrom = name.trimEnd().length
  let shown = ""
  let head = ""
  let headEnd = 0
  let at = 0
  for (const ch of name) {
    shown += escapeChar(ch, at < leading || at >= trailingFrom)
    at += ch.length
    if (shown.length <= MAX_PATH - PATH_TAIL) {
      head = shown
      headEnd = at
    }
    if (shown.length > MAX_PATH) break
  }
  if (shown.length <= MAX_PATH) return shown
  let tail = ""
  let tailStart = name.length
  for (const ch of Array.from(name.slice(-PATH_TAIL)).reverse()) {
    const start = tailStart - ch.length
    const next = escapeChar(ch, start < leading || start >= trailingFrom) + tail
    if (next.length > PATH_TAIL) break
    tail = next
    tailStart = start
  }
  const cut = tailStart - headEnd
  return `${head}\u2026 [+${cut} ${cut === 1 ? "char" : "chars"}] \u2026${tail}`
}

export const formatPath = (path: Path): string =>
  path.reduce<string>(
    (acc, key, i) => (typeof key === "number" ? `${acc}[${key}]` : i === 0 ? String(key) : `${acc}.${String(key)}`),
    ""
  )

const displayPath = (path: Path): string => (path.length === 0 ? "" : displayName(formatPath(path)))

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
      return issue.kind === "From"
        ? formatDocumentIssue(issue.issue, path, expected ?? expectedOf(issue.ast))
        : documentMismatch(issue.ast, issue.actual, path, expected)
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
  const title = SchemaAST.isTypeLiteral(ast) || SchemaAST.isTupleType(ast) || SchemaAST.isRefinement(ast)
    ? SchemaAST.getTitleAnnotation(ast)
    : undefined
  if (title?._tag === "Some") return title.value
  if (ast._tag === "Refinement") return expectedOf(ast.from)
  if (SchemaAST.isLiteral(ast)) return JSON.stringify(ast.literal)
  const name = typeName(ast)
  return name === "object" || name === "array" ? `an ${name}` : `a ${name}`
}

const kindOfValue = (u: unknown): string =>
  u === null
    ? "null"
    : Array.isArray(u)
    ? "an array"
    : typeof u === "object"
    ? "an object"
    : typeof u === "string" && u.trim() === ""
    ? "an empty string"
    : `a ${typeof u}`
