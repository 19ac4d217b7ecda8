/**
 * Every option of the read-only text and file programs installed with coreutils 9.1, grep 3.8,
 * diffutils 3.8, sed 4.9, findutils 4.9 (xargs), file 5.44, binutils 2.40 (strings), util-linux
 * 2.38 (hexdump, column, rev) and procps 4 (pgrep, uptime), as their `--help` lists them
 * (test/services/ShellAnalyzer/optionTables.test.ts keeps them equal). Notation: options/table.ts.
 */
import { optionTable as t } from "../table.js"

const HELP = "--help --version"

export const cat = t(
  `-A/--show-all -b/--number-nonblank -e -E/--show-ends -n/--number -s/--squeeze-blank -t -T/--show-tabs -u -v/--show-nonprinting ${HELP}`
)
export const tac = t(`-b/--before -r/--regex -s/--separator=v ${HELP}`)
export const nl = t(
  `-b/--body-numbering=v -d/--section-delimiter=v -f/--footer-numbering=v -h/--header-numbering=v -i/--line-increment=v -l/--join-blank-lines=v
   -n/--number-format=v -p/--no-renumber -s/--number-separator=v -v/--starting-line-number=v -w/--number-width=v ${HELP}`
)
export const head = t(`-c/--bytes=v -n/--lines=v -q/--quiet/--silent -v/--verbose -z/--zero-terminated ${HELP} -#`)
export const tail = t(
  `-c/--bytes=v -f --follow[=v] -F --max-unchanged-stats=v -n/--lines=v --pid=v -q/--quiet/--silent --retry -s/--sleep-interval=v
   -v/--verbose -z/--zero-terminated ${HELP} -#`
)
export const wc = t(`-c/--bytes -m/--chars -l/--lines --files0-from=R -L/--max-line-length -w/--words ${HELP}`)
export const od = t(
  `-A/--address-radix=v --endian=v -j/--skip-bytes=v -N/--read-bytes=v -S=v --strings[=v] -t/--format=v -v/--output-duplicates
   -w/--width[=v] --traditional ${HELP} -a -b -c -d -f -i -l -o -s -x`
)
export const hexdump = t(
  `-b/--one-byte-octal -c/--one-byte-char -C/--canonical -d/--two-bytes-decimal -o/--two-bytes-octal -x/--two-bytes-hex
   -L/--color[=v] -e/--format=v -f/--format-file=r -n/--length=v -s/--skip=v -v/--no-squeezing -h/--help -V/--version`
)
/** binutils' own parser (getopt_long); `@FILE` operands are response files (see readOnly.ts). */
export const strings = t(
  `-a/--all -d/--data -f/--print-file-name -n/--bytes=v -t/--radix=v -w/--include-all-whitespace -o -T/--target=v
   -e/--encoding=v -U/--unicode=v -s/--output-separator=v -h/--help -v/-V/--version -#`
)
export const rev = t(`-h/--help -V/--version`)
export const fold = t(`-b/--bytes -s/--spaces -w/--width=v ${HELP}`)
export const expand = t(`-i/--initial -t/--tabs=v ${HELP}`)
export const unexpand = t(`-a/--all --first-only -t/--tabs=v ${HELP}`)
export const column = t(
  `-t/--table -n/--table-name=v -O/--table-order=v -N/--table-columns=v -l/--table-columns-limit=v -E/--table-noextreme=v
   -d/--table-noheadings -e/--table-header-repeat -H/--table-hide=v -R/--table-right=v -T/--table-truncate=v -W/--table-wrap=v
   -L/--keep-empty-lines -J/--json -r/--tree=v -i/--tree-id=v -p/--tree-parent=v -c/--output-width=v -o/--output-separator=v
   -s/--separator=v -x/--fillrows -h/--help -V/--version`
)
export const paste = t(`-d/--delimiters=v -s/--serial -z/--zero-terminated ${HELP}`)
export const cut = t(
  `-b/--bytes=v -c/--characters=v -d/--delimiter=v -f/--fields=v -n --complement -s/--only-delimited --output-delimiter=v
   -z/--zero-terminated ${HELP}`
)
export const tr = t(`-c/-C/--complement -d/--delete -s/--squeeze-repeats -t/--truncate-set1 ${HELP}`)
export const base64 = t(`-d/--decode -i/--ignore-garbage -w/--wrap=v ${HELP}`)
/** `--check` reads the files a checksum list names: reads that cannot be known before it runs. */
const CHECKSUM =
  `-b/--binary -c/--check!R --tag -t/--text -z/--zero --ignore-missing --quiet --status --strict -w/--warn ${HELP}`
