/**
 * A server tool's input schema: raw JSON Schema, compiled once with ajv (a schema ajv cannot
 * compile makes the tool unusable). `validate` checks an input and words failures like the
 * built-ins (claude-code-spec §4.3): ``The required parameter `a.b` is missing``, ``An unexpected
 * parameter `x` was provided``, ``The parameter `x` type is expected as `string` but provided as
 * `number` ``. Calls of server tools do not use it: as in Claude Code, the model's input goes to
 * the server unchecked and the server answers a bad input itself.
 *
 * The schema's `$schema` picks the dialect (2020-12, 2019-09, else draft-07, the common case of
 * zod-generated schemas). `format` is not checked (the server still checks it). A schema ajv
 * cannot compile is invalid, and the tool is skipped.
 */
import type { ErrorObject, ValidateFunction } from "ajv"
import type { McpSdk } from "./sdk.js"
import { isRecord } from "../../internal/json.js"

export type ValidationResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly issues: ReadonlyArray<string> }

export interface CompiledInputSchema {
  /** What the model is given: the schema as sent, with a root `anyOf`/`oneOf`/`allOf` flattened. */
  readonly apiSchema: Record<string, unknown>
  readonly validate: (input: unknown) => ValidationResult
}

type AjvLike = { compile: (schema: Record<string, unknown>) => ValidateFunction }

const instances = new Map<string, AjvLike>()

const AJV_OPTIONS = {
  strict: false,
  allErrors: true,
  verbose: true,
  validateFormats: false,
  // schemas of different tools may share an `$id`; never register them globally
  addUsedSchema: false,
  logger: false
} as const

const ajvFor = (sdk: McpSdk, dialect: string | undefined): AjvLike => {
  const key = dialect?.includes("2020-12") ? "2020" : dialect?.includes("2019-09") ? "2019" : "07"
  let ajv = instances.get(key)
  if (ajv === undefined) {
    ajv = key === "2020" ? new sdk.Ajv2020(AJV_OPTIONS) : key === "2019" ? new sdk.Ajv2019(AJV_OPTIONS) : new sdk.Ajv(AJV_OPTIONS)
    instances.set(key, ajv)
  }
  return ajv
}

/** Compiles a tool's input schema, or says why it is not usable. */
export const compileInputSchema = (sdk: McpSdk, schema: unknown): { readonly ok: true; readonly compiled: CompiledInputSchema } | { readonly ok: false; readonly reason: string } => {
  if (!isRecord(schema)) return { ok: false, reason: "inputSchema is not an object" }
  if (schema.type !== undefined && schema.type !== "object") {
    return { ok: false, reason: `inputSchema must describe an object (type "object"), got type ${JSON.stringify(schema.type)}` }
  }
  // the root `$id` only names the schema; dropping it avoids clashes and unparsable URIs
  const { $schema, $id: _id, ...body } = schema
  let validateFn: ValidateFunction
  try {
    validateFn = ajvFor(sdk, typeof $schema === "string" ? $schema : undefined).compile(body)
  } catch (e) {
    return { ok: false, reason: `inputSchema is not valid JSON Schema: ${(e as Error).message}` }
  }
  const validate = (input: unknown): ValidationResult => {
    if (validateFn(input)) return { ok: true, value: input as Record<string, unknown> }
    return { ok: false, issues: formatErrors(validateFn.errors ?? [], input) }
  }
  return { ok: true, compiled: { apiSchema: flattenRoot(schema), validate } }
}

/**
 * The API wants an object schema at the root; a root `anyOf`/`oneOf`/`allOf` is merged into one
 * object (as Claude Code does since 2.1.195): every branch's properties, the required fields of
 * every `allOf` branch and those common to all `anyOf`/`oneOf` branches.
 */
