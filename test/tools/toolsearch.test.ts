import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { contentText } from "../../src/Messages.js"
import type { ModelMessage } from "../../src/services/ModelClient.js"
import { makeRule } from "../../src/PermissionRules.js"
import { Scheduler } from "../../src/services/Scheduler.js"
import { apiSchemaOf, buildPool, ToolRegistry } from "../../src/services/ToolRegistry.js"
import type { AnyTool } from "../../src/Tool.js"
import { ReadTool } from "../../src/tools/Read.js"
import { maxResultsOf, ToolSearchTool } from "../../src/tools/ToolSearch.js"
import { estimateTokens, splitPool } from "../../src/services/DeferredTools/deferral.js"
import { DeferredTools, layer as deferredToolsLayer, planTurn } from "../../src/services/DeferredTools.js"
import { loadedToolNames } from "../../src/services/DeferredTools/loadedTools.js"
import {
  isFirstPartyBaseUrl,
  resolveMode,
  toolSearchMode,
  type ToolSearchMode
} from "../../src/services/DeferredTools/mode.js"
import {
  formatToolSearchResult,
  parseMatches,
  truncateDescription
} from "../../src/services/DeferredTools/resultText.js"
import { nameWords, parseQuery, searchTools } from "../../src/tools/toolsearch/search.js"
import {
  Always,
  fake,
  GithubIssue,
  GithubSearch,
  NotebookEditLike,
  SlackPinned,
  SlackSend,
  WebFetchLike,
  withEnv
} from "../fixtures/toolsearch/tools.js"
import { tempDir, testRuntime, testSession, toolUse } from "../support/runtime.js"

const ALWAYS: ToolSearchMode = { _tag: "Always" }
const OFF: ToolSearchMode = { _tag: "Off", reason: "ENABLE_TOOL_SEARCH is false" }
const deferrable = [NotebookEditLike, WebFetchLike, GithubIssue, GithubSearch, SlackSend]
const tools: ReadonlyArray<AnyTool> = buildPool([Always, ReadTool, ToolSearchTool, NotebookEditLike, WebFetchLike], [
  GithubIssue,
  GithubSearch,
  SlackSend,
  SlackPinned
], []).tools
const names = (list: ReadonlyArray<AnyTool>) => list.map((t) => t.name)

describe("ENABLE_TOOL_SEARCH and the other switches", () => {
  it.each([
    [{}, ALWAYS],
    [{ enableToolSearch: "" }, ALWAYS],
    [{ enableToolSearch: "true" }, ALWAYS],
    [{ enableToolSearch: "1" }, ALWAYS],
    [{ enableToolSearch: "something" }, ALWAYS],
    [{ enableToolSearch: "false" }, OFF],
    [{ enableToolSearch: "0" }, OFF],
    [{ enableToolSearch: "auto" }, { _tag: "Auto", percent: 10 }],
    [{ enableToolSearch: "AUTO:25" }, { _tag: "Auto", percent: 25 }],
    [{ enableToolSearch: "auto:0" }, { _tag: "Auto", percent: 0 }],
    [{ enableToolSearch: "auto:150" }, { _tag: "Auto", percent: 10 }],
    [{ baseUrl: "https://api.anthropic.com" }, ALWAYS],
    [{ baseUrl: "http://127.0.0.1:8080" }, {
      _tag: "Off",
      reason: expect.stringContaining("ANTHROPIC_BASE_URL (http://127.0.0.1:8080)")
    }],
    [{ baseUrl: "https://llm-proxy.example.com/v1" }, {
      _tag: "Off",
      reason: expect.stringContaining("set ENABLE_TOOL_SEARCH=true")
    }],
    [{ baseUrl: "http://127.0.0.1:8080", enableToolSearch: "true" }, ALWAYS],
    [{ baseUrl: "http://127.0.0.1:8080", enableToolSearch: "auto:5" }, { _tag: "Auto", percent: 5 }],
    [{ enableToolSearch: "true", disableExperimentalBetas: "1" }, {
      _tag: "Off",
      reason: "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS is set"
    }],
    [{ disableExperimentalBetas: "0" }, ALWAYS]
  ])("%o → %o", (env, expected) => {
    expect(resolveMode(env)).toEqual(expected)
  })

  it("first-party means anthropic.com over HTTPS", () => {
    expect(isFirstPartyBaseUrl("https://api.anthropic.com/")).toBe(true)
    expect(isFirstPartyBaseUrl("https://anthropic.com.evil.example")).toBe(false)
    expect(isFirstPartyBaseUrl("http://api.anthropic.com")).toBe(false)
    expect(isFirstPartyBaseUrl("not a url")).toBe(false)
  })

  it.effect("read from the environment through Config; ToolSearch is disabled (out of the pool) when it is off", () =>
    Effect.gen(function*() {
      expect(yield* toolSearchMode.pipe(withEnv({ ENABLE_TOOL_SEARCH: "auto:3" }))).toEqual({
        _tag: "Auto",
        percent: 3
      })
      expect(yield* toolSearchMode.pipe(withEnv({ ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }))).toMatchObject({
        _tag: "Off"
      })
      expect(yield* ToolSearchTool.isEnabled.pipe(withEnv({ ENABLE_TOOL_SEARCH: "false" }))).toBe(false)
      expect(yield* ToolSearchTool.isEnabled.pipe(withEnv({}))).toBe(true)
    }))
})

