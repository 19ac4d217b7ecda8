/**
 * Text bash reads plainly but Claude Code 2.1.332 will not read before it runs: backslashes
 * before whitespace, here-documents with an unquoted delimiter or text after their start, nested
 * commands whose output is only printed. Each asks (in Claude Code's words) in every mode but
 * bypassPermissions, whatever allow rule matches; recorded with the oracle.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { PermissionMode } from "../../../src/Permission.js"
import { check, contextFor, makeProject } from "./support.js"

const project = makeProject()
afterAll(() => project.cleanup())

const ESCAPED = "Contains backslash-escaped whitespace"
const UNQUOTED = "Heredoc with unquoted delimiter undergoes shell expansion"
const AFTER = "Text after the heredoc start on the same line cannot be statically analyzed"
const REDIRECT = "A file redirect in this command can't be checked before it runs"
const PIPELINE = "A pipeline in this command can't be checked before it runs"
const NESTED = "A nested command in this command can't be checked before it runs"
const QUOTED = "Quoted text in this command can't be checked before it runs"

interface Case {
  readonly command: string
  readonly message: string
  readonly mode?: PermissionMode
  readonly allow?: ReadonlyArray<string>
  /** Asked because nothing approves a part (a rule or the mode could), not because of how it reads. */
  readonly unapproved?: true
}

const VARIABLE = "A variable in this command can't be checked before it runs"

