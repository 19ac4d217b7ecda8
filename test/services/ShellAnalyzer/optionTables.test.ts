/**
 * The option tables say exactly what the installed programs accept: every option their help
 * lists is in the table with the same argument (none, required, optional), and the table has no
 * option the help does not list, except the few named here with the reason. A table with an
 * option the program lacks could resolve an abbreviation the program reads differently; an
 * option missing from a table only makes a command ask. Programs that are not installed are
 * skipped.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as G from "../../../src/services/ShellAnalyzer/options/tables/git.js"
import * as T from "../../../src/services/ShellAnalyzer/options/tables/gnu.js"
import * as X from "../../../src/services/ShellAnalyzer/options/tables/other.js"
import * as TT from "../../../src/services/ShellAnalyzer/options/tables/tools.js"
import type { OptionArity, OptionTable } from "../../../src/services/ShellAnalyzer/options/types.js"
import { helpOptions } from "./helpOptions.js"

interface Case {
  readonly argv: ReadonlyArray<string>
  readonly table: OptionTable
  /** Names the help lists that the table leaves out on purpose (an option missing from a table only makes a command ask). */
  readonly omitted?: ReadonlyArray<string>
  /** Names the table has that the help does not list (hidden or documented elsewhere), or that the help prints oddly. */
  readonly unlisted?: ReadonlyArray<string>
  /** Names whose argument the help does not show the way the program reads it. */
  readonly arity?: Readonly<Record<string, OptionArity>>
  /** The help puts one blank before descriptions; only `<arg>` marks an argument. */
  readonly angleArguments?: boolean
  /** Only these lines list options (descriptions mention options too). */
  readonly lines?: RegExp
}

/** git's parse-options: a short option takes its argument the way its long one does (`-uno`, `-Ocat`). */
const gitCase = (
  argv: ReadonlyArray<string>,
  table: OptionTable,
  extra: Partial<Case> = {}
): Case & { readonly shortFollowsLong: true } => ({ argv, table, shortFollowsLong: true, ...extra })

const HELP_NAMES = ["--help", "--version"]