describe("the pool split into loaded and deferred tools", () => {
  it("unset / true: MCP tools (unless always loaded) and deferrable built-ins are deferred; ToolSearch is loaded", () => {
    const split = splitPool(tools, ALWAYS, 200_000)
    expect(split.active).toBe(true)
    expect(names(split.deferred)).toEqual([
      "NotebookEdit",
      "WebFetch",
      "mcp__github__create_issue",
      "mcp__github__search_code",
      "mcp__slack__send_message"
    ])
    expect(names(split.loaded)).toEqual(["Always", "Read", "ToolSearch", "mcp__slack__list_channels"])
  })

  it("false: nothing is deferred and ToolSearch is not sent", () => {
    const split = splitPool(tools, OFF, 200_000)
    expect(split).toMatchObject({
      active: false,
      deferred: [],
      reason: "tool search is off: ENABLE_TOOL_SEARCH is false"
    })
    expect(names(split.loaded)).toEqual([
      "Always",
      "NotebookEdit",
      "Read",
      "WebFetch",
      "mcp__github__create_issue",
      "mcp__github__search_code",
      "mcp__slack__list_channels",
      "mcp__slack__send_message"
    ])
  })

  it("auto / auto:N: deferred only when the deferrable tools take at least N% of the context budget", () => {
    const tokens = estimateTokens(deferrable)
    expect(tokens).toBeGreaterThan(100)
    // 10% of 200000 = 20000 tokens: these few small tools stay loaded.
    expect(splitPool(tools, { _tag: "Auto", percent: 10 }, 200_000)).toMatchObject({ active: false, deferred: [] })
    // exactly at the threshold counts (≥)
    expect(splitPool(tools, { _tag: "Auto", percent: 10 }, tokens * 10).active).toBe(true)
    expect(splitPool(tools, { _tag: "Auto", percent: 10 }, tokens * 10 + 10).active).toBe(false)
    expect(splitPool(tools, { _tag: "Auto", percent: 0 }, 200_000).active).toBe(true)
  })

  it("denying ToolSearch removes it from the pool and turns deferral off", () => {
    const denied = buildPool([Always, ToolSearchTool, NotebookEditLike], [GithubIssue], [
      makeRule("ToolSearch", "deny", "projectSettings", "/")
    ])
    expect(names(denied.tools)).toEqual(["Always", "NotebookEdit", "mcp__github__create_issue"])
    expect(splitPool(denied.tools, ALWAYS, 200_000)).toMatchObject({
      active: false,
      reason: expect.stringContaining("ToolSearch is not in the tool pool")
    })
  })

  it("a pool with nothing deferrable does not send ToolSearch", () => {
    const split = splitPool([Always, ReadTool, ToolSearchTool], ALWAYS, 200_000)
    expect(split).toMatchObject({ active: false, reason: "no tool in the pool is deferrable" })
    expect(names(split.loaded)).toEqual(["Always", "Read"])
  })
})