export const flattenRoot = (schema: Record<string, unknown>): Record<string, unknown> => {
  const combinators = (["anyOf", "oneOf", "allOf"] as const).filter((k) => Array.isArray(schema[k]))
  if (combinators.length === 0) return schema.type === undefined ? { type: "object", ...schema } : schema
  const { anyOf: _a, oneOf: _o, allOf: _l, ...rest } = schema
  const properties: Record<string, unknown> = { ...(isRecord(rest.properties) ? rest.properties : {}) }
  const required = new Set<string>(Array.isArray(rest.required) ? rest.required.filter((r): r is string => typeof r === "string") : [])
  for (const key of combinators) {
    const branches = (schema[key] as Array<unknown>).filter(isRecord)
    const requiredOf = (b: Record<string, unknown>) => (Array.isArray(b.required) ? b.required.filter((r): r is string => typeof r === "string") : [])
    for (const branch of branches) {
      if (isRecord(branch.properties)) for (const [name, prop] of Object.entries(branch.properties)) if (!(name in properties)) properties[name] = prop
    }
    if (key === "allOf") for (const branch of branches) for (const r of requiredOf(branch)) required.add(r)
    else if (branches.length > 0) {
      const [first, ...others] = branches.map(requiredOf)
      for (const r of first!) if (others.every((o) => o.includes(r))) required.add(r)
    }
  }
  return { ...rest, type: "object", properties, ...(required.size > 0 ? { required: Array.from(required) } : {}) }
}

// ---------------------------------------------------------------------------------------------
// ajv errors → built-in style lines
// ---------------------------------------------------------------------------------------------

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
  path.reduce<string>((acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? key : `${acc}.${key}`), "")

const receivedName = (actual: unknown): string => (actual === null ? "null" : Array.isArray(actual) ? "array" : typeof actual)

const withPath = (path: ReadonlyArray<Segment>, message: string): string =>
  path.length === 0 ? message : `The parameter \`${formatPath(path)}\` is invalid: ${message}`

const mismatch = (path: ReadonlyArray<Segment>, expected: string, actual: unknown): string =>
  path.length === 0
    ? `The input is expected as \`${expected}\` but provided as \`${receivedName(actual)}\``
    : `The parameter \`${formatPath(path)}\` type is expected as \`${expected}\` but provided as \`${receivedName(actual)}\``

const typeList = (t: unknown): string => (Array.isArray(t) ? t.join(" | ") : String(t))

const lineOf = (error: ErrorObject, input: unknown): string => {
  const path = pointerSegments(error.instancePath, input)
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case "required":
      return `The required parameter \`${formatPath([...path, String(params.missingProperty)])}\` is missing`
    case "additionalProperties":
    case "unevaluatedProperties":
      return `An unexpected parameter \`${formatPath([...path, String(params.additionalProperty ?? params.unevaluatedProperty)])}\` was provided`
    case "type":
      return mismatch(path, typeList(params.type), error.data)
    case "enum": {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : []
      return withPath(path, `Invalid enum value. Expected ${allowed.map((v) => `'${String(v)}'`).join(" | ")}, received '${String(error.data)}'`)
    }
    case "const":
      return withPath(path, `Invalid literal value, expected ${JSON.stringify(params.allowedValue)}`)
    default:
      return withPath(path, error.message ?? `failed "${error.keyword}"`)
  }
}

/** One line per problem. Errors inside a failed `anyOf`/`oneOf` collapse into one line for it. */
export const formatErrors = (errors: ReadonlyArray<ErrorObject>, input: unknown): ReadonlyArray<string> => {
  const combinators = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
  const inside = (e: ErrorObject, c: ErrorObject) => e !== c && e.schemaPath.startsWith(`${c.schemaPath}/`)
  const lines: Array<string> = []
  for (const error of errors) {
    if (combinators.some((c) => inside(error, c))) continue
    if (error.keyword === "anyOf" || error.keyword === "oneOf") {
      const branches = errors.filter((e) => inside(e, error))
      const path = pointerSegments(error.instancePath, input)
      if (branches.length > 0 && branches.every((b) => b.keyword === "type" && b.instancePath === error.instancePath)) {
        lines.push(mismatch(path, Array.from(new Set(branches.map((b) => typeList((b.params as Record<string, unknown>).type)))).join(" | "), error.data))
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
