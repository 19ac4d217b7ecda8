/**
 * Issue 22 through the real Permissions stage over a real project with settings files: deny
 * rules match equivalent spellings, files named in option values meet Read deny rules, options
 * that run or write ask under prefix allow rules, and read-only commands with unknown options
 * are judged by what they mean (an abbreviated option is never read-only).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as fs from "node:fs"
import type { PermissionMode } from "../../../src/Permission.js"
import * as F from "./fixture.js"
import * as Permission from "../../../src/Permission.js"

describe("option meaning in permission decisions", () => {
  let fx: F.Fixture
  let decider: F.Decider
  beforeAll(() => {
    fx = F.makeFixture()
    fs.writeFileSync(fx.p("README.md"), "readme\n")
    F.writeSettings(fx, {
      project: {
        permissions: {
          deny: ["Bash(rm -rf:*)", "Bash(git push --force:*)", "Bash(npm publish:*)", "Read(.env)"],
          allow: [
            "Bash(rm:*)",
            "Bash(git push:*)",
            "Bash(npm:*)",
            "Bash(make test:*)",
            "Bash(curl:*)",
            "Bash(grep:*)",
            "Bash(git show:*)"
          ]
        }
      }
    })
    decider = F.makeDecider(F.settingsOptions(fx, { trustProject: true }))
  })
  afterAll(async () => {
    await decider.dispose()
    fx.cleanup()
  })

  const behavior = async (command: string, mode: PermissionMode = "default") =>
    Permission.behaviorOf(await decider.decide(F.BashTool, { command }, F.session(fx, mode)))

  it.each([
    "rm -Rf build",
    "rm --recursive --force build",
    "rm --rec --forc build",
    "rm build -rf",
    "git push -f",
    "git --no-pager push origin main -f",
    "npm publis",
    "npm pu --dry-run",
    "grep -f .env README.md",
    "grep --file=.env README.md",
    "git show HEAD:.env",
    "diff --from-file=.env README.md"
  ])("%s is denied", async (command) => {
    expect(await behavior(command)).toBe("deny")
  })

  it.each([
    "make test --eval=x",
    "make test --ev=x",
    "make test -f other.mk",
    "curl -o out.txt http://example.com",
    "curl -sSLo out http://example.com",
    "date --file=/etc/hostname",
    "sort --outp=x README.md",
    "git p origin",
    // an abbreviation is read-only only when a rule allows it
    "git status --porc"
  ])(
    "%s asks",
    async (command) => {
      expect(await behavior(command)).toBe("ask")
    }
  )

  it.each([
    "rm -r build",
    "git push origin main",
    "make test -j4",
    "curl -s http://example.com",
    "grep --colo=never x README.md",
    "sort -r README.md"
  ])(
    "%s is allowed",
    async (command) => {
      expect(await behavior(command)).toBe("allow")
    }
  )
})
