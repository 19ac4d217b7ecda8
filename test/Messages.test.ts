/**
 * How a tool results message is laid out when hooks spoke around the calls: Claude Code folds
 * every reminder into the result before it when the message starts with a result, and otherwise
 * sends the results first and the reminders as their own text blocks.
 */
import { describe, expect, it } from "vitest"
import { layoutToolResults, toolResult, type AnsweredCall } from "../src/Messages.js"

const wrap = (text: string) => `<system-reminder>\n${text}\n</system-reminder>`
const call = (
  id: string,
  content: string | ReadonlyArray<any>,
  before: ReadonlyArray<string> = [],
  after: ReadonlyArray<string> = []
): AnsweredCall => ({
  result: toolResult(id, content as never),
  remindersBefore: before,
  remindersAfter: after
})

describe("layoutToolResults", () => {
  it("folds what follows a result into it, after its trailing whitespace", () => {
    expect(layoutToolResults([call("a", "1\talpha\n2\t", [], ["first", "second"])])).toEqual([
      { type: "tool_result", tool_use_id: "a", content: `1\talpha\n2\n\n${wrap("first")}\n\n${wrap("second")}` }
    ])
  })

  it("keeps a result without reminders as it is", () => {
    expect(layoutToolResults([call("a", "text  \n")])).toEqual([{
      type: "tool_result",
      tool_use_id: "a",
      content: "text  \n"
    }])
  })

  it("adds a text block per reminder to block content (an image, an MCP result)", () => {
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }
    expect(layoutToolResults([call("a", [image], [], ["seen"])])).toEqual([
      { type: "tool_result", tool_use_id: "a", content: [image, { type: "text", text: wrap("seen") }] }
    ])
  })

  it("a later call's PreToolUse context folds into the result before it; the batch's context into the last", () => {
    const laid = layoutToolResults([call("a", "A", [], ["post a"]), call("b", "B", ["pre b"], ["post b"])], ["batch"])
    expect(laid).toEqual([
      { type: "tool_result", tool_use_id: "a", content: `A\n\n${wrap("post a")}\n\n${wrap("pre b")}` },
      { type: "tool_result", tool_use_id: "b", content: `B\n\n${wrap("post b")}\n\n${wrap("batch")}` }
    ])
  })

  it("when the first call has PreToolUse context, nothing is folded: results first, then every reminder in order", () => {
    const laid = layoutToolResults([call("a", "A", ["pre a"], ["post a"]), call("b", "B", [], ["post b"])])
    expect(laid).toEqual([
      { type: "tool_result", tool_use_id: "a", content: "A" },
      { type: "tool_result", tool_use_id: "b", content: "B" },
      { type: "text", text: wrap("pre a") },
      { type: "text", text: wrap("post a") },
      { type: "text", text: wrap("post b") }
    ])
  })

  it("the sequence follows the order the calls finished; the results stay in tool_use order", () => {
    // b finished first: a's PreToolUse context folds into b's result
    const calls = [call("a", "A", ["pre a"], ["post a"]), call("b", "B", [], ["post b"])]
    expect(layoutToolResults(calls, [], [1, 0])).toEqual([
      { type: "tool_result", tool_use_id: "a", content: `A\n\n${wrap("post a")}` },
      { type: "tool_result", tool_use_id: "b", content: `B\n\n${wrap("post b")}\n\n${wrap("pre a")}` }
    ])
    // a call denied by its PreToolUse hook finished first: nothing is folded
    const denied = [call("r", "R", [], ["post r"]), call("d", "D", ["pre d"])]
    expect(layoutToolResults(denied, [], [1, 0]).map((b) => (b.type === "text" ? b.text : b.tool_use_id))).toEqual([
      "r",
      "d",
      wrap("pre d"),
      wrap("post r")
    ])
  })

  it("an error result takes reminders like any other", () => {
    expect(
      layoutToolResults([{ ...call("a", "Exit code 3", [], ["noted"]), result: toolResult("a", "Exit code 3", true) }])
    ).toEqual([
      { type: "tool_result", tool_use_id: "a", content: `Exit code 3\n\n${wrap("noted")}`, is_error: true }
    ])
  })
})