describe("ToolSearch queries", () => {
  const scope = { pool: tools, deferred: splitPool(tools, ALWAYS, 200_000).deferred }
  const find = (query: string, max = 5) => {
    const outcome = searchTools(parseQuery(query), scope, max)
    return { matches: names(outcome.matches), unknown: outcome.unknown }
  }

  it("parses select:, keywords and +required terms", () => {
    expect(parseQuery(" select: A , B,,A ")).toEqual({ _tag: "Select", names: ["A", "B"] })
    expect(parseQuery("+GitHub issue  +")).toEqual({
      _tag: "Keywords",
      text: "+github issue  +",
      required: ["github"],
      optional: ["issue"]
    })
    expect(nameWords("mcp__github__create_issue")).toEqual(["github", "create", "issue"])
    expect(nameWords("NotebookEdit")).toEqual(["notebook", "edit"])
  })

  it("select: exact names from the whole pool, in the order asked, case-insensitive as a fallback; unknown names reported", () => {
    expect(find("select:mcp__slack__send_message,NotebookEdit")).toEqual({
      matches: ["mcp__slack__send_message", "NotebookEdit"],
      unknown: []
    })
    expect(find("select:notebookedit,Nope,Read,ToolSearch")).toEqual({
      matches: ["NotebookEdit", "Read"],
      unknown: ["Nope", "ToolSearch"]
    })
    // select ignores max_results
    expect(find("select:NotebookEdit,WebFetch,mcp__github__create_issue", 1).matches).toHaveLength(3)
  })

  it("keywords rank name words over name parts over search hints over descriptions", () => {
    // "issue": a name word of create_issue (10), only a description word of search_code (2)
    expect(find("issue").matches).toEqual(["mcp__github__create_issue", "mcp__github__search_code"])
    // "github": name words of both, tie broken by pool order
    expect(find("github").matches).toEqual(["mcp__github__create_issue", "mcp__github__search_code"])
    // "notebo": part of a name (5); "browse": a search hint (4); "channel": a description word (2)
    expect(find("notebo").matches).toEqual(["NotebookEdit"])
    expect(find("browse").matches).toEqual(["WebFetch"])
    expect(find("channel").matches).toEqual(["mcp__slack__send_message"])
    // the prompt counts as description
    expect(find("ipynb").matches).toEqual(["NotebookEdit"])
    // several terms add up: slack(10)+message(10) beats github's "message"-less tools
    expect(find("send github message").matches).toEqual([
      "mcp__slack__send_message",
      "mcp__github__create_issue",
      "mcp__github__search_code"
    ])
  })

  it("+required terms must match; max_results limits; the whole name first; nothing for no match", () => {
    expect(find("+github issue").matches).toEqual(["mcp__github__create_issue", "mcp__github__search_code"])
    // a required term alone is enough to match; optional ones only rank
    expect(find("+slack issue").matches).toEqual(["mcp__slack__send_message"])
    expect(find("+slack +issue").matches).toEqual([])
    expect(find("+github +search").matches).toEqual(["mcp__github__search_code"])
    expect(find("github", 1).matches).toEqual(["mcp__github__create_issue"])
    expect(find("mcp__github__search_code").matches[0]).toBe("mcp__github__search_code")
    expect(find("kubernetes").matches).toEqual([])
    expect(find("   ").matches).toEqual([])
    // loaded tools are not searched by keywords
    expect(find("read").matches).toEqual([])
    expect([maxResultsOf(undefined), maxResultsOf(0), maxResultsOf(3.7), maxResultsOf(1000)]).toEqual([5, 5, 3, 50])
  })
})

