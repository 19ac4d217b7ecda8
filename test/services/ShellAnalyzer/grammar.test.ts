/**
 * The grammar reader (docs/shell-grammar.md) against real bash: every command it accepts must
 * run, in bash, only the commands it names with the arguments it names, and create only the
 * files it names as redirection targets. Generated with a fixed seed from the grammar's own
 * constructs plus the spellings that broke readers before (`\⏎` anywhere, comments, here-document
 * delimiters, quotes of every kind); the table below pins the constructs outside the grammar.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { readCommand } from "../../../src/services/ShellAnalyzer/grammar/reader.js"
import type { ReadCommand } from "../../../src/services/ShellAnalyzer/grammar/reading.js"
import type { Word } from "../../../src/services/ShellAnalyzer/types.js"
import { runWithStubs, STUB_HOME, type BashRun } from "../../support/bashStubs.js"

const STUBS = ["alpha", "beta", "gamma"] as const

const OUTPUT_OPS = new Set([">", ">>", ">|", "&>", "&>>", ">&"])

/** Can the reader's words produce this argv? A quoted expansion is one word, an unquoted one any number. */
const argvMatches = (words: ReadonlyArray<Word>, argv: ReadonlyArray<string>): boolean => {
  const match = (w: number, a: number): boolean => {
    if (w === words.length) return a === argv.length
    const word = words[w]!
    // The reader keeps a leading `~` as written (the path checks expand it).
    if (typeof word === "string") {
      return a < argv.length && (argv[a] === word || (word.startsWith("~") && argv[a] === STUB_HOME + word.slice(1))) &&
        match(w + 1, a + 1)
    }
    if (/^"[^"]*"$/s.test(word.text) || word.text.startsWith("<(")) return a < argv.length && match(w + 1, a + 1)
    for (let n = 0; a + n <= argv.length; n++) if (match(w + 1, a + n)) return true
    return false
  }
  return match(0, 0)
}

/** Every bash run is one of the reader's commands (a loop runs one several times), every created file one of its targets. */
const explains = (read: ReadonlyArray<ReadCommand>, ran: BashRun): string | undefined => {
  for (const run of ran.runs) {
    if (!read.some((c) => c.argv.length > 0 && argvMatches(c.argv, run))) {
      return `bash ran ${JSON.stringify(run)}, which the reader did not name`
    }
  }
  const targets = new Set(
    read.flatMap((c) =>
      c.redirects.filter((r) => OUTPUT_OPS.has(r.op)).map((r) => (typeof r.target === "string" ? r.target : "*"))
    )
  )
  for (const file of ran.created) {
    if (!targets.has(file) && !targets.has("*")) return `bash created ${file}, which the reader did not name`
  }
  return undefined
}

// ---- generators -------------------------------------------------------------------------------

const chars = (alphabet: string, min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet.split("")), { minLength: min, maxLength: max }).map((a) => a.join(""))

const plain = chars("abcxyz0123._,/:@%+-=#!]", 1, 5)
const singleQuoted = chars("abc xyz$\"\\*?;&|(){}<>#~=!\n", 0, 6).map((s) => `'${s}'`)
const doubleQuoted = fc
  .array(
    fc.oneof(
      chars("abc xyz*?;&|(){}<>#~='!\n", 1, 3),
      fc.constantFrom("\\$", "\\\"", "\\\\", "\\a", "\\\n", "$X", "${Y}", "$1", "$(beta q)", "$'x'")
    ),
    { maxLength: 4 }
  )
  .map((parts) => `"${parts.join("")}"`)
const ansiC = fc
  .array(
    fc.oneof(
      chars("abc xyz$\"*?;&|#", 1, 3),
      fc.constantFrom("\\n", "\\t", "\\\\", "\\'", "\\\"", "\\x41", "\\101", "\\q")
    ),
    { maxLength: 4 }
  )
  .map((parts) => `$'${parts.join("")}'`)
const escaped = fc.constantFrom(
  "\\;",
  "\\&",
  "\\|",
  "\\$",
  "\\*",
  "\\'",
  "\\\"",
  "\\a",
  "\\#",
  "\\ ",
  "\\\\",
  "\\<",
  "\\>"
)
const expansion = fc.constantFrom("$X", "${Y}", "$@", "$(beta s)", "$(gamma)", "~", "~/x")
const continuation = fc.constant("\\\n")