export const checksum = t(CHECKSUM)
export const b2sum = t(`${CHECKSUM} -l/--length=v`)
export const cksum = t(
  `-a/--algorithm=v -c/--check!R -l/--length=v --tag --untagged -z/--zero --ignore-missing --quiet --status --strict -w/--warn --debug ${HELP}`
)
export const sum = t(`-r -s/--sysv ${HELP}`)
export const uniq = t(
  `-c/--count -d/--repeated -D --all-repeated[=v] -f/--skip-fields=v --group[=v] -i/--ignore-case -s/--skip-chars=v -u/--unique
   -z/--zero-terminated -w/--check-chars=v ${HELP} -#`
)
export const stat = t(`-L/--dereference -f/--file-system --cached=v -c/--format=v --printf=v -t/--terse ${HELP}`)
/** `-m` takes a colon-separated list of magic files (readOnly.ts splits it); Claude Code asks for it, and so does this table. */
export const file = t(
  `--help -v/--version -m/--magic-file=R -z/--uncompress -Z/--uncompress-noreport -b/--brief -c/--checking-printout -e/--exclude=v
   --exclude-quiet=v -f/--files-from=R -F/--separator=v -i/--mime --apple --extension --mime-type --mime-encoding -k/--keep-going
   -l/--list -L/--dereference -h/--no-dereference -n/--no-buffer -N/--no-pad -0/--print0 -p/--preserve-date!w -P/--parameter=v
   -r/--raw -s/--special-files -S/--no-sandbox -C/--compile!w -d/--debug`
)
export const du = t(
  `-0/--null -a/--all --apparent-size -B/--block-size=v -b/--bytes -c/--total -D/--dereference-args -d/--max-depth=v --files0-from=R
   -H -h/--human-readable --inodes -k -L/--dereference -l/--count-links -m -P/--no-dereference -S/--separate-dirs --si -s/--summarize
   -t/--threshold=v --time[=v] --time-style=v -X/--exclude-from=r --exclude=v -x/--one-file-system ${HELP}`
)
export const df = t(
  `-a/--all -B/--block-size=v -h/--human-readable -H/--si -i/--inodes -k -l/--local --no-sync --output[=v] -P/--portability --sync
   --total -t/--type=v -T/--print-type -x/--exclude-type=v -v ${HELP}`
)
export const readlink = t(
  `-f/--canonicalize -e/--canonicalize-existing -m/--canonicalize-missing -n/--no-newline -q/--quiet -s/--silent -v/--verbose -z/--zero ${HELP}`
)
export const realpath = t(
  `-e/--canonicalize-existing -m/--canonicalize-missing -L/--logical -P/--physical -q/--quiet --relative-to=r --relative-base=r
   -s/--strip/--no-symlinks -z/--zero ${HELP}`
)
/** `--paginate` pipes the output through `pr`. */
export const diff = t(
  `--normal -q/--brief -s/--report-identical-files -c -C=v --context[=v] -u -U=v --unified[=v] -e/--ed -n/--rcs -y/--side-by-side
   -W/--width=v --left-column --suppress-common-lines -p/--show-c-function -F/--show-function-line=v --label=v -t/--expand-tabs
   -T/--initial-tab --tabsize=v --suppress-blank-empty -l/--paginate!x -r/--recursive --no-dereference -N/--new-file
   --unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case -x/--exclude=v -X/--exclude-from=r -S/--starting-file=v
   --from-file=r --to-file=r -i/--ignore-case -E/--ignore-tab-expansion -Z/--ignore-trailing-space -b/--ignore-space-change
   -w/--ignore-all-space -B/--ignore-blank-lines -I/--ignore-matching-lines=v -a/--text --strip-trailing-cr -D/--ifdef=v
   --old-group-format=v --new-group-format=v --unchanged-group-format=v --changed-group-format=v --line-format=v
   --old-line-format=v --new-line-format=v --unchanged-line-format=v -d/--minimal --horizon-lines=v --speed-large-files
   --color[=v] --palette=v --help -v/--version`
)
export const cmp = t(
  `-b/--print-bytes -i/--ignore-initial=v -l/--verbose -n/--bytes=v -s/--quiet/--silent --help -v/--version`
)
export const comm = t(
  `-1 -2 -3 --check-order --nocheck-order --output-delimiter=v --total -z/--zero-terminated ${HELP}`
)
export const printenv = t(`-0/--null ${HELP}`)
export const uname = t(
  `-a/--all -s/--kernel-name -n/--nodename -r/--kernel-release -v/--kernel-version -m/--machine -p/--processor -i/--hardware-platform
   -o/--operating-system ${HELP}`
)
export const id = t(`-a -Z/--context -g/--group -G/--groups -n/--name -r/--real -u/--user -z/--zero ${HELP}`)
export const helpOnly = t(HELP)
export const nproc = t(`--all --ignore=v ${HELP}`)
export const tty = t(`-s/--silent/--quiet ${HELP}`)
/** Negative numbers are operands to seq (`seq -5 5`): numbers count as options here, seq prints either way. */
export const seq = t(`-f/--format=v -s/--separator=v -w/--equal-width ${HELP} -#`)
export const basename = t(`-a/--multiple -s/--suffix=v -z/--zero ${HELP}`)
export const dirname = t(`-z/--zero ${HELP}`)
export const uptime = t(`-p/--pretty -h/--help -s/--since -V/--version`)
/** `-F`/`-b` and an operand set the host name. */
export const hostname = t(
  `-a/--alias -A/--all-fqdns -b/--boot!u -d/--domain -f/--fqdn/--long -F/--file=u -i/--ip-address -I/--all-ip-addresses -s/--short
   -y/--yp/--nis -v/--verbose -V/--version -h/--help`
)
export const pgrep = t(
  `-d/--delimiter=v -l/--list-name -a/--list-full -v/--inverse -w/--lightweight -c/--count -f/--full -g/--pgroup=v -G/--group=v
   -i/--ignore-case -n/--newest -o/--oldest -O/--older=v -P/--parent=v -s/--session=v -t/--terminal=v -u/--euid=v -U/--uid=v
   -x/--exact -F/--pidfile=r -L/--logpidfile -r/--runstates=v -A/--ignore-ancestors --cgroup=v --ns=v --nslist=v -h/--help -V/--version`
)
export const ls = t(
  `-a/--all -A/--almost-all --author -b/--escape --block-size=v -B/--ignore-backups -c -C --color[=v] -d/--directory -D/--dired -f
   -F --classify[=v] --file-type --format=v --full-time -g --group-directories-first -G/--no-group -h/--human-readable --si
   -H/--dereference-command-line --dereference-command-line-symlink-to-dir --hide=v --hyperlink[=v] --indicator-style=v -i/--inode
   -I/--ignore=v -k/--kibibytes -l -L/--dereference -m -n/--numeric-uid-gid -N/--literal -o -p -q/--hide-control-chars
   --show-control-chars -Q/--quote-name --quoting-style=v -r/--reverse -R/--recursive -s/--size -S --sort=v --time=v --time-style=v
   -t -T/--tabsize=v -u -U -v -w/--width=v -x -X -Z/--context --zero -1 ${HELP}`
)
export const sort = t(
  `-b/--ignore-leading-blanks -d/--dictionary-order -f/--ignore-case -g/--general-numeric-sort -i/--ignore-nonprinting -M/--month-sort
   -h/--human-numeric-sort -n/--numeric-sort -R/--random-sort --random-source=r -r/--reverse --sort=v -V/--version-sort
   --batch-size=v -c --check[=v] -C --compress-program=x --debug --files0-from=R -k/--key=v -m/--merge -o/--output=w -s/--stable
   -S/--buffer-size=v -t/--field-separator=v -T/--temporary-directory=w --parallel=v -u/--unique -z/--zero-terminated ${HELP}`
)
export const grep = t(
  `-E/--extended-regexp -F/--fixed-strings -G/--basic-regexp -P/--perl-regexp -e/--regexp=v^ -f/--file=r^ -i/--ignore-case
   --no-ignore-case -w/--word-regexp -x/--line-regexp -z/--null-data -s/--no-messages -v/--invert-match -V/--version --help
   -m/--max-count=v -b/--byte-offset -n/--line-number --line-buffered -H/--with-filename -h/--no-filename --label=v
   -o/--only-matching -q/--quiet/--silent --binary-files=v -a/--text -I -d/--directories=v -D/--devices=v -r/--recursive
   -R/--dereference-recursive --include=v --exclude=v --exclude-from=r --exclude-dir=v -L/--files-without-match
   -l/--files-with-matches -c/--count -T/--initial-tab -Z/--null -B/--before-context=v -A/--after-context=v -C/--context=v
   --group-separator=v --no-group-separator --color/--colour[=v] -U/--binary -#`
)
/** `--set` (and an operand not starting with `+`, see readOnly.ts) sets the clock. */
export const date = t(
  `-d/--date=v --debug -f/--file=r -I/--iso-8601[=v] --resolution -R/--rfc-email --rfc-3339=v -r/--reference=r -s/--set=u
   -u/--utc/--universal ${HELP}`
)
/** `-i` edits the files in place; `-f` reads the script from a file (readOnly.ts and sedScript.ts read the scripts). */
export const sed = t(
  `-n/--quiet/--silent --debug -e/--expression=v -f/--file=r --follow-symlinks -i/--in-place[=w] -l/--line-length=v --posix
   -E/-r/--regexp-extended -s/--separate --sandbox -u/--unbuffered -z/--null-data ${HELP}`
)
/** xargs itself: the command it runs is a unit of its own (wrappers.ts). */
export const xargs = t(
  `-0/--null -a/--arg-file=r -d/--delimiter=v -E=v -e/--eof[=v] -I=u -i/--replace[=u] -L/--max-lines=v -l[=v] -n/--max-args=v
   -o/--open-tty!u -P/--max-procs=v -p/--interactive!u --process-slot-var=c -r/--no-run-if-empty -s/--max-chars=v --show-limits
   -t/--verbose -x/--exit ${HELP}`,
  { stopAtOperand: true }
)
/** The bash builtin `pwd`. */
export const pwd = t(`-L -P`)
