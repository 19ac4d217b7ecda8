/**
 * The Permissions stage's side of the Bash analyzer contract (src/services/ShellAnalyzer/types.ts):
 * which rules it gets, the checkWritePath / checkReadPath callbacks (Edit/Read rules, protected
 * paths, working directories, mode), and how its verdict meets modes and whole-tool rules
 * (claude-code-spec §1.4, §1.6, §1.11, §1.12). The analyzer itself is replaced by a small fake
 * to isolate this stage; an unavailable analyzer must make every Bash call ask.
 */
import { Effect } from "effect"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { explainDecision } from "../../../src/cli/permissionsCheck.js"
import type { AnalyzerOutcome } from "../../../src/services/Permissions/bashAnalyzer.js"
import { decideCall, type DecideEnvironment } from "../../../src/services/Permissions/decide.js"
import { makeRule } from "../../../src/PermissionRules.js"
import type { BashCheckContext, PathVerdict } from "../../../src/services/ShellAnalyzer/types.js"
import * as Permission from "../../../src/Permission.js"
import type {
  AskKind,
  Decision,
  DecisionReason,
  PermissionMode,
  PermissionRule,
  RuleBehavior,
  RuleSuggestion,
  SubcommandVerdict
} from "../../../src/Permission.js"
import * as FileState from "../../../src/services/FileState.js"
import * as F from "./fixture.js"

/** The analyzer's decision, as a fake analyzer gives it. */
const verdict = (v: {
  readonly behavior: RuleBehavior
  readonly message?: string
  readonly reason?: DecisionReason
  readonly kind?: AskKind
  readonly suggestions?: ReadonlyArray<RuleSuggestion>
  readonly subcommands?: ReadonlyArray<SubcommandVerdict>
}): Decision => {
  const message = v.message ??
    (v.behavior === "deny"
      ? "Permission to use Bash with command x has been denied."
      : "Claude requested permissions to use Bash, but you haven't granted it yet.")
  const reason = v.reason ?? { type: "default", detail: "fake" }
  const subcommands = v.subcommands ?? []
  if (v.behavior === "allow") return Permission.allow(reason, { subcommands })
  if (v.behavior === "deny") return Permission.deny(message, { reason, subcommands })
  return Permission.ask(message, {
    reason,
    kind: v.kind ?? "unapproved",
    suggestions: v.suggestions ?? [],
    subcommands
  })
}