const asks: ReadonlyArray<Case> = [
  { command: "echo $USER", message: VARIABLE },
  { command: "echo $PATH", message: VARIABLE },
  { command: "echo $?", message: VARIABLE },
  { command: "echo \"$USER\"", message: QUOTED },
  { command: "echo \"$PWD\"", message: QUOTED },
  { command: "echo ${HOME}", message: "A variable in braces in this command can't be checked before it runs" },
  { command: "for x in a b; do echo \"$x\"; done", message: VARIABLE },
  {
    command: "{ ls; }",
    message: "A group in braces or double parentheses in this command can't be checked before it runs"
  },
  {
    command: "(( 1 + 2 ))",
    message: "A group in braces or double parentheses in this command can't be checked before it runs"
  },
  { command: "(ls)", message: "This command uses shell operators that require approval for safety" },
  {
    command: "ls && (touch x)",
    message: "This command uses shell operators that require approval for safety",
    mode: "acceptEdits"
  },
  { command: "diff <(ls) <(ls)", message: "A command used as a file in this command can't be checked before it runs" },
  { command: "eval ls", message: "'eval' evaluates arguments as shell code" },
  { command: "exec ls", message: "'exec' evaluates arguments as shell code" },
  { command: "source README.md", message: "'source' evaluates arguments as shell code" },
  { command: "alias ll='ls -l'", message: "'alias' evaluates arguments as shell code" },
  { command: "$'\\x6cs'", message: "Text with escape codes in this command can't be checked before it runs" },
  { command: "echo $'a\\tb'", message: "Text with escape codes in this command can't be checked before it runs" },
  { command: "echo {a,b}", message: "Brace expansion" },
  { command: "echo {1..3}", message: "A brace pattern in this command can't be checked before it runs" },
  { command: "echo $((X+1))", message: "Arithmetic expansion references variable or non-literal: X" },
  { command: "echo $[1+2]", message: "Arithmetic expansion references variable or non-literal: $[" },
  { command: "echo $(( $(touch pwned) ))", message: NESTED },
  { command: "{touch,pwned}", message: "Brace expansion" },
  {
    command: "awk 'BEGIN{system(\"touch pwned\")}'",
    message: "awk program contains system() which executes arbitrary commands"
  },
  { command: "nice ls", message: "This command requires approval", unapproved: true },
  { command: "timeout -s KILL 5 ls", message: "This command requires approval", unapproved: true },
  { command: "env -i ls", message: "This command requires approval", unapproved: true },
  { command: "command -v ls", message: "This command requires approval", unapproved: true },
  { command: "set", message: "This command requires approval", unapproved: true },
  { command: "git config user.name", message: "This command requires approval", unapproved: true },
  { command: "xxd README.md", message: "This command requires approval", unapproved: true },
  { command: "coproc ls", message: "'coproc' evaluates arguments as shell code" },
  {
    command: "ls -1 &",
    message:
      "This command uses the `&` background operator, which defers execution past approval-time safety checks. Approve only if you trust it."
  },
  { command: "ls\u00a0-la", message: "Contains Unicode whitespace" },
  { command: "git diff --textconv", message: "This command requires approval" },
  { command: "rg --files", message: "This command requires approval", unapproved: true },
  {
    command: "sed s/o/0/ README.md",
    message: expect.stringMatching(/^sed in '.*README\.md' needs approval\./) as unknown as string,
    unapproved: true
  },
  { command: "env -S 'touch pwned'", message: "'env -S' can't be checked before it runs" },
  {
    command: "env --split-string='touch pwned'",
    message: "'env --split-string=touch pwned' can't be checked before it runs"
  },
  {
    command: "jq -rf README.md README.md",
    message: "jq command contains dangerous flags that could execute code or read arbitrary files",
    unapproved: true
  },
  {
    command: "jq -f README.md README.md",
    message: "jq command contains dangerous flags that could execute code or read arbitrary files",
    unapproved: true
  },
  { command: "case x in x) ls;; esac", message: "A case statement in this command can't be checked before it runs" },
  {
    command: "select x in a; do ls; done",
    message: "select statement reads stdin into $REPLY; cannot statically model"
  },
  { command: "f() { ls; }; f", message: "A function definition in this command can't be checked before it runs" },
  { command: "IFS=: read a b <<< 'x:y'", message: "IFS assignment changes word-splitting — cannot model statically" },
  {
    command: "find . -name x -exec cat {} \\;",
    message:
      "find with '-exec' executes commands or modifies files — cannot be auto-allowed by a Bash(find:*) prefix rule",
    unapproved: true
  },
  {
    command: "find . -name x -delete",
    message:
      "find with '-delete' executes commands or modifies files — cannot be auto-allowed by a Bash(find:*) prefix rule",
    allow: ["Bash(find:*)"],
    unapproved: true
  },
  {
    command: "echo x | xargs touch",
    message: "This Bash command contains multiple operations. The following part requires approval: xargs touch",
    unapproved: true
  },
  { command: "to\\\nuch pwned", message: ESCAPED, mode: "acceptEdits" },
  { command: "l\\\ns", message: ESCAPED },
  { command: "l\\\ns -la", message: ESCAPED, allow: ["Bash(ls:*)"] },
  { command: "cat p\\\n1.txt", message: ESCAPED },
  { command: "ls \\\n\\\n-la", message: ESCAPED },
  { command: "echo 'a\\\nb'", message: ESCAPED },
  { command: "echo \"a\\\nb\"", message: ESCAPED },
  { command: "ls \\  -la", message: ESCAPED },
  { command: "cat p\\ 1.txt", message: ESCAPED, mode: "acceptEdits" },
  { command: "ls\\\t-la", message: ESCAPED },
  { command: "echo 'a\\ b'", message: ESCAPED },
  { command: "echo a\\\\ b", message: ESCAPED },
  { command: "ls # a\\ b", message: ESCAPED },
  { command: "cat <<'EOF'\na\\ b\nEOF", message: ESCAPED },
  {
    command: "cat README.md \\\n| wc -l",
    message: "This Bash command contains multiple operations. The following part requires approval: cat README.md \\"
  },
  {
    command: "cat README.md | \\\nwc -l",
    message: "This Bash command contains multiple operations. The following part requires approval: \\\nwc -l"
  },
  { command: "cat <<EOF\nplain\nEOF", message: UNQUOTED },
  { command: "cat <<EOF\nplain\nEOF", message: UNQUOTED, mode: "acceptEdits" },
  { command: "cat <<EOF\nplain\nEOF", message: UNQUOTED, allow: ["Bash(cat:*)"] },
  { command: "cat <<-EOF\n\tx\n\tEOF", message: UNQUOTED },
  { command: "cat <<EOF\n$HOME\nEOF", message: UNQUOTED },
  { command: "cat <<EOF\n$(touch pwned)\nEOF", message: UNQUOTED, allow: ["Bash(cat:*)"] },
  { command: "cat <<EOF > out.txt\nhi\nEOF", message: REDIRECT, mode: "acceptEdits" },
  { command: "cat <<'EOF' > out.txt\nx\nEOF", message: REDIRECT, mode: "acceptEdits" },
  { command: "cat <<'EOF' 2>/dev/null\nx\nEOF", message: REDIRECT },
  { command: "cat <<'EOF' | wc -l\na\nEOF", message: PIPELINE },
  { command: "wc -l <<'EOF' && touch pwned\nx\nEOF", message: AFTER, mode: "acceptEdits" },
  { command: "cat <<'EOF' # c\nx\nEOF", message: AFTER },
  { command: "echo $(cat README.md)", message: NESTED },
  { command: "echo $(date +%Y)", message: NESTED, allow: ["Bash(echo:*)"] },
  { command: "echo $(echo $(cat README.md))", message: NESTED },
  { command: "echo \"$(cat README.md)\"", message: QUOTED },
  { command: "echo $(cat <<'EOF'\nx\nEOF\n)", message: NESTED },
  { command: "echo \"$(cat <<'EOF'\nx\nEOF\ntouch pwned\n)\"", message: QUOTED },
  { command: "echo \"$(cat <<'EOF'\nx\nEOF \n)\"", message: QUOTED },
  { command: "echo \"$(cat <<'EOF' && touch pwned\nx\nEOF\n)\"", message: AFTER },
  { command: "echo \"$(cat <<-'EOF'\nx\nEOF\n)\"", message: QUOTED },
  { command: "echo \"$(cat -v <<'EOF'\nx\nEOF\n)\"", message: QUOTED }
]