const word = fc
  .tuple(
    fc.oneof(plain, singleQuoted, doubleQuoted, ansiC, escaped, expansion),
    fc.array(fc.oneof(plain, singleQuoted, doubleQuoted, ansiC, escaped, expansion, continuation), { maxLength: 2 })
  )
  .map(([first, rest]) => [first, ...rest].join(""))

const redirect = fc
  .tuple(
    fc.constantFrom(">", ">>", ">|", "2>", "&>", ">&", "2>&1", "<", "1>", "2>>", " 2>"),
    fc.constantFrom("o1", "o2", "'o3'", "o\\4", "/dev/null")
  )
  .map(([op, target]) => (op === "2>&1" ? " 2>&1" : op === "<" ? " < /dev/null" : ` ${op}${target}`))

const heredoc = fc
  .tuple(
    fc.constantFrom("EOF", "'EOF'", "\"EOF\"", "\\EOF", "E''OF", "$'EOF'", "E'O'F", "-EOF"),
    fc.constantFrom("body", "EOF", "x\nEOF\nalpha planted", "\tEOF", "$X", "EOF x"),
    fc.boolean()
  )
  .map(([delimiter, body, tabs]) => ({ op: tabs ? "<<-" : "<<", delimiter, body }))

const stub = fc.constantFrom(...STUBS)

const simple = fc
  .tuple(
    fc.option(fc.constantFrom("FOO=bar ", "A=1 B='x y' ", "C=$X "), { nil: undefined }),
    stub,
    fc.array(
      fc.oneof({ weight: 4, arbitrary: word.map((w) => ` ${w}`) }, { weight: 1, arbitrary: redirect }, {
        weight: 1,
        arbitrary: continuation
      }),
      { maxLength: 4 }
    ),
    fc.option(fc.constantFrom(" # c", " #\\\nalpha x", "#x"), { nil: undefined })
  )
  .map(([env, name, parts, comment]) => `${env ?? ""}${name}${parts.join("")}${comment ?? ""}`)

/** A command with a here-document: the body lines follow the command line. */
const withHeredoc = fc.tuple(stub, heredoc, fc.constantFrom("", " | gamma", "; beta")).map(([name, h, tail]) =>
  `${name} ${h.op}${h.delimiter}${tail}\n${h.body}\n${h.delimiter.replace(/['"\\$]/g, "")}`
)

const command = fc.oneof({ weight: 5, arbitrary: simple }, { weight: 1, arbitrary: withHeredoc })

const joiner = fc.constantFrom(" && ", " ; ", " | ", "\n", " |& ", " || ", " & ", ";\\\n", " &\\\n& ")
const list = fc.tuple(command, fc.array(fc.tuple(joiner, command), { maxLength: 3 })).map(([first, rest]) =>
  first + rest.map(([j, c]) => j + c).join("")
)
const compound = fc
  .tuple(list, fc.constantFrom("plain", "subshell", "group", "if", "for", "until", "substitution", "process"))
  .map(([text, wrap]) => {
    switch (wrap) {
      case "subshell":
        return `( ${text} )`
      case "group":
        return `{ ${text}; }`
      case "if":
        return `if alpha; then ${text}; else gamma; fi`
      case "for":
        return `for v in a b; do ${text}; done`
      case "until":
        return `until alpha; do ${text}; done`
      case "substitution":
        return `alpha "$(${text})"`
      case "process":
        return `alpha <(${text})`
      default:
        return text
    }
  })

// ---- tests ------------------------------------------------------------------------------------

