import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { expandVariables, parseServerEntry } from "../../../src/services/McpClients/config.js"
import { loadMcpConfig, type LoadMcpConfigOptions } from "../../../src/services/McpClients/configSources.js"
import type { SettingsSource } from "../../../src/services/Settings.js"
import { removeTempDirs, tempDir } from "./support.js"

afterAll(removeTempDirs)

const tmp = () => tempDir("toolgate-mcp-config-")

const write = (file: string, content: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content))
}

const base = (cwd: string, extra: Partial<LoadMcpConfigOptions> = {}): LoadMcpConfigOptions => ({
  cwd,
  claudeJsonFile: path.join(cwd, "home", ".claude.json"),
  env: { HOME_DIR: "/home/me", TOKEN: "s3cret", EMPTY: "" },
  settingsSources: [],
  trusted: false,
  projectServers: "load",
  ...extra
})

describe("MCP config: variables", () => {
  it("expands ${VAR} and ${VAR:-default}; an unset variable without default stays literal and is reported", () => {
    const missing: Array<string> = []
    const env = { A: "1", EMPTY: "" }
    expect(expandVariables("x${A}y${B:-two}z${EMPTY:-d}", env, (n) => missing.push(n))).toBe("x1ytwoz")
    expect(expandVariables("${NOPE}/bin", env, (n) => missing.push(n))).toBe("${NOPE}/bin")
    expect(expandVariables("${CLAUDE_PROJECT_DIR:-.}/srv", env, (n) => missing.push(n))).toBe("./srv")
    expect(missing).toEqual(["NOPE"])
  })

  it("expands in command, args, env, url and headers, and warns about unset variables", () => {
    const stdio = parseServerEntry({
      command: "${HOME_DIR}/bin/srv",
      args: ["--token=${TOKEN}", "${MISSING}"],
      env: { K: "${TOKEN:-x}" }
    }, { HOME_DIR: "/h", TOKEN: "t" })
    expect(stdio).toMatchObject({
      _tag: "Ok",
      config: { type: "stdio", command: "/h/bin/srv", args: ["--token=t", "${MISSING}"], env: { K: "t" } }
    })
    expect(stdio._tag === "Ok" && stdio.warnings.some((w) => w.includes("${MISSING} is not set"))).toBe(true)
    const http = parseServerEntry({
      type: "http",
      url: "https://${HOST:-example.com}/mcp",
      headers: { Authorization: "Bearer ${TOKEN}" }
    }, { TOKEN: "t" })
    expect(http).toMatchObject({
      _tag: "Ok",
      config: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } }
    })
  })
})

describe("MCP config: entries", () => {
  it("defaults to stdio and keeps timeout ≥ 1000 and alwaysLoad", () => {
    expect(parseServerEntry({ command: "srv", timeout: 5000, alwaysLoad: true }, {})).toMatchObject({
      _tag: "Ok",
      config: { type: "stdio", command: "srv", args: [], env: {}, timeout: 5000, alwaysLoad: true }
    })
    const small = parseServerEntry({ command: "srv", timeout: 10 }, {})
    expect(small).toMatchObject({ _tag: "Ok", config: { timeout: undefined } })
  })

  it("rejects bad entries with a reason naming the field", () => {
    const reason = (raw: unknown) => {
      const r = parseServerEntry(raw, {})
      return r._tag === "Invalid" ? r.reason : "ok"
    }
    expect(reason({ type: "ws", url: "wss://x" })).toContain("type \"ws\" (WebSocket) is not supported")
    expect(reason({ type: "grpc", command: "x" })).toBe(
      "unknown type \"grpc\" (expected \"stdio\", \"http\" or \"sse\")"
    )
    expect(reason({ url: "https://x/mcp" })).toContain("has a \"url\" but no \"type\"")
    expect(reason({ command: 3 })).toContain("field \"command\" must be a non-empty string")
    expect(reason({ command: "x", args: "a b" })).toBe("field \"args\" must be an array of strings, got a string")
    expect(reason({ command: "x", env: { A: 1 } })).toBe("field \"env.A\" must be a string, got a number")
    expect(reason({ type: "http" })).toBe("field \"url\" is missing")
    expect(reason({ type: "sse", url: "ftp://x" })).toContain("must be an http or https URL")
    expect(reason("npx server")).toBe("must be an object, got a string")
  })

  it("warns about hidden whitespace without trimming it", () => {
    const r = parseServerEntry({ command: "srv ", args: ["a\u200B"] }, {})
    expect(r).toMatchObject({ _tag: "Ok", config: { command: "srv ", args: ["a\u200B"] } })
    expect(r._tag === "Ok" && r.warnings.length).toBe(2)
  })
})