describe("ToolSearch results and the tools of the next turn", () => {
  const cwd = tempDir("toolsearch-")
  const session = testSession(cwd)
  const runtime = (pool: ReadonlyArray<AnyTool>) =>
    Layer.provideMerge(deferredToolsLayer, testRuntime({ tools: pool, cwd }))

  const assistant = (content: ReadonlyArray<Record<string, unknown>>): ModelMessage => ({ role: "assistant", content })

  it.effect("a deferred tool's schema, loaded by a ToolSearch call, is in the next turn's API tool list; the tool then runs", () =>
    Effect.gen(function*() {
      const deferredTools = yield* DeferredTools
      const scheduler = yield* Scheduler
      const first = yield* deferredTools.forTurn([])
      expect(first.apiTools.map((d) => d.name)).toEqual(["Always", "Read", "ToolSearch", "mcp__slack__list_channels"])
      expect(first.promptTools.map((t) => t.name)).toEqual([
        "Always",
        "Read",
        "ToolSearch",
        "mcp__slack__list_channels"
      ])
      expect(first.loadedNames).toEqual([])
      expect(first.systemPromptSection).toContain(
        "<available-deferred-tools>\nNotebookEdit\nWebFetch\nmcp__github__create_issue\nmcp__github__search_code\nmcp__slack__send_message\n</available-deferred-tools>"
      )

      const call = toolUse("ts1", "ToolSearch", { query: "+github issue", max_results: "1" })
      const run = yield* scheduler.runMessage([call], { session })
      const text = contentText(run.outcomes[0]!.result.content)
      const lines = text.split("\n")
      expect(JSON.parse(lines[0]!)).toEqual({
        matches: ["mcp__github__create_issue"],
        query: "+github issue",
        total_deferred_tools: 5
      })
      expect(lines[1]).toBe(
        "Loaded 1 tool: mcp__github__create_issue. The definitions follow; from your next message on these tools are in your tool list and you can call them."
      )
      expect(JSON.parse(lines[3]!.replace(/^<function>|<\/function>$/g, ""))).toEqual({
        ...apiSchemaOf(GithubIssue),
        description: GithubIssue.prompt
      })

      const messages = [assistant([call]), run.message as unknown as ModelMessage]
      const next = yield* deferredTools.forTurn(messages)
      expect(next.apiTools.map((d) => d.name)).toEqual([
        "Always",
        "Read",
        "ToolSearch",
        "mcp__github__create_issue",
        "mcp__slack__list_channels"
      ])
      expect(next.apiTools).toContainEqual(apiSchemaOf(GithubIssue))
      expect(next.loadedNames).toEqual(["mcp__github__create_issue"])
      // The system prompt does not change when a tool is loaded (prompt cache).
      expect(next.systemPromptSection).toBe(first.systemPromptSection)
      expect(next.promptTools).toEqual(first.promptTools)

      const used = yield* scheduler.runMessage([toolUse("u1", "mcp__github__create_issue", { text: "bug" })], {
        session
      })
      expect(contentText(used.outcomes[0]!.result.content)).toBe("mcp__github__create_issue ran with bug")
    }).pipe(Effect.provide(runtime(tools)), withEnv({ ENABLE_TOOL_SEARCH: "true" })))

  it.effect("with tool search off, every tool is sent in full and ToolSearch is not in the pool", () =>
    Effect.gen(function*() {
      const turn = yield* (yield* DeferredTools).forTurn([])
      expect(turn.split.active).toBe(false)
      expect(turn.apiTools.map((d) => d.name)).toEqual(names(tools).filter((n) => n !== "ToolSearch"))
      expect(turn.systemPromptSection).toBeUndefined()
      const pool = yield* (yield* ToolRegistry).pool
      expect(pool.lookup("ToolSearch")).toBeUndefined()
    }).pipe(Effect.provide(runtime(tools)), withEnv({ ENABLE_TOOL_SEARCH: "false" })))

  it.effect("select: with unknown names says so; no match says so; the result is never spilled", () =>
    Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const run = yield* scheduler.runMessage(
        [
          toolUse("a", "ToolSearch", { query: "select:Nope,WebFetch" }),
          toolUse("b", "ToolSearch", { query: "kubernetes" })
        ],
        { session }
      )
      const [a, b] = run.outcomes.map((o) => contentText(o.result.content))
      expect(a!.split("\n").slice(0, 3)).toEqual([
        "{\"matches\":[\"WebFetch\"],\"query\":\"select:Nope,WebFetch\",\"total_deferred_tools\":5}",
        "No tool named: Nope.",
        "Loaded 1 tool: WebFetch. The definitions follow; from your next message on these tools are in your tool list and you can call them."
      ])
      expect(b).toBe(
        "{\"matches\":[],\"query\":\"kubernetes\",\"total_deferred_tools\":5}\nNo matching deferred tools found. Try other keywords, or select:<name> with names from the deferred tools list."
      )
      expect(ToolSearchTool.maxResultSizeChars).toBe(Number.POSITIVE_INFINITY)
      expect([
        ToolSearchTool.isReadOnly({ query: "" }),
        ToolSearchTool.isConcurrencySafe({ query: "" }),
        ToolSearchTool.shouldDefer
      ]).toEqual([true, true, false])
    }).pipe(Effect.provide(runtime(tools)), withEnv({})))

  it.effect("outside a runtime ToolSearch fails clearly", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ToolSearchTool.call({ query: "x" }, undefined as never))
      expect(error.reason).toBe("ToolSearch is not available here: the runtime has no tool registry")
    }))
})

