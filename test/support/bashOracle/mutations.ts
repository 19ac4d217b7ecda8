/**
 * Mutations of a command's text: the small edits that make bash and a checker part ways —
 * backslash-newlines, carriage returns and other control or non-ASCII characters, other quoting
 * of a word, comments with payloads, `#` inside words, redirections, assignments in front,
 * wrappers and compound statements around it, and plain character noise.
 */
import { FastCheck as fc } from "effect"
import { PAYLOADS } from "./attacks.js"
import { pick } from "./programs.js"

export type Mutation = (command: string) => string

/** Positions are given as any natural number and taken modulo the length they index. */
const at = (n: number, length: number) => (length <= 0 ? 0 : n % (length + 1))

const insertAt = (s: string, n: number, text: string) => {
  const i = at(n, s.length)
  return s.slice(0, i) + text + s.slice(i)
}

/** The indexes of the matches of `re` in `s`. */
const indexes = (s: string, re: RegExp): Array<number> => [...s.matchAll(re)].map((m) => m.index)

const replaceNth = (s: string, re: RegExp, n: number, make: (match: string) => string): string => {
  const found = [...s.matchAll(re)]
  if (found.length === 0) return s
  const m = found[n % found.length]!
  return s.slice(0, m.index) + make(m[0]) + s.slice(m.index + m[0].length)
}

const insertion = (texts: ReadonlyArray<string>): fc.Arbitrary<Mutation> =>
  fc.tuple(fc.nat(), pick(...texts)).map(([n, t]) => (s: string) => insertAt(s, n, t))

const backslashNewline = insertion(["\\\n"])
const beforeHash = fc.nat().map((n) => (s: string) => {
  const found = indexes(s, /#/g)
  if (found.length === 0) return `${s} #\\\n`
  const i = found[n % found.length]!
  return `${s.slice(0, i)}\\\n${s.slice(i)}`
})
const spaceTo = fc.tuple(fc.nat(), pick("\\\n", " \\\n", "\\\n ", "\t", "\v", "\f", "\u00a0", "  ", "\r", " \\\n\\\n"))
  .map(([n, t]) => (s: string) => replaceNth(s, / /g, n, () => t))
const control = insertion(["\r", "\x01", "\x1b", "\u200b", "\u2028", "\ufeff", "；", "é", "\x7f", "\t", "\u0085"])
const carriageReturnLines = pick("\r\n", "\r").map(
  (t) => (s: string) => (s.includes("\n") ? s.replace(/\n/g, t === "\r" ? "\r" : "\r\n") : `${s}${t}`)
)

/** Another quoting of one word: 'w', "w", $'w', w with '' inside, an escaped character. */
const requote = fc.tuple(fc.nat(), fc.nat(), pick("single", "double", "ansi", "empty", "escape", "escapeAll", "locale"))
  .map(([n, k, how]) => (s: string) =>
    replaceNth(s, /(?<=^|[ \t\n;|&(])[A-Za-z0-9_./=+:,@%-]+(?=$|[ \t\n;|&)])/g, n, (w) => {
      const i = at(k, w.length)
      switch (how) {
        case "single":
          return `'${w}'`
        case "double":
          return `"${w}"`
        case "ansi":
          return `$'${w}'`
        case "locale":
          return `$"${w}"`
        case "empty":
          return `${w.slice(0, i)}''${w.slice(i)}`
        case "escape":
          return i < w.length ? `${w.slice(0, i)}\\${w.slice(i)}` : w
        default:
          return w.replace(/./g, (c) => `\\${c}`)
      }
    })
  )

const payload = pick(...PAYLOADS)
const commentPayload = fc.tuple(pick(" # ", " #", ";# ", " #\\\n", "\t#", " # x\n#", " #\r"), payload).map(
  ([c, p]) => (s: string) => `${s}${c}${p}`
)
const hashInWord = fc.nat().map((n) => (s: string) => replaceNth(s, /[A-Za-z0-9.]+/g, n, (w) => insertAt(w, n, "#")))
const redirect = pick(
  " > out.txt",
  " >> out.txt",
  " 2>&1",
  " >/dev/null",
  " 2>/dev/null",
  " 2> err.txt",
  " &> all.txt",
  " 3>out.txt",
  " 3 >out.txt",
  " >out.txt 2>&1",
  " < README.md",
  " <<< word",
  " >| out.txt",
  " >&out.txt"
).map((r) => (s: string) => `${s}${r}`)
const prefix = pick(
  "FOO=1 ",
  "LANG=C ",
  "__toolgate_cwd_file=PWNED.txt ",
  "IFS=: ",
  "PATH=./bin:$PATH ",
  "BASH_ENV=scripts/env.sh ",
  "A= ",
  "x=~/y ",
  "GIT_PAGER=touch ",
  "__toolgate_cwd_file=PWNED.txt; ",
  "TZ=UTC "
).map((p) => (s: string) => `${p}${s}`)
const wrap = pick(
  (s: string) => `( ${s} )`,
  (s: string) => `{ ${s}; }`,
  (s: string) => `echo "$(${s})"`,
  (s: string) => `echo $(${s})`,
  (s: string) => `echo \`${s}\``,
  (s: string) => `if ${s}; then :; fi`,
  (s: string) => `! ${s}`,
  (s: string) => `time ${s}`,
  (s: string) => `timeout 5 ${s}`,
  (s: string) => `nice ${s}`,
  (s: string) => `env ${s}`,
  (s: string) => `command ${s}`,
  (s: string) => `${s} &`,
  (s: string) => `${s} | cat`,
  (s: string) => `${s} |& cat`,
  (s: string) => `${s}; ${s}`,
  (s: string) => `${s}\n${s}`,
  (s: string) => `${s} && echo ok`,
  (s: string) => `bash -c '${s.replace(/'/g, `'\\''`)}'`,
  (s: string) => `eval '${s.replace(/'/g, `'\\''`)}'`,
  (s: string) => `for i in 1; do ${s}; done`,
  (s: string) => `while ${s}; do break; done`,
  (s: string) => `f() { ${s}; }; f`,
  (s: string) => `cat <(${s})`
)
const deleteChar = fc.nat().map((n) => (s: string) => {
  const i = at(n, s.length - 1)
  return s.slice(0, i) + s.slice(i + 1)
})
const duplicateChar = fc.nat().map((n) => (s: string) => {
  const i = at(n, s.length - 1)
  return s.slice(0, i) + s.slice(i, i + 1) + s.slice(i)
})
const tilde = pick("~+/", "~/../proj/", "./", "~-/", "../proj/").map((t) => (s: string) =>
  s.replace(/(?<=[ <>])(?=README\.md|notes\.txt|src\/)/, t)
)
const optionSplit = fc.nat().map((n) => (s: string) =>
  replaceNth(s, /(?<= )-([a-zA-Z])([a-zA-Z0-9]+)/g, n, (o) => `${o.slice(0, 2)} ${o.slice(2)}`)
)
const optionLast = fc.nat().map((n) => (s: string) => {
  const tokens = s.split(" ")
  const options = tokens.map((t, i) => (i > 0 && /^-[A-Za-z-]/.test(t) ? i : -1)).filter((i) => i > 0)
  if (options.length === 0) return s
  const i = options[n % options.length]!
  return [...tokens.slice(0, i), ...tokens.slice(i + 1), tokens[i]!].join(" ")
})

