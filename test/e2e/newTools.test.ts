/**
 * The tools Claude Code users expect beside the file tools, end to end through `toolgate run`:
 * WebSearch (Anthropic's server-side search, asked of the real SDK against a fake Messages API on
 * 127.0.0.1; permission as in Claude Code), AskUserQuestion (a question form at a terminal,
 * withheld with Claude Code's text where nobody can answer). Print mode runs in this process
 * (runCliInProcess); the question form at a terminal runs the built CLI in a pseudo-terminal.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { framesOf, sse, startFakeAnthropic, type FakeAnthropic } from "../support/fakeAnthropic.js"
import { sseEventsOf, sseFramesOf } from "../support/claudeSession.js"
import { cleanEnv, runCliInProcess } from "../services/Agent/cliSupport.js"
import { spawnCliPty } from "../support/cliPty.js"
import { tempDir } from "../support/runtime.js"

const MODEL = "claude-sonnet-4-6"
let fake: FakeAnthropic
beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: "sk-tools" })
})
afterAll(async () => {
  await fake.close()
})

const turn = (blocks: ReadonlyArray<Record<string, unknown>>, stop: string, cwd: string, n: number) =>
  sse(sseFramesOf(sseEventsOf({ blocks, stop_reason: stop }, MODEL, `msg_${n}`, cwd)))

const searchUse = {
  type: "tool_use",
  id: "toolu_ws",
  name: "WebSearch",
  input: { query: "effect typescript library", allowed_domains: ["effect.website", "github.com"] }
}

/** What the Messages API streams for a web search: text, the server tool call, its results, a summary. */
const searchAnswer = () =>
  sse(
    framesOf([
      {
        type: "message_start",
        message: {
          id: "msg_search",
          type: "message",
          role: "assistant",
          model: MODEL,
          content: [],
          stop_reason: null,
          usage: { input_tokens: 5, output_tokens: 1 }
        }
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "I'll search." } },
      { type: "content_block_stop", index: 0 },
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }
      },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: "{\"query\":\"effect typescript library\"}" }
      },
      { type: "content_block_stop", index: 1 },
      {
        type: "content_block_start",
        index: 2,
        content_block: {
          type: "web_search_tool_result",
          tool_use_id: "srvtoolu_1",
          content: [
            {
              type: "web_search_result",
              title: "Effect – TypeScript",
              url: "https://effect.website/",
              encrypted_content: "abc",
              page_age: "2 days ago"
            },
            {
              type: "web_search_result",
              title: "Effect-TS/effect",
              url: "https://github.com/Effect-TS/effect",
              encrypted_content: "def"
            }
          ]
        }
      },
      { type: "content_block_stop", index: 2 },
      { type: "content_block_start", index: 3, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "Effect is a TypeScript library." } },
      { type: "content_block_stop", index: 3 },
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: "message_stop" }
    ])
  )

const run = async (project: string, args: ReadonlyArray<string>) =>
  runCliInProcess([
    "run",
    "-p",
    "Search it",
    "--model",
    MODEL,
    "--output-format",
    "stream-json",
    "--session-dir",
    path.join(project, ".session"),
    ...args
  ], {
    cwd: project,
    env: cleanEnv({ ANTHROPIC_API_KEY: "sk-tools", ANTHROPIC_BASE_URL: fake.url }),
    timeoutMs: 90_000
  })

const resultOf = (stdout: string, id: string) => {
  const lines = stdout.trim().split("\n").map((l) => JSON.parse(l))
  return lines.find((l) => l.type === "user" && l.message.content[0].tool_use_id === id)?.message.content[0]
}

