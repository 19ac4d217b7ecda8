import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer, Stream, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import { afterAll, beforeAll } from "vitest"
import { CallPipeline } from "../../src/services/CallPipeline.js"
import { ModelClient, type ModelRequest } from "../../src/services/ModelClient.js"
import * as Settings from "../../src/services/Settings.js"
import { makeRule } from "../../src/PermissionRules.js"
import type { PermissionMode, RuleBehavior } from "../../src/Permission.js"
import { makeWebFetchTool } from "../../src/tools/WebFetch.js"
import { classifyAddress } from "../../src/tools/webfetch/addresses.js"
import { fetchPage, isSameHostRedirect } from "../../src/tools/webfetch/fetchPage.js"
import { resolveChecked } from "../../src/tools/webfetch/guardedLookup.js"
import { checkUrl, internalAccessFrom, NO_INTERNAL_ACCESS } from "../../src/tools/webfetch/urlPolicy.js"
import { newSession } from "../../src/Session.js"
import { HUGE_TOTAL_BYTES, startWebServer, type WebServer } from "../fixtures/web/server.js"
import { tempDir, testRuntime, toolUse } from "../support/runtime.js"
import * as Permission from "../../src/Permission.js"

let server: WebServer
beforeAll(async () => {
  server = await startWebServer()
})
const dirs: Array<string> = []
afterAll(async () => {
  await server.close()
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

const rules = (cwd: string, list: ReadonlyArray<readonly [string, RuleBehavior]>) =>
  list.map(([raw, behavior]) => makeRule(raw, behavior, "session", cwd))

const runtimeWith = (list: ReadonlyArray<readonly [string, RuleBehavior]>) => {
  const cwd = tempDir("toolgate-webfetch-")
  dirs.push(cwd)
  const tool = makeWebFetchTool()
  return {
    cwd,
    tool,
    layer: testRuntime({ tools: [tool], cwd, settings: Settings.layerStatic({ cwd, rules: rules(cwd, list) }) })
  }
}

const call = (cwd: string, input: unknown, mode: PermissionMode = "default", id = "toolu_1") =>
  Effect.gen(function*() {
    const pipeline = yield* CallPipeline
    const prepared = yield* pipeline.prepare(toolUse(id, "WebFetch", input), 0)
    return yield* pipeline.run(prepared, {
      session: newSession({ cwd, permissionMode: mode, sessionDir: `${cwd}/.session` })
    })
  })

const withEnv = (entries: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))

const text = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content))

