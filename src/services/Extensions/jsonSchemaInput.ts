/**
 * A raw JSON Schema as a tool input schema (for plain custom tools): validated with ajv, and the
 * failures worded like the built-ins' (claude-code-spec §4.3). ajv is loaded when the first plain
 * tool is loaded, never at start-up.
 */
import type { ErrorObject } from "ajv"
import { ajvIssues } from "../../internal/ajvIssues.js"
import type { ToolInputSchema } from "../../Tool.js"

type ValidateFunction = ((data: unknown) => boolean) & { errors?: ReadonlyArray<ErrorObject> | null }

interface AjvInstance {
  readonly compile: (schema: Record<string, unknown>) => ValidateFunction
}

let ajv: Promise<AjvInstance> | undefined

const loadAjv = (): Promise<AjvInstance> => {
  ajv ??= import("ajv").then((module) => {
    const m = module as unknown as { default?: { default?: unknown } }
    const Ajv = (m.default?.default ?? m.default ?? module) as new (options: Record<string, unknown>) => AjvInstance
    return new Ajv({ allErrors: true, verbose: true, strict: false, coerceTypes: false, useDefaults: false })
  })
  return ajv
}

/** Compiles `schema`; throws when ajv rejects the schema itself. */
export const jsonSchemaInput = async (schema: Record<string, unknown>): Promise<ToolInputSchema<Record<string, unknown>>> => {
  const validator = (await loadAjv()).compile(schema)
  return {
    _tag: "JsonSchema",
    jsonSchema: schema,
    validate: (input) => {
      if (validator(input)) return { ok: true, value: input as Record<string, unknown> }
      return { ok: false, issues: ajvIssues(validator.errors ?? [], input) }
    }
  }
}