describe("WebSearch", () => {
  it("asks (so print mode denies it, with Claude Code's text) unless a rule allows it", async () => {
    const project = fs.realpathSync(tempDir("toolgate-ws-"))
    fake.enqueue(
      turn([searchUse], "tool_use", project, 1),
      turn([{ type: "text", text: "No search then." }], "end_turn", project, 2)
    )
    const ran = await run(project, [])
    expect(ran.code, ran.stderr).toBe(0)
    expect(resultOf(ran.stdout, "toolu_ws")).toMatchObject({
      is_error: true,
      content: "Claude requested permissions to use WebSearch, but you haven't granted it yet."
    })
  }, 120_000)

  it(
    "with --allowedTools WebSearch: a request with the web_search server tool, the results as Claude Code writes them",
    async () => {
      const project = fs.realpathSync(tempDir("toolgate-ws-"))
      const first = fake.requests.length
      fake.enqueue(
        turn([searchUse], "tool_use", project, 1),
        searchAnswer(),
        turn([{ type: "text", text: "Sources: effect.website" }], "end_turn", project, 3)
      )
      const ran = await run(project, ["--allowedTools", "WebSearch"])
      expect(ran.code, ran.stderr).toBe(0)
      const main = fake.requests[first]!.body
      expect(main.tools.map((t: { name: string }) => t.name)).toContain("WebSearch")
      const search = fake.requests[first + 1]!.body
      expect(search.tools).toEqual([
        {
          type: "web_search_20250305",
          name: "web_search",
          max_uses: 8,
          allowed_domains: ["effect.website", "github.com"]
        }
      ])
      expect(search.tool_choice).toEqual({ type: "tool", name: "web_search" })
      expect(search.messages).toEqual([{
        role: "user",
        content: [{ type: "text", text: "Perform a web search for the query: effect typescript library" }]
      }])
      expect(resultOf(ran.stdout, "toolu_ws").content).toBe(
        "Web search results for query: \"effect typescript library\"\n\n" +
          "I'll search.\n\n" +
          "Links: [{\"title\":\"Effect – TypeScript\",\"url\":\"https://effect.website/\"},{\"title\":\"Effect-TS/effect\",\"url\":\"https://github.com/Effect-TS/effect\"}]\n\n" +
          "Effect is a TypeScript library.\n\n\n" +
          "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."
      )
      // the model got that result in its next turn
      expect(JSON.stringify(fake.requests[first + 2]!.body.messages)).toContain("Links: [")
    },
    120_000
  )

  it("both domain filters at once: Claude Code's validation error", async () => {
    const project = fs.realpathSync(tempDir("toolgate-ws-"))
    const both = { ...searchUse, input: { query: "x y", allowed_domains: ["a.com"], blocked_domains: ["b.com"] } }
    fake.enqueue(turn([both], "tool_use", project, 1), turn([{ type: "text", text: "ok" }], "end_turn", project, 2))
    const ran = await run(project, ["--allowedTools", "WebSearch"])
    expect(resultOf(ran.stdout, "toolu_ws")).toMatchObject({
      is_error: true,
      content:
        "<tool_use_error>Error: Cannot specify both allowed_domains and blocked_domains in the same request</tool_use_error>"
    })
  }, 120_000)
})

const question = {
  type: "tool_use",
  id: "toolu_q1",
  name: "AskUserQuestion",
  input: {
    questions: [
      {
        question: "Which color do you prefer?",
        header: "Color",
        options: [{ label: "Red", description: "warm" }, { label: "Blue", description: "cool" }],
        multiSelect: false
      },
      {
        question: "Which sizes?",
        header: "Sizes",
        options: [{ label: "S", description: "small" }, { label: "M", description: "medium" }, {
          label: "L",
          description: "large"
        }],
        multiSelect: true
      }
    ]
  }
}

const scripted = (dir: string) => {
  const file = path.join(dir, "ask.jsonl")
  const lines = [
    { type: "turn", delay_ms: 0, content: [question] },
    { type: "turn", delay_ms: 0, content: [{ type: "text", text: "Noted." }] }
  ]
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"))
  return file
}

describe("AskUserQuestion", () => {
  it(
    "where nobody can answer, the tool is withheld with Claude Code's text (also from the model's tool list)",
    async () => {
      const project = fs.realpathSync(tempDir("toolgate-ask-"))
      const ran = await runCliInProcess([
        "run",
        "-p",
        "ask me",
        "--replay",
        scripted(project),
        "--replay-speed",
        "0",
        "--output-format",
        "stream-json"
      ], {
        cwd: project,
        env: cleanEnv(),
        timeoutMs: 90_000
      })
      expect(ran.code, ran.stderr).toBe(0)
      const lines = ran.stdout.trim().split("\n").map((l) => JSON.parse(l))
      expect(lines[0].tools).not.toContain("AskUserQuestion")
      expect(resultOf(ran.stdout, "toolu_q1")).toMatchObject({
        is_error: true,
        content:
          "<tool_use_error>Error: No such tool available: AskUserQuestion. AskUserQuestion is disabled for this session, in subagents as well as here.</tool_use_error>"
      })
    },
    120_000
  )

  it("at a terminal: a question form; the answers reach the model in Claude Code's words", async () => {
    const project = fs.realpathSync(tempDir("toolgate-ask-"))
    const sessionDir = path.join(project, ".session")
    const term = await spawnCliPty([
      "run",
      "--replay",
      scripted(project),
      "--replay-speed",
      "0",
      "--session-dir",
      sessionDir
    ], { cwd: project, env: cleanEnv() })
    try {
      let at = await term.waitFor(/› *$/)
      term.type("ask me\r")
      at = await term.waitFor(
        /\[Color\] Which color do you prefer\?[\s\S]*2\. Blue[\s\S]*3\. Other[\s\S]*Answer \[1-3[^\]]*\]: *$/,
        at
      )
      term.type("2\r")
      at = await term.waitFor(/\[Sizes\] Which sizes\?[\s\S]*Answer \[1-4[^\]]*\]: *$/, at)
      term.type("1,3\r")
      await term.waitFor(/Noted\.[\s\S]*› *$/, at)
      term.type("/exit\r")
      expect(await term.exited).toBe(0)
    } finally {
      term.close()
    }
    const calls = fs
      .readFileSync(path.join(sessionDir, "transcript.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === "tool_call")
    expect(calls[0]).toMatchObject({
      name: "AskUserQuestion",
      is_error: false,
      result:
        "Your questions have been answered: \"Which color do you prefer?\"=\"Blue\", \"Which sizes?\"=\"S, L\". You can now continue with these answers in mind."
    })
  }, 120_000)
})
