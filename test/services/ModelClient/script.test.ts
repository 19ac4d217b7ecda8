/**
 * Scripted sessions: parsing (with line numbers for what is wrong), synthesized streaming, and the
 * `{{cwd}}` placeholder convention.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseScript, substituteCwd, type ScriptedEvent } from "../../../src/services/ModelClient/script.js"

const parse = (lines: ReadonlyArray<unknown>) =>
  parseScript("s.jsonl", lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"))

describe("parseScript", () => {
  it("reads prompts and turns; other line types are ignored (a transcript is a script)", () => {
    const r = parse([
      { type: "session_start", cwd: "/rec" },
      { type: "user", message: { role: "user", content: [{ type: "text", text: "hello" }] } },
      {
        type: "model_turn",
        events: [{ at_ms: 5, event: { type: "message_start" } }, { at_ms: 12, event: { type: "message_stop" } }]
      },
      { type: "tool_call", tool_use_id: "x" },
      { type: "user", text: "again" },
      { type: "turn", content: [{ type: "text", text: "hi" }] }
    ])
    const script = Either.getOrThrow(r)
    expect(script.prompts).toEqual(["hello", "again"])
    expect(script.recordedCwd).toBe("/rec")
    expect(script.turns).toHaveLength(2)
    const first = script.turns[0]!
    expect(first._tag === "Events" && first.events.map((e) => e.delayMs)).toEqual([5, 7])
  })

  it("synthesizes a streamed turn: text in chunks, tool input in fragments with the first empty", () => {
    const script = Either.getOrThrow(
      parse([{
        type: "turn",
        content: [{ type: "text", text: "one two three four five" }, {
          type: "tool_use",
          name: "Read",
          input: { file_path: "/x" }
        }]
      }])
    )
    const turn = script.turns[0]!
    if (turn._tag !== "Events") throw new Error("expected events")
    const events = turn.events.map((e) => e.event as any)
    expect(events[0].type).toBe("message_start")
    expect(events.filter((e) => e.delta?.type === "text_delta").map((e) => e.delta.text)).toEqual([
      "one two three ",
      "four five"
    ])
    const fragments = events.filter((e) => e.delta?.type === "input_json_delta").map((e) => e.delta.partial_json)
    expect(fragments[0]).toBe("")
    expect(fragments.join("")).toBe("{\"file_path\":\"/x\"}")
    expect(events.find((e) => e.type === "content_block_start" && e.index === 1).content_block).toMatchObject({
      type: "tool_use",
      id: "toolu_scripted_1_2",
      name: "Read"
    })
    expect(events.at(-2)).toMatchObject({ type: "message_delta", delta: { stop_reason: "tool_use" } })
    expect(events.at(-1)).toEqual({ type: "message_stop" })
  })

  it("a scripted failure turn", () => {
    const script = Either.getOrThrow(
      parse([{ type: "turn", error: { status: 529, type: "overloaded_error", message: "Overloaded" } }])
    )
    expect(script.turns[0]).toMatchObject({ _tag: "Failure", status: 529, errorType: "overloaded_error" })
  })

  it.each([
    [["{not json"], 1, "not valid JSON"],
    [[{ type: "user", text: "x" }, "[1,2]"], 2, "each line must be a JSON object"],
    [[{ nope: 1 }], 1, "at type: is missing"],
    [[{ type: "user" }], 1, "a user line needs `text`"],
    [
      [{ type: "user", text: "x" }, "", { type: "turn", content: "hi" }],
      3,
      "at content: Expected an array of text, thinking and tool_use blocks, actual \"hi\""
    ],
    [[{ type: "user", text: "x" }, { type: "turn" }], 2, "a turn needs `content`"],
    [
      [{ type: "turn", content: [{ type: "image" }] }],
      1,
      "at content[0].type: Expected \"text\" | \"tool_use\" | \"thinking\", actual \"image\""
    ],
    [[{ type: "turn", content: [{ type: "tool_use", input: {} }] }], 1, "at content[0].name: is missing"],
    [[{ type: "turn", events: [42] }], 1, "at events[0]: Expected a stream event"]
  ])("names the line and the problem: %j", (lines, line, reason) => {
    const r = parse(lines)
    expect(Either.isLeft(r)).toBe(true)
    const error = Either.getLeft(r).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
    expect(error.line).toBe(line)
    expect(error.message).toContain(`s.jsonl:${line}: ${reason}`)
  })

  it("a file without turns is an error", () => {
    expect(Either.getLeft(parse([{ type: "user", text: "x" }])).pipe((o) => (o._tag === "Some" ? o.value.message : "")))
      .toContain("no model turns")
  })
})

describe("substituteCwd", () => {
  const delta = (index: number, key: "text" | "partial_json", value: string): ScriptedEvent => ({
    delayMs: 1,
    event: {
      type: "content_block_delta",
      index,
      delta: key === "text" ? { type: "text_delta", text: value } : { type: "input_json_delta", partial_json: value }
    }
  })
  const values = (events: ReadonlyArray<ScriptedEvent>) =>
    events.map((e) => ((e.event as any).delta.text ?? (e.event as any).delta.partial_json) as string)

  it("replaces {{cwd}} in text and tool input, even split across fragments, keeping the shape", () => {
    const events = [
      delta(0, "text", "in {{c"),
      delta(0, "text", "wd}} now"),
      delta(1, "partial_json", ""),
      delta(1, "partial_json", "{\"p\":\"{{cwd"),
      delta(1, "partial_json", "}}/a\"}")
    ]
    const out = substituteCwd(events, "/work/dir", undefined)
    const v = values(out)
    expect(v.slice(0, 2).join("")).toBe("in /work/dir now")
    expect(v[2]).toBe("")
    expect(v.slice(2).join("")).toBe("{\"p\":\"/work/dir/a\"}")
    expect(out).toHaveLength(events.length)
    expect(out.every((e) => e.delayMs === 1)).toBe(true)
  })

  it("replaces a transcript's recorded cwd, JSON-escaped inside tool input", () => {
    const events = [delta(0, "partial_json", "{\"p\":\"C:\\\\rec\\\\a.txt\"}")]
    expect(values(substituteCwd(events, "/new", "C:\\rec"))).toEqual(["{\"p\":\"/new\\\\a.txt\"}"])
  })

  it("leaves events without placeholders as they are", () => {
    const events = [delta(0, "text", "nothing here")]
    expect(values(substituteCwd(events, "/x", "/y"))).toEqual(["nothing here"])
  })
})
