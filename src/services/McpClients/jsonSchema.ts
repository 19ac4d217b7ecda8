/**
 * A server tool's input schema: raw JSON Schema, compiled once with ajv (a schema ajv cannot
 * compile makes the tool unusable). `validate` checks an input and words failures like the
 * built-ins: ``The required parameter `a.b` is missing``, ``An unexpected
 * parameter `x` was provided``, ``The parameter `x` type is expected as `string` but provided as
 * `number` ``. Calls of server tools do not use it: as in Claude Code, the model's input goes to
 * the server unchecked and the server answers a bad input itself.
 *
 * The schema's `$schema` picks the dialect (2020-12, 2019-09, else draft-07, the common case of
 * zod-generated schemas). `format` is not checked (the server still checks it). A schema ajv
 * cannot compile is invalid, and the tool is skipped.
 */
import type { ValidateFunction } from "ajv"
import { ajvIssues } from "../../internal/ajvIssues.js"
import type { McpSdk, SchemaDialect } from "./sdk.js"
import { isRecord } from "../../internal/json.js"

export type ValidationResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly issues: ReadonlyArray<string> }

export interface CompiledInputSchema {
  /** What the model is given: the schema as sent, with a root `anyOf`/`oneOf`/`allOf` flattened. */
  readonly apiSchema: Record<string, unknown>
  readonly validate: (input: unknown) => ValidationResult
}

const dialectOf = (schemaUri: string | undefined): SchemaDialect =>
  schemaUri?.includes("2020-12") ? "2020-12" : schemaUri?.includes("2019-09") ? "2019-09" : "draft-07"

/** Compiles a tool's input schema, or says why it is not usable. */
export const compileInputSchema = (
  sdk: McpSdk,
  schema: unknown
): { readonly ok: true; readonly compiled: CompiledInputSchema } | { readonly ok: false; readonly reason: string } => {
  if (!isRecord(schema)) return { ok: false, reason: "inputSchema is not an object" }
  if (schema.type !== undefined && schema.type !== "object") {
    return {
      ok: false,
      reason: `inputSchema must describe an object (type "object"), got type ${JSON.stringify(schema.type)}`
    }
  }
  // the root `$id` only names the schema; dropping it avoids clashes and unparsable URIs
  const { $schema, $id: _id, ...body } = schema
  let validateFn: ValidateFunction
  try {
    validateFn = sdk.ajvFor(dialectOf(typeof $schema === "string" ? $schema : undefined)).compile(body)
  } catch (e) {
    return { ok: false, reason: `inputSchema is not valid JSON Schema: ${(e as Error).message}` }
  }
  const validate = (input: unknown): ValidationResult => {
    if (validateFn(input)) return { ok: true, value: input as Record<string, unknown> }
    return { ok: false, issues: ajvIssues(validateFn.errors ?? [], input) }
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
  const required = new Set<string>(
    Array.isArray(rest.required) ? rest.required.filter((r): r is string => typeof r === "string") : []
  )
  for (const key of combinators) {
    const branches = (schema[key] as Array<unknown>).filter(isRecord)
    const requiredOf = (
      b: Record<string, unknown>
    ) => (Array.isArray(b.required) ? b.required.filter((r): r is string => typeof r === "string") : [])
    for (const branch of branches) {
      if (isRecord(branch.properties)) {
        for (const [name, prop] of Object.entries(branch.properties)) {
          if (!(name in properties)) properties[name] = prop
        }
      }
    }
    if (key === "allOf") { for (const branch of branches) for (const r of requiredOf(branch)) required.add(r) }
    else if (branches.length > 0) {
      const [first, ...others] = branches.map(requiredOf)
      for (const r of first!) if (others.every((o) => o.includes(r))) required.add(r)
    }
  }
  return { ...rest, type: "object", properties, ...(required.size > 0 ? { required: Array.from(required) } : {}) }
}