describe("WebFetch through the pipeline, against a local server (allowed by WebFetch(domain:127.0.0.1))", () => {
  const { cwd, layer } = runtimeWith([["WebFetch(domain:127.0.0.1)", "allow"]])

  const live = (name: string, body: () => Effect.Effect<void, unknown, any>) =>
    it.live(name, () => body().pipe(Effect.provide(layer)) as Effect.Effect<void, unknown>)
  {
    live(
      "turns HTML into Markdown without scripts or styles (no model configured: the Markdown is the result)",
      () =>
        Effect.gen(function*() {
          const outcome = yield* call(cwd, { url: `${server.origin}/page`, prompt: "What is the title?" })
          expect(outcome.result.is_error).toBeUndefined()
          const content = text(outcome.result.content)
          expect(content).toContain("# Hello toolgate")
          expect(content).toContain("Some **bold** text and a [link](/next).")
          expect(content).toMatch(/-\s+one/)
          expect(content).not.toContain("do not show")
          expect(content).not.toContain("color:red")
        })
    )

    live("returns plain text and JSON as they are, and refuses binary content", () =>
      Effect.gen(function*() {
        expect(text((yield* call(cwd, { url: `${server.origin}/plain`, prompt: "p" })).result.content)).toBe(
          "just text\n"
        )
        expect(text((yield* call(cwd, { url: `${server.origin}/json`, prompt: "p" })).result.content)).toBe("{\"a\":1}")
        const image = yield* call(cwd, { url: `${server.origin}/image`, prompt: "p" })
        expect(image.result.is_error).toBe(true)
        expect(text(image.result.content)).toContain("WebFetch reads text and HTML only")
        expect(text(image.result.content)).toContain("image/png")
      }))

    live("offset reads the page text from a character position; past the end it says so", () =>
      Effect.gen(function*() {
        expect(text((yield* call(cwd, { url: `${server.origin}/plain`, prompt: "p", offset: 5 })).result.content)).toBe(
          "text\n"
        )
        const past = yield* call(cwd, { url: `${server.origin}/plain`, prompt: "p", offset: 99 })
        expect(past.result.is_error).toBe(true)
        expect(text(past.result.content)).toBe("offset 99 is past the end of the page text (10 characters).")
      }))

    live("follows a same-host redirect", () =>
      Effect.gen(function*() {
        const outcome = yield* call(cwd, { url: `${server.origin}/same-host-redirect`, prompt: "p" })
        expect(text(outcome.result.content)).toContain("# Hello toolgate")
      }))

    live("stops after 10 same-host redirects", () =>
      Effect.gen(function*() {
        const outcome = yield* call(cwd, { url: `${server.origin}/redirect-chain`, prompt: "p" })
        expect(outcome.result.is_error).toBe(true)
        expect(text(outcome.result.content)).toContain("too many redirects (more than 10)")
      }))

    live("reports a redirect to another host instead of following it", () =>
      Effect.gen(function*() {
        const outcome = yield* call(cwd, { url: `${server.origin}/other-host-redirect`, prompt: "Summarise" })
        expect(outcome.result.is_error).toBeUndefined()
        expect(text(outcome.result.content)).toBe(`REDIRECT DETECTED: The URL redirects to a different host.

Original URL: ${server.origin}/other-host-redirect
Redirect URL: https://example.org/moved?x=1
Status: 301 Moved Permanently

To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:
- url: "https://example.org/moved?x=1"
- prompt: "Summarise"`)
      }))

    live("a 404 is a tool error naming the status", () =>
      Effect.gen(function*() {
        const outcome = yield* call(cwd, { url: `${server.origin}/missing`, prompt: "p" })
        expect(outcome.result.is_error).toBe(true)
        expect(outcome.error?._tag).toBe("ToolFailed")
        expect(text(outcome.result.content)).toBe(
          `Request failed with status code 404 (Not Found): ${server.origin}/missing`
        )
      }))

    live("a slow server hits the timeout (TOOLGATE_WEBFETCH_TIMEOUT_MS)", () =>
      Effect.gen(function*() {
        const outcome = yield* call(cwd, { url: `${server.origin}/slow`, prompt: "p" }).pipe(
          withEnv({ TOOLGATE_WEBFETCH_TIMEOUT_MS: "300" })
        )
        expect(outcome.result.is_error).toBe(true)
        expect(text(outcome.result.content)).toBe(`WebFetch timed out after 300 ms fetching ${server.origin}/slow.`)
      }))

    live(
      "a huge page is read up to 10 MB only, the download stops there, and the result is spilled to a file",
      () =>
        Effect.gen(function*() {
          const outcome = yield* call(cwd, { url: `${server.origin}/huge`, prompt: "p" }, "default", "toolu_huge")
          expect(outcome.result.is_error).toBeUndefined()
          const content = text(outcome.result.content)
          expect(content).toContain("<persisted-output>")
          const saved = `${cwd}/.session/tool-results/toolu_huge.txt`
          expect(content).toContain(saved)
          const full = fs.readFileSync(saved, "utf8")
          expect(full.startsWith("x".repeat(1023))).toBe(true)
          expect(full).toContain("[Content truncated: the page is larger than 10 MB; only the first 10 MB were read.]")
          expect(full.length).toBeLessThan(10 * 1024 * 1024 + 200)
          // the client stopped reading at the cap: the server could not push the whole body
          expect(server.hugeBytesSent()).toBeLessThan(HUGE_TOTAL_BYTES)
        })
    )

    live("caches a page for 15 minutes by URL", () =>
      Effect.gen(function*() {
        const before = server.hits.get("/counted") ?? 0
        yield* call(cwd, { url: `${server.origin}/counted`, prompt: "a" })
        yield* call(cwd, { url: `${server.origin}/counted`, prompt: "b" })
        expect(server.hits.get("/counted")).toBe(before + 1)
      }))

    live(
      "refuses non-URLs in the schema, and file:, javascript:, data: in validateInput",
      () =>
        Effect.gen(function*() {
          const notUrl = yield* call(cwd, { url: "not a url", prompt: "p" })
          expect(text(notUrl.result.content)).toBe(
            `<tool_use_error>InputValidationError: ${
              JSON.stringify(
                [{ code: "invalid_format", format: "url", path: ["url"], message: "Invalid URL" }],
                null,
                2
              )
            }</tool_use_error>`
          )
          for (
            const [url, scheme] of [["file:///etc/passwd", "file"], ["javascript:alert(1)", "javascript"], [
              "data:text/html,<b>x</b>",
              "data"
            ]]
          ) {
            const outcome = yield* call(cwd, { url, prompt: "p" })
            expect(outcome.error?._tag).toBe("InputRejected")
            expect(text(outcome.result.content)).toBe(
              `<tool_use_error>WebFetch only fetches http:// and https:// URLs; "${scheme}" URLs are refused.</tool_use_error>`
            )
          }
          const strict = yield* call(cwd, { url: `${server.origin}/page`, prompt: "p", extra: 1 })
          expect(text(strict.result.content)).toContain("An unexpected parameter `extra` was provided")
        })
    )

    live("refuses private targets that no rule names, even in bypassPermissions mode", () =>
      Effect.gen(function*() {
        // a host without a dot is never fetched (Claude Code's text)
        for (
          const url of [
            `http://localhost:${server.port}/page`,
            "http://[::1]/",
            "http://[fd00::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://intranet/"
          ]
        ) {
          const outcome = yield* call(cwd, { url, prompt: "p" }, "bypassPermissions")
          expect(outcome.result.is_error).toBe(true)
          expect(text(outcome.result.content)).toContain(
            "WebFetch cannot fetch localhost or other hostnames without a dot. To reach a local server, use Bash with curl instead."
          )
        }
        for (
          const [url, host, what] of [
            [`http://127.0.0.2:${server.port}/page`, "127.0.0.2", "a loopback address"],
            ["http://10.1.2.3/", "10.1.2.3", "a private network address"],
            ["http://172.20.0.1/", "172.20.0.1", "a private network address"],
            ["http://192.168.1.1/", "192.168.1.1", "a private network address"],
            ["http://169.254.169.254/latest/meta-data/", "169.254.169.254", "a link-local address"],
            ["http://0.0.0.0/", "0.0.0.0", "a loopback address"]
          ] as const
        ) {
          const outcome = yield* call(cwd, { url, prompt: "p" }, "bypassPermissions")
          expect(outcome.result.is_error).toBe(true)
          expect(text(outcome.result.content)).toContain(`${host} is ${what}`)
          expect(text(outcome.result.content)).toContain(`WebFetch(domain:${host})`)
        }
      }))
  }
})