describe("the grammar reader reads as bash does", () => {
  it("every generated command it accepts runs only what it names", () => {
    const seed = Number(process.env.SHELL_GRAMMAR_SEED ?? 20261202)
    const runs = Number(process.env.SHELL_GRAMMAR_RUNS ?? 1200)
    const commands = fc.sample(compound, { seed, numRuns: runs })
    const accepted = commands.map((c) => ({ command: c, read: readCommand(c, false) })).filter((c) => c.read.ok)
    const ran = runWithStubs(STUBS, accepted.map((c) => c.command))
    const failures = accepted.flatMap((c, i) => {
      const why = c.read.ok ? explains(c.read.commands, ran[i]!) : undefined
      return why === undefined ? [] : [`${JSON.stringify(c.command)}: ${why}`]
    })
    expect(failures).toEqual([])
    // The generator must reach the grammar, not only its edges, and bash must really run it.
    expect(accepted.length).toBeGreaterThan(runs / 4)
    expect(ran.reduce((n, r) => n + r.runs.length, 0)).toBeGreaterThan(accepted.length)
    expect(ran.filter((r) => r.created.length > 0).length).toBeGreaterThan(runs / 20)
  }, 120_000)

  const outside: ReadonlyArray<readonly [string, RegExp]> = [
    ["cat <<$'x'\nx\n$'x'", /delimiter/],
    ["cat <<E''OF\nEOF\nE''OF", /delimiter/],
    ["cat <<x'y'\nxy\nx'y'", /delimiter/],
    ["echo \"$(cat <<EOF\nEOF)\"", /starts with its delimiter/],
    ["cat <<EOF\n$(id)\nEOF", /unquoted here-document/],
    ["echo `id`", /backticks/],
    ["echo $((x+2))", /arithmetic/],
    ["echo ${x:-y}", /operator/],
    ["echo $\"x\"", /\$"…"/],
    ["echo {a,b}", /brace/],
    ["echo a=~/x", /tilde/],
    ["cat ~+/x ~root/y", /tilde/],
    ["A=~ ls", /tilde/],
    ["a[1]=x", /array/],
    ["A+=x", /appending/],
    ["f() { ls; }", /function/],
    ["case x in a) ls;; esac", /keyword 'case'|case syntax/],
    ["[[ -f x ]]", /keyword/],
    ["((x++))", /arithmetic/],
    ["coproc ls", /keyword/],
    ["ls >(cat)", /output process substitution/],
    ["ls a<(cat)", /joined/],
    ["exec {fd}>x", /named file descriptor/],
    ["git status {\\\nd}>''t", /named file descriptor/],
    ["__toolgate_cwd_file=x", /toolgate/],
    ["for PATH in x; do ls; done", /PATH/],
    ["ls &&", /empty/],
    ["echo 'x", /unterminated/],
    ["cat <<EOF\nbody", /delimiter line/],
    ["ls )", /unmatched/]
  ]
  for (const [command, reason] of outside) {
    it(`outside the grammar: ${JSON.stringify(command)}`, () => {
      const read = readCommand(command, false)
      expect(read.ok).toBe(false)
      if (!read.ok) expect(read.reason).toMatch(reason)
    })
  }

  const inside: ReadonlyArray<readonly [string, ReadonlyArray<ReadonlyArray<Word>>]> = [
    ["echo a\\\n#; touch M", [["echo", "a#"], ["touch", "M"]]],
    ["[ x > f ]", [["[", "x", "]"]]],
    ["cat <<'EOF'\n$(id)\nEOF", [["cat"]]],
    ["cat <<-\\EOF\n\tx\n\tEOF\nls", [["cat"], ["ls"]]],
    // the text of a quoted here-document that cat only prints is known
    ["git commit -m \"$(cat <<'EOF'\nmsg\n\nEOF\n)\"", [["git", "commit", "-m", "msg"]]],
    ["git commit -m \"$(cat <<'EOF'\nmsg\nEOF\nid\n)\"", [["cat"], ["id"], ["git", "commit", "-m", {
      dynamic: true,
      text: "\"$(cat <<'EOF'\nmsg\nEOF\nid\n)\""
    }]]],
    ["time make test", [["time", "make", "test"]]],
    ["! grep -q x f || echo no", [["grep", "-q", "x", "f"], ["echo", "no"]]]
  ]
  for (const [command, expected] of inside) {
    it(`reads ${JSON.stringify(command)}`, () => {
      const read = readCommand(command, false)
      expect(read.ok ? read.commands.filter((c) => c.argv.length > 0).map((c) => c.argv) : read.reason).toEqual(
        expected
      )
    })
  }
})
