/**
 * Adversarial paths built from the path classes of shell-security §2 / §3.3: string-prefix
 * containment, symlinks into denied directories, dangling symlinks, `..` after a symlink,
 * case variants on a case-sensitive volume, protected names, NUL, `~user`, magic links,
 * hard links, loops. None may be allowed where a fail-closed checker must ask or deny.
 * Real files and real symlinks in a temporary directory; decisions through the real layer.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AnyTool } from "../../../src/Tool.js"
import type { PermissionMode } from "../../../src/Permission.js"
import * as F from "./fixture.js"
import * as Permission from "../../../src/Permission.js"

interface PathCase {
  readonly cls: string
  readonly name: string
  readonly access: "read" | "write"
  readonly path: string
  readonly mode?: PermissionMode
  readonly rules?: {
    readonly allow?: ReadonlyArray<string>
    readonly deny?: ReadonlyArray<string>
    readonly ask?: ReadonlyArray<string>
  }
  /** The exact outcome; every case is also checked to be "not allow". */
  readonly expect: "ask" | "deny"
}

// permissive settings an attacker would love to slip past: everything under the project allowed
const broadAllow = { allow: ["Edit(/**)", "Read(/**)"] }
const secretsDeny = { deny: ["Read(/{h}/secrets/**)", "Edit(/{h}/secrets/**)", "Read(/{o}/secrets/**)"] }

