import { describe, expect, it } from "vitest"
import { jsonSyntaxError } from "../../src/tools/files/jsonSyntax.js"

describe("jsonSyntaxError: the first JSON error as Claude Code's runtime names it (recorded with 2.1.332)", () => {
  it.each([
    ["", "Unexpected EOF"],
    ["{not json", "Expected '}'"],
    ["{\"cells\": [}", "Unexpected token '}'"],
    ["x", "Unexpected identifier \"x\""],
    ["{\"a\":}", "Unexpected token '}'"],
    ["{\"a\" 1}", "Expected ':' before value in object property definition"],
    ["[1,]", "Unexpected comma at the end of array expression"],
    ["{\"cells\":[1,2", "Expected ']'"],
    ["\"abc", "Unterminated string"],
    ["{'a':1}", "Single quotes (') are not allowed in JSON"],
    ["{\"a\":1,}", "Property name must be a string literal"]
  ])("%j: %s", (text, message) => expect(jsonSyntaxError(text)).toBe(message))

  it.each(["{}", "[]", "null", "{\"a\": [1, -2.5e3, true, false, null, \"s\\\"\"]}"])(
    "valid: %j",
    (text) => expect(jsonSyntaxError(text)).toBeUndefined()
  )
})
