/**
 * Generators of ordinary commands the analyzer should allow: read-only programs with their options
 * in several spellings, over the files of the scratch project, and the programs the contexts' allow
 * rules name. Each gives a command string and the class it belongs to.
 */
import { FastCheck as fc } from "effect"

export interface Generated {
  readonly command: string
  /** What the command exercises (the class a failure is filed under). */
  readonly tags: ReadonlyArray<string>
}

export const pick = <T>(...values: ReadonlyArray<T>): fc.Arbitrary<T> => fc.constantFrom(...values)
/** The words joined with single spaces, empty ones left out. */
export const words = (...parts: ReadonlyArray<string>): string => parts.filter((p) => p !== "").join(" ")
export const maybe = (a: fc.Arbitrary<string>, freq = 2): fc.Arbitrary<string> => fc.option(a, { nil: "", freq })
export const some = (a: fc.Arbitrary<string>, max: number, min = 0): fc.Arbitrary<string> =>
  fc.array(a, { minLength: min, maxLength: max }).map((xs) => xs.join(" "))
export const tagged = (tag: string, a: fc.Arbitrary<string>): fc.Arbitrary<Generated> =>
  a.map((command) => ({ command, tags: [tag] }))

export const FILES = [
  "README.md",
  "notes.txt",
  "data.json",
  "package.json",
  "Makefile",
  "src/a.ts",
  "src/b.ts",
  "src/lib/c.ts",
  "docs/guide.md",
  "src-link/a.ts",
  "'file with space.txt'",
  "file\\ with\\ space.txt",
  "./-n",
  "ünï.txt",
  "'a*b.txt'",
  "./--from-file=x"
]
const DIRS = [".", "src", "docs", "src/lib", "build", "empty", "src-link", "./src", "src/"]
const GLOBS = [
  "*.md",
  "src/*.ts",
  "*.txt",
  "?otes.txt",
  "[nR]*",
  "{README.md,notes.txt}",
  "README.{md,txt}",
  "src/{a,b}.ts",
  "*"
]

const file = pick(...FILES)
const files = fc.array(fc.oneof({ weight: 5, arbitrary: file }, { weight: 1, arbitrary: pick(...GLOBS) }), {
  minLength: 1,
  maxLength: 2
}).map((xs) => xs.join(" "))
const num = pick("1", "2", "3", "10")
const pattern = pick("alpha", "TODO", "'^#'", "\"hello world\"", "'a.*b'", "beta", "-e alpha", "'[0-9]'", "export")

/** A count in every spelling head and tail take. */
const countOption = fc.oneof(
  num.map((n) => `-n ${n}`),
  num.map((n) => `-n${n}`),
  num.map((n) => `-${n}`),
  num.map((n) => `--lines=${n}`),
  num.map((n) => `--lines ${n}`),
  num.map((n) => `--li=${n}`),
  num.map((n) => `-c ${n}`),
  num.map((n) => `--bytes=${n}`),
  num.map((n) => `-qn${n}`)
)

const catCommand = fc.tuple(
  some(pick("-n", "-A", "-b", "-s", "-v", "-E", "-T", "--number", "--show-all", "--squeeze-blank", "-nE"), 2),
  files
).map(([o, f]) => words("cat", o, f))
const headTail = fc.tuple(pick("head", "tail"), maybe(countOption, 3), files, fc.boolean()).map((
  [p, o, f, after]
) => (after ? words(p, f, o) : words(p, o, f)))
const wc = fc.tuple(maybe(pick("-l", "-w", "-c", "-m", "-lw", "--lines", "--li", "--words", "--chars", "-L")), files)
  .map(([o, f]) => words("wc", o, f))