describe("loaded tools are read from the conversation", () => {
  const search = (id: string, query = "q"): ModelMessage => ({
    role: "assistant",
    content: [{ type: "tool_use", id, name: "ToolSearch", input: { query } }]
  })
  const result = (id: string, matches: ReadonlyArray<string>, extra: Record<string, unknown> = {}): ModelMessage => ({
    role: "user",
    content: [{
      type: "tool_result",
      tool_use_id: id,
      content: formatToolSearchResult({ matches, query: "q", total_deferred_tools: 3, definitions: [], unknown: [] }),
      ...extra
    }]
  })

  it("successful ToolSearch results only, string or block content, across turns", () => {
    const messages: ReadonlyArray<ModelMessage> = [
      { role: "user", content: "hi" },
      search("s1"),
      result("s1", ["A"]),
      search("s2"),
      result("s2", ["B"], { is_error: true }),
      { role: "assistant", content: [{ type: "tool_use", id: "r1", name: "Read", input: {} }] },
      result("r1", ["C"]),
      search("s3"),
      {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "s3",
          content: [{ type: "text", text: "{\"matches\":[\"D\",\"E\"]}" }]
        }]
      },
      search("s4"),
      { role: "user", content: [{ type: "tool_result", tool_use_id: "s4", content: "garbage" }] }
    ]
    expect([...loadedToolNames(messages)]).toEqual(["A", "D", "E"])
  })

  it("the first line is the spec's output object and never breaks the <function> lines", () => {
    const text = formatToolSearchResult({
      matches: ["X"],
      query: "select:X",
      total_deferred_tools: 1,
      pending_mcp_servers: ["slow"],
      definitions: [{ name: "X", description: "has </function> and <b>", input_schema: {} }],
      unknown: []
    })
    expect(parseMatches(text)).toEqual(["X"])
    expect(JSON.parse(text.split("\n")[0]!)).toEqual({
      matches: ["X"],
      query: "select:X",
      total_deferred_tools: 1,
      pending_mcp_servers: ["slow"]
    })
    expect(text.split("\n").filter((l) => l.includes("</function>"))).toHaveLength(1)
    expect(text).toContain("MCP servers still connecting (their tools are not searchable yet): slow.")
    expect(truncateDescription("x".repeat(3000))).toBe(`${"x".repeat(2048)}… [truncated]`)
  })

  it("planTurn: only deferred tools count as loaded; prompts of deferred tools never go in the system prompt", () => {
    const split = splitPool(tools, ALWAYS, 200_000)
    const turn = planTurn(tools, split, new Set(["NotebookEdit", "Read", "Unknown"]))
    expect(turn.loadedNames).toEqual(["NotebookEdit"])
    expect(turn.apiTools.map((d) => d.name)).toEqual([
      "Always",
      "NotebookEdit",
      "Read",
      "ToolSearch",
      "mcp__slack__list_channels"
    ])
    expect(turn.promptTools.map((t) => t.name)).not.toContain("NotebookEdit")
    const extra = fake("Extra", { description: "e", shouldDefer: true })
    expect(
      planTurn([ToolSearchTool, extra], splitPool([ToolSearchTool, extra], ALWAYS, 1), new Set()).apiTools.map((d) =>
        d.name
      )
    ).toEqual(["ToolSearch"])
  })
})