describe("MCP config: scopes", () => {
  it.effect("takes the whole entry from the winner: dynamic > local > project > user; nearer .mcp.json wins", () =>
    Effect.gen(function*() {
      const root = tmp()
      fs.mkdirSync(path.join(root, ".git"))
      const cwd = path.join(root, "sub")
      const options = base(cwd)
      write(options.claudeJsonFile, {
        mcpServers: { shared: { command: "user-cmd", args: ["u"] }, onlyUser: { command: "u" } },
        projects: { [cwd]: { mcpServers: { shared: { command: "local-cmd" }, onlyLocal: { command: "l" } } } }
      })
      write(path.join(cwd, ".mcp.json"), {
        mcpServers: { shared: { command: "project-cmd" }, near: { command: "near" }, onlyProject: { command: "p" } }
      })
      write(path.join(root, ".mcp.json"), { mcpServers: { near: { command: "far" }, far: { command: "far" } } })
      const config = yield* loadMcpConfig(options)
      const byName = Object.fromEntries(config.servers.map((s) => [s.name, s]))
      expect(Object.keys(byName)).toEqual(["far", "near", "onlyLocal", "onlyProject", "onlyUser", "shared"])
      expect(byName.shared).toMatchObject({ scope: "local", entry: { config: { command: "local-cmd", args: [] } } })
      expect(byName.near).toMatchObject({
        scope: "project",
        origin: path.join(cwd, ".mcp.json"),
        entry: { config: { command: "near" } }
      })
      expect(byName.far).toMatchObject({ scope: "project", origin: path.join(root, ".mcp.json") })
      expect(byName.onlyUser!.scope).toBe("user")

      const withFlag = yield* loadMcpConfig({
        ...options,
        mcpConfig: [JSON.stringify({ mcpServers: { shared: { type: "http", url: "http://127.0.0.1:1/mcp" } } })]
      })
      expect(withFlag.servers.find((s) => s.name === "shared")).toMatchObject({
        scope: "dynamic",
        origin: "--mcp-config",
        entry: { config: { type: "http" } }
      })
      const strict = yield* loadMcpConfig({
        ...options,
        strictMcpConfig: true,
        mcpConfig: ["{\"mcpServers\":{\"only\":{\"command\":\"x\"}}}"]
      })
      expect(strict.servers.map((s) => s.name)).toEqual(["only"])
    }))

  it.effect("a malformed .mcp.json is an error naming the file; other files still load; a bad entry names file and server", () =>
    Effect.gen(function*() {
      const root = tmp()
      fs.mkdirSync(path.join(root, ".git"))
      const cwd = path.join(root, "a")
      write(path.join(cwd, ".mcp.json"), "{ \"mcpServers\": { \"x\": { \"command\": \"x\", } }")
      write(path.join(root, ".mcp.json"), {
        mcpServers: {
          good: { command: "good" },
          broken: { type: "stdio", args: [] },
          weird: { type: "carrier-pigeon" }
        }
      })
      const options = base(cwd)
      write(options.claudeJsonFile, { mcpServers: { workspace: { command: "x" } } })
      const config = yield* loadMcpConfig(options)
      expect(config.errors).toHaveLength(1)
      expect(config.errors[0]).toContain(path.join(cwd, ".mcp.json"))
      expect(config.errors[0]).toContain("invalid JSON")
      expect(config.servers.map((s) => [s.name, s.entry._tag])).toEqual([
        ["broken", "Invalid"],
        ["good", "Ok"],
        ["weird", "Invalid"]
      ])
      expect(config.warnings.some((w) => w.includes("\"workspace\" uses a reserved name"))).toBe(true)
      const clash = yield* loadMcpConfig({
        ...base(tmp()),
        mcpConfig: [
          "{\"mcpServers\":{\"my.server\":{\"command\":\"a\"},\"my_server\":{\"command\":\"b\"},\"a__b\":{\"command\":\"c\"}}}"
        ]
      })
      expect(clash.warnings).toEqual([
        "--mcp-config: server \"a__b\" has \"__\" in its name, which makes its permission rules ambiguous",
        "servers \"my.server\" and \"my_server\" both become \"mcp__my_server__…\"; their tools clash and only the first of each name is kept"
      ])
    }))

  it.effect("a broken --mcp-config is the caller's mistake (BadRequest)", () =>
    Effect.gen(function*() {
      const cwd = tmp()
      const missing = yield* Effect.either(loadMcpConfig({ ...base(cwd), mcpConfig: ["nope.json"] }))
      expect(Either.isLeft(missing) && missing.left.reason).toContain("--mcp-config: file not found")
      const bad = yield* Effect.either(loadMcpConfig({ ...base(cwd), mcpConfig: ["{not json"] }))
      expect(Either.isLeft(bad) && bad.left.reason).toContain("invalid JSON")
      const noServers = yield* Effect.either(loadMcpConfig({ ...base(cwd), mcpConfig: ["{\"servers\":{}}"] }))
      expect(Either.isLeft(noServers) && noServers.left.reason).toContain("expected an object with \"mcpServers\"")
    }))

  it.effect("disabledMcpjsonServers rejects project servers; 'approved' needs enabledMcpjsonServers from a source that may approve", () =>
    Effect.gen(function*() {
      const cwd = tmp()
      write(path.join(cwd, ".mcp.json"), {
        mcpServers: { a: { command: "a" }, b: { command: "b" }, c: { command: "c" } }
      })
      const sources: Array<SettingsSource> = [
        {
          source: "localSettings",
          file: "/l/settings.local.json",
          root: cwd,
          settings: { disabledMcpjsonServers: ["a"], enabledMcpjsonServers: ["b"] }
        },
        { source: "projectSettings", file: "/p/settings.json", root: cwd, settings: { enabledMcpjsonServers: ["c"] } }
      ]
      const loaded = yield* loadMcpConfig({ ...base(cwd), settingsSources: sources })
      expect(loaded.servers.map((s) => [s.name, s.disabledReason])).toEqual([
        ["a", "disabled by disabledMcpjsonServers in /l/settings.local.json"],
        ["b", undefined],
        ["c", undefined]
      ])
      const startable = (s: { disabledReason?: string; needsApproval?: boolean }) =>
        s.disabledReason === undefined && s.needsApproval !== true
      const approved = yield* loadMcpConfig({ ...base(cwd), settingsSources: sources, projectServers: "approved" })
      expect(approved.servers.map(startable)).toEqual([false, true, false])
      expect(approved.servers[2]!.needsApproval).toBe(true)
      const trusted = yield* loadMcpConfig({
        ...base(cwd),
        settingsSources: sources,
        projectServers: "approved",
        trusted: true
      })
      expect(trusted.servers.map(startable)).toEqual([false, true, true])
      const all = yield* loadMcpConfig({
        ...base(cwd),
        projectServers: "approved",
        settingsSources: [{
          source: "userSettings",
          file: "/u",
          root: cwd,
          settings: { enableAllProjectMcpServers: true }
        }]
      })
      expect(all.servers.every(startable)).toBe(true)
      // local settings that are really the project's (committed) approve nothing
      const committed = yield* loadMcpConfig({
        ...base(cwd),
        projectServers: "approved",
        settingsSources: [{
          source: "localSettings",
          file: "/l",
          root: cwd,
          settings: { enableAllProjectMcpServers: true },
          untrustedLocal: true
        }]
      })
      expect(committed.servers.map(startable)).toEqual([false, false, false])
    }))
})