describe("Bash subjects and the analyzer callbacks", () => {
  let fx: F.Fixture
  let fileState: FileState.FileStateService
  beforeAll(async () => {
    fx = F.makeFixture()
    fileState = await Effect.runPromise(FileState.make)
  })
  afterAll(() => fx.cleanup())

  const rules = (...specs: ReadonlyArray<[RuleBehavior, string]>): ReadonlyArray<PermissionRule> =>
    specs.map(([behavior, raw]) =>
      makeRule(F.fill(fx, raw), behavior, "projectSettings", fx.proj, fx.p(".claude", "settings.json"))
    )

  const run = (
    command: string,
    mode: PermissionMode,
    ruleList: ReadonlyArray<PermissionRule>,
    analyzer: (command: string, ctx: BashCheckContext) => Effect.Effect<AnalyzerOutcome>
  ): Promise<Decision> => {
    const env: DecideEnvironment = {
      rules: ruleList,
      launchCwd: fx.proj,
      additionalDirectories: [],
      bypassDisabled: false,
      home: fx.home,
      fileState,
      analyzeBash: analyzer
    }
    return Effect.runPromise(decideCall({ tool: F.BashTool, input: { command }, session: F.session(fx, mode) }, env))
  }

  /** A fake analyzer that judges one redirect target through the callback. */
  const redirectTo = (target: string) => (command: string, ctx: BashCheckContext) =>
    Effect.sync((): AnalyzerOutcome => {
      const pv: PathVerdict = ctx.checkWritePath(target)
      return {
        _tag: "Verdict",
        verdict: verdict({
          behavior: pv.behavior,
          kind: pv.behavior === "ask" ? "safety" : "unapproved",
          message: pv.reason,
          subcommands: [{
            command,
            behavior: pv.behavior,
            reason: pv.reason,
            ...(pv.rule === undefined ? {} : { rule: pv.rule })
          }]
        })
      }
    })

  const writeCheck = async (target: string, mode: PermissionMode, ruleList: ReadonlyArray<PermissionRule> = []) => {
    let seen: PathVerdict | undefined
    await run(
      "echo hi > x",
      mode,
      ruleList,
      (_c, ctx) =>
        Effect.sync(
          () => ((seen = ctx.checkWritePath(F.fill(fx, target))),
            { _tag: "Verdict", verdict: verdict({ behavior: "allow" }) } as const)
        )
    )
    return seen!
  }
  const readCheck = async (target: string, mode: PermissionMode, ruleList: ReadonlyArray<PermissionRule> = []) => {
    let seen: PathVerdict | undefined
    await run(
      "cat x",
      mode,
      ruleList,
      (_c, ctx) =>
        Effect.sync(
          () => ((seen = ctx.checkReadPath(F.fill(fx, target))),
            { _tag: "Verdict", verdict: verdict({ behavior: "allow" }) } as const)
        )
    )
    return seen!
  }

  it("§1.5: the analyzer gets the Bash content rules with their sources, the mode and the working directories", async () => {
    let ctx: BashCheckContext | undefined
    await run(
      "git status",
      "acceptEdits",
      rules(["allow", "Bash"], ["deny", "Bash(rm *)"], ["ask", "Bash(git push:*)"], ["allow", "Read(/src/**)"]),
      (_c, c) => {
        ctx = c
        return Effect.succeed({ _tag: "Verdict", verdict: verdict({ behavior: "allow" }) })
      }
    )
    expect(ctx!.rules.map((r) => `${r.behavior}:${r.raw}:${r.source}`)).toEqual([
      "deny:Bash(rm *):projectSettings",
      "ask:Bash(git push:*):projectSettings"
    ])
    expect(ctx!.mode).toBe("acceptEdits")
    expect(ctx!.cwd).toBe(fx.proj)
    expect(ctx!.workingDirectories).toContain(fx.proj)
  })

  const writeCases: ReadonlyArray<
    {
      spec: string
      name: string
      target: string
      mode: PermissionMode
      rules?: ReadonlyArray<[RuleBehavior, string]>
      expect: PathVerdict["behavior"]
    }
  > = [
    { spec: "§1.6", name: "redirect inside, default mode asks", target: "{p}/out.txt", mode: "default", expect: "ask" },
    {
      spec: "§1.6",
      name: "redirect inside, acceptEdits allows",
      target: "{p}/out.txt",
      mode: "acceptEdits",
      expect: "allow"
    },
    {
      spec: "§1.6",
      name: "redirect outside, acceptEdits asks",
      target: "{o}/out.txt",
      mode: "acceptEdits",
      expect: "ask"
    },
    {
      spec: "§1.6",
      name: "redirect onto an Edit-denied path",
      target: "{p}/docs/x.md",
      mode: "acceptEdits",
      rules: [["deny", "Edit(docs/**)"]],
      expect: "deny"
    },
    {
      spec: "§1.6",
      name: "redirect onto a Read-denied path (Read deny blocks writes)",
      target: "{p}/.env",
      mode: "acceptEdits",
      rules: [["deny", "Read(.env)"]],
      expect: "deny"
    },
    {
      spec: "§1.6",
      name: "redirect allowed by an Edit allow rule",
      target: "{o}/log.txt",
      mode: "default",
      rules: [["allow", "Edit(/{o}/**)"]],
      expect: "allow"
    },
    {
      spec: "§1.12",
      name: "redirect into .git asks in acceptEdits",
      target: "{p}/.git/config",
      mode: "acceptEdits",
      expect: "ask"
    },
    {
      spec: "§1.12",
      name: "redirect into ~/.bashrc asks even with allow rules",
      target: "{h}/.bashrc",
      mode: "acceptEdits",
      rules: [["allow", "Edit(~/**)"]],
      expect: "ask"
    },
    {
      spec: "§1.12",
      name: "bypassPermissions allows a protected redirect",
      target: "{p}/.git/config",
      mode: "bypassPermissions",
      expect: "allow"
    },
    {
      spec: "§1.11",
      name: "bypassPermissions allows an outside redirect",
      target: "{o}/x",
      mode: "bypassPermissions",
      expect: "allow"
    },
    {
      spec: "§1.11",
      name: "bypassPermissions keeps Edit deny",
      target: "{p}/docs/x.md",
      mode: "bypassPermissions",
      rules: [["deny", "Edit(docs/**)"]],
      expect: "deny"
    },
    {
      spec: "§1.11",
      name: "bypassPermissions keeps Edit ask",
      target: "{p}/docs/x.md",
      mode: "bypassPermissions",
      rules: [["ask", "Edit(docs/**)"]],
      expect: "ask"
    },
    {
      spec: "§1.11",
      name: "plan mode: shell writes ask",
      target: "{p}/out.txt",
      mode: "plan",
      rules: [["allow", "Edit(/**)"]],
      expect: "ask"
    },
    {
      spec: "§1.11",
      name: "dontAsk leaves the ask to the pipeline",
      target: "{p}/out.txt",
      mode: "dontAsk",
      expect: "ask"
    },
    {
      spec: "§1.6",
      name: "relative redirect resolves against the cwd",
      target: "../proj-evil/x",
      mode: "acceptEdits",
      expect: "ask"
    },
    {
      spec: "§1.6",
      name: "redirect through a symlink out of the project",
      target: "{p}/link-outside/x",
      mode: "acceptEdits",
      expect: "ask"
    },
    {
      spec: "§1.6",
      name: "redirect with `..` after a symlink",
      target: "{p}/link-outside/../proj-evil/x",
      mode: "acceptEdits",
      expect: "ask"
    }
  ]

  it.each(writeCases.map((c) => [`${c.spec} ${c.name}`, c] as const))("checkWritePath: %s", async (_, c) => {
    const pv = await writeCheck(c.target, c.mode, rules(...(c.rules ?? [])))
    expect(pv.behavior, JSON.stringify(pv)).toBe(c.expect)
  })

  it("§1.6 checkReadPath: Read deny, working directories, outside", async () => {
    expect((await readCheck("{p}/.env", "default", rules(["deny", "Read(.env)"]))).behavior).toBe("deny")
    expect((await readCheck("{p}/src/a.ts", "default")).behavior).toBe("allow")
    expect((await readCheck("{o}/file.txt", "default")).behavior).toBe("ask")
    expect((await readCheck("{p}/link-secret", "default", rules(["deny", "Read(/{h}/secrets/**)"]))).behavior).toBe(
      "deny"
    )
    const denied = await readCheck("{p}/.env", "default", rules(["deny", "Read(.env)"]))
    expect(denied.rule?.raw).toBe("Read(.env)")
  })

  it("§1.4: analyzer deny is a deny with its message and subcommands", async () => {
    const decision = await run(
      "git status && rm -rf x",
      "bypassPermissions",
      rules(["deny", "Bash(rm *)"]),
      () =>
        Effect.succeed({
          _tag: "Verdict",
          verdict: verdict({
            behavior: "deny",
            message: "Permission to use Bash with command rm -rf x has been denied.",
            subcommands: [
              { command: "git status", behavior: "allow", reason: "read-only" },
              { command: "rm -rf x", behavior: "deny", reason: "deny rule" }
            ]
          })
        })
    )
    expect(Permission.behaviorOf(decision)).toBe("deny")
    expect(Permission.behaviorOf(decision) === "deny" && (decision as Permission.Ask).message).toBe(
      "Permission to use Bash with command rm -rf x has been denied."
    )
    expect(decision.subcommands?.map((s) => s.behavior)).toEqual(["allow", "deny"])
  })

  it("§1.11: a forced analyzer ask survives bypassPermissions and a whole Bash allow", async () => {
    const forced = () =>
      Effect.succeed<AnalyzerOutcome>({
        _tag: "Verdict",
        verdict: verdict({ behavior: "ask", kind: "safety", reason: { type: "safetyCheck", detail: "critical path" } })
      })
    expect(Permission.behaviorOf(await run("rm -rf /", "bypassPermissions", [], forced))).toBe("ask")
    const withAllow = await run("rm -rf /", "default", rules(["allow", "Bash"]), forced)
    expect(Permission.behaviorOf(withAllow) === "ask" && Permission.isForced(withAllow as Permission.Ask)).toBe(true)
  })

  it("§1.11: a plain analyzer ask is skipped by bypassPermissions and by a whole Bash allow", async () => {
    const plain = () =>
      Effect.succeed<AnalyzerOutcome>({
        _tag: "Verdict",
        verdict: verdict({ behavior: "ask", suggestions: [{ rule: "Bash(npm test)", behavior: "allow" }] })
      })
    expect(Permission.behaviorOf(await run("npm test", "bypassPermissions", [], plain))).toBe("allow")
    expect(Permission.behaviorOf(await run("npm test", "default", rules(["allow", "Bash"]), plain))).toBe("allow")
    const asked = await run("npm test", "default", [], plain)
    expect(Permission.behaviorOf(asked) === "ask" && Permission.isForced(asked as Permission.Ask)).toBe(false)
    expect(Permission.behaviorOf(asked) === "ask" && (asked as Permission.Ask).suggestions).toEqual([{
      rule: "Bash(npm test)",
      behavior: "allow"
    }])
  })

  it("§1.1: an ask without a safe narrow rule never suggests the bare tool", async () => {
    const bare = await run(
      "bash -c 'x'",
      "default",
      [],
      () => Effect.succeed({ _tag: "Verdict", verdict: verdict({ behavior: "ask", suggestions: [] }) })
    )
    expect(Permission.behaviorOf(bare) === "ask" && (bare as Permission.Ask).suggestions).toEqual([])
  })

  it("§1.4: an analyzer ask rule stays forced", async () => {
    const rule = rules(["ask", "Bash(git push:*)"])[0]!
    const decision = await run(
      "git push",
      "acceptEdits",
      [rule],
      () =>
        Effect.succeed({
          _tag: "Verdict",
          verdict: verdict({ behavior: "ask", kind: "rule", reason: { type: "rule", rule } })
        })
    )
    expect(Permission.behaviorOf(decision) === "ask" && Permission.isForced(decision as Permission.Ask)).toBe(true)
    expect(decision.reason).toEqual({ type: "rule", rule })
  })

  it("issue 4: an unavailable or failing analyzer makes every Bash call ask (forced)", async () => {
    const unavailable = await run(
      "ls",
      "bypassPermissions",
      rules(["allow", "Bash"]),
      () => Effect.succeed({ _tag: "Unavailable", reason: "parser failed to load" })
    )
    expect(Permission.behaviorOf(unavailable) === "ask" && Permission.isForced(unavailable as Permission.Ask)).toBe(
      true
    )
    const dying = await run("ls", "bypassPermissions", [], () => Effect.die("boom"))
    expect(Permission.behaviorOf(dying) === "ask" && Permission.isForced(dying as Permission.Ask)).toBe(true)
  })

  it("§1.4: whole-tool Bash deny beats the analyzer; dontAsk explains a final deny per subcommand", async () => {
    let called = false
    const denied = await run(
      "ls",
      "default",
      rules(["deny", "Bash"]),
      () => ((called = true), Effect.succeed({ _tag: "Unavailable", reason: "x" }))
    )
    expect(Permission.behaviorOf(denied)).toBe("deny")
    expect(called).toBe(false)
    const asked = await run("ls && make", "dontAsk", [], () =>
      Effect.succeed({
        _tag: "Verdict",
        verdict: verdict({
          behavior: "ask",
          subcommands: [
            { command: "ls", behavior: "allow", reason: "read-only" },
            { command: "make", behavior: "ask", reason: "no rule allows it" }
          ]
        })
      }))
    const explained = explainDecision(asked, { toolName: "Bash", input: { command: "ls && make" }, mode: "dontAsk" })
    expect(explained.json.decision).toBe("deny")
    expect(explained.json.subcommands).toEqual([
      { command: "ls", decision: "allow", reason: "read-only" },
      { command: "make", decision: "ask", reason: "no rule allows it" }
    ])
    expect(explained.text).toMatch(/subcommands:\n {2}allow ls {2}— read-only\n {2}ask {3}make {2}— no rule allows it/)
  })

  it("a redirect verdict from the callbacks reaches the decision", async () => {
    const d = await run("echo x > .git/config", "acceptEdits", [], redirectTo(path.join(fx.proj, ".git", "config")))
    expect(Permission.behaviorOf(d)).toBe("ask")
  })
})