describe("WebFetch permissions through the real Permissions stage", () => {
  it.live("without an allow rule naming 127.0.0.1, the local server is refused (decimal form too)", () => {
    const { cwd, layer } = runtimeWith([["WebFetch(domain:*)", "allow"]])
    return Effect.gen(function*() {
      const outcome = yield* call(cwd, { url: `${server.origin}/page`, prompt: "p" }, "bypassPermissions")
      expect(outcome.result.is_error).toBe(true)
      expect(text(outcome.result.content)).toContain("127.0.0.1 is a loopback address")
      const decimal = yield* call(
        cwd,
        { url: `http://2130706433:${server.port}/page`, prompt: "p" },
        "bypassPermissions"
      )
      expect(text(decimal.result.content)).toContain("127.0.0.1 is a loopback address")
    }).pipe(Effect.provide(layer))
  })

  it.live("an internal host no rule approves asks first, as in Claude Code (with nobody to ask: denied, nothing fetched)", () => {
    const { cwd, layer } = runtimeWith([])
    return Effect.gen(function*() {
      const outcome = yield* call(cwd, { url: `${server.origin}/page`, prompt: "p" })
      expect(Permission.behaviorOf(outcome.decision!)).toBe("ask")
      expect(text(outcome.result.content)).toBe(
        "Claude requested permissions to use WebFetch, but you haven't granted it yet."
      )
    }).pipe(Effect.provide(layer))
  })

  it.live("a domain deny rule wins over the allow rule", () => {
    const { cwd, layer } = runtimeWith([
      ["WebFetch(domain:127.0.0.1)", "allow"],
      ["WebFetch(domain:127.0.0.1)", "deny"]
    ])
    return Effect.gen(function*() {
      const outcome = yield* call(cwd, { url: `${server.origin}/page`, prompt: "p" })
      expect(outcome.error?._tag).toBe("PermissionDenied")
      expect(text(outcome.result.content)).toBe("WebFetch denied access to domain:127.0.0.1.")
    }).pipe(Effect.provide(layer))
  })

  it.live("a host no rule allows asks, and with nobody to ask it is denied (nothing fetched)", () => {
    const { cwd, layer } = runtimeWith([])
    return Effect.gen(function*() {
      const outcome = yield* call(cwd, { url: "https://example.org/", prompt: "p" })
      expect(outcome.error?._tag).toBe("PermissionDenied")
      expect(Permission.behaviorOf(outcome.decision!)).toBe("ask")
    }).pipe(Effect.provide(layer))
  })

  it.live("the input the call finally gets is checked (a hook or approval cannot slip an internal host past)", () =>
    Effect.gen(function*() {
      const tool = makeWebFetchTool()
      const session = newSession({ cwd: os.tmpdir(), permissionMode: "bypassPermissions" })
      const refused = yield* Effect.either(
        tool.call(
          { url: "http://192.168.0.10/", prompt: "p" },
          {
            toolUseId: "t",
            session,
            fileState: undefined as never,
            reportProgress: () => Effect.void
          } as never
        )
      )
      expect(Either.isLeft(refused) && refused.left.reason).toContain("192.168.0.10 is a private network address")
    }))
})