/** Each mutation, with the name a failure it causes is filed under. */
export const MUTATIONS: ReadonlyArray<readonly [string, fc.Arbitrary<Mutation>, number]> = [
  ["backslash-newline", backslashNewline, 4],
  ["backslash-newline", beforeHash, 2],
  ["whitespace", spaceTo, 3],
  ["control-character", control, 2],
  ["carriage-return", carriageReturnLines, 1],
  ["quoting", requote, 4],
  ["comment", commentPayload, 3],
  ["comment", hashInWord, 1],
  ["redirect", redirect, 2],
  ["assignment", prefix, 2],
  ["compound", wrap, 3],
  ["noise", deleteChar, 1],
  ["noise", duplicateChar, 1],
  ["tilde", tilde, 1],
  ["option-spelling", optionSplit, 1],
  ["option-spelling", optionLast, 1]
]

const oneMutation = fc.oneof(
  ...MUTATIONS.map(([name, arbitrary, weight]) => ({ weight, arbitrary: arbitrary.map((m) => [name, m] as const) }))
)

/** No mutation, one, or a few in a row: the mutated command and the names of what was done. */
export const mutations: fc.Arbitrary<ReadonlyArray<readonly [string, Mutation]>> = fc.oneof(
  { weight: 8, arbitrary: fc.constant([]) },
  { weight: 7, arbitrary: fc.array(oneMutation, { minLength: 1, maxLength: 1 }) },
  { weight: 4, arbitrary: fc.array(oneMutation, { minLength: 2, maxLength: 2 }) },
  { weight: 1, arbitrary: fc.array(oneMutation, { minLength: 3, maxLength: 3 }) }
)