const ls = fc
  .tuple(
    some(
      pick(
        "-l",
        "-a",
        "-la",
        "-1",
        "-R",
        "-lt",
        "-lh",
        "--all",
        "--color=never",
        "-d",
        "-F",
        "--classify",
        "-I '*.md'",
        "--hide=*.md",
        "-A",
        "--ignore=x",
        "-T 4"
      ),
      2
    ),
    some(pick(...DIRS, ...FILES, "*.md"), 2)
  )
  .map(([o, p]) => words("ls", o, p))
const grep = fc
  .tuple(
    pick("grep", "egrep", "fgrep"),
    some(
      pick(
        "-r",
        "-n",
        "-i",
        "-c",
        "-l",
        "-E",
        "-F",
        "-v",
        "-w",
        "-o",
        "-H",
        "-A1",
        "-B 1",
        "-C1",
        "--include=*.ts",
        "--exclude-dir=build",
        "-rn",
        "-ril",
        "--color=never",
        "--max-count=1",
        "-m1",
        "-s",
        "-q"
      ),
      3
    ),
    pattern,
    some(pick(...FILES, ".", "src", "*.md"), 2)
  )
  .map(([g, o, p, f]) => words(g, o, p, f))
const rg = fc
  .tuple(
    some(
      pick(
        "-n",
        "-i",
        "-g '*.ts'",
        "-t ts",
        "-C1",
        "--hidden",
        "-l",
        "-c",
        "--no-ignore",
        "-F",
        "-w",
        "--max-count=1",
        "--json",
        "-uu",
        "--sort=path",
        "-S",
        "--type=md"
      ),
      3
    ),
    pattern,
    some(pick(".", "src", "README.md", "docs"), 1)
  )
  .map(([o, p, f]) => words("rg", o, p, f))
const rgFiles = some(pick("-g '*.ts'", "--hidden", "-t md", "--sort path", "src"), 2).map((o) => words("rg --files", o))
const find = fc
  .tuple(
    pick(".", "src", "docs", ". src", "", "src-link", "-L ."),
    some(
      pick(
        "-name '*.ts'",
        "-type f",
        "-type d",
        "-maxdepth 1",
        "-mindepth 1",
        "-newer README.md",
        "-print",
        "-print0",
        "-path './src/*'",
        "-iname '*.MD'",
        "-size -1k",
        "-empty",
        "-not -name '*.md'",
        "! -name x",
        "\\( -name a.ts -o -name b.ts \\)",
        "-ls",
        "-printf '%p\\n'",
        "-name .git -prune -o -print"
      ),
      3
    )
  )
  .map(([r, e]) => words("find", r, e))
const SED_SCRIPTS = [
  "-n 1p",
  "-n '1,2p'",
  "-n '/alpha/p'",
  "'s/alpha/ALPHA/'",
  "'s/a/b/g'",
  "-e 's/x/y/' -e '1d'",
  "-n '$='",
  "'y/abc/ABC/'",
  "-E 's/(a)/[\\1]/'",
  "2q",
  "-n l",
  "=",
  "--quiet 1p",
  "--expression=1d",
  "-s -n 1p",
  "'1!G;h;$!d'",
  "-n '/^#/!p'",
  "'$d'",
  "-n -e '2{p;q}'",
  "'s/$/;/'"
]
const sed = fc.tuple(pick(...SED_SCRIPTS), files).map(([s, f]) => words("sed", s, f))
const sort = fc
  .tuple(
    some(
      pick(
        "-r",
        "-u",
        "-n",
        "-k2",
        "-k 1,1",
        "-t: -k1",
        "--reverse",
        "--unique",
        "-f",
        "-b",
        "-V",
        "-h",
        "-s",
        "--stable",
        "-c",
        "-m",
        "--key=1",
        "-rn",
        "-ru",
        "--field-separator=:",
        "-S 1M"
      ),
      2
    ),
    files
  )
  .map(([o, f]) => words("sort", o, f))
