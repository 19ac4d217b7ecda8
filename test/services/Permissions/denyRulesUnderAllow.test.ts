/**
 * A tool-wide `Bash` allow rule (or bypassPermissions) runs what the analyzer could not fully
 * check, as Claude Code does, but never carries a command past a deny rule: a file path, glob or
 * command text that a deny rule could cover asks (or is denied) whatever allows Bash.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as F from "./fixture.js"
import * as Permission from "../../../src/Permission.js"

const NEVER_ALLOWED: ReadonlyArray<string> = [
  // file paths only known at run time
  "F=.env; cat $F",
  "cat $(echo .env)",
  "cat \"$(echo .env)\"",
  "cat `echo .env`",
  "head -n1 ${F:-.env}",
  "cd $X && cat .env",
  // globs that name a denied file
  "cat .e*",
  "cat .en?",
  "cat .[e]nv",
  "grep x .e*",
  "rm -f .e*",
  "shopt -s dotglob; cat *",
  // command text only known at run time, for a shell or runner
  "sh -c \"$CMD\"",
  "bash -c \"$ARG\"",
  "env sh -c \"$C\"",
  "eval \"$C\"",
  "ssh h \"$C\"",
  "busybox sh -c \"$C\"",
  "timeout 5 bash -c \"$C\"",
  // literal forms reach the deny rules
  "sh -c 'cat .env'",
  "(cat .env)",
  "{ cat .env; }",
  "cat < .env",
  "bash -c 'r''m -rf foo'",
  "echo rm -rf foo | sh",
  "X=rm; $X -rf foo",
  "$(echo rm) -rf foo"
]

const STILL_ALLOWED: ReadonlyArray<string> = [
  "ls",
  "cat README.md",
  "cat *.md",
  "echo $HOME",
  "git status",
  "sh -c \"ls\"",
  "export X=1; echo $X"
]

describe("deny rules hold under a tool-wide Bash allow and bypassPermissions", () => {
  let fx: F.Fixture
  beforeAll(() => {
    fx = F.makeFixture()
    fs.writeFileSync(fx.p(".env"), "SECRET=1\n")
    fs.writeFileSync(fx.p("README.md"), "readme\n")
    F.writeSettings(fx, { project: { permissions: { deny: ["Bash(rm:*)", "Read(.env)"], allow: ["Bash"] } } })
  })
  afterAll(() => fx.cleanup())

  for (const mode of ["default", "bypassPermissions"] as const) {
    it.each(NEVER_ALLOWED)(`[${mode}] %s is never allowed`, async (command) => {
      const { decision } = await F.decide(
        F.settingsOptions(fx, { trustProject: true }),
        F.BashTool,
        { command },
        F.session(fx, mode)
      )
      expect(Permission.behaviorOf(decision)).not.toBe("allow")
    })
    it.each(STILL_ALLOWED)(`[${mode}] %s still runs`, async (command) => {
      const { decision } = await F.decide(
        F.settingsOptions(fx, { trustProject: true }),
        F.BashTool,
        { command },
        F.session(fx, mode)
      )
      expect(Permission.behaviorOf(decision)).toBe("allow")
    })
  }
})
