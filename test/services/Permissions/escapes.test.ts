/**
 * Commands that bash reads or resolves differently from a naive analyzer, each first run in real
 * bash (proving it does what the attacker wants) and then judged by the real Permissions stage:
 * none may be approved without a person. Classes: parser differentials (here-document
 * delimiters, `\⏎` before `#`, `[ x > f ]`), variables toolgate's shell plumbing uses, paths the
 * kernel resolves differently (`..` after a symlink, /proc, a tree changed by another part of
 * the command), and planted or self-granting files.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { PermissionMode } from "../../../src/Permission.js"
import * as F from "./fixture.js"
import * as Permission from "../../../src/Permission.js"

interface Case {
  readonly name: string
  readonly command: string
  readonly mode?: PermissionMode
  readonly allow?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
  /** What bash really does: a file it creates (relative to the project) or text it prints. */
  readonly proof?: { readonly creates: string } | { readonly prints: string }
  /** Puts things back after the bash run. */
  readonly undo?: string
}

const CASES: ReadonlyArray<Case> = [
  // ---- parser differentials ------------------------------------------------------------------
  { name: "here-document delimiter $'x'", command: "cat <<$'x'\nx\ntouch M1\n$'x'", proof: { creates: "M1" } },
  { name: "here-document delimiter E''OF", command: "cat <<E''OF\nEOF\ntouch M2\nE''OF", proof: { creates: "M2" } },
  { name: "here-document delimiter x'y'", command: "cat <<x'y'\nxy\ntouch M3\nx'y'", proof: { creates: "M3" } },
  {
    name: "here-document delimiter \"E\"OF",
    command: "cat <<\"E\"OF\nEOF\ntouch M3b\n\"E\"OF",
    proof: { creates: "M3b" }
  },
  {
    name: "here-document ended by `EOF)` inside $( )",
    command: "echo \"$(cat <<EOF\nEOF)\"\ntouch M4\necho \"$(cat <<EOF\nx\nEOF\n)\"",
    proof: { creates: "M4" }
  },
  { name: "backslash-newline before #", command: "echo a\\\n#; touch M5", proof: { creates: "M5" } },
  { name: "backslash-newline inside a word before #", command: "ls src\\\n#x; touch M6", proof: { creates: "M6" } },
  { name: "[ x > FILE ] is a redirection", command: "[ x > M7 ]", proof: { creates: "M7" } },
  { name: "[ x \\< y ] with a real redirection after", command: "[ a \\< b ] > M8", proof: { creates: "M8" } },
  { name: "test written with [ and a redirection inside", command: "[ -n x >> M9 ]", proof: { creates: "M9" } },
  {
    name: "a backslash-newline before # inside bash -c",
    command: "bash -c 'echo a\\\n#; touch M11'",
    proof: { creates: "M11" }
  },
  {
    name: "a here-document delimiter $'x' inside eval",
    command: "eval \"cat <<\\$'x'\nx\ntouch M12\n\\$'x'\"",
    proof: { creates: "M12" }
  },
  // ---- toolgate's own shell plumbing ---------------------------------------------------------
  { name: "an assignment to the cwd trap's variable", command: "__toolgate_cwd_file={h}/.bashrc; ls" },
  {
    name: "an exported assignment to the cwd trap's variable",
    command: "export __toolgate_cwd_file={h}/.bashrc && ls"
  },
  { name: "a loop over the cwd trap's variable", command: "for __toolgate_cwd_file in {h}/.bashrc; do ls; done" },
  { name: "a loop over PATH", command: "for PATH in {r}/outside; do ls; done" },
  // ---- paths as the kernel resolves them ------------------------------------------------------
  {
    name: "`..` after a symlink leaves the project",
    command: "cat link-outside/../proj-evil/x.txt",
    proof: { prints: "evil" }
  },
  {
    name: "`..` after a symlink reaches a denied file",
    command: "cat src-link/../../proj/.env",
    deny: ["Read(./.env)"]
  },
  {
    name: "a symlink made and used in one command",
    command: "ln -s {o} lnk1 && cat lnk1/file.txt",
    allow: ["Bash(ln:*)"],
    proof: { prints: "outside" },
    undo: "rm -f lnk1"
  },
  {
    name: "a symlink made while a pipeline reads through it",
    command: "cat lnk2/file.txt | ln -s {o} lnk2",
    allow: ["Bash(ln:*)"],
    undo: "rm -f lnk2"
  },
  {
    name: "a symlink made in the background",
    command: "ln -s {o} lnk3 & sleep 1; cat lnk3/file.txt",
    allow: ["Bash(ln:*)"],
    undo: "rm -f lnk3"
  },
  {
    name: "a denied directory renamed, then read",
    command: "mv config c2 && cat c2/.env",
    allow: ["Bash(mv:*)"],
    deny: ["Read(./config/**)"],
    proof: { prints: "SECRET=2" },
    undo: "mv c2 config"
  },
  {
    name: "a write through a symlink made first",
    command: "ln -s {h}/.bashrc rc && echo x >> rc",
    mode: "acceptEdits",
    allow: ["Bash(ln:*)"],
    undo: "rm -f rc"
  },
  {
    name: "/proc/self/cwd names the shell's directory",
    command: "cd config && cat /proc/self/cwd/.env",
    allow: ["Bash(cat:*)"],
    deny: ["Read(./config/.env)"],
    proof: { prints: "SECRET=2" }
  },
  { name: "a write under /proc", command: "echo x > /proc/self/cwd/M10", mode: "acceptEdits" },
  {
    name: "a file read through `<` inside $( ) that only echo prints",
    command: "echo \"$(< {o}/file.txt)\"",
    proof: { prints: "outside" }
  },
  { name: "a file read through `<` by a group", command: "{ cat; } < {o}/file.txt", proof: { prints: "outside" } },
  {
    name: "a file read through `<` by a loop",
    command: "while read -r l; do echo \"$l\"; done < {o}/lines.txt",
    proof: { prints: "outside line" }
  },
  // ---- reads that reach a denied file without naming it -------------------------------------------
  {
    name: "grep -r over the project reaches a denied file",
    command: "grep -r SECRET=1 .",
    deny: ["Read(./.env)"],
    proof: { prints: "SECRET=1" }
  },
  {
    name: "grep -R with an abbreviated option",
    command: "grep --recursive SECRET=1",
    allow: ["Bash(grep:*)"],
    deny: ["Read(./.env)"],
    proof: { prints: "SECRET=1" }
  },
  {
    name: "git show prints a committed file a deny rule covers",
    command: "git show HEAD",
    deny: ["Read(./notes.txt)"],
    proof: { prints: "+notes" }
  },
  {
    name: "git log -p prints every committed version",
    command: "git log -p -- .",
    deny: ["Read(./notes.txt)"],
    proof: { prints: "+notes" }
  },
  {
    name: "git cat-file by object id",
    command: "git cat-file -p HEAD:notes.txt",
    deny: ["Read(./notes.txt)"],
    proof: { prints: "notes" }
  },
  { name: "rg searches the project", command: "rg notes .", deny: ["Read(./notes.txt)"], proof: { prints: "notes" } },
  // ---- rules beaten by equivalent spellings or by arguments that name programs ----------------
  {
    name: "a forced push through a + refspec past a --force deny rule",
    command: "git push origin +main",
    allow: ["Bash(git:*)"],
    deny: ["Bash(git push --force:*)"]
  },
  {
    name: "a make variable naming the program a recipe runs",
    command: "make test CC=./evil.sh",
    allow: ["Bash(make test:*)"]
  },
  // ---- secrets in the environment ------------------------------------------------------------
  { name: "echo of a variable from the environment", command: "echo $API_TOKEN", proof: { prints: "s3cret" } },
  { name: "echo of a quoted variable in braces", command: "echo \"token: ${API_TOKEN}\"", proof: { prints: "s3cret" } },
  {
    name: "a loop variable used after its loop",
    command: "for API_TOKEN in; do :; done; echo $API_TOKEN",
    proof: { prints: "s3cret" }
  },
  { name: "printenv", command: "printenv API_TOKEN", proof: { prints: "s3cret" } },
  { name: "env without a command", command: "env", proof: { prints: "s3cret" } },
  { name: "ps with the environment of each process", command: "ps axeww", proof: { prints: "s3cret" } },
  {
    name: "the environment of the shell through /proc",
    command: "cat /proc/self/environ",
    proof: { prints: "s3cret" }
  },
  // ---- self-grant and planted code ------------------------------------------------------------
  {
    name: "a redirect into .toolgate/tools",
    command: "echo 'export default 1' > .toolgate/tools/x.mjs",
    mode: "acceptEdits"
  },
  {
    name: "a redirect into ~/.ssh",
    command: "echo key >> {h}/.ssh/authorized_keys",
    mode: "acceptEdits",
    allow: ["Edit(//{h}/**)"]
  },
  {
    name: "a redirect into .claude/settings.local.json",
    command: "echo '{}' > .claude/settings.local.json",
    mode: "acceptEdits"
  },
  { name: "git status in a folder planted as a bare repository", command: "git status", proof: { creates: "PLANTED" } }
]