export const CASES: Readonly<Record<string, Case & { readonly shortFollowsLong?: boolean }>> = {
  cat: { argv: ["cat", "--help"], table: T.cat },
  tac: { argv: ["tac", "--help"], table: T.tac },
  nl: { argv: ["nl", "--help"], table: T.nl },
  head: { argv: ["head", "--help"], table: T.head },
  tail: { argv: ["tail", "--help"], table: T.tail },
  wc: { argv: ["wc", "--help"], table: T.wc },
  od: { argv: ["od", "--help"], table: T.od, arity: { "-w": "optional" } },
  hexdump: { argv: ["hexdump", "--help"], table: T.hexdump, arity: { "-L": "optional" } },
  // One blank between an option and its description reads as an argument: "-w --include-all-whitespace Include all whitespace".
  strings: {
    argv: ["strings", "--help"],
    table: T.strings,
    unlisted: ["-U", "--bytes"],
    arity: { "-a": "none", "-n": "required", "-w": "none", "--include-all-whitespace": "none" }
  },
  rev: { argv: ["rev", "--help"], table: T.rev },
  fold: { argv: ["fold", "--help"], table: T.fold },
  expand: { argv: ["expand", "--help"], table: T.expand },
  unexpand: { argv: ["unexpand", "--help"], table: T.unexpand },
  column: { argv: ["column", "--help"], table: T.column },
  paste: { argv: ["paste", "--help"], table: T.paste },
  cut: { argv: ["cut", "--help"], table: T.cut, omitted: ["-M"] },
  tr: { argv: ["tr", "--help"], table: T.tr },
  base64: { argv: ["base64", "--help"], table: T.base64 },
  md5sum: { argv: ["md5sum", "--help"], table: T.checksum },
  sha256sum: { argv: ["sha256sum", "--help"], table: T.checksum },
  b2sum: { argv: ["b2sum", "--help"], table: T.b2sum },
  cksum: { argv: ["cksum", "--help"], table: T.cksum },
  sum: { argv: ["sum", "--help"], table: T.sum },
  uniq: { argv: ["uniq", "--help"], table: T.uniq },
  // "-c  --format=FORMAT": two blanks after -c.
  stat: { argv: ["stat", "--help"], table: T.stat, unlisted: ["--format"], arity: { "-c": "required" } },
  file: { argv: ["file", "--help"], table: T.file, arity: { "-P": "required", "--parameter": "required" } },
  du: { argv: ["du", "--help"], table: T.du, arity: { "--time": "optional" } },
  df: { argv: ["df", "--help"], table: T.df },
  readlink: { argv: ["readlink", "--help"], table: T.readlink },
  realpath: { argv: ["realpath", "--help"], table: T.realpath },
  diff: {
    argv: ["diff", "--help"],
    table: T.diff,
    omitted: ["--GTYPE-group-format", "--LTYPE-line-format"],
    unlisted: [
      "--old-group-format",
      "--new-group-format",
      "--unchanged-group-format",
      "--changed-group-format",
      "--old-line-format",
      "--new-line-format",
      "--unchanged-line-format"
    ]
  },
  cmp: { argv: ["cmp", "--help"], table: T.cmp },
  comm: { argv: ["comm", "--help"], table: T.comm },
  printenv: { argv: ["printenv", "--help"], table: T.printenv },
  uname: { argv: ["uname", "--help"], table: T.uname },
  id: { argv: ["id", "--help"], table: T.id },
  nproc: { argv: ["nproc", "--help"], table: T.nproc },
  tty: { argv: ["tty", "--help"], table: T.tty },
  seq: { argv: ["seq", "--help"], table: T.seq },
  basename: { argv: ["basename", "--help"], table: T.basename },
  dirname: { argv: ["dirname", "--help"], table: T.dirname },
  uptime: { argv: ["uptime", "--help"], table: T.uptime },
  pgrep: { argv: ["pgrep", "--help"], table: T.pgrep },
  // "-p, --indicator-style=slash": -p is a switch.
  ls: { argv: ["ls", "--help"], table: T.ls, arity: { "-F": "none", "-p": "none" } },
  sort: { argv: ["sort", "--help"], table: T.sort, arity: { "--check": "optional", "-c": "none", "-C": "none" } },
  grep: { argv: ["grep", "--help"], table: T.grep, omitted: ["-NUM"] },
  date: { argv: ["date", "--help"], table: T.date, arity: { "-I": "optional" } },
  sed: { argv: ["sed", "--help"], table: T.sed, arity: { "-i": "optional" } },
  // xargs reads -e[EOF] and -i[R] with an optional attached argument (optstring "e::i::").
  xargs: { argv: ["xargs", "--help"], table: T.xargs, arity: { "-e": "optional", "-i": "optional" } },
  // rg lists each option on a line of its own (`-A, --after-context <NUM>`); `-.` is --hidden's short name.
  rg: {
    argv: ["rg", "--help"],
    table: X.rg,
    angleArguments: true,
    lines: /^ {4}(?:-\S, | {4})--[\w-]+(?: <[^>]+>(?:\.\.\.)?)?\s*$/,
    unlisted: ["-."]
  },
  rm: { argv: ["rm", "--help"], table: TT.rm },
  chmod: { argv: ["chmod", "--help"], table: TT.chmod },
  chown: { argv: ["chown", "--help"], table: TT.chown },
  chgrp: { argv: ["chgrp", "--help"], table: TT.chgrp },
  cp: { argv: ["cp", "--help"], table: TT.cp },
  mv: { argv: ["mv", "--help"], table: TT.mv },
  mkdir: { argv: ["mkdir", "--help"], table: TT.mkdir },
  ln: { argv: ["ln", "--help"], table: TT.ln },
  touch: { argv: ["touch", "--help"], table: TT.touch },
  make: { argv: ["make", "--help"], table: TT.make, arity: { "-j": "optional", "-l": "optional", "-O": "optional" } },
  // curl reads `--help` with an optional category; `-#` is the progress bar (the table notation reserves `-#`).
  curl: {
    argv: ["curl", "--help", "all"],
    table: TT.curl,
    angleArguments: true,
    omitted: ["-#"],
    unlisted: ["-:"],
    arity: { "-h": "optional", "--help": "optional", "-x": "required", "--proxy": "required", "--preproxy": "required" }
  },
  tar: { argv: ["tar", "--help"], table: TT.tar, arity: { "--ignore-command-error": "none" } },
  "git status": gitCase(["git", "status", "-h"], G.status),
  "git blame": gitCase(["git", "blame", "-h"], G.blame),
  "git describe": gitCase(["git", "describe", "-h"], G.describe),
  "git grep": gitCase(["git", "grep", "-h"], G.grep, { omitted: ["-NUM", "(", ")"] }),
  "git branch": gitCase(["git", "branch", "-h"], G.branch),
  "git tag": gitCase(["git", "tag", "-h"], G.tag),
  "git ls-files": gitCase(["git", "ls-files", "-h"], G.lsFiles),
  "git ls-tree": gitCase(["git", "ls-tree", "-h"], G.lsTree),
  "git cat-file": gitCase(["git", "cat-file", "-h"], G.catFile),
  "git for-each-ref": gitCase(["git", "for-each-ref", "-h"], G.forEachRef),
  "git name-rev": gitCase(["git", "name-rev", "-h"], G.nameRev),
  "git show-ref": gitCase(["git", "show-ref", "-h"], G.showRef),
  "git check-ignore": gitCase(["git", "check-ignore", "-h"], G.checkIgnore),
  "git check-attr": gitCase(["git", "check-attr", "-h"], G.checkAttr),
  "git count-objects": gitCase(["git", "count-objects", "-h"], G.countObjects),
  "git merge-base": gitCase(["git", "merge-base", "-h"], G.mergeBase),
  "git symbolic-ref": gitCase(["git", "symbolic-ref", "-h"], G.symbolicRef),
  "git show-branch": gitCase(["git", "show-branch", "-h"], G.showBranch),
  "git cherry": gitCase(["git", "cherry", "-h"], G.cherry),
  "git config": gitCase(["git", "config", "-h"], G.config),
  "git push": gitCase(["git", "push", "-h"], G.push),
  "git reset": gitCase(["git", "reset", "-h"], G.reset),
  "git clean": gitCase(["git", "clean", "-h"], G.clean),
  "git checkout": gitCase(["git", "checkout", "-h"], G.checkout),
  "git commit": gitCase(["git", "commit", "-h"], G.commit),
  "git rebase": gitCase(["git", "rebase", "-h"], G.rebase),
  "git restore": gitCase(["git", "restore", "-h"], G.restore),
  "git switch": gitCase(["git", "switch", "-h"], G.switchTable),
  "git merge": gitCase(["git", "merge", "-h"], G.merge),
  "git pull": gitCase(["git", "pull", "-h"], G.pull),
  "git fetch": gitCase(["git", "fetch", "-h"], G.fetch),
  "git add": gitCase(["git", "add", "-h"], G.add),
  "git rm": gitCase(["git", "rm", "-h"], G.rm),
  "git stash push": { argv: ["git", "stash", "push", "-h"], table: G.stashPush }
}

