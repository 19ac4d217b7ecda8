/**
 * The first syntax error of a JSON text, named as Claude Code's runtime names it (its notebook
 * errors quote it: `JSON Parse error: Expected ']'`). Undefined when the text is valid JSON.
 */
class JsonSyntax extends Error {}

export const jsonSyntaxError = (text: string): string | undefined => {
  let i = 0
  const fail = (message: string): never => {
    throw new JsonSyntax(message)
  }
  const skip = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++
  }
  const string = () => {
    i++
    while (i < text.length && text[i] !== "\"") i += text[i] === "\\" ? 2 : 1
    if (i >= text.length) fail("Unterminated string")
    i++
  }
  const value = (): void => {
    skip()
    const c = text[i]
    if (c === undefined) return fail("Unexpected EOF")
    if (c === "{") return object()
    if (c === "[") return array()
    if (c === "\"") return string()
    if (c === "'") return fail("Single quotes (') are not allowed in JSON")
    if (/[-0-9]/.test(c)) {
      while (i < text.length && /[-+0-9.eE]/.test(text[i]!)) i++
      return
    }
    if (/[A-Za-z_$]/.test(c)) {
      const word = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i))![0]
      if (word !== "true" && word !== "false" && word !== "null") fail(`Unexpected identifier "${word}"`)
      i += word.length
      return
    }
    return fail(`Unexpected token '${c}'`)
  }
  const object = () => {
    i++
    skip()
    if (text[i] === "}") return void i++
    for (let first = true;; first = false) {
      skip()
      if (text[i] === "'") fail("Single quotes (') are not allowed in JSON")
      if (text[i] !== "\"") fail(first ? "Expected '}'" : "Property name must be a string literal")
      string()
      skip()
      if (text[i] !== ":") fail("Expected ':' before value in object property definition")
      i++
      value()
      skip()
      if (text[i] === "}") return void i++
      if (text[i] !== ",") fail("Expected '}'")
      i++
    }
  }
  const array = () => {
    i++
    skip()
    if (text[i] === "]") return void i++
    for (;;) {
      value()
      skip()
      if (text[i] === "]") return void i++
      if (text[i] !== ",") fail("Expected ']'")
      i++
      skip()
      if (text[i] === "]") fail("Unexpected comma at the end of array expression")
    }
  }
  try {
    value()
    skip()
    if (i < text.length) fail("Unable to parse JSON string")
    return undefined
  } catch (error) {
    if (error instanceof JsonSyntax) return error.message
    throw error
  }
}