const runs: ReadonlyArray<Case> = [
  { command: "ls \\\n-la", message: "" },
  { command: "ls -la \\\n README.md", message: "" },
  { command: "ls\t\\\n-la", message: "" },
  { command: "ls && \\\nls", message: "" },
  { command: "ls \\\n; ls", message: "" },
  { command: "cat <<'EOF'\nx\nEOF", message: "" },
  { command: "cat <<\"EOF\"\nx\nEOF", message: "" },
  { command: "cat <<\\EOF\nx\nEOF", message: "" },
  { command: "cat <<'EOF'   \nx\nEOF", message: "" },
  { command: "grep x <<'EOF'\nx\nEOF", message: "" },
  { command: "cat <<'EOF'\n$(touch pwned)\nEOF", message: "" },
  { command: "echo $HOME", message: "" },
  { command: "sed -n 1p README.md", message: "" },
  { command: "ls & ls", message: "", allow: ["Bash(ls:*)"] },
  { command: "builtin echo hi", message: "" },
  { command: "git config --get user.name", message: "" },
  { command: "echo $((1+(2*3)))", message: "" },
  { command: "echo \"$HOME\"", message: "" },
  { command: "find build -delete", message: "", allow: ["Bash(find build -delete)"] },
  // the quoted here-document a commit message is usually passed in: its text is known
  {
    command: "git commit -m \"$(cat <<'EOF'\nFix it\n\nBody (with parens)\nEOF\n)\"",
    message: "",
    allow: ["Bash(git commit:*)"]
  },
  { command: "echo \"$(cat <<\"EOF\"\nx\nEOF\n)\"", message: "" }
]

describe("text Claude Code will not read before it runs", () => {
  it.each(asks)("asks: $command ($mode, $allow)", (c) =>
    Effect.gen(function*() {
      const decision = yield* check(c.command, contextFor(project.root, { allow: c.allow ?? [] }, c.mode ?? "default"))
      expect(decision._tag).toBe("Ask")
      if (decision._tag !== "Ask") return
      expect(decision.message).toEqual(c.message)
      // bypassPermissions and a tool-wide Bash allow skip it, as in Claude Code
      expect(decision.kind).toBe(c.unapproved === true ? "unapproved" : "guarded")
    }).pipe(Effect.runPromise))

  it.each(runs)("runs: $command ($mode)", (c) =>
    Effect.gen(function*() {
      const decision = yield* check(c.command, contextFor(project.root, { allow: c.allow ?? [] }, c.mode ?? "default"))
      expect(decision._tag).toBe("Allow")
    }).pipe(Effect.runPromise))
})
