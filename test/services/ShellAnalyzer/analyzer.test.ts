/**
 * The analyzer's parts: word resolution and walking (shell-security §3.1 steps 2–4), rule
 * patterns (claude-code-spec §1.5), suggestions, subcommand verdicts, isReadOnlyCommand.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import {
  compileBashPattern,
  escapeForDisplay,
  matchesText,
  suggestRules,
  type SimpleCommand,
  type Word
} from "../../../src/services/ShellAnalyzer/index.js"
import { sharedShellAnalyzer } from "../../support/shellAnalyzer.js"
import { check, contextFor, makeProject } from "./support.js"
import * as Permission from "../../../src/Permission.js"

const D = (text: string): Word => ({ dynamic: true, text })

const argvOf = (command: string) =>
  Effect.map(sharedShellAnalyzer.analyze(command), (a) => ({
    kind: a.kind,
    commands: (a.kind === "simple" ? a.commands : a.visibleCommands).map((c) => ({ argv: c.argv, origin: c.origin }))
  }))

const project = makeProject()

describe("shell analyzer", () => {
  beforeAll(() => Effect.runPromise(sharedShellAnalyzer.warmup))
  afterAll(() => project.cleanup())

  describe("words and commands", () => {
    const table: ReadonlyArray<readonly [string, ReadonlyArray<ReadonlyArray<Word>>]> = [
      ["git status", [["git", "status"]]],
      ["r\\m -rf x", [["rm", "-rf", "x"]]],
      ["\"r\"m'' x", [["rm", "x"]]],
      ["$'\\x72\\x6d' -rf ~", [["rm", "-rf", "~"]]],
      ["echo $'a\\tb' $'it\\'s'", [["echo", "a\tb", "it's"]]],
      ["gi\\\nt status", [["git", "status"]]],
      ["echo a\\\nb c", [["echo", "ab", "c"]]],
      ["echo \\$ $", [["echo", "$", "$"]]],
      ["echo \"a\\\"b\\$c\\\\d\\e\"", [["echo", "a\"b$c\\d\\e"]]],
      ["FOO=1 git status > out 2>&1", [["git", "status"]]],
      ["echo \"$HOME\" $HOME/x", [["echo", "~", "~/x"]]],
      ["cat <<'EOF'\n$(id)\nEOF", [["cat"]]],
      ["a | b && c; d & e\nf", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]],
      ["( a ) && { b; }", [["a"], ["b"]]]
    ]
    for (const [command, expected] of table) {
      it.effect(`resolves ${JSON.stringify(command)}`, () =>
        Effect.gen(function*() {
          const result = yield* argvOf(command)
          expect(result.kind).toBe("simple")
          expect(result.commands.map((c) => c.argv)).toEqual(expected)
        }))
    }

    it.effect("unwraps wrappers, nested shells, xargs and find -exec", () =>
      Effect.gen(function*() {
        const wrapped = yield* argvOf("timeout 5 nice -n 3 sudo -u root bash -c 'rm -rf / && echo \"hi\"'")
        expect(wrapped.commands).toEqual([
          {
            argv: ["timeout", "5", "nice", "-n", "3", "sudo", "-u", "root", "bash", "-c", "rm -rf / && echo \"hi\""],
            origin: "top"
          },
          {
            argv: ["nice", "-n", "3", "sudo", "-u", "root", "bash", "-c", "rm -rf / && echo \"hi\""],
            origin: "wrapper-inner"
          },
          { argv: ["sudo", "-u", "root", "bash", "-c", "rm -rf / && echo \"hi\""], origin: "wrapper-inner" },
          { argv: ["bash", "-c", "rm -rf / && echo \"hi\""], origin: "wrapper-inner" },
          { argv: ["rm", "-rf", "/"], origin: "nested-shell" },
          { argv: ["echo", "hi"], origin: "nested-shell" }
        ])
        const find = yield* argvOf("find . -name '*.o' -exec rm {} +")
        expect(find.commands[1]).toEqual({
          argv: ["rm", D("{}"), D("<arguments from input>")],
          origin: "wrapper-inner"
        })
        const xargs = yield* argvOf("ls | xargs -n1 rm -f")
        expect(xargs.commands.map((c) => c.argv)).toEqual([["ls"], ["xargs", "-n1", "rm", "-f"], [
          "rm",
          "-f",
          D("<arguments from input>")
        ]])
        const evaled = yield* argvOf("eval 'git  status' && watch -n 2 'ls -la'")
        expect(evaled.commands.map((c) => c.argv)).toEqual([["eval", "git  status"], ["git", "status"], [
          "watch",
          "-n",
          "2",
          "ls -la"
        ], ["ls", "-la"]])
        const backticks = yield* argvOf("echo `echo \\`rm x\\``")
        expect(backticks.kind).toBe("tooComplex")
        expect(backticks.commands.map((c) => c.argv)).toContainEqual(["rm", "x"])
      }))

    const complex: ReadonlyArray<readonly [string, RegExp]> = [
      ["ls $USER", /unquoted expansion/],
      ["HOME=/tmp; ls $HOME", /unquoted expansion/],
      [". ./env.sh; ls $HOME", /unquoted expansion/],
      ["source env.sh && ls $HOME", /unquoted expansion/],
      ["eval x; ls $HOME", /unquoted expansion/],
      ["cat \"$(id -u)\"", /a command substitution inside a string/],
      // Claude Code asks about a nested command even when only echo prints its output.
      ["echo \"$(id -u)\"", /a command substitution inside a string/],
      ["echo $(git rev-parse HEAD)", /unquoted command substitution/],
      ["cat \"$X\"", /the expansion \$X inside a string/],
      ["cat \"${HOME}\"", /the expansion \$\{HOME\} inside a string/],
      ["echo $\"x\"", /\$"…"/],
      ["echo {a,b}", /brace expansion/],
      ["f() { ls; }", /function definition/],
      ["echo \\ x", /skipped/],
      ["echo $'\\\\' ; rm x #'", /misread/],
      ["echo hi\r", /control character/],
      ["git\u200b status", /invisible/],
      ["echo ${x@P}", /expansion/],
      ["source x.sh", /source/],
      ["bash", /standard input/],
      ["env -S 'rm x'", /env.*-S/],
      ["cat <<EOF\n$HOME\nEOF", /here-document/],
      ["echo 'unterminated", /syntax error|unterminated/],
      ["ls &&", /incomplete|syntax error/],
      ["=curl x", /zsh/],
      ["echo $'\\u00e9'", /\$'…'/],
      ["[[ $x -eq 1 ]]", /arithmetic/]
    ]
    for (const [command, reason] of complex) {
      it.effect(`too complex: ${JSON.stringify(command)}`, () =>
        Effect.gen(function*() {
          const analysis = yield* sharedShellAnalyzer.analyze(command)
          expect(analysis.kind).toBe("tooComplex")
          if (analysis.kind === "tooComplex") expect(analysis.reason).toMatch(reason)
        }))
    }

    // Claude Code asks about every value only known at run time but $HOME, even one echo only prints.
    for (
      const command of [
        "echo \"$USER\"",
        "echo \"${HOME}\"",
        "echo $PATH",
        "for x in a b; do echo \"$x\"; done"
      ]
    ) {
      it.effect(`too complex, although echo only prints it: ${JSON.stringify(command)}`, () =>
        Effect.gen(function*() {
          expect((yield* sharedShellAnalyzer.analyze(command)).kind).toBe("tooComplex")
        }))
    }
    for (const command of ["echo $HOME", "echo \"$HOME\""]) {
      it.effect(`simple: ${JSON.stringify(command)}`, () =>
        Effect.gen(function*() {
          expect((yield* sharedShellAnalyzer.analyze(command)).kind).toBe("simple")
        }))
    }
  })

  describe("rule patterns (claude-code-spec §1.5)", () => {
    it("compiles the three kinds", () => {
      expect(compileBashPattern(undefined)).toEqual({ kind: "any" })
      expect(compileBashPattern("npm:*")).toMatchObject({ kind: "prefix", prefix: "npm" })
      expect(compileBashPattern("git:* push")).toMatchObject({ kind: "wildcard" })
      expect(matchesText(compileBashPattern("git:* push"), "git push")).toBe(false)
      expect(compileBashPattern("git *")).toMatchObject({ kind: "wildcard" })
      expect(compileBashPattern("echo \\*")).toMatchObject({ kind: "exact", text: "echo *" })
    })
    it("matches text as Claude Code does", () => {
      const m = (rule: string, text: string) => matchesText(compileBashPattern(rule), text)
      expect(m("npm:*", "npm")).toBe(true)
      expect(m("npm:*", "npm i")).toBe(true)
      expect(m("npm:*", "npmx")).toBe(false)
      expect(m("git *", "git")).toBe(true)
      expect(m("git *", "gitk")).toBe(false)
      expect(m("ls*", "lsof")).toBe(true)
      expect(m("git * main", "git push origin main")).toBe(true)
      expect(m("npm  run   build", "npm run\t\tbuild")).toBe(true)
      expect(m("Git *", "git log")).toBe(false)
      expect(m("echo *", "echo a\nb")).toBe(true)
      expect(m("a * b *", "a x b")).toBe(false)
      expect(m("a * b *", "a x b y")).toBe(true)
    })
  })

  describe("suggestions", () => {
    const cmd = (...argv: Array<Word>): SimpleCommand => ({
      argv,
      env: [],
      redirects: [],
      origin: "top",
      text: argv.join(" ")
    })
    it("offers prefixes for plain commands and exact rules for dangerous ones", () => {
      expect(suggestRules([cmd("npm", "run", "build", "--prod")])).toEqual([{
        rule: "Bash(npm run build:*)",
        behavior: "allow"
      }])
      expect(suggestRules([cmd("git", "push", "origin")])).toEqual([{ rule: "Bash(git push:*)", behavior: "allow" }])
      expect(suggestRules([cmd("make", "test")])).toEqual([{ rule: "Bash(make test:*)", behavior: "allow" }])
      expect(suggestRules([cmd("tsc", "--noEmit")])).toEqual([{ rule: "Bash(tsc:*)", behavior: "allow" }])
      expect(suggestRules([cmd("bash", "-c", "ls")])).toEqual([{ rule: "Bash(bash -c ls)", behavior: "allow" }])
      expect(suggestRules([cmd("python3", "-c", "print(1)")])).toEqual([{
        rule: "Bash(python3 -c 'print\\(1\\)')",
        behavior: "allow"
      }])
      expect(suggestRules([cmd("find", ".", "-name", "*.ts")])).toEqual([{
        rule: "Bash(find . -name '\\\\*.ts')",
        behavior: "allow"
      }])
      expect(suggestRules([cmd("echo", D("$x"))])).toEqual([])
    })
    it("at most five, one per command", () => {
      const many = ["a", "b", "c", "d", "e", "f", "g"].map((n) => cmd(`tool-${n}`))
      expect(suggestRules(many)).toHaveLength(5)
      expect(suggestRules([cmd("make"), cmd("make")])).toHaveLength(1)
    })
    it("never a broad prefix of a program that runs other programs", () => {
      const dangerous = [
        "bash",
        "sh",
        "zsh",
        "env",
        "xargs",
        "sudo",
        "find",
        "python",
        "python3",
        "node",
        "perl",
        "ruby",
        "eval",
        "exec",
        "timeout",
        "nice",
        "watch",
        "awk",
        "curl"
      ]
      // npx, git and docker get a prefix only with the package or subcommand named.
      expect(suggestRules([cmd("npx", "tsc", "--noEmit")])).toEqual([{ rule: "Bash(npx tsc:*)", behavior: "allow" }])
      expect(suggestRules([cmd("npx", "-y", "cowsay")])).toEqual([{ rule: "Bash(npx -y cowsay)", behavior: "allow" }])
      expect(suggestRules([cmd("git")])).toEqual([{ rule: "Bash(git)", behavior: "allow" }])
      fc.assert(
        fc.property(
          fc.constantFrom(...dangerous),
          fc.array(fc.constantFrom("-c", "x", "ls", "-e", "run", "*", "a b"), { maxLength: 3 }),
          (program, args) => {
            for (const s of suggestRules([cmd(program, ...args)])) {
              if (
                s.rule === "Bash(*)" || s.rule === "Bash" || s.rule.endsWith(":*)") || /[^\\]\*/.test(s.rule)
              ) return false
            }
            return true
          }
        ),
        { seed: 7, numRuns: 300 }
      )
    })
    it.effect("an ask verdict carries one suggestion per unapproved subcommand", () =>
      Effect.gen(function*() {
        const verdict = yield* check("make && cargo build --release && git status", contextFor(project.root, {}))
        expect(Permission.behaviorOf(verdict)).toBe("ask")
        expect((verdict as Permission.Ask).suggestions.map((s) => s.rule)).toEqual([
          "Bash(make:*)",
          "Bash(cargo build:*)"
        ])
      }))
  })

  describe("subcommand verdicts", () => {
    it.effect("lists every simple command with its own verdict and rule", () =>
      Effect.gen(function*() {
        const verdict = yield* check(
          "git status && make build && npm publish",
          contextFor(project.root, { allow: ["Bash(make:*)"] })
        )
        expect(verdict.subcommands).toMatchObject([
          { command: "git status", behavior: "allow" },
          { command: "make build", behavior: "allow", rule: { raw: "Bash(make:*)" } },
          { command: "npm publish", behavior: "ask" }
        ])
        const denied = yield* check("ls && rm -rf build", contextFor(project.root, { deny: ["Bash(rm:*)"] }))
        expect(denied.subcommands).toMatchObject([
          { command: "ls", behavior: "allow" },
          { command: "rm -rf build", behavior: "deny", rule: { raw: "Bash(rm:*)" } }
        ])
      }))
  })

  describe("isReadOnlyCommand", () => {
    it("is true only for read-only commands without writes", () => {
      for (
        const command of [
          "git status | head -5",
          "ls -la src",
          "cat README.md && wc -l README.md",
          "grep -rn foo . 2>/dev/null",
          "echo hi"
        ]
      ) {
        expect(sharedShellAnalyzer.isReadOnly(command), command).toBe(true)
      }
      for (
        const command of [
          "rm x",
          "echo x > f",
          "cd src && ls",
          "echo $(date -s now)",
          "FOO=1 ls",
          "git push",
          "sed -i s/a/b/ f",
          "find . -delete",
          "x=1; ls"
        ]
      ) {
        expect(sharedShellAnalyzer.isReadOnly(command), command).toBe(false)
      }
    })
  })

  it("escapes invisible and control characters for display", () => {
    expect(escapeForDisplay("git\u200b status\r")).toBe("git\\u200b status\\r")
    expect(escapeForDisplay("ls\u0000")).toBe("ls\\0")
  })
})