export const run = (argv: ReadonlyArray<string>): string | undefined => {
  const result = spawnSync(argv[0]!, argv.slice(1), {
    encoding: "utf8",
    env: { ...process.env, LC_ALL: "C", COLUMNS: "200" }
  })
  if (result.error !== undefined) return undefined
  return `${result.stdout}\n${result.stderr}`
}

const namesOf = (table: OptionTable): ReadonlyMap<string, OptionArity> => {
  const out = new Map<string, OptionArity>()
  for (const spec of table.specs) for (const name of spec.names) out.set(name, spec.arity)
  return out
}

/** What differs between a table and the help text. */
export const differences = (c: Case & { readonly shortFollowsLong?: boolean }, help: string) => {
  const text = c.lines === undefined ? help : help.split("\n").filter((l) => c.lines!.test(l)).join("\n")
  const listed = helpOptions(text, c.angleArguments === true ? { angleArguments: true } : {})
  const table = namesOf(c.table)
  const inHelp = new Map<string, OptionArity>()
  for (const option of listed) {
    const long = option.names.find((n) => n.startsWith("--"))
    const longArity = long === undefined ? undefined : option.arity.get(long)
    for (const n of option.names) {
      let arity = option.arity.get(n)!
      // "Mandatory arguments to long options are mandatory for short options too"; an optional long argument is a plain short switch.
      if (
        !n.startsWith("--") && arity === "none" &&
        (longArity === "required" || (c.shortFollowsLong === true && longArity !== undefined))
      ) arity = longArity!
      inHelp.set(n, c.arity?.[n] ?? arity)
    }
  }
  const missing = [...inHelp.keys()].filter((n) => !table.has(n) && !(c.omitted ?? []).includes(n))
  const extra = [...table.keys()].filter((n) =>
    !inHelp.has(n) && !(c.unlisted ?? []).includes(n) && !HELP_NAMES.includes(n) && n !== "-h" && n !== "-V" &&
    n !== "-v"
  )
  const arity = [...inHelp].filter(([n, a]) => table.has(n) && table.get(n) !== a).map(([n, a]) =>
    `${n}: help ${a}, table ${table.get(n)}`
  )
  return { missing, extra, arity }
}

describe("option tables equal the installed programs' own lists", () => {
  for (const [name, c] of Object.entries(CASES)) {
    const help = run(c.argv)
    it.skipIf(help === undefined)(
      `${name}: the table lists every option of \`${c.argv.join(" ")}\`, with its argument`,
      () => {
        const { missing, extra, arity } = differences(c, help!)
        expect({ missing, extra, arity }).toEqual({ missing: [], extra: [], arity: [] })
      }
    )
  }
})
