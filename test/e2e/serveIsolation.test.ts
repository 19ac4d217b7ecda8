/**
 * `toolgate serve` attacked the way a session's token holder would: they approve their own
 * permission questions, so nothing but the server's isolation stands between them and the host.
 * Real servers (the bundled CLI), real bwrap, real files: the server's environment (its token,
 * API key, a canary), its database, its HOME, other folders and its own process stay out of
 * reach of Bash, background shells, the file tools, hooks and MCP servers; create requests get
 * only what the server's policy allows.
 */
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import {
  createSession,
  eventually,
  request,
  runApproving,
  type Served,
  startServer,
  toolUse
} from "../support/serve.js"

const CANARY = "canary-5f0c1d-secret-value"
const API_KEY = "sk-isolation-test-key-0123"

interface Host {
  readonly root: string
  readonly home: string
  readonly state: string
  readonly workspaces: string
  readonly outside: string
}

const makeHost = (name: string): Host => {
  const root = fs.realpathSync(tempDir(`toolgate-iso-${name}-`))
  const host = {
    root,
    home: path.join(root, "home"),
    state: path.join(root, "state"),
    workspaces: path.join(root, "workspaces"),
    outside: path.join(root, "outside")
  }
  for (const dir of [host.home, host.state, host.workspaces, host.outside]) fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(host.home, ".secret"), `home ${CANARY}\n`)
  fs.writeFileSync(path.join(host.outside, "data.txt"), `outside ${CANARY}\n`)
  return host
}

const workspace = (host: Host, name: string) => {
  const dir = path.join(host.workspaces, name)
  fs.mkdirSync(dir, { recursive: true })
  return dir
}

const serverEnv = (host: Host, extra: Record<string, string> = {}) => ({
  HOME: host.home,
  ISOLATION_CANARY: CANARY,
  ANTHROPIC_API_KEY: API_KEY,
  TOOLGATE_SERVE_POLL_MS: "200",
  ...extra
})

const leaks = (text: string) => text.includes(CANARY) || text.includes(API_KEY)

