/**
 * Grep and Glob of a served session with no sandbox (`--unsandboxed`): the search runs on the
 * host, so nothing but the tool itself keeps it inside the session's directories. A process of
 * the host swaps folders under the search for symlinks leading outside, as fast as it can, while
 * the session searches; no result may name or show anything from outside, whichever engine runs
 * (ripgrep, or the JS search).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempDir } from "../support/runtime.js"
import { createSession, runApproving, type Served, startServer, toolUse } from "../support/serve.js"

const CANARY = "canary-unsandboxed-3d9a7e"
const SERVER_TOKEN = "serve-unsandboxed-search-token-0123"
const FOLDERS = 6
/** Rounds of 40 searches per engine (TOOLGATE_SWAP_ROUNDS for a longer campaign). */
const ROUNDS = Math.max(1, Number(process.env.TOOLGATE_SWAP_ROUNDS ?? 1) || 1)
const FILES = 30

describe.each([
  { engine: "ripgrep", env: {} },
  { engine: "js", env: { TOOLGATE_GREP_ENGINE: "js", TOOLGATE_GLOB_ENGINE: "js" } }
])("toolgate serve --unsandboxed: Grep and Glob ($engine)", ({ env }) => {
  const root = fs.realpathSync(tempDir("toolgate-unsandboxed-search-"))
  const workspaces = path.join(root, "workspaces")
  const outside = path.join(root, "outside")
  let server: Served

  beforeAll(async () => {
    fs.mkdirSync(workspaces)
    fs.mkdirSync(path.join(outside, "nested"), { recursive: true })
    fs.writeFileSync(path.join(outside, "data.txt"), `outside ${CANARY}\n`)
    fs.writeFileSync(path.join(outside, "nested", "more.txt"), `mine ${CANARY}\n`)
    server = await startServer({
      args: ["--state-dir", path.join(root, "state"), "--workspace-root", workspaces, "--unsandboxed"],
      env: { TOOLGATE_SERVE_TOKEN: SERVER_TOKEN, TOOLGATE_SERVE_POLL_MS: "200", ...env }
    })
  }, 90_000)

  afterAll(async () => {
    await server?.stop("SIGTERM")
    fs.rmSync(root, { recursive: true, force: true })
  })

  it("never shows what lies outside while folders under the search are swapped for symlinks leading out", async () => {
    const cwd = path.join(workspaces, "race")
    for (let i = 0; i < FOLDERS; i++) {
      fs.mkdirSync(path.join(cwd, `d${i}`, "inner"), { recursive: true })
      fs.writeFileSync(path.join(cwd, `d${i}`, "mine.txt"), "mine\n")
      fs.writeFileSync(path.join(cwd, `d${i}`, "inner", "mine.txt"), "mine inner\n")
      // enough files that the search takes a while between listing a folder and entering it
      for (let f = 0; f < FILES; f++) fs.writeFileSync(path.join(cwd, `d${i}`, "inner", `f${f}.log`), "x\n")
    }
    // each folder is moved away and a symlink leading outside put in its place; then each is put back
    const swapper = spawn("python3", [
      "-c",
      [
        "import os, sys",
        "cwd, outside, n = sys.argv[1], sys.argv[2], int(sys.argv[3])",
        "names = [(os.path.join(cwd, 'd%d' % i), os.path.join(cwd, '.d%d.moved' % i)) for i in range(n)]",
        "while True:",
        "    for d, moved in names:",
        "        os.rename(d, moved)",
        "        os.symlink(outside, d)",
        "    for d, moved in names:",
        "        os.remove(d)",
        "        os.rename(moved, d)"
      ].join("\n"),
      cwd,
      outside,
      String(FOLDERS)
    ], { stdio: "ignore" })
    try {
      const session = await createSession(server.url, SERVER_TOKEN, { cwd })
      const leaked: Array<string> = []
      let found = 0
      for (let round = 0; round < ROUNDS; round++) {
        const blocks = Array.from({ length: 40 }, (_, k) =>
          k % 2 === 0
            ? toolUse(`g_${round}_${k}`, "Grep", {
              pattern: k % 4 === 0 ? "canary" : "mine",
              path: cwd,
              output_mode: k % 8 === 0 ? "files_with_matches" : "content"
            })
            : toolUse(`glob_${round}_${k}`, "Glob", { pattern: "**/*.txt", path: cwd }))
        const results = await runApproving(server.url, session, blocks)
        expect(results.size).toBe(blocks.length)
        for (const [id, result] of results) {
          if (result.text.includes(CANARY) || /data\.txt|more\.txt|\/proc\//.test(result.text)) {
            leaked.push(`${id}: ${result.text}`)
          }
          if (!result.isError && result.text.includes("mine.txt")) found++
        }
      }
      expect(leaked).toEqual([])
      // the searches did their work on the session's own files
      expect(found).toBeGreaterThan(ROUNDS * 10)
    } finally {
      swapper.kill("SIGKILL")
    }
  }, 180_000)
})