const cases: ReadonlyArray<PathCase> = [
  // string-prefix containment (CVE-2025-54794)
  {
    cls: "prefix",
    name: "sibling with the project name as prefix (read)",
    access: "read",
    path: "{p}-evil/x.txt",
    expect: "ask"
  },
  {
    cls: "prefix",
    name: "sibling with the project name as prefix (write, acceptEdits)",
    access: "write",
    path: "{p}-evil/x.txt",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "prefix",
    name: "sibling prefix with project allow rules",
    access: "write",
    path: "{p}-evil/x.txt",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  { cls: "prefix", name: "name glued to the project path", access: "read", path: "{p}evil", expect: "ask" },
  {
    cls: "prefix",
    name: "`..` out of the project into the sibling",
    access: "write",
    path: "{p}/../proj-evil/x.txt",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "prefix",
    name: "`./..` out of the project",
    access: "read",
    path: "{p}/./../outside/file.txt",
    expect: "ask"
  },
  { cls: "prefix", name: "the project's parent directory", access: "read", path: "{p}/..", expect: "ask" },
  { cls: "prefix", name: "relative path leaving the cwd", access: "read", path: "../outside/file.txt", expect: "ask" },
  {
    cls: "prefix",
    name: "relative path leaving the cwd (write)",
    access: "write",
    path: "../proj-evil/y.txt",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },

  // symlink into a denied directory (CVE-2026-25724)
  {
    cls: "symlink-deny",
    name: "read through a dir link into a denied dir",
    access: "read",
    path: "{p}/link-outside/secrets/token",
    rules: secretsDeny,
    expect: "deny"
  },
  {
    cls: "symlink-deny",
    name: "read through a file link to a denied file",
    access: "read",
    path: "{p}/link-secret",
    rules: secretsDeny,
    expect: "deny"
  },
  {
    cls: "symlink-deny",
    name: "write through a file link to a denied file",
    access: "write",
    path: "{p}/link-secret",
    mode: "acceptEdits",
    rules: secretsDeny,
    expect: "deny"
  },
  {
    cls: "symlink-deny",
    name: "link chain ending in a denied file",
    access: "read",
    path: "{p}/chain1",
    rules: secretsDeny,
    expect: "deny"
  },
  {
    cls: "symlink-deny",
    name: "relative link to a denied file",
    access: "read",
    path: "{p}/rel-secret",
    rules: secretsDeny,
    expect: "deny"
  },
  {
    cls: "symlink-deny",
    name: "link to a denied file with a project allow rule",
    access: "read",
    path: "{p}/link-secret",
    rules: { ...secretsDeny, allow: ["Read(/link-secret)"] },
    expect: "deny"
  },
  {
    cls: "symlink-deny",
    name: "deny on the link name, read via its target path is not the link",
    access: "read",
    path: "{p}/link-secret",
    rules: { deny: ["Read(/link-secret)"] },
    expect: "deny"
  },

  // symlinks leaving the working directory
  {
    cls: "symlink-out",
    name: "dir link to outside (read)",
    access: "read",
    path: "{p}/link-outside/file.txt",
    expect: "ask"
  },
  {
    cls: "symlink-out",
    name: "dir link to outside (write, acceptEdits)",
    access: "write",
    path: "{p}/link-outside/.env",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "symlink-out",
    name: "dir link to outside, project allow rules cover only the link",
    access: "write",
    path: "{p}/link-outside/.env",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "symlink-out",
    name: "link to the filesystem root",
    access: "read",
    path: "{p}/rootlink/etc/passwd",
    expect: "ask"
  },
  {
    cls: "symlink-out",
    name: "link to the filesystem root, project allow rules",
    access: "read",
    path: "{p}/rootlink/etc/passwd",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "symlink-out",
    name: "new file under a dir link to outside",
    access: "write",
    path: "{p}/link-outside/new/file.txt",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "symlink-out",
    name: "Glob on a dir link to outside",
    access: "read",
    path: "{p}/link-outside",
    expect: "ask"
  },

  // dangling symlink to a not-yet-existing outside target (CVE-2026-32055)
  {
    cls: "dangling",
    name: "write to a dangling link (acceptEdits)",
    access: "write",
    path: "{p}/dangling",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "dangling",
    name: "write to a dangling link allowed by name only",
    access: "write",
    path: "{p}/dangling",
    mode: "acceptEdits",
    rules: { allow: ["Edit(/dangling)"] },
    expect: "ask"
  },
  {
    cls: "dangling",
    name: "write to a dangling link with project allow rules",
    access: "write",
    path: "{p}/dangling",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "dangling",
    name: "dangling link into a denied dir",
    access: "write",
    path: "{p}/dangling-secret",
    mode: "acceptEdits",
    rules: secretsDeny,
    expect: "deny"
  },
  { cls: "dangling", name: "read of a dangling link to outside", access: "read", path: "{p}/dangling", expect: "ask" },

  // `..` after a symlink: the kernel applies it to the target's parent
  {
    cls: "dotdot-after-link",
    name: "link/../sibling (lexically inside, really outside)",
    access: "read",
    path: "{p}/link-outside/../proj-evil/x.txt",
    expect: "ask"
  },
  {
    cls: "dotdot-after-link",
    name: "link/../sibling write with allow rules",
    access: "write",
    path: "{p}/link-outside/../proj-evil/x.txt",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "dotdot-after-link",
    name: "link/../home/secrets into a denied file",
    access: "read",
    path: "{p}/link-outside/../home/secrets/key",
    rules: secretsDeny,
    expect: "deny"
  },
  {
    cls: "dotdot-after-link",
    name: "nested link/../.. reaching home",
    access: "read",
    path: "{p}/link-outside/secrets/../../home/.bashrc",
    expect: "ask"
  },
  {
    cls: "dotdot-after-link",
    name: "in-project link/.. onto a denied file",
    access: "read",
    path: "{p}/src-link/../.env",
    rules: { deny: ["Read(.env)"] },
    expect: "deny"
  },

  // case variants on a case-sensitive volume
  {
    cls: "case",
    name: "upper-cased project path is another directory",
    access: "read",
    path: "{P}/src/a.ts",
    expect: "ask"
  },
  {
    cls: "case",
    name: "upper-cased project path (write, acceptEdits)",
    access: "write",
    path: "{P}/src/new.ts",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "case",
    name: "allow rule in another case does not allow",
    access: "write",
    path: "{p}/src/a.ts",
    rules: { allow: ["Edit(/SRC/**)"] },
    expect: "ask"
  },
  {
    cls: "case",
    name: "deny rule in another case still denies",
    access: "read",
    path: "{p}/.ENV",
    rules: { deny: ["Read(.env)"] },
    expect: "deny"
  },
  {
    cls: "case",
    name: "deny on a dir in another case still denies",
    access: "read",
    path: "{p}/Docs/readme.md",
    rules: { deny: ["Read(/docs/**)"] },
    expect: "deny"
  },

  // protected names
  {
    cls: "protected",
    name: ".git/hooks/pre-commit",
    access: "write",
    path: "{p}/.git/hooks/pre-commit",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "protected",
    name: "nested repository .git/config",
    access: "write",
    path: "{p}/packages/api/.git/config",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "protected",
    name: ".gitmodules",
    access: "write",
    path: "{p}/.gitmodules",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "protected",
    name: ".claude/settings.local.json",
    access: "write",
    path: "{p}/.claude/settings.local.json",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "protected",
    name: ".claude via .. from worktrees",
    access: "write",
    path: "{p}/.claude/worktrees/../settings.json",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "protected",
    name: ".git inside .claude/worktrees",
    access: "write",
    path: "{p}/.claude/worktrees/w1/.git/config",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "protected",
    name: "symlink to the .git directory",
    access: "write",
    path: "{p}/gitlink/config",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "protected",
    name: "symlink to ~/.bashrc",
    access: "write",
    path: "{p}/rc",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "protected",
    name: "mixed-case .Claude directory",
    access: "write",
    path: "{p}/.Claude/settings.json",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "protected",
    name: ".zshenv in home with a home allow rule",
    access: "write",
    path: "{h}/.zshenv",
    mode: "acceptEdits",
    rules: { allow: ["Edit(~/**)"] },
    expect: "ask"
  },
  {
    cls: "protected",
    name: ".idea workspace",
    access: "write",
    path: "{p}/.idea/workspace.xml",
    mode: "acceptEdits",
    expect: "ask"
  },

  // NUL bytes
  { cls: "nul", name: "NUL in a read path", access: "read", path: "{p}/src/a.ts\u0000.txt", expect: "ask" },
  {
    cls: "nul",
    name: "NUL in a write path with allow rules",
    access: "write",
    path: "{p}/src/a.ts\u0000/../../x",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "nul",
    name: "NUL in a relative path",
    access: "write",
    path: "src\u0000x",
    mode: "acceptEdits",
    expect: "ask"
  },

  // `~user` is not expanded; `~/..` is
  {
    cls: "tilde",
    name: "~root/.bashrc is a relative protected name",
    access: "write",
    path: "~root/.bashrc",
    mode: "acceptEdits",
    expect: "ask"
  },
  { cls: "tilde", name: "~/../.. climbs out of home", access: "read", path: "~/../outside/file.txt", expect: "ask" },
  {
    cls: "tilde",
    name: "~/secrets is home, denied",
    access: "read",
    path: "~/secrets/key",
    rules: secretsDeny,
    expect: "deny"
  },

  // magic links
  {
    cls: "magic",
    name: "/proc/self/root into the project is not the project",
    access: "write",
    path: "/proc/self/root{p}/src/a.ts",
    mode: "acceptEdits",
    expect: "ask"
  },
  {
    cls: "magic",
    name: "/proc/self/root into a denied file",
    access: "read",
    path: "/proc/self/root{h}/secrets/key",
    rules: secretsDeny,
    expect: "deny"
  },
  { cls: "magic", name: "/proc/self/cwd", access: "read", path: "/proc/self/cwd/package.json", expect: "ask" },

  // hard links (invisible to realpath)
  {
    cls: "hardlink",
    name: "hard link to ~/.bashrc inside the project",
    access: "write",
    path: "{p}/hard-bashrc",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "hardlink",
    name: "hard link to an outside file",
    access: "write",
    path: "{p}/hard-outside",
    mode: "acceptEdits",
    expect: "ask"
  },

  // unresolvable paths
  { cls: "loop", name: "symlink loop (read)", access: "read", path: "{p}/loop1", rules: broadAllow, expect: "ask" },
  {
    cls: "loop",
    name: "symlink loop (write)",
    access: "write",
    path: "{p}/loop1/x",
    mode: "acceptEdits",
    rules: broadAllow,
    expect: "ask"
  },
  {
    cls: "loop",
    name: "a file used as a directory",
    access: "write",
    path: "{p}/notes.txt/x",
    mode: "acceptEdits",
    expect: "ask"
  },

  // spellings the executor may normalise differently
  {
    cls: "spelling",
    name: "double slash",
    access: "read",
    path: "{p}//.env",
    rules: { deny: ["Read(.env)"] },
    expect: "deny"
  },
  {
    cls: "spelling",
    name: "dot segments",
    access: "read",
    path: "{p}/./src/../.env",
    rules: { deny: ["Read(.env)"] },
    expect: "deny"
  },
  {
    cls: "spelling",
    name: "trailing space the tool trims",
    access: "read",
    path: "{p}/.env ",
    rules: { deny: ["Read(.env)"] },
    expect: "deny"
  },
  {
    cls: "spelling",
    name: "NFD spelling of an NFC-denied name",
    access: "read",
    path: "{p}/cafe\u0301.txt",
    rules: { deny: ["Read(caf\u00e9.txt)"] },
    expect: "deny"
  },
  {
    cls: "spelling",
    name: "trailing slash on a denied directory",
    access: "read",
    path: "{p}/docs/",
    rules: { deny: ["Read(/docs/**)"] },
    expect: "deny"
  }
]

const toolFor = (access: "read" | "write"): AnyTool => (access === "read" ? F.ReadTool : F.WriteTool)

describe("adversarial paths (shell-security §2 path classes, §3.3)", () => {
  let fx: F.Fixture
  beforeAll(() => {
    fx = F.makeFixture()
    const link = (target: string, name: string) => fs.symlinkSync(target, fx.p(name))
    link(fx.p("chain2"), "chain1")
    link(path.join(fx.home, "secrets", "key"), "chain2")
    link("../home/secrets/key", "rel-secret")
    link("/", "rootlink")
    link(path.join(fx.home, "secrets", "not-yet"), "dangling-secret")
    link(fx.p("loop2"), "loop1")
    link(fx.p("loop1"), "loop2")
    link(fx.p(".git"), "gitlink")
    link(path.join(fx.home, ".bashrc"), "rc")
    fs.linkSync(path.join(fx.home, ".bashrc"), fx.p("hard-bashrc"))
    fs.linkSync(path.join(fx.outside, "file.txt"), fx.p("hard-outside"))
    fs.writeFileSync(fx.p("caf\u00e9.txt"), "nfc")
  })
  afterAll(() => fx.cleanup())

  it("has at least 50 paths", () => {
    expect(cases.length).toBeGreaterThanOrEqual(50)
  })

  it.each(cases.map((c) => [`[${c.cls}] ${c.name}`, c] as const))("%s", async (_, c) => {
    const rules = F.fillDeep(fx, c.rules ?? {})
    F.writeSettings(fx, { project: { permissions: rules } })
    const input = c.path.replace("{P}", fx.proj.replace(/proj$/, "PROJ"))
    const filled = F.fill(fx, input)
    const tool = toolFor(c.access)
    const toolInput = c.access === "read" ? { file_path: filled } : { file_path: filled, content: "x" }
    const { decision } = await F.decide(
      F.settingsOptions(fx, { trustProject: true }),
      tool,
      toolInput,
      F.session(fx, c.mode ?? "default")
    )
    const context = `${c.cls} ${c.name} (${JSON.stringify(filled)}): ${JSON.stringify(decision)}`
    expect(Permission.behaviorOf(decision), context).not.toBe("allow")
    expect(Permission.behaviorOf(decision), context).toBe(c.expect)
  })

  it("the same files are allowed when reached honestly (control group)", async () => {
    F.writeSettings(fx, {})
    const options = F.settingsOptions(fx, { trustProject: true })
    for (const p of [fx.p("src", "a.ts"), fx.p("src-link", "a.ts"), fx.p("caf\u00e9.txt")]) {
      const { decision } = await F.decide(options, F.ReadTool, { file_path: p }, F.session(fx, "default"))
      expect(Permission.behaviorOf(decision), p).toBe("allow")
    }
    const { decision } = await F.decide(
      options,
      F.WriteTool,
      { file_path: fx.p("src", "fresh.ts"), content: "x" },
      F.session(fx, "acceptEdits")
    )
    expect(Permission.behaviorOf(decision)).toBe("allow")
  })
})
