/**
 * "Always allow" answered in several toolgate processes at the same moment: each saves its rule
 * to the same `.claude/settings.local.json`, and every rule is there afterwards (the save takes
 * the file's lock, re-reads it and replaces it atomically), with the file's other content kept.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cleanEnv } from "../services/Agent/cliSupport.js"
import { spawnCliPty } from "../support/cliPty.js"
import { tempDir } from "../support/runtime.js"

const PROCESSES = 6
const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

const until = async (check: () => boolean, what: () => string, ms = 60_000) => {
  const t0 = Date.now()
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe("concurrent always-allow saves", () => {
  it(`${PROCESSES} processes answering "always" at once keep every rule`, async () => {
    const project = fs.realpathSync(tempDir("toolgate-saves-"))
    dirs.push(project)
    const local = path.join(project, ".claude", "settings.local.json")
    fs.mkdirSync(path.dirname(local))
    fs.writeFileSync(local, `${JSON.stringify({ env: { KEEP: "me" }, permissions: { allow: ["Read"] } }, null, 2)}\n`)
    const env = cleanEnv()
    dirs.push(env.HOME!)
    // one script per process, so each offers a rule of its own
    for (let i = 0; i < PROCESSES; i++) {
      fs.writeFileSync(path.join(project, `step${i}`), `#!/bin/sh\ntouch file${i}.txt\n`, { mode: 0o755 })
    }
    const children = await Promise.all(
      Array.from(
        { length: PROCESSES },
        (_, i) =>
          spawnCliPty([
            "call",
            "Bash",
            JSON.stringify({ command: `./step${i}` }),
            "--cwd",
            project,
            "--session-dir",
            path.join(project, `.s${i}`)
          ], {
            cwd: project,
            cols: 200,
            rows: 50,
            env
          })
      )
    )
    const codes: Array<number | undefined> = children.map(() => undefined)
    children.forEach((c, i) => void c.exited.then((code) => (codes[i] = code)))
    try {
      // every process waits at its question before any answers
      await until(
        () => children.every((c) => /always allow[\s\S]*Choose \[[^\]]*\]: *$/.test(c.screen())),
        () => children.map((c) => c.screen().slice(-300)).join("\n----\n")
      )
      for (const c of children) c.type("3\r")
      await until(
        () => codes.every((code) => code !== undefined),
        () => "every process to exit"
      )
    } finally {
      for (const c of children) c.close()
    }
    expect(codes).toEqual(children.map(() => 0))
    const saved = JSON.parse(fs.readFileSync(local, "utf8"))
    expect(saved.env).toEqual({ KEEP: "me" })
    expect(saved.permissions.allow[0]).toBe("Read")
    for (let i = 0; i < PROCESSES; i++) {
      expect(saved.permissions.allow.some((r: string) => r.includes(`step${i}`)), JSON.stringify(saved)).toBe(true)
    }
    expect(saved.permissions.allow).toHaveLength(PROCESSES + 1)
    // no lock or temporary file is left behind
    expect(fs.readdirSync(path.dirname(local))).toEqual(["settings.local.json"])
    for (let i = 0; i < PROCESSES; i++) expect(fs.existsSync(path.join(project, `file${i}.txt`))).toBe(true)
  }, 180_000)
})
