/**
 * The stdio line splitter: lines across chunks, CRLF, and a message over the limit dropped as it
 * arrives (memory held never passes the limit) with the id of the request it answered.
 */
import { describe, expect, it } from "vitest"
import { LineBuffer, responseIdOf } from "../../../src/services/McpClients/lineBuffer.js"

describe("LineBuffer", () => {
  it("splits lines across chunks and strips a CR", () => {
    const lines = new LineBuffer(1024)
    expect(lines.push(Buffer.from("{\"a\":"))).toEqual([])
    expect(lines.push(Buffer.from("1}\r\n{\"b\":2}\n{\"c\""))).toEqual([
      { _tag: "Line", text: "{\"a\":1}" },
      { _tag: "Line", text: "{\"b\":2}" }
    ])
    expect(lines.push(Buffer.from(":3}\n"))).toEqual([{ _tag: "Line", text: "{\"c\":3}" }])
    expect(lines.bufferedBytes).toBe(0)
  })

  it("an 80 MB message over a 1 MB limit: never holds more than the limit, then names its id", () => {
    const limit = 1024 * 1024
    const lines = new LineBuffer(limit)
    const chunk = Buffer.alloc(64 * 1024, "x")
    let most = 0
    expect(lines.push(Buffer.from("{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""))).toEqual([])
    for (let sent = 0; sent < 80 * 1024 * 1024; sent += chunk.length) {
      expect(lines.push(chunk)).toEqual([])
      most = Math.max(most, lines.bufferedBytes)
    }
    expect(most).toBeLessThanOrEqual(limit)
    expect(lines.bufferedBytes).toBe(0)
    const [event] = lines.push(Buffer.from("\"}]},\"jsonrpc\":\"2.0\",\"id\":7}\n"))
    expect(event).toMatchObject({ _tag: "Oversized" })
    const after = lines.push(Buffer.from("{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n"))
    expect(after).toEqual([{ _tag: "Line", text: "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}" }])
    if (event?._tag !== "Oversized") throw new Error("expected an oversized line")
    expect(event.bytes).toBeGreaterThan(80 * 1024 * 1024)
    expect(responseIdOf(event.head, event.tail)).toBe(7)
  })
})

describe("responseIdOf", () => {
  it.each([
    ["{\"result\":{\"x\":1},\"jsonrpc\":\"2.0\",\"id\":12}", 12],
    ["{\"jsonrpc\": \"2.0\", \"id\": \"abc\", \"result\": {\"x\"", "abc"],
    ["{\"id\":3,\"result\":", 3]
  ])("%s", (text, id) => {
    expect(responseIdOf(text.slice(0, 40), text.slice(-40))).toBe(id)
  })

  it.each([
    "{\"method\":\"notifications/message\",\"params\":{\"data\":\"xxxxxxxx\"},\"jsonrpc\":\"2.0\"}",
    "{\"method\":\"roots/list\",\"params\":{},\"jsonrpc\":\"2.0\",\"id\":5}",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"sampling/createMessage\",\"params\":{\"x\":1}}",
    "{\"result\":{\"text\":\"ends with \\\"id\\\":5}\"}",
    "{\"result\":{\"inner\":{\"id\":5}}}"
  ])("no response id: %s", (text) => {
    expect(responseIdOf(text.slice(0, 40), text.slice(-40))).toBeUndefined()
  })
})
