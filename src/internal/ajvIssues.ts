/**
 * ajv's errors as the lines a model reads for a tool input that does not fit a JSON Schema, worded
 * like the built-ins' (``The required parameter `a.b` is missing``, ``An unexpected parameter `x`
 * was provided``, ``The parameter `x` type is expected as `string` but provided as `number` ``).
 * The ajv instance must be created with `verbose: true` (the lines name the value received).
 */
import type { ErrorObject } from "ajv"
import { isRecord } from "./json.js"

type Segment = string | number

const pointerSegments = (pointer: string, input: unknown): Array<Segment> => {
  if (pointer === "") return []
  const out: Array<Segment> = []
  let current: unknown = input
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (Array.isArray(current) && /^\d+$/.test(key)) {
      out.push(Number(key))
      current = current[Number(key)]
    } else {
      out.push(key)
      current = isRecord(current) ? current[key] : undefined
    }
  }
  return out
}

const formatPath = (path: ReadonlyArray<Segment>): string =>
  path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? key : `${acc}.${key}`),
    ""
  )

const receivedName = (
  actual: unknown
): string => (actual === null ? "null" : Array.isArray(actual) ? "array" : typeof actual)

const withPath = (path: ReadonlyArray<Segment>, message: string): string =>
  path.length === 0 ? message : `The parameter \`${formatPath(path)}\` is invalid: ${message}`

const mismatch = (path: ReadonlyArray<Segment>, expected: string, actual: unknown): string =>
  path.length === 0
    ? `The input is expected as \`${expected}\` but provided as \`${receivedName(actual)}\``
    : `The parameter \`${formatPath(path)}\` type is expected as \`${expected}\` but provided as \`${
      receivedName(actual)
    }\``

const typeList = (t: unknown): string => (Array.isArray(t) ? t.join(" | ") : String(t))

const lineOf = (error: ErrorObject, input: unknown): string => {
  const path = pointerSegments(error.instancePath, input)
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case "required":
      return `The required parameter \`${formatPath([...path, String(params.missingProperty)])}\` is missing`
    case "additionalProperties":
    case "unevaluatedProperties":
      return `An unexpected parameter \`${
        formatPath([...path, String(params.additionalProperty ?? params.unevaluatedProperty)])
      }\` was provided`
    case "type":
      return mismatch(path, typeList(params.type), error.data)
    case "enum": {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : []
      return withPath(
        path,
        `Invalid enum value. Expected ${allowed.map((v) => `'${String(v)}'`).join(" | ")}, received '${
          String(error.data)
        }'`
      )
    }
    case "const":
      return withPath(path, `Invalid literal value, expected ${JSON.stringify(params.allowedValue)}`)
    default:
      return withPath(path, error.message ?? `failed "${error.keyword}"`)
  }
}

/** One line per problem. Errors inside a failed `anyOf`/`oneOf` collapse into one line for it. */
export const ajvIssues = (errors: ReadonlyArray<ErrorObject>, input: unknown): ReadonlyArray<string> => {
  const combinators = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
  const inside = (e: ErrorObject, c: ErrorObject) => e !== c && e.schemaPath.startsWith(`${c.schemaPath}/`)
  const lines: Array<string> = []
  for (const error of errors) {
    if (combinators.some((c) => inside(error, c))) continue
    if (error.keyword === "anyOf" || error.keyword === "oneOf") {
      const branches = errors.filter((e) => inside(e, error))
      const path = pointerSegments(error.instancePath, input)
      if (branches.length > 0 && branches.every((b) => b.keyword === "type" && b.instancePath === error.instancePath)) {
        lines.push(
          mismatch(
            path,
            Array.from(new Set(branches.map((b) => typeList((b.params as Record<string, unknown>).type)))).join(" | "),
            error.data
          )
        )
        continue
      }
      if (branches.length === 1) {
        lines.push(lineOf(branches[0]!, input))
        continue
      }
    }
    lines.push(lineOf(error, input))
  }
  const unique = Array.from(new Set(lines))
  return unique.length === 0 ? ["Invalid input"] : unique
}