const bash = (fx: F.Fixture, command: string) =>
  spawnSync("/bin/bash", ["--noprofile", "--norc", "-c", command], {
    cwd: fx.proj,
    env: { PATH: process.env.PATH, HOME: fx.home, LC_ALL: "C", API_TOKEN: "s3cret" },
    encoding: "utf8",
    timeout: 10_000
  })

describe("commands bash reads or resolves differently are never approved by themselves", () => {
  let fx: F.Fixture
  let decider: F.Decider
  beforeAll(() => {
    fx = F.makeFixture()
    fs.mkdirSync(path.join(fx.home, ".ssh"), { recursive: true })
    fs.mkdirSync(fx.p(".toolgate", "tools"), { recursive: true })
    fs.writeFileSync(path.join(fx.outside, "lines.txt"), "outside line\n")
    const git = (...args: ReadonlyArray<string>) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: fx.proj })
    git("add", "notes.txt")
    git("commit", "-qm", "notes")
    decider = F.makeDecider(F.settingsOptions(fx, { trustProject: true }))
  })
  afterAll(async () => {
    await decider.dispose()
    fx.cleanup()
  })

  for (const c of CASES) {
    it(c.name, async () => {
      const command = F.fill(fx, c.command)
      const planted = c.name.includes("bare repository")
      const cwd = planted ? plantBareRepository(fx) : fx.proj
      if (c.proof !== undefined) {
        const ran = planted
          ? spawnSync("git", ["status"], { cwd, encoding: "utf8", env: { PATH: process.env.PATH, HOME: fx.home } })
          : bash(fx, command)
        if ("creates" in c.proof) {
          const created = path.join(cwd, c.proof.creates)
          expect(fs.existsSync(created), `bash should create ${c.proof.creates}`).toBe(true)
          fs.rmSync(created, { force: true })
        } else expect(ran.stdout).toContain(c.proof.prints)
        if (c.undo !== undefined) bash(fx, c.undo)
      }
      F.writeSettings(fx, {
        project: {
          permissions: {
            allow: (c.allow ?? []).map((r) => F.fill(fx, r)),
            deny: (c.deny ?? []).map((r) => F.fill(fx, r))
          }
        }
      })
      const fresh = F.makeDecider(F.settingsOptions(fx, { trustProject: true }))
      try {
        const session = F.session(fx, c.mode ?? "default", planted ? { cwd, projectDir: cwd } : {})
        const saved = process.cwd()
        // /proc/self is toolgate's own process when the analyzer looks at it.
        process.chdir(cwd)
        let decision
        try {
          decision = await fresh.decide(F.BashTool, { command }, session)
        } finally {
          process.chdir(saved)
        }
        expect({ command, behavior: Permission.behaviorOf(decision) }).not.toEqual({ command, behavior: "allow" })
      } finally {
        await fresh.dispose()
      }
    })
  }

  it("the Write tool asks for protected paths in acceptEdits, even under an allow rule", async () => {
    F.writeSettings(fx, { project: { permissions: { allow: [F.fill(fx, "Edit(//{h}/**)"), "Edit(./**)"] } } })
    const fresh = F.makeDecider(F.settingsOptions(fx, { trustProject: true }))
    try {
      for (
        const target of [
          fx.p(".toolgate", "tools", "evil.mjs"),
          path.join(fx.home, ".ssh", "authorized_keys"),
          fx.p(".claude", "settings.local.json"),
          fx.p(".git", "hooks", "pre-commit"),
          fx.p(".mcp.json"),
          path.join(fx.home, ".bashrc"),
          path.join(fx.home, ".zshenv")
        ]
      ) {
        for (const mode of ["acceptEdits", "default", "dontAsk", "plan"] as const) {
          const decision = await fresh.decide(
            F.WriteTool,
            { file_path: target, content: "x" },
            F.session(fx, mode, { additionalDirectories: [fx.home] })
          )
          expect({ target, mode, behavior: Permission.behaviorOf(decision) }).not.toEqual({
            target,
            mode,
            behavior: "allow"
          })
        }
        const bypass = await fresh.decide(
          F.WriteTool,
          { file_path: target, content: "x" },
          F.session(fx, "bypassPermissions", { additionalDirectories: [fx.home] })
        )
        expect({ target, behavior: Permission.behaviorOf(bypass) }).toEqual({ target, behavior: "allow" })
      }
    } finally {
      await fresh.dispose()
    }
  })
})

/** A folder without .git whose own files make git take it for a repository with a hook command. */
const plantBareRepository = (fx: F.Fixture): string => {
  const dir = path.join(fx.root, "planted")
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(path.join(dir, "objects"), { recursive: true })
  fs.mkdirSync(path.join(dir, "refs", "heads"), { recursive: true })
  fs.writeFileSync(path.join(dir, "HEAD"), "ref: refs/heads/main\n")
  fs.writeFileSync(
    path.join(dir, "config"),
    `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${
      path.join(dir, "PLANTED")
    }; false"\n`
  )
  return dir
}