const uniq = fc.tuple(
  maybe(pick("-c", "-d", "-u", "-i", "--count", "-f 1", "--skip-chars=1")),
  pick("notes.txt", "README.md", "")
).map(([o, f]) => words("uniq", o, f))
const ECHO_WORDS = [
  "hello",
  "'a b'",
  "\"$HOME\"",
  "$HOME",
  "'$x'",
  "\"quoted\"",
  "a\\ b",
  "~",
  "~/x",
  "*.md",
  "{a,b}",
  "$((1+2))",
  "'#not a comment'",
  "a#b",
  "--",
  "-x",
  "$PWD",
  "\"${HOME}\"",
  "$'tab\\there'",
  "$\"msg\"",
  "x=~/y",
  "''",
  "\"\"",
  "\\$HOME",
  "\\*",
  "é",
  "'\"'",
  "\"'\""
]
const echo = fc.tuple(maybe(pick("-n", "-e", "-E", "-ne")), some(pick(...ECHO_WORDS), 3, 1)).map(([o, w]) =>
  words("echo", o, w)
)
const printf = pick(
  "printf '%s\\n' a b",
  "printf 'x\\n'",
  "printf -- '-%s\\n' a",
  "printf '%d\\n' 3",
  "printf '%q\\n' 'a b'",
  "printf '%b' 'a\\tb'",
  "printf '%s' \"$HOME\"",
  "printf '%5s|\\n' x",
  "printf hello"
)
const GIT = [
  "status",
  "status -s",
  "status --short --branch",
  "status --porcelain",
  "status -- src",
  "diff",
  "diff --stat",
  "diff --name-only",
  "diff HEAD",
  "diff --cached",
  "diff -- src",
  "diff HEAD -- README.md",
  "diff --color=never",
  "log --oneline",
  "log -n 3",
  "log -1",
  "log --stat",
  "log --format=%H",
  "log --pretty=oneline",
  "log --graph --oneline --all",
  "log -p -1",
  "log --since=2020-01-01",
  "log -- README.md",
  "show",
  "show --stat",
  "show HEAD:README.md",
  "show --name-only HEAD",
  "show -s --format=%s",
  "branch",
  "branch -a",
  "branch --show-current",
  "rev-parse HEAD",
  "rev-parse --show-toplevel",
  "ls-files",
  "ls-files -- src",
  "grep alpha",
  "grep -n TODO -- src",
  "blame README.md",
  "config --get user.name",
  "remote -v",
  "tag -l",
  "stash list",
  "describe --always",
  "shortlog -s",
  "rev-list --count HEAD",
  "cat-file -p HEAD",
  "ls-tree HEAD",
  "log --no-decorate -1"
]
const git = fc.tuple(pick("", "", "--no-pager", "-P"), pick(...GIT)).map(([g, s]) => words("git", g, s))
const diff = fc
  .tuple(
    maybe(pick("-u", "-q", "--brief", "-r", "-N", "-y", "--color=never", "-w", "-U1", "--unified=1")),
    pick("README.md notes.txt", "src docs", "src/a.ts src/b.ts", "src/a.ts src-link/a.ts")
  )
  .map(([o, f]) => words("diff", o, f))
const jq = fc
  .tuple(
    maybe(pick("-r", "-c", "-S", "-e", "--tab", "-M", "--arg k v", "-j", "--raw-output")),
    pick(
      "'.'",
      "'.name'",
      "'.items[]'",
      "'.items | length'",
      "keys",
      ".nested.k",
      "'.[\"name\"]'",
      "to_entries",
      "'.items|map(.+1)'"
    )
  )
  .map(([o, p]) => words("jq", o, p, "data.json"))
const fileCommand = fc.tuple(maybe(pick("-b", "-i", "--mime", "-L", "-z", "--mime-type", "-k", "-s", "--brief")), files)
  .map(([o, f]) => words("file", o, f))