describe("toolgate serve: a session cannot reach its host (default policy)", () => {
  const host = makeHost("default")
  let server: Served
  let token: string

  beforeAll(async () => {
    // no token given: the server makes one and shows it once
    server = await startServer({
      args: ["--state-dir", host.state, "--workspace-root", host.workspaces],
      env: serverEnv(host)
    })
    token = server.token!
  }, 90_000)

  afterAll(async () => {
    await server?.stop("SIGTERM")
  })

  const create = (body: Record<string, unknown>) => createSession(server.url, token, body)

  it("generates a server token when none is given, and needs it", async () => {
    expect(token).toMatch(/^tgsrv_/)
    expect((await request(server.url, "POST", "/sessions", { body: { cwd: workspace(host, "t") } })).status).toBe(401)
    expect((await request(server.url, "GET", `/sessions?access_token=${token}&token=${token}`)).status).toBe(401)
    expect((await request(server.url, "GET", "/sessions", { token })).status).toBe(200)
  })

  it("refuses every create option that widens access, each with its reason", async () => {
    const cwd = workspace(host, "refusals")
    fs.writeFileSync(path.join(cwd, "settings.json"), "{}")
    const refused = async (body: Record<string, unknown>, pattern: RegExp) => {
      const reply = await request(server.url, "POST", "/sessions", { token, body: { cwd, ...body } })
      expect(reply.status, reply.text).toBe(403)
      expect(reply.body.message).toMatch(pattern)
    }
    await refused(
      { permissionMode: "bypassPermissions" },
      /permissionMode "bypassPermissions" is not allowed.*--allow bypassPermissions/
    )
    await refused({ permissionMode: "acceptEdits" }, /--allow acceptEdits/)
    await refused({ permissionMode: "auto" }, /--allow auto/)
    await refused({ trustProject: true }, /trustProject is not allowed/)
    await refused(
      { settings: { hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "id" }] }] } } },
      /"hooks" is not allowed/
    )
    await refused({ settings: path.join(cwd, "settings.json") }, /settings as a file on the server is not allowed/)
    await refused(
      { settings: { permissions: { defaultMode: "bypassPermissions" } } },
      /defaultMode "bypassPermissions"/
    )
    await refused(
      { settings: { permissions: { additionalDirectories: ["/etc"] } } },
      /additionalDirectories.*--allow add-dirs/
    )
    await refused({ settings: { enableAllProjectMcpServers: true } }, /enabling MCP servers is not allowed/)
    await refused(
      { settings: { statusLine: { type: "command", command: "id" } } },
      /settings key "statusLine" is not accepted/
    )
    await refused({ settings: { sandbox: { enabled: false } } }, /settings key "sandbox" is not accepted/)
    await refused({ addDirs: ["/etc"] }, /addDirs \(\/etc\) is not allowed/)
    await refused({ addDirs: [workspace(host, "other")] }, /--allow add-dirs/)
    await refused({ cwd: host.outside }, /outside the server's workspace root/)
    await refused({ cwd: "/etc" }, /outside the server's workspace root/)
    // what only narrows is accepted
    await create({
      cwd,
      permissionMode: "plan",
      settings: { permissions: { deny: ["WebFetch"], defaultMode: "dontAsk" } }
    })
  })

  it("keeps the server's environment, database, HOME, process and other folders from Bash, even approved", async () => {
    const cwd = workspace(host, "bash")
    fs.symlinkSync(host.state, path.join(cwd, "state-link"))
    fs.symlinkSync(path.join(host.state, "toolgate.db"), path.join(cwd, "db-link"))
    const session = await create({ cwd })
    const results = await runApproving(server.url, session, [
      toolUse("t_env", "Bash", { command: "env" }),
      toolUse("t_proc", "Bash", {
        command:
          `cat /proc/${server.pid}/environ; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ISOLATION_CANARY; ls /proc`
      }),
      toolUse("t_db", "Bash", {
        command:
          `cat ${host.state}/toolgate.db | head -c 100; ls ${host.state}; cat state-link/toolgate.db; cat db-link; echo done`
      }),
      toolUse("t_home", "Bash", { command: `cat ${host.home}/.secret; ls ${host.home}; cat ~/.secret; echo done` }),
      toolUse("t_out", "Bash", {
        command: `cat ${host.outside}/data.txt; echo x > ${host.outside}/written; echo done`
      }),
      toolUse("t_own", "Bash", { command: "echo mine > own.txt && cat own.txt" })
    ])
    const text = (id: string) => results.get(id)!.text
    expect(text("t_env")).toContain("PATH=")
    for (const id of ["t_env", "t_proc", "t_db", "t_home", "t_out"]) {
      expect(leaks(text(id)), `${id}: ${text(id)}`).toBe(false)
    }
    expect(text("t_env")).not.toMatch(/TOOLGATE_SERVE|ANTHROPIC_API_KEY|ISOLATION_CANARY/)
    expect(text("t_proc")).not.toContain("ISOLATION_CANARY=")
    expect(text("t_db")).not.toContain("SQLite format")
    expect(text("t_db")).not.toMatch(/^toolgate\.db$/m)
    expect(fs.existsSync(path.join(host.outside, "written"))).toBe(false)
    expect(text("t_own")).toBe("mine")
    expect(fs.readFileSync(path.join(cwd, "own.txt"), "utf8")).toBe("mine\n")
  })

  it("holds the file tools to the session's directories, through symlinks too", async () => {
    const cwd = workspace(host, "files")
    fs.symlinkSync(host.state, path.join(cwd, "state-link"))
    fs.symlinkSync(path.join(host.outside, "gone"), path.join(cwd, "dangling"))
    fs.writeFileSync(path.join(cwd, "mine.txt"), "mine\n")
    const session = await create({ cwd })
    const results = await runApproving(server.url, session, [
      toolUse("r_db", "Read", { file_path: path.join(host.state, "toolgate.db") }),
      toolUse("r_link", "Read", { file_path: path.join(cwd, "state-link", "toolgate.db") }),
      toolUse("r_env", "Read", { file_path: "/proc/self/environ" }),
      toolUse("r_pid", "Read", { file_path: `/proc/${server.pid}/environ` }),
      toolUse("r_home", "Read", { file_path: path.join(host.home, ".secret") }),
      toolUse("g_out", "Grep", { pattern: "canary", path: host.root }),
      toolUse("glob_state", "Glob", { pattern: `${host.state}/*` }),
      toolUse("glob_root", "Glob", { pattern: `${host.root}/**/data.txt`, path: cwd }),
      toolUse("e_env", "Edit", {
        file_path: "/proc/self/environ",
        old_string: "ISOLATION_CANARY=canary",
        new_string: "x"
      }),
      toolUse("w_out", "Write", { file_path: path.join(host.outside, "w.txt"), content: "x" }),
      toolUse("w_dangling", "Write", { file_path: path.join(cwd, "dangling"), content: "x" }),
      toolUse("r_mine", "Read", { file_path: path.join(cwd, "mine.txt") })
    ])
    for (
      const id of [
        "r_db",
        "r_link",
        "r_env",
        "r_pid",
        "r_home",
        "g_out",
        "glob_state",
        "glob_root",
        "e_env",
        "w_out",
        "w_dangling"
      ]
    ) {
      const result = results.get(id)!
      expect(result.isError, `${id}: ${result.text}`).toBe(true)
      expect(result.text).toMatch(/outside this session's|a symlink that leads outside/)
      expect(leaks(result.text)).toBe(false)
    }
    expect(fs.existsSync(path.join(host.outside, "w.txt"))).toBe(false)
    expect(fs.existsSync(path.join(host.outside, "gone"))).toBe(false)
    expect(results.get("r_mine")!.text).toContain("mine")
  })

  it("holds the file tools to the session's directories while a symlink is swapped under them", async () => {
    const cwd = workspace(host, "race")
    fs.writeFileSync(path.join(cwd, "inside.txt"), "inside\n")
    fs.mkdirSync(path.join(cwd, "sub"))
    // a process of the host swaps the links as fast as it can: each one leads into the workspace,
    // then out of it (as the session's own Bash could, or anything else that writes there)
    const swapper = spawn("python3", [
      "-c",
      [
        "import os, sys",
        "cwd, outside = sys.argv[1], sys.argv[2]",
        "pairs = [('flip', ['inside.txt', os.path.join(outside, 'data.txt')]), ('flipdir', ['sub', outside])]",
        "while True:",
        "    for name, targets in pairs:",
        "        for t in targets:",
        "            tmp = os.path.join(cwd, '.' + name + '.tmp')",
        "            os.symlink(t, tmp)",
        "            os.replace(tmp, os.path.join(cwd, name))"
      ].join("\n"),
      cwd,
      host.outside
    ], { stdio: "ignore" })
    try {
      const session = await create({ cwd })
      for (let round = 0; round < 4; round++) {
        const blocks = Array.from({ length: 40 }, (_, k) =>
          k % 4 === 3
            ? toolUse(`w_${round}_${k}`, "Write", {
              file_path: path.join(cwd, "flipdir", `w-${round}-${k}.txt`),
              content: `written ${k}\n`
            })
            : toolUse(`r_${round}_${k}`, "Read", {
              file_path: path.join(cwd, "flip"),
              offset: 1,
              limit: 1000 + round * 40 + k
            }))
        const results = await runApproving(server.url, session, blocks)
        expect(results.size).toBe(blocks.length)
        for (const [id, result] of results) {
          expect(leaks(result.text), `${id}: ${result.text}`).toBe(false)
        }
      }
      // no read reached the file outside, no write landed outside; the file inside still reads
      expect(fs.readdirSync(host.outside).filter((f) => f.startsWith("w-"))).toEqual([])
      const plain = await runApproving(server.url, session, [
        toolUse("r_inside", "Read", { file_path: path.join(cwd, "inside.txt") })
      ])
      expect(plain.get("r_inside")!.text).toContain("inside")
    } finally {
      swapper.kill("SIGKILL")
    }
  }, 120_000)

  it("holds Grep and Glob to the session's directories while their search folder is swapped under them", async () => {
    const cwd = workspace(host, "search-race")
    fs.mkdirSync(path.join(cwd, "sub"))
    fs.writeFileSync(path.join(cwd, "sub", "mine.txt"), "mine canary-free\n")
    fs.mkdirSync(path.join(cwd, "deep"))
    fs.writeFileSync(path.join(cwd, "deep", "deep.txt"), "deep\n")
    // the search folder flips between a folder of the workspace and one outside it; a real folder
    // under the search is moved away and a symlink leading outside put in its place, then back
    const swapper = spawn("python3", [
      "-c",
      [
        "import os, sys",
        "cwd, outside = sys.argv[1], sys.argv[2]",
        "deep, moved = os.path.join(cwd, 'deep'), os.path.join(cwd, '.deep.moved')",
        "while True:",
        "    for t in ['sub', outside]:",
        "        tmp = os.path.join(cwd, '.flipdir.tmp')",
        "        os.symlink(t, tmp)",
        "        os.replace(tmp, os.path.join(cwd, 'flipdir'))",
        "    os.rename(deep, moved)",
        "    os.symlink(outside, deep)",
        "    os.remove(deep)",
        "    os.rename(moved, deep)"
      ].join("\n"),
      cwd,
      host.outside
    ], { stdio: "ignore" })
    try {
      const session = await create({ cwd })
      const flipdir = path.join(cwd, "flipdir")
      let answered = 0
      const leaked: Array<string> = []
      for (let round = 0; round < 4; round++) {
        const blocks = Array.from({ length: 40 }, (_, k) =>
          k % 2 === 0
            ? toolUse(`g_${round}_${k}`, "Grep", {
              pattern: k % 4 === 0 ? "canary" : "e",
              path: k % 6 === 0 ? cwd : flipdir,
              output_mode: k % 8 === 0 ? "files_with_matches" : "content"
            })
            : toolUse(`glob_${round}_${k}`, "Glob", { pattern: "**/*.txt", path: k % 3 === 0 ? cwd : flipdir }))
        const results = await runApproving(server.url, session, blocks)
        expect(results.size).toBe(blocks.length)
        for (const [id, result] of results) {
          if (leaks(result.text) || /data\.txt|\/proc\//.test(result.text)) leaked.push(`${id}: ${result.text}`)
          if (!result.isError && result.text.includes("mine.txt")) answered++
        }
      }
      expect(leaked).toEqual([])
      // the searches that found the folder inside did their work, naming the session's own paths
      expect(answered).toBeGreaterThan(0)
    } finally {
      swapper.kill("SIGKILL")
    }
  }, 120_000)

  it("runs no hook of the project's settings and no MCP server of its .mcp.json", async () => {
    const cwd = workspace(host, "project-config")
    const marker = path.join(host.outside, "hook-ran")
    fs.mkdirSync(path.join(cwd, ".claude"))
    const hook = {
      hooks: {
        PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: `id > ${marker}; env >> ${marker}` }] }]
      }
    }
    fs.writeFileSync(path.join(cwd, ".claude", "settings.json"), JSON.stringify(hook))
    fs.writeFileSync(
      path.join(cwd, ".claude", "settings.local.json"),
      JSON.stringify({ ...hook, enableAllProjectMcpServers: true })
    )
    const mcpMarker = path.join(host.outside, "mcp-ran")
    fs.writeFileSync(
      path.join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { probe: { command: "/bin/sh", args: ["-c", `env > ${mcpMarker}`] } } })
    )
    const session = await create({ cwd })
    const results = await runApproving(server.url, session, [toolUse("t1", "Bash", { command: "echo ran" })])
    expect(results.get("t1")!.text).toBe("ran")
    expect(fs.existsSync(marker)).toBe(false)
    expect(fs.existsSync(mcpMarker)).toBe(false)
  })

  it("runs no program a repository's config names when the next session there starts (git's core.fsmonitor)", async () => {
    const cwd = workspace(host, "git-config")
    const marker = path.join(host.outside, "fsmonitor-ran")
    const first = await create({ cwd })
    const prepared = await runApproving(server.url, first, [
      toolUse("t1", "Bash", {
        command:
          `git init -q . && git config core.fsmonitor "env > ${marker}; false" && mkdir -p .claude && echo '{}' > .claude/settings.local.json && echo prepared`
      })
    ])
    expect(prepared.get("t1")!.text).toContain("prepared")
    // a new session in the same folder reads its settings (and asks git whether the local ones are tracked)
    const second = await create({ cwd })
    const results = await runApproving(server.url, second, [toolUse("t2", "Bash", { command: "echo second" })])
    expect(results.get("t2")!.text).toBe("second")
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("keeps background shells in the sandbox, and stops them and what commands leave running", async () => {
    const cwd = workspace(host, "background")
    const session = await create({ cwd })
    const marker = `${Math.floor(Math.random() * 1e6) + 1000}.25`
    const results = await runApproving(server.url, session, [
      toolUse("bg", "Bash", {
        command:
          `cat /proc/${server.pid}/environ > bg.txt 2>&1; env >> bg.txt; cat ${host.home}/.secret >> bg.txt 2>&1; echo ready >> bg.txt; sleep ${marker}`,
        run_in_background: true
      }),
      toolUse("left", "Bash", {
        command: `setsid sh -c 'sleep ${marker}1' >/dev/null 2>&1 & (sleep ${marker}2 &) ; echo started`
      })
    ])
    expect(results.get("left")!.text).toBe("started")
    const written = await eventually(() => {
      const text = fs.existsSync(path.join(cwd, "bg.txt")) ? fs.readFileSync(path.join(cwd, "bg.txt"), "utf8") : ""
      return text.includes("ready") ? text : undefined
    })
    expect(leaks(written), written).toBe(false)
    const running = (pattern: string) =>
      new Promise<boolean>((resolve) => execFile("pgrep", ["-f", pattern], (error) => resolve(error === null)))
    // what the foreground command left running ended with it
    await eventually(
      async () => ((await running(`sleep ${marker}1`)) || (await running(`sleep ${marker}2`)) ? undefined : true),
      10_000
    )
    expect(await running(`sleep ${marker}`)).toBe(true)
    // the background shell goes with its session
    expect((await request(server.url, "DELETE", `/sessions/${session.id}`, { token: session.token })).status).toBe(200)
    await eventually(async () => ((await running(`sleep ${marker}`)) ? undefined : true))
  })

  it("deletes a session with everything it stored", async () => {
    const cwd = workspace(host, "delete")
    const session = await create({ cwd })
    await runApproving(server.url, session, [toolUse("t1", "Bash", { command: "echo one" })])
    const folder = path.join(host.state, "sessions", session.id)
    expect(fs.existsSync(folder)).toBe(true)
    const deleted = await request(server.url, "DELETE", `/sessions/${session.id}`, { token: session.token })
    expect(deleted.status, deleted.text).toBe(200)
    expect((await request(server.url, "GET", `/sessions/${session.id}`, { token })).status).toBe(404)
    expect((await request(server.url, "GET", `/sessions/${session.id}/transcript`, { token })).status).toBe(404)
    expect(fs.existsSync(folder)).toBe(false)
  })
})

