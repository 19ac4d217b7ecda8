/**
 * Checks a custom tool the way built-ins are held to: a valid API name, a description, a schema
 * whose JSON Schema can be computed and describes an object, and a `call`. Returns the problems.
 */
import { inputJsonSchema, type AnyTool } from "../../Tool.js"

/** The Messages API's rule for tool names. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

export const toolProblems = (tool: AnyTool): ReadonlyArray<string> => {
  const problems: Array<string> = []
  if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
    problems.push(`its name ${JSON.stringify(tool.name)} must be 1-64 letters, digits, '_' or '-'`)
  } else if (tool.name.startsWith("mcp__")) {
    problems.push(`its name ${tool.name} starts with mcp__, which is reserved for MCP tools`)
  }
  if (typeof tool.description !== "string" || tool.description.trim() === "") problems.push("it has no description")
  if (typeof tool.call !== "function") problems.push("it has no call function")
  const schema = tool.inputSchema as { _tag?: unknown } | undefined
  if (schema === undefined || (schema._tag !== "Schema" && schema._tag !== "JsonSchema")) {
    problems.push("it has no inputSchema (an effect Schema, or a JSON Schema for plain tools)")
  } else {
    try {
      const json = inputJsonSchema(tool)
      if (json === null || typeof json !== "object" || json.type !== "object") {
        problems.push(
          `its input schema must describe an object (type "object"), not ${JSON.stringify(json?.type ?? json)}`
        )
      }
    } catch (error) {
      problems.push(`its JSON Schema cannot be computed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return problems
}
