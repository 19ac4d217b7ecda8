/**
 * Permission decisions of the CLI's commands, on real folders with real settings files, hook
 * scripts and symlinks:
 *   - a broken settings file refuses to run (exit 78, one line naming the file and the place);
 *   - file tools refuse paths a deny rule covers before any hook runs, in Claude Code's words;
 *   - Grep and Glob leave out the files a Read deny rule covers;
 *   - symlinks are resolved before a rule or a working directory approves a write;
 *   - nested shells are judged by their inner command.
 * The commands run in the test process; the cases marked "(built CLI)" start `dist/toolgate.cjs`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BIN, cleanEnv, runCli, runCliInProcess, type Ran } from "../services/Agent/cliSupport.js"
import { tempDir } from "../support/runtime.js"

type Via = "in process" | "built CLI"

const bases: Array<string> = []
afterAll(() => {
  for (const dir of bases) fs.rmSync(dir, { recursive: true, force: true })
})

/** The project's home folder (beside it) as HOME and CLAUDE_CONFIG_DIR, nothing inherited from the test's. */
const envFor = (proj: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> =>
  cleanEnv({ HOME: path.join(proj, "..", "home"), ...extra })

const toolgate = (
  args: ReadonlyArray<string>,
  cwd: string,
  input = "",
  via: Via = "in process",
  extraEnv: Readonly<Record<string, string>> = {}
): Promise<Ran> =>
  (via === "built CLI" ? runCli : runCliInProcess)(args, { cwd, input, env: envFor(cwd, extraEnv), timeoutMs: 60_000 })

/** A project folder beside a home folder and an outside folder; returns the project path. */
const project = (files: Readonly<Record<string, string>> = {}, settings?: unknown): string => {
  const base = fs.realpathSync(tempDir("toolgate-perm-e2e-"))
  bases.push(base)
  const proj = path.join(base, "proj")
  for (const dir of [proj, path.join(base, "home"), path.join(base, "outside")]) fs.mkdirSync(dir, { recursive: true })
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(proj, name)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, content)
  }
  if (settings !== undefined) {
    fs.mkdirSync(path.join(proj, ".claude"), { recursive: true })
    fs.writeFileSync(
      path.join(proj, ".claude", "settings.json"),
      typeof settings === "string" ? settings : JSON.stringify(settings)
    )
  }
  return proj
}

/** A PreToolUse hook that leaves a marker file when it runs. */
const markerHook = (proj: string) => {
  const script = path.join(proj, "..", "hook.sh")
  fs.writeFileSync(script, `#!/bin/sh\ncat > /dev/null\ntouch ${JSON.stringify(path.join(proj, "..", "HOOK_RAN"))}\n`, {
    mode: 0o755
  })
  return { PreToolUse: [{ matcher: ".*", hooks: [{ type: "command", command: script }] }] }
}

const exec = async (
  proj: string,
  blocks: ReadonlyArray<{ name: string; input: unknown }>,
  flags: ReadonlyArray<string> = [],
  via: Via = "in process"
) => {
  const message = blocks.map((b, i) => ({ type: "tool_use", id: `toolu_${i}`, name: b.name, input: b.input }))
  const ran = await toolgate(
    ["exec", "-", "--cwd", proj, "--trust-project", "--json", ...flags],
    proj,
    JSON.stringify(message),
    via
  )
  let parsed: { message: { content: Array<{ content: unknown; is_error?: boolean }> } }
  try {
    parsed = JSON.parse(ran.stdout)
  } catch {
    throw new Error(`not JSON (exit ${ran.code}): ${ran.stdout}\n${ran.stderr}`)
  }
  return parsed.message.content.map((r) => ({
    text: typeof r.content === "string" ? r.content : JSON.stringify(r.content),
    isError: r.is_error === true
  }))
}

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error("dist/toolgate.cjs is missing: run `npm run build` (npm test does)")
})