describe("WebFetch URL policy", () => {
  it("classifies addresses", () => {
    expect(classifyAddress("127.0.0.1")).toBe("loopback")
    expect(classifyAddress("0.0.0.0")).toBe("loopback")
    expect(classifyAddress("10.255.0.1")).toBe("private")
    expect(classifyAddress("172.15.0.1")).toBe("public")
    expect(classifyAddress("172.16.0.1")).toBe("private")
    expect(classifyAddress("172.31.255.255")).toBe("private")
    expect(classifyAddress("172.32.0.1")).toBe("public")
    expect(classifyAddress("192.168.0.1")).toBe("private")
    expect(classifyAddress("169.254.1.1")).toBe("link-local")
    expect(classifyAddress("8.8.8.8")).toBe("public")
    expect(classifyAddress("::1")).toBe("loopback")
    expect(classifyAddress("::")).toBe("loopback")
    expect(classifyAddress("fc00::1")).toBe("private")
    expect(classifyAddress("fdff:ffff::1")).toBe("private")
    expect(classifyAddress("fe80::1%eth0")).toBe("link-local")
    expect(classifyAddress("::ffff:10.0.0.1")).toBe("private")
    expect(classifyAddress("::ffff:8.8.8.8")).toBe("public")
    expect(classifyAddress("64:ff9b::a00:1")).toBe("private")
    expect(classifyAddress("2606:4700::1111")).toBe("public")
    expect(classifyAddress("example.com")).toBeUndefined()
  })

  it("upgrades http to https except for loopback hosts, and refuses credentials", () => {
    const access = internalAccessFrom(rules("/", [["WebFetch(domain:127.0.0.1)", "allow"]]))
    const upgraded = checkUrl("http://example.com/a?b=1", access)
    expect(upgraded.ok && upgraded.url.href).toBe("https://example.com/a?b=1")
    const local = checkUrl("http://127.0.0.1:8080/x", access)
    expect(local.ok && local.url.href).toBe("http://127.0.0.1:8080/x")
    const creds = checkUrl("https://user:pw@example.com/", access)
    expect(creds.ok).toBe(false)
  })

  it("only explicit host rules open internal hosts: not wildcards, not deny rules, not other tools", () => {
    const access = internalAccessFrom(
      rules("/", [
        ["WebFetch(domain:*)", "allow"],
        ["WebFetch(domain:*.corp)", "allow"],
        ["WebFetch(domain:10.0.0.1)", "deny"],
        ["Bash(domain:10.0.0.2)", "allow"],
        ["WebFetch(domain:Wiki.Corp.)", "allow"],
        ["WebFetch(domain:[::1])", "allow"]
      ])
    )
    expect([...access.hosts].sort()).toEqual(["::1", "wiki.corp"])
    expect(access.allows("wiki.corp")).toBe(true)
    expect(access.allows("[::1]")).toBe(true)
    expect(access.allows("10.0.0.1")).toBe(false)
  })

  it("same-host redirects: same host (www. aside), port and scheme (or an upgrade to https)", () => {
    const from = new URL("https://example.com/a")
    expect(isSameHostRedirect(from, new URL("https://example.com/b"))).toBe(true)
    expect(isSameHostRedirect(from, new URL("https://www.example.com/b"))).toBe(true)
    expect(isSameHostRedirect(from, new URL("https://evil.com/b"))).toBe(false)
    expect(isSameHostRedirect(from, new URL("http://example.com/b"))).toBe(false)
    expect(isSameHostRedirect(from, new URL("https://example.com:8443/b"))).toBe(false)
    expect(isSameHostRedirect(from, new URL("https://u:p@example.com/b"))).toBe(false)
    expect(isSameHostRedirect(new URL("http://example.com/"), new URL("https://example.com/b"))).toBe(true)
  })

  it("host names are checked on what they resolve to", async () => {
    const toPrivate = async () => [{ address: "10.0.0.7", family: 4 }]
    await expect(resolveChecked("intranet.example", NO_INTERNAL_ACCESS, "https://intranet.example/", toPrivate)).rejects
      .toThrow(
        "intranet.example resolves to 10.0.0.7, a private network address"
      )
    const mixed = async () => [{ address: "93.184.216.34", family: 4 }, { address: "::1", family: 6 }]
    await expect(resolveChecked("mixed.example", NO_INTERNAL_ACCESS, "https://mixed.example/", mixed)).rejects.toThrow(
      "resolves to ::1"
    )
    const named = internalAccessFrom(rules("/", [["WebFetch(domain:intranet.example)", "allow"]]))
    await expect(resolveChecked("intranet.example", named, "https://intranet.example/", toPrivate)).resolves
      .toHaveLength(1)
  })

  it.live("the connection itself refuses a host name that resolves inward (DNS rebinding), and allows it when a rule names it", () =>
    Effect.gen(function*() {
      const rebinding = async () => [{ address: "127.0.0.1", family: 4 }]
      const url = new URL(`http://rebind.example:${server.port}/plain`)
      const refused = yield* Effect.either(
        fetchPage(url, { access: NO_INTERNAL_ACCESS, maxBytes: 1000, userAgent: "t", resolver: rebinding })
      )
      expect(Either.isLeft(refused) && refused.left.reason).toContain(
        "rebind.example resolves to 127.0.0.1, a loopback address"
      )
      const access = internalAccessFrom(rules("/", [["WebFetch(domain:rebind.example)", "allow"]]))
      const allowed = yield* fetchPage(url, { access, maxBytes: 1000, userAgent: "t", resolver: rebinding })
      expect(allowed._tag === "Page" && Buffer.from(allowed.page.body).toString()).toBe("just text\n")
    }))

  const hostname = os.hostname()
  // Runs where /etc/hosts maps the machine's name to a loopback address (common on Linux).
  const hostResolvesToLoopback = (() => {
    try {
      return new RegExp(`^127\\.[0-9.]+[ \\t]+(.*[ \\t])?${hostname.replace(/[.]/g, "\\.")}([ \\t]|$)`, "m").test(
        fs.readFileSync("/etc/hosts", "utf8")
      )
    } catch {
      return false
    }
  })()
  it.live.skipIf(!hostResolvesToLoopback || !hostname.includes("."))(
    "through the tool: the machine's own host name (resolving to loopback) is refused",
    () => {
      const { cwd, layer } = runtimeWith([["WebFetch(domain:*)", "allow"]])
      return Effect.gen(function*() {
        const outcome = yield* call(
          cwd,
          { url: `http://${hostname}:${server.port}/page`, prompt: "p" },
          "bypassPermissions"
        )
        expect(outcome.result.is_error).toBe(true)
        expect(text(outcome.result.content)).toContain(`${hostname.toLowerCase()} resolves to 127.`)
      }).pipe(Effect.provide(layer))
    }
  )
})