describe("toolgate serve: every create option allowed, the host still out of reach", () => {
  const host = makeHost("allowed")
  let server: Served
  const token = "isolation-server-token-0123456789"

  beforeAll(async () => {
    const everything = [
      "acceptEdits",
      "auto",
      "bypassPermissions",
      "trust-project",
      "hooks",
      "settings-files",
      "add-dirs",
      "mcp",
      "network"
    ]
    server = await startServer({
      args: [
        "--state-dir",
        host.state,
        "--workspace-root",
        host.workspaces,
        ...everything.flatMap((a) => ["--allow", a])
      ],
      env: serverEnv(host, { TOOLGATE_SERVE_TOKEN: token })
    })
  }, 90_000)

  afterAll(async () => {
    await server?.stop("SIGTERM")
  })

  it("gives hooks, MCP servers and Bash the session's environment and directories only", async () => {
    const cwd = workspace(host, "all")
    const extra = workspace(host, "extra")
    const hookOut = path.join(cwd, "hook-out.txt")
    const mcpOut = path.join(cwd, "mcp-out.txt")
    const probe =
      `env; cat ${host.state}/toolgate.db | head -c 50; cat ${host.home}/.secret; cat /proc/${server.pid}/environ; cat ${host.outside}/data.txt; echo x > ${host.outside}/by-probe`
    fs.writeFileSync(path.join(cwd, "probe.sh"), `${probe}\n`)
    fs.writeFileSync(
      path.join(cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          probe: { command: "/bin/sh", args: ["-c", `sh ${path.join(cwd, "probe.sh")} > ${mcpOut} 2>&1; exit 1`] }
        }
      })
    )
    const settingsFile = path.join(cwd, "session-settings.json")
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({
        hooks: {
          PreToolUse: [{
            matcher: "Bash",
            hooks: [{ type: "command", command: `sh ${path.join(cwd, "probe.sh")} > ${hookOut} 2>&1; exit 0` }]
          }]
        },
        enableAllProjectMcpServers: true,
        permissions: { additionalDirectories: [extra] }
      })
    )
    const created = await request(server.url, "POST", "/sessions", {
      token,
      body: { cwd, permissionMode: "bypassPermissions", trustProject: true, addDirs: [extra], settings: settingsFile }
    })
    expect(created.status, created.text).toBe(201)
    const session = created.body as { id: string; token: string }
    const results = await runApproving(server.url, session, [
      toolUse("t1", "Bash", { command: `sh probe.sh 2>&1; echo extra > ${extra}/e.txt; cat ${extra}/e.txt` }),
      toolUse("t2", "Read", { file_path: path.join(host.state, "toolgate.db") })
    ])
    const bash = results.get("t1")!.text
    expect(leaks(bash), bash).toBe(false)
    expect(bash).toContain("extra")
    expect(results.get("t2")!.isError).toBe(true)
    const hook = await eventually(() => (fs.existsSync(hookOut) ? fs.readFileSync(hookOut, "utf8") : undefined))
    expect(hook).toContain("PATH=")
    expect(leaks(hook), hook).toBe(false)
    expect(hook).not.toMatch(/TOOLGATE_SERVE_TOKEN|ISOLATION_CANARY/)
    const mcp = await eventually(() => (fs.existsSync(mcpOut) ? fs.readFileSync(mcpOut, "utf8") : undefined))
    expect(mcp).toContain("PATH=")
    expect(leaks(mcp), mcp).toBe(false)
    expect(fs.existsSync(path.join(host.outside, "by-probe"))).toBe(false)
  })

  it("still keeps extra directories inside the workspace root", async () => {
    const cwd = workspace(host, "dirs")
    const reply = await request(server.url, "POST", "/sessions", { token, body: { cwd, addDirs: ["/etc"] } })
    expect(reply.status, reply.text).toBe(403)
    expect(reply.body.message).toContain("outside the server's workspace root")
    const statePath = await request(server.url, "POST", "/sessions", {
      token,
      body: { cwd, settings: path.join(host.state, "x.json") }
    })
    expect(statePath.status).toBeGreaterThanOrEqual(400)
  })
})
