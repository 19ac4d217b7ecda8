/**
 * A raw JSON Schema as a tool input schema (for plain custom tools): validated with ajv, and the
 * failures worded like the built-ins'. ajv is loaded when the first plain
 * tool is loaded, never at start-up; each load of custom tools has an ajv of its own.
 */
import type { ErrorObject } from "ajv"
import { ajvIssues } from "../../internal/ajvIssues.js"
import type { ToolInputSchema } from "../../Tool.js"

type ValidateFunction = ((data: unknown) => boolean) & { errors?: ReadonlyArray<ErrorObject> | null }

interface AjvInstance {
  readonly compile: (schema: Record<string, unknown>) => ValidateFunction
}

const loadAjv = (): Promise<AjvInstance> =>
  import("ajv").then((module) => {
    const m = module as unknown as { default?: { default?: unknown } }
    const Ajv = (m.default?.default ?? m.default ?? module) as new(options: Record<string, unknown>) => AjvInstance
    return new Ajv({ allErrors: true, verbose: true, strict: false, coerceTypes: false, useDefaults: false })
  })

/** Compiles `schema`; rejects when ajv rejects the schema itself. */
export type JsonSchemaInput = (schema: Record<string, unknown>) => Promise<ToolInputSchema<Record<string, unknown>>>

/** A compiler with an ajv of its own, made when it compiles its first schema. */
export const makeJsonSchemaInput = (): JsonSchemaInput => {
  let ajv: Promise<AjvInstance> | undefined
  return async (schema) => {
    ajv ??= loadAjv()
    const validator = (await ajv).compile(schema)
    return {
      _tag: "JsonSchema",
      jsonSchema: schema,
      validate: (input) => {
        if (validator(input)) return { ok: true, value: input as Record<string, unknown> }
        return { ok: false, issues: ajvIssues(validator.errors ?? [], input) }
      }
    }
  }
}