const date = maybe(
  pick(
    "+%Y",
    "-u",
    "--iso-8601",
    "-d @0",
    "-r README.md",
    "--rfc-3339=date",
    "-R",
    "--utc",
    "'+%H:%M'",
    "-d '2020-01-01' +%s",
    "--date=@0"
  ),
  4
).map((o) => words("date", o))
const small = pick(
  "stat README.md",
  "stat -c %s README.md",
  "stat --format=%n src/a.ts",
  "stat -L src-link",
  "od -c notes.txt",
  "od -An -tx1 README.md",
  "xxd -l 16 README.md",
  "xxd -p notes.txt",
  "strings README.md",
  "nl README.md",
  "tac notes.txt",
  "rev notes.txt",
  "base64 README.md",
  "md5sum README.md",
  "sha256sum *.md",
  "cksum notes.txt",
  "realpath README.md",
  "readlink -f src-link",
  "readlink src-link",
  "basename src/a.ts .ts",
  "dirname src/a.ts",
  "du -sh src",
  "du -a docs",
  "cut -d: -f1 notes.txt",
  "cut -c1-3 README.md",
  "tr a-z A-Z < notes.txt",
  "tr -d a < notes.txt",
  "column -t notes.txt",
  "paste -sd, notes.txt",
  "fold -w 5 notes.txt",
  "expand README.md",
  "comm notes.txt notes.txt",
  "cmp README.md notes.txt",
  "pwd",
  "pwd -P",
  "true",
  "false",
  "test -f README.md",
  "[ -d src ]",
  "[[ -n x ]]",
  "test -n \"$HOME\"",
  "which git",
  "type ls",
  "command -v git",
  "printenv HOME",
  "id -u",
  "whoami",
  "uname -a",
  "seq 3",
  "seq 1 2 9",
  "sleep 0",
  ":"
)

/** Read-only commands: the analyzer should allow them in every mode. */
export const readOnlyCommand: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: catCommand },
  { weight: 3, arbitrary: headTail },
  { weight: 2, arbitrary: wc },
  { weight: 3, arbitrary: ls },
  { weight: 3, arbitrary: grep },
  { weight: 2, arbitrary: rg },
  { weight: 1, arbitrary: rgFiles },
  { weight: 2, arbitrary: find },
  { weight: 3, arbitrary: sed },
  { weight: 2, arbitrary: sort },
  { weight: 1, arbitrary: uniq },
  { weight: 3, arbitrary: echo },
  { weight: 1, arbitrary: printf },
  { weight: 4, arbitrary: git },
  { weight: 1, arbitrary: diff },
  { weight: 2, arbitrary: jq },
  { weight: 1, arbitrary: fileCommand },
  { weight: 1, arbitrary: date },
  { weight: 4, arbitrary: small }
)

/** Commands allowed by the rules of some contexts (RUNNER_RULES, TOOL_RULES). */
export const ruleCommand: fc.Arbitrary<Generated> = fc.oneof(
  tagged(
    "rule:runner",
    maybe(pick("-- --watch=false", "--silent", "-- -t x", "--", "-w a")).map((o) => words("npm test", o))
  ),
  tagged(
    "rule:runner",
    maybe(pick("-s", "--short", "-b", "--porcelain", "-- src", "-uno")).map((o) => words("git status", o))
  ),
  tagged("rule:runner", maybe(pick("V=1", "-j2", "-s", "-k", "--keep-going")).map((o) => words("make test", o))),
  tagged("rule:runner", fc.constant("npm run lint")),
  tagged("rule:runner", maybe(pick("-v", "--fast", "a b", "'x y'")).map((o) => words("./scripts/test.sh", o))),
  tagged("rule:tool", maybe(pick("-q", "-x", "tests/", "-k alpha", "--co")).map((o) => words("python3 -m pytest", o))),
  tagged("rule:tool", maybe(pick("--stat", "HEAD", "--cached", "-- src")).map((o) => words("git diff", o))),
  tagged("rule:tool", maybe(pick("-a", "--format '{{.ID}}'", "-q")).map((o) => words("docker ps", o))),
  tagged("rule:tool", fc.constant("node --version"))
)
