/**
 * Options of read-only programs with parsers of their own that take an option table:
 * ripgrep and tree. Notation: options/table.ts.
 */
import { optionTable } from "../table.js"

/** ripgrep 13 (clap: exact names, no abbreviations). `--pre` and `-z` run programs. */
export const rg = optionTable(
  `-A/--after-context=v --auto-hybrid-regex -B/--before-context=v --binary --block-buffered -b/--byte-offset -s/--case-sensitive
   --color=v --colors=v --column -C/--context=v --context-separator=v -c/--count --count-matches --crlf --debug --dfa-size-limit=v
   -E/--encoding=v --engine=v --field-context-separator=v --field-match-separator=v -f/--file=r^ --files!u -l/--files-with-matches
   --files-without-match -F/--fixed-strings -L/--follow -g/--glob=v --glob-case-insensitive -h/--help --heading -./--hidden
   --iglob=v -i/--ignore-case --ignore-file=r --ignore-file-case-insensitive --include-zero -v/--invert-match --json --line-buffered
   -n/--line-number -x/--line-regexp -M/--max-columns=v --max-columns-preview -m/--max-count=v --max-depth=v --max-filesize=v
   --mmap -U/--multiline --multiline-dotall --no-config -I/--no-filename --no-heading --no-ignore --no-ignore-dot
   --no-ignore-exclude --no-ignore-files --no-ignore-global --no-ignore-messages --no-ignore-parent --no-ignore-vcs
   -N/--no-line-number --no-messages --no-mmap --no-pcre2-unicode --no-require-git --no-unicode -0/--null --null-data
   --one-file-system -o/--only-matching --passthru --path-separator=v -P/--pcre2 --pcre2-version --pre=x --pre-glob=v -p/--pretty
   -q/--quiet --regex-size-limit=v -e/--regexp=v^ -r/--replace=v -z/--search-zip!x -S/--smart-case --sort=v --sortr=v --stats
   -a/--text -j/--threads=v --trim -t/--type=v --type-add=v --type-clear=v --type-list -T/--type-not=v -u/--unrestricted
   -V/--version --vimgrep -H/--with-filename -w/--word-regexp`,
  { style: "exact" }
)

/** tree 2: the options that only list (`-o`, `-R`, `-H`, `--fromfile` are left out: they write or read lists). Not installed here, so not checked against its help. */
export const tree = optionTable(
  `-a -d -l -f -x -L=v -P=v -I=v --gitignore --ignore-case --matchdirs --prune --noreport --charset=v -q -N -Q -p -u -g -s -h --si
   --du -D --timefmt=v -F --inodes --device -v -t -c -U -r --dirsfirst --filesfirst --sort=v -i -A -S -n -C -J -X --help --version`,
  { style: "exact" }
)
