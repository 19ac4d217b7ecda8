import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { compileInputSchema, flattenRoot } from "../../../src/services/McpClients/jsonSchema.js"
import {
  assignToolNames,
  MAX_TOOL_NAME_LENGTH,
  mcpToolName,
  normalizeNamePart
} from "../../../src/services/McpClients/naming.js"
import {
  capContent,
  estimateTokens,
  resultContent,
  truncationNotice
} from "../../../src/services/McpClients/results.js"
import { loadSdk } from "../../../src/services/McpClients/sdk.js"

describe("MCP tool names", () => {
  it("normalises every character outside [A-Za-z0-9_-]", () => {
    expect(mcpToolName("my server", "get.item/v2")).toBe("mcp__my_server__get_item_v2")
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue")
    expect(normalizeNamePart("claude.ai Google Drive")).toBe("claude_ai_Google_Drive")
  })

  it("shortens names over 64 characters deterministically, keeping the server segment", () => {
    const long = "a_tool_name_that_is_very_long_indeed_and_goes_on_and_on_past_the_api_limit"
    const name = mcpToolName("test", long)
    expect(name).toHaveLength(MAX_TOOL_NAME_LENGTH)
    expect(name).toMatch(new RegExp(`^mcp__test__${long.slice(0, 64 - "mcp__test__".length - 9)}_[0-9a-f]{8}$`))
    expect(mcpToolName("test", long)).toBe(name)
    expect(mcpToolName("test", `${long}2`)).not.toBe(name)
    const hugeServer = "s".repeat(60)
    const cut = mcpToolName(hugeServer, "tool")
    expect(cut.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH)
    expect(cut.startsWith(`mcp__${"s".repeat(40)}__tool`)).toBe(true)
  })

  it("gives tools whose names normalise alike distinct names", () => {
    const names = assignToolNames("srv", ["a.b", "a_b"])
    expect(names.get("a.b")).toBe("mcp__srv__a_b")
    expect(names.get("a_b")).toMatch(/^mcp__srv__a_b_[0-9a-f]{8}$/)
  })
})

describe("MCP input schemas", () => {
  it.effect("validates with ajv and words failures like the built-ins", () =>
    Effect.gen(function*() {
      const sdk = yield* loadSdk
      const compiled = compileInputSchema(sdk, {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: {
          path: { type: "string" },
          nested: { type: "array", items: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
          mode: { enum: ["fast", "slow"] },
          either: { anyOf: [{ type: "string" }, { type: "number" }] },
          count: { type: "integer", minimum: 1 }
        },
        required: ["path"],
        additionalProperties: false
      })
      if (!compiled.ok) throw new Error(compiled.reason)
      const issues = (input: unknown) => {
        const r = compiled.compiled.validate(input)
        return r.ok ? [] : r.issues
      }
      expect(issues({ path: "a" })).toEqual([])
      expect(issues({})).toEqual(["The required parameter `path` is missing"])
      expect(issues({ path: 1 })).toEqual([
        "The parameter `path` type is expected as `string` but provided as `number`"
      ])
      expect(issues({ path: "a", bogus: 1 })).toEqual(["An unexpected parameter `bogus` was provided"])
      expect(issues({ path: "a", nested: [{ x: 1 }, { x: "2" }, {}] })).toEqual([
        "The parameter `nested[1].x` type is expected as `number` but provided as `string`",
        "The required parameter `nested[2].x` is missing"
      ])
      expect(issues({ path: "a", mode: "medium" })).toEqual([
        "The parameter `mode` is invalid: Invalid enum value. Expected 'fast' | 'slow', received 'medium'"
      ])
      expect(issues({ path: "a", either: true })).toEqual([
        "The parameter `either` type is expected as `string | number` but provided as `boolean`"
      ])
      expect(issues({ path: "a", count: 0 })).toEqual(["The parameter `count` is invalid: must be >= 1"])
    }))

  it.effect("refuses schemas that are not valid JSON Schema or not an object; handles 2020-12 and shared $ids", () =>
    Effect.gen(function*() {
      const sdk = yield* loadSdk
      const bad = compileInputSchema(sdk, { type: "object", properties: { x: { type: "strnig" } } })
      expect(bad.ok === false && bad.reason).toContain("inputSchema is not valid JSON Schema")
      const notObject = compileInputSchema(sdk, { type: "string" })
      expect(notObject.ok === false && notObject.reason).toContain("must describe an object (type \"object\")")
      const modern = compileInputSchema(sdk, {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $id: "urn:x",
        type: "object",
        properties: { t: { type: "array", prefixItems: [{ type: "string" }] } }
      })
      const again = compileInputSchema(sdk, {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $id: "urn:x",
        type: "object"
      })
      expect(modern.ok && again.ok).toBe(true)
    }))

  it("flattens a root anyOf/oneOf/allOf into one object schema for the API", () => {
    expect(
      flattenRoot({
        anyOf: [
          { properties: { a: { type: "string" }, id: { type: "string" } }, required: ["a", "id"] },
          { properties: { b: { type: "number" }, id: { type: "string" } }, required: ["b", "id"] }
        ]
      })
    ).toEqual({
      type: "object",
      properties: { a: { type: "string" }, id: { type: "string" }, b: { type: "number" } },
      required: ["id"]
    })
    expect(flattenRoot({ type: "object", properties: {} })).toEqual({ type: "object", properties: {} })
  })
})

describe("MCP results", () => {
  it("maps text, images, resources and structured content to tool_result content", () => {
    expect(resultContent({ content: [{ type: "text", text: "hi" }] }, "t")).toBe("hi")
    expect(resultContent({ content: [] }, "mcp__s__t")).toBe("(mcp__s__t completed with no output)")
    expect(resultContent({ content: [], structuredContent: { a: 1 } }, "t")).toBe("{\n  \"a\": 1\n}")
    expect(
      resultContent(
        {
          content: [
            { type: "text", text: "a" },
            { type: "image", data: "AAAA", mimeType: "image/png" },
            { type: "image", data: "AAAA", mimeType: "image/tiff" },
            { type: "resource", resource: { uri: "x://r", text: "inside" } },
            { type: "resource_link", uri: "x://l", name: "link" },
            { type: "audio", data: "AAAA", mimeType: "audio/wav" }
          ]
        },
        "t"
      )
    ).toEqual([
      { type: "text", text: "a" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
      { type: "text", text: "[Image: image/tiff, 3 bytes, not shown]" },
      { type: "text", text: "inside" },
      { type: "text", text: "[Resource link: link] x://l" },
      { type: "text", text: "[Audio: audio/wav, 3 bytes, not shown]" }
    ])
  })

  it("caps output at MAX_MCP_OUTPUT_TOKENS × 4 characters with Claude Code's notice", () => {
    const small = capContent("x".repeat(400), 100)
    expect(small.truncated).toBe(false)
    const big = capContent("x".repeat(1000), 100)
    expect(big.truncated).toBe(true)
    expect(big.content).toBe(`${"x".repeat(400)}\n\n${truncationNotice(100)}`)
    expect(truncationNotice(100).startsWith("[OUTPUT TRUNCATED - exceeded 100 token limit]")).toBe(true)
    const blocks = capContent(
      [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "A" } },
        { type: "text", text: "y".repeat(10_000) }
      ],
      2000
    )
    expect(estimateTokens(blocks.content)).toBeLessThanOrEqual(2000 + 100)
    expect(Array.isArray(blocks.content) && blocks.content.map((b) => b.type)).toEqual(["image", "text", "text"])
  })
})