describe("WebFetch with a model, and the cache's lifetime", () => {
  const { cwd, layer } = runtimeWith([["WebFetch(domain:127.0.0.1)", "allow"]])

  it.live("a configured ModelClient answers the prompt about the page's Markdown", () => {
    const requests: Array<ModelRequest> = []
    const fakeModel = Layer.succeed(ModelClient, {
      model: "fake-small-model",
      stream: (request) => {
        requests.push(request)
        return Stream.make(
          { _tag: "TextDelta", index: 0, text: "The title is " } as const,
          { _tag: "TextDelta", index: 0, text: "Hello toolgate." } as const
        )
      }
    })
    return Effect.gen(function*() {
      const outcome = yield* call(cwd, { url: `${server.origin}/page`, prompt: "What is the title?" })
      expect(text(outcome.result.content)).toBe("The title is Hello toolgate.")
      const sent = requests[0]!.messages[0]!.content as string
      expect(sent).toContain("# Hello toolgate")
      expect(sent).toContain("What is the title?")
      expect(requests[0]!.tools).toEqual([])
    }).pipe(Effect.provide(Layer.merge(layer, fakeModel)))
  })

  it.effect("a cached page expires after CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS", () =>
    Effect.gen(function*() {
      const before = server.hits.get("/counted") ?? 0
      const url = `${server.origin}/counted?ttl=1`
      yield* call(cwd, { url, prompt: "a" })
      yield* TestClock.adjust("59 seconds")
      yield* call(cwd, { url, prompt: "b" })
      expect(server.hits.get("/counted")).toBe(before + 1)
      yield* TestClock.adjust("2 seconds")
      yield* call(cwd, { url, prompt: "c" })
      expect(server.hits.get("/counted")).toBe(before + 2)
    }).pipe(withEnv({ CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS: "60000" }), Effect.provide(layer)))
})
