/**
 * A raw JSON Schema as a tool input schema (for plain custom tools): validated with ajv, and the
 * failures worded like the built-ins' (claude-code-spec §4.3). ajv is loaded when the first plain
 * tool is loaded, never at start-up.
 */
import type { ToolInputSchema } from "../../Tool.js"

interface AjvError {
  readonly instancePath: string
  readonly keyword: string
  readonly params: Record<string, unknown>
  readonly message?: string
}

type ValidateFunction = ((data: unknown) => boolean) & { errors?: ReadonlyArray<AjvError> | null }

interface AjvInstance {
  readonly compile: (schema: Record<string, unknown>) => ValidateFunction
}

let ajv: Promise<AjvInstance> | undefined

const loadAjv = (): Promise<AjvInstance> => {
  ajv ??= import("ajv").then((module) => {
    const m = module as unknown as { default?: { default?: unknown } }
    const Ajv = (m.default?.default ?? m.default ?? module) as new (options: Record<string, unknown>) => AjvInstance
    return new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false })
  })
  return ajv
}

/** "/todos/0/content" → "todos[0].content" */
const pathOf = (pointer: string): string =>
  pointer
    .split("/")
    .slice(1)
    .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce((acc, key) => (/^\d+$/.test(key) ? `${acc}[${key}]` : acc === "" ? key : `${acc}.${key}`), "")

const join = (base: string, key: string) => (base === "" ? key : `${base}.${key}`)

const typeName = (value: unknown): string => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)

const valueAt = (data: unknown, pointer: string): unknown =>
  pointer
    .split("/")
    .slice(1)
    .reduce<unknown>((v, key) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined), data)

export const describeAjvError = (error: AjvError, data: unknown): string => {
  const at = pathOf(error.instancePath)
  switch (error.keyword) {
    case "required":
      return `The required parameter \`${join(at, String(error.params.missingProperty))}\` is missing`
    case "additionalProperties":
      return `An unexpected parameter \`${join(at, String(error.params.additionalProperty))}\` was provided`
    case "type":
      return at === ""
        ? `The input is expected as \`${String(error.params.type)}\` but provided as \`${typeName(data)}\``
        : `The parameter \`${at}\` type is expected as \`${String(error.params.type)}\` but provided as \`${typeName(valueAt(data, error.instancePath))}\``
    default:
      return at === "" ? (error.message ?? "Invalid input") : `The parameter \`${at}\` is invalid: ${error.message ?? "invalid value"}`
  }
}

/** Compiles `schema`; throws when ajv rejects the schema itself. */
export const jsonSchemaInput = async (schema: Record<string, unknown>): Promise<ToolInputSchema<Record<string, unknown>>> => {
  const validator = (await loadAjv()).compile(schema)
  return {
    _tag: "JsonSchema",
    jsonSchema: schema,
    validate: (input) => {
      if (validator(input)) return { ok: true, value: input as Record<string, unknown> }
      const issues = Array.from(new Set((validator.errors ?? []).map((e) => describeAjvError(e, input))))
      return { ok: false, issues: issues.length === 0 ? ["Invalid input"] : issues }
    }
  }
}