describe("a broken settings file refuses to run (issue 12 item 2)", () => {
  // the exit code and the error line come from the executable's own exit path: one case goes through it
  const broken: ReadonlyArray<readonly [string, string, RegExp, Via]> = [
    ["truncated JSON (built CLI)", "{\"permissions\": {\"deny\": [\"Bash\"]", /invalid JSON/, "built CLI"],
    ["\"deny\": \"Bash\"", "{\"permissions\": {\"deny\": \"Bash\"}}", /permissions\.deny: Expected/, "in process"],
    ["\"permissions\": [...]", "{\"permissions\": [\"Bash\"]}", /permissions: Expected/, "in process"],
    [
      "a number among the rules",
      "{\"permissions\": {\"deny\": [\"Read\", 2]}}",
      /permissions\.deny\[1\]: Expected string, actual 2/,
      "in process"
    ],
    [
      "an unknown mode",
      "{\"permissions\": {\"defaultMode\": \"yolo\"}}",
      /permissions\.defaultMode: Expected one of/,
      "in process"
    ]
  ]
  it.each(broken)(
    "%s: every command exits 78 with one line naming the file, and nothing runs",
    async (_, text, problem, via) => {
      const proj = project({}, text)
      const file = path.join(proj, ".claude", "settings.json")
      for (
        const args of [
          ["call", "Bash", JSON.stringify({ command: "touch pwned" }), "--allowed-tools", "Bash"],
          ["permissions", "check", "Bash", JSON.stringify({ command: "echo hi" })],
          ["tools", "--json"]
        ]
      ) {
        const ran = await toolgate(args, proj, "", via)
        expect(ran.code, `${args.join(" ")}: ${ran.stderr}`).toBe(78)
        expect(ran.stdout).toBe("")
        const lines = ran.stderr.trim().split("\n")
        expect(lines).toHaveLength(1)
        expect(lines[0]).toContain(file)
        expect(lines[0]).toMatch(problem)
      }
      expect(fs.existsSync(path.join(proj, "pwned"))).toBe(false)
    }
  )

  it("a deny rule that cannot be parsed makes its tool ask, and says so on stderr", async () => {
    const proj = project({}, { permissions: { deny: ["Bash(rm:*"] } })
    const ran = await toolgate(
      ["call", "Bash", JSON.stringify({ command: "touch made" }), "--allowed-tools", "Bash"],
      proj
    )
    expect(ran.stderr).toMatch(/Permission rule 'Bash\(rm:\*' .* cannot be parsed.*Bash now always asks/)
    expect(fs.existsSync(path.join(proj, "made"))).toBe(false)
  })
})

describe("file tools refuse denied paths before hooks run (Claude Code's texts)", () => {
  const wrap = (text: string) => `<tool_use_error>${text}</tool_use_error>`
  const cases: ReadonlyArray<
    {
      name: string
      deny: ReadonlyArray<string>
      tool: string
      input: (p: string) => unknown
      text: string
      mode?: string
      via?: Via
    }
  > = [
    {
      name: "Read under a Read deny (built CLI)",
      via: "built CLI",
      deny: ["Read(secret/**)"],
      tool: "Read",
      input: (p) => ({ file_path: `${p}/secret/k.txt` }),
      text: "File is in a directory that is denied by your permission settings."
    },
    {
      name: "Read of a missing file under a Read deny",
      deny: ["Read(secret/**)"],
      tool: "Read",
      input: (p) => ({ file_path: `${p}/secret/none.txt` }),
      text: "File is in a directory that is denied by your permission settings."
    },
    {
      name: "Read of a .env file",
      deny: ["Read(.env)"],
      tool: "Read",
      input: (p) => ({ file_path: `${p}/.env` }),
      text: "File is in a directory that is denied by your permission settings."
    },
    {
      name: "Write under an Edit deny",
      deny: ["Edit(locked.txt)"],
      tool: "Write",
      input: (p) => ({ file_path: `${p}/locked.txt`, content: "x" }),
      text: "File is in a directory that is denied by your permission settings.",
      mode: "acceptEdits"
    },
    {
      name: "Write under an Edit deny of a directory",
      deny: ["Edit(gen/**)"],
      tool: "Write",
      input: (p) => ({ file_path: `${p}/gen/a.txt`, content: "x" }),
      text: "File is in a directory that is denied by your permission settings.",
      mode: "acceptEdits"
    },
    {
      name: "Edit of an unread file under an Edit deny",
      deny: ["Edit(locked.txt)"],
      tool: "Edit",
      input: (p) => ({ file_path: `${p}/locked.txt`, old_string: "v", new_string: "w" }),
      text: "File is in a directory that is denied by your permission settings.",
      mode: "acceptEdits"
    },
    {
      name: "Write under a Read deny",
      deny: ["Read(private/**)"],
      tool: "Write",
      input: (p) => ({ file_path: `${p}/private/x.txt`, content: "x" }),
      text: "File is covered by a Read deny rule in your permission settings and cannot be written.",
      mode: "acceptEdits"
    },
    {
      name: "Edit under a Read deny",
      deny: ["Read(secret/**)"],
      tool: "Edit",
      input: (p) => ({ file_path: `${p}/secret/k.txt`, old_string: "k", new_string: "j" }),
      text: "File is covered by a Read deny rule in your permission settings and cannot be edited.",
      mode: "acceptEdits"
    },
    {
      name: "Write through a symlink into an Edit-denied directory",
      deny: ["Edit(gen/**)"],
      tool: "Write",
      input: (p) => ({ file_path: `${p}/gen-link/a.txt`, content: "x" }),
      text: "File is in a directory that is denied by your permission settings.",
      mode: "acceptEdits"
    }
  ]
  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_, c) => {
    const proj = project({
      "secret/k.txt": "k\n",
      "locked.txt": "v\n",
      ".env": "A=1\n",
      "gen/.keep": "",
      "private/.keep": ""
    })
    fs.symlinkSync(path.join(proj, "gen"), path.join(proj, "gen-link"))
    fs.mkdirSync(path.join(proj, ".claude"), { recursive: true })
    fs.writeFileSync(
      path.join(proj, ".claude", "settings.json"),
      JSON.stringify({ permissions: { deny: c.deny }, hooks: markerHook(proj) })
    )
    const [result] = await exec(
      proj,
      [{ name: c.tool, input: c.input(proj) }],
      c.mode === undefined ? [] : ["--permission-mode", c.mode],
      c.via
    )
    expect(result).toEqual({ text: wrap(c.text), isError: true })
    expect(fs.existsSync(path.join(proj, "..", "HOOK_RAN")), "the hook must not run").toBe(false)
  })
})

describe("Grep and Glob leave out files a Read deny rule covers (issue 12 item 4)", () => {
  const files = {
    "secret/k.txt": "key zq7\n",
    "pub.txt": "public zq7\n",
    "nested/deep/.env": "zq7=1\n",
    "a/b.key": "zq7\n"
  }
  const deny = ["Read(secret/**)", "Read(.env)", "Read(**/*.key)"]

  it("in every output mode, for ripgrep and the JS engine", async () => {
    for (const engine of ["rg", "js"]) {
      const proj = project(files, { permissions: { deny } })
      const env = { TOOLGATE_GREP_ENGINE: engine, TOOLGATE_GLOB_ENGINE: engine }
      const message = [
        { name: "Grep", input: { pattern: "zq7" } },
        { name: "Grep", input: { pattern: "zq7", output_mode: "content" } },
        { name: "Grep", input: { pattern: "zq7", output_mode: "content", "-C": 1 } },
        { name: "Grep", input: { pattern: "zq7", output_mode: "count" } },
        { name: "Glob", input: { pattern: "**/*.{txt,env,key}" } }
      ]
      const blocks = message.map((b, i) => ({ type: "tool_use", id: `t${i}`, name: b.name, input: b.input }))
      const ran = await toolgate(
        ["exec", "-", "--cwd", proj, "--trust-project", "--json"],
        proj,
        JSON.stringify(blocks),
        "in process",
        env
      )
      const results: Array<{ content: string }> = JSON.parse(ran.stdout).message.content
      for (const [i, r] of results.entries()) {
        expect(r.content, `${engine} #${i}`).toContain("pub.txt")
        for (const hidden of ["secret", ".env", "b.key"]) {
          expect(r.content, `${engine} #${i}: ${r.content}`).not.toContain(hidden)
        }
      }
    }
  })

  it("a search whose path is a denied directory is denied", async () => {
    const proj = project(files, { permissions: { deny } })
    const [grep, glob] = await exec(proj, [
      { name: "Grep", input: { pattern: "k", path: `${proj}/secret` } },
      { name: "Glob", input: { pattern: "*", path: `${proj}/secret` } }
    ])
    expect(grep).toEqual({ text: `Permission to read ${proj}/secret has been denied.`, isError: true })
    expect(glob).toEqual({ text: `Permission to read ${proj}/secret has been denied.`, isError: true })
  })
})
