/**
 * git 2.39's options. Commands built on parse-options accept unique prefixes and `--no-`
 * negations (`git status --porc`); the log family (log, show, diff, rev-list, …) reads its
 * revision and diff options by exact name only (`git diff --outp=x` is an error), so its table
 * is a list of the harmless options an agent uses, and anything else is unknown. The
 * parse-options tables are what `git <cmd> -h` lists (test/services/ShellAnalyzer/optionTables.test.ts).
 */
import { mergeTables, optionTable } from "../table.js"

const git = (notation: string) => optionTable(notation, { style: "git" })
const exact = (notation: string) => optionTable(notation, { style: "exact" })

/** Options before the subcommand (git.c reads them by exact name; they end at the subcommand). */
export const global = optionTable(
  `--exec-path[=u] --html-path --man-path --info-path -p/--paginate!x -P/--no-pager --no-replace-objects --git-dir=u --work-tree=u
   --namespace=u --super-prefix=u --bare!u -C=u -c=u --config-env=u --literal-pathspecs --glob-pathspecs --noglob-pathspecs
   --icase-pathspecs --no-optional-locks --list-cmds=v -v/--version -h/--help`,
  { style: "exact", stopAtOperand: true }
)

/** Diff options of the log family: exact names. `--output` writes, `--ext-diff` runs a program, `-O` reads an order file. */
const diffOptions = exact(
  `-p/-u/--patch -s/--no-patch -U/--unified[=v] --output=w --output-indicator-new=v --output-indicator-old=v --output-indicator-context=v
   --raw --patch-with-raw --indent-heuristic --no-indent-heuristic --minimal --patience --histogram --anchored=v --diff-algorithm=v
   --stat[=v] --stat-width=v --stat-name-width=v --stat-graph-width=v --stat-count=v --compact-summary --numstat --shortstat
   -X/--dirstat[=v] --cumulative --dirstat-by-file[=v] --summary --patch-with-stat -z --name-only --name-status --submodule[=v]
   --color[=v] --no-color --color-moved[=v] --no-color-moved --color-moved-ws=v --no-color-moved-ws --word-diff[=v]
   --word-diff-regex=v --color-words[=v] --no-renames --rename-empty --no-rename-empty --check --ws-error-highlight=v --full-index
   --binary --abbrev[=v] --no-abbrev -B/--break-rewrites[=v] -M/--find-renames[=v] -C/--find-copies[=v] --find-copies-harder
   -D/--irreversible-delete -l[=v] --diff-filter=v -S=v -G=v --find-object=v --pickaxe-all --pickaxe-regex -O=r --rotate-to=v
   --skip-to=v -R --relative[=v] --no-relative -a/--text --ignore-cr-at-eol --ignore-space-at-eol -b/--ignore-space-change
   -w/--ignore-all-space --ignore-blank-lines -I/--ignore-matching-lines=v --inter-hunk-context=v -W/--function-context
   --no-function-context --exit-code --quiet --ext-diff!x --no-ext-diff --textconv!x --no-textconv --ignore-submodules[=v]
   --src-prefix=v --dst-prefix=v --no-prefix --line-prefix=v --ita-invisible-in-index --ita-visible-in-index`
)

/** Revision and log options: exact names. `--show-signature` runs gpg. */
const revisionOptions = exact(
  `-n/--max-count=v --skip=v --since=v --after=v --since-as-filter=v --until=v --before=v --max-age=v --min-age=v --author=v
   --committer=v --grep-reflog=v --grep=v --all-match --invert-grep -i/--regexp-ignore-case --basic-regexp -E/--extended-regexp
   -F/--fixed-strings -P/--perl-regexp --remove-empty --merges --no-merges --min-parents=v --max-parents=v --no-min-parents
   --no-max-parents --first-parent --exclude-first-parent-only --not --all --branches[=v] --tags[=v] --remotes[=v] --glob=v
   --exclude=v --reflog --alternate-refs --single-worktree --ignore-missing --bisect --stdin --cherry-mark --cherry-pick
   --left-only --right-only --cherry -g/--walk-reflogs --merge --boundary --simplify-by-decoration --show-pulls --full-history
   --dense --sparse --simplify-merges --ancestry-path[=v] --date-order --author-date-order --topo-order --reverse --no-walk[=v]
   --do-walk --pretty[=v] --format[=v] --oneline --abbrev-commit --no-abbrev-commit --encoding=v --expand-tabs[=v]
   --no-expand-tabs --notes[=v] --no-notes --show-notes[=v] --standard-notes --no-standard-notes --show-signature!x
   --relative-date --date=v --parents --children --left-right --graph --show-linear-break[=v] -c --cc --combined-all-paths
   -m --diff-merges=v --no-diff-merges --remerge-diff -t -r --root --follow --decorate[=v] --no-decorate --decorate-refs=v
   --decorate-refs-exclude=v --clear-decorations --source --mailmap --use-mailmap --no-mailmap --no-use-mailmap --full-diff
   --log-size -L=v --count --objects --objects-edge --unpacked --object-names --no-object-names --header --timestamp
   --in-commit-order --no-commit-id -v --always -#`
)

/** log, show, whatchanged, rev-list, diff-tree, diff-files, diff-index, reflog show, stash list/show. */
export const logFamily = mergeTables("exact", revisionOptions, diffOptions)

/** git diff: the log family's options, and the index and merge options of diff. `--no-index` compares two files. */
export const diff = mergeTables(
  "exact",
  logFamily,
  exact(`--cached/--staged --merge-base --no-index -0 -1/--base -2/--ours -3/--theirs`)
)

/** shortlog reads its own options first (`-n`, `-s`, `-c` differ from log's), then a few revision ones. */
export const shortlog = exact(
  `-c/--committer -n/--numbered -s/--summary -e/--email -w[=v] --group=v --all --branches[=v] --tags[=v] --remotes[=v] --since=v
   --after=v --until=v --before=v --author=v --no-merges --merges --first-parent --format[=v] --pretty[=v] -#`
)

export const status = git(
  `-v/--verbose -s/--short -b/--branch --show-stash --ahead-behind --porcelain[=v] --long -z/--null -u/--untracked-files[=v]
   --ignored[=v] --ignore-submodules[=v] --column[=v] --no-renames -M/--find-renames[=v]`
)
/** `--contents` and `-S` read files; `--ignore-revs-file` too. */
export const blame = git(
  `--incremental -b --root --show-stats --progress --score-debug -f/--show-name -n/--show-number -p/--porcelain --line-porcelain -c -t
   -l -s -e/--show-email -w --ignore-rev=v --ignore-revs-file=r --color-lines --color-by-age --minimal -S=r --contents=r -C[=v] -M[=v]
   -L=v --abbrev[=v]`
)
export const describe = git(
  `--contains --debug --all --tags --long --first-parent --abbrev[=v] --exact-match --candidates=v --match=v --exclude=v --always
   --dirty[=v] --broken[=v]`
)
/** `-O` opens the matching files in a pager (a program). */
export const grep = git(
  `--cached --no-index --untracked --exclude-standard --recurse-submodules -v/--invert-match -i/--ignore-case -w/--word-regexp -a/--text
   -I --textconv!x -r/--recursive --max-depth=v -E/--extended-regexp -G/--basic-regexp -F/--fixed-strings -P/--perl-regexp
   -n/--line-number --column -h -H --full-name -l/--files-with-matches --name-only -L/--files-without-match -z/--null
   -o/--only-matching -c/--count --color[=v] --break --heading -C/--context=v -B/--before-context=v -A/--after-context=v
   --threads=v -p/--show-function -W/--function-context -f=r^ -e=v^ --and --or --not -q/--quiet --all-match
   -O/--open-files-in-pager[=x] --ext-grep -m/--max-count=v -#`
)
/** Listing is read-only; the rest creates, deletes or changes branches. */
export const branch = git(
  `-v/--verbose -q/--quiet -t/--track[=u] -u/--set-upstream-to=u --unset-upstream!u --color[=v] -r/--remotes --contains=v
   --no-contains=v --abbrev[=v] -a/--all -d/--delete!u -D!u -m/--move!u -M!u -c/--copy!u -C!u -l/--list --show-current
   --create-reflog!u --edit-description!x -f/--force!u --merged=v --no-merged=v --column[=v] --sort=v --points-at=v
   -i/--ignore-case --recurse-submodules --format=v`
)
export const tag = git(
  `-l/--list -n[=v] -d/--delete!u -v/--verify!x -a/--annotate!u -m/--message=u -F/--file=u -e/--edit!x -s/--sign!x --cleanup=u
   -u/--local-user=x -f/--force!u --create-reflog!u --column[=v] --contains=v --no-contains=v --merged=v --no-merged=v --sort=v
   --points-at=v --format=v --color[=v] -i/--ignore-case`
)
export const lsFiles = git(
  `-z -t -v -f -c/--cached -d/--deleted -m/--modified -o/--others -i/--ignored -s/--stage -k/--killed --directory --eol
   --empty-directory -u/--unmerged --resolve-undo -x/--exclude=v -X/--exclude-from=r --exclude-per-directory=v --exclude-standard
   --full-name --recurse-submodules --error-unmatch --with-tree=v --abbrev[=v] --debug --deduplicate --sparse --format=v`
)
export const lsTree = git(
  `-d -r -t -z -l/--long --name-only --name-status --object-only --full-name --full-tree --format=v --abbrev[=v]`
)
export const catFile = git(
  `-e -p -t -s --allow-unknown-type --use-mailmap --mailmap --batch[=v] --batch-check[=v] -z --batch-command[=v] --batch-all-objects
   --buffer --follow-symlinks --unordered --textconv!x --filters --path=v`
)
export const forEachRef = git(
  `-s/--shell -p/--perl --python --tcl --count=v --format=v --color[=v] --sort=v --points-at=v --merged=v --no-merged=v --contains=v
   --no-contains=v --ignore-case`
)
export const nameRev = git(
  `--name-only --tags --refs=v --exclude=v --all --stdin --annotate-stdin --undefined --always`
)
export const showRef = git(
  `--tags --heads --verify --head -d/--dereference -s/--hash[=v] --abbrev[=v] -q/--quiet --exclude-existing[=v]`
)
export const checkIgnore = git(`-q/--quiet -v/--verbose --stdin -z -n/--non-matching --no-index`)
export const checkAttr = git(`-a/--all --cached --stdin -z`)
export const countObjects = git(`-v/--verbose -H/--human-readable`)
export const mergeBase = git(`-a/--all --octopus --independent --is-ancestor --fork-point`)
export const symbolicRef = git(`-q/--quiet -d/--delete!u --short --recurse -m=u`)
export const showBranch = git(
  `-a/--all -r/--remotes --color[=v] --more[=v] --list --no-name --current --sha1-name --merge-base --independent --topo-order
   --topics --sparse --date-order -g/--reflog[=v]`
)
export const cherry = git(`--abbrev[=v] -v/--verbose`)
/** Reading needs `--get…`/`--list` or a single key; `--file` reads another file, `--edit` runs an editor, the rest writes. */
export const config = git(
  `--global --system --local --worktree -f/--file=r --blob=v --get --get-all --get-regexp --get-urlmatch --replace-all!u --add!u
   --unset!u --unset-all!u --rename-section!u --remove-section!u -l/--list --fixed-value -e/--edit!x --get-color --get-colorbool
   -t/--type=v --bool --int --bool-or-int --bool-or-str --path --expiry-date -z/--null --name-only --includes --show-origin
   --show-scope --default=v`
)
export const worktreeList = git(`--porcelain -v/--verbose --expire=v -z`)
export const varTable = git(`-l`)

// ---- commands users write deny and ask rules for (option spellings only; effects unused) ------

export const push = git(
  `-v/--verbose -q/--quiet --repo=v --all --mirror -d/--delete --tags -n/--dry-run --porcelain -f/--force --force-with-lease[=v]
   --force-if-includes --recurse-submodules=v --thin --receive-pack=x --exec=x -u/--set-upstream --progress --prune --no-verify
   --follow-tags --signed[=v] --atomic -o/--push-option=v -4/--ipv4 -6/--ipv6`
)
export const reset = git(
  `-q/--quiet --no-refresh --mixed --soft --hard --merge --keep --recurse-submodules[=v] -p/--patch -N/--intent-to-add
   --pathspec-from-file=v --pathspec-file-nul`
)
export const clean = git(`-q/--quiet -n/--dry-run -f/--force -i/--interactive -d -e/--exclude=v -x -X`)
export const checkout = git(
  `-b=v -B=v -l --guess --overlay -q/--quiet --recurse-submodules[=v] --progress -m/--merge --conflict=v -d/--detach -t/--track[=v]
   -f/--force --orphan=v --overwrite-ignore --ignore-other-worktrees -2/--ours -3/--theirs -p/--patch --ignore-skip-worktree-bits
   --pathspec-from-file=v --pathspec-file-nul`
)
export const commit = git(
  `-q/--quiet -v/--verbose -F/--file=v --author=v --date=v -m/--message=v -c/--reedit-message=v -C/--reuse-message=v --fixup[=v]
   --squash=v --reset-author --trailer=v -s/--signoff -t/--template=v -e/--edit --cleanup=v --status -S/--gpg-sign[=v] -a/--all
   -i/--include --interactive -p/--patch -o/--only -n/--no-verify --dry-run --short --branch --ahead-behind --porcelain --long
   -z/--null --amend --no-post-rewrite -u/--untracked-files[=v] --pathspec-from-file=v --pathspec-file-nul`
)
export const rebase = git(
  `--onto=v --keep-base --no-verify -q/--quiet -v/--verbose -n/--no-stat --signoff --committer-date-is-author-date
   --reset-author-date -C=v --ignore-whitespace --whitespace=v -f/--force-rebase --no-ff --continue --skip --abort --quit
   --edit-todo --show-current-patch --apply -m/--merge -i/--interactive --rerere-autoupdate --empty=v --autosquash --update-refs
   -S/--gpg-sign[=v] --autostash -x/--exec=x -r/--rebase-merges[=v] --fork-point -s/--strategy=v -X/--strategy-option=v --root
   --reschedule-failed-exec --reapply-cherry-picks`
)
export const restore = git(
  `-s/--source=v -S/--staged -W/--worktree --ignore-unmerged --overlay -q/--quiet --recurse-submodules[=v] --progress -m/--merge
   --conflict=v -2/--ours -3/--theirs -p/--patch --ignore-skip-worktree-bits --pathspec-from-file=v --pathspec-file-nul`
)
export const switchTable = git(
  `-c/--create=v -C/--force-create=v --guess --discard-changes -q/--quiet --recurse-submodules[=v] --progress -m/--merge --conflict=v
   -d/--detach -t/--track[=v] -f/--force --orphan=v --overwrite-ignore --ignore-other-worktrees`
)
export const merge = git(
  `-n --stat --summary --log[=v] --squash --commit -e/--edit --cleanup=v --ff --ff-only --rerere-autoupdate --verify-signatures
   -s/--strategy=v -X/--strategy-option=v -m/--message=v -F/--file=v --into-name=v -v/--verbose -q/--quiet --abort --quit
   --continue --allow-unrelated-histories --progress -S/--gpg-sign[=v] --autostash --overwrite-ignore --signoff --no-verify`
)
export const pull = git(
  `-v/--verbose -q/--quiet --progress --recurse-submodules[=v] -r/--rebase[=v] -n --stat --log[=v] --signoff[=v] --squash --commit
   --edit --cleanup=v --ff --ff-only --verify --verify-signatures --autostash -s/--strategy=v -X/--strategy-option=v
   -S/--gpg-sign[=v] --allow-unrelated-histories --all -a/--append --upload-pack=x -f/--force -t/--tags -p/--prune -j/--jobs[=v]
   --dry-run -k/--keep --depth=v --shallow-since=v --shallow-exclude=v --deepen=v --unshallow --update-shallow --refmap=v
   -o/--server-option=v -4/--ipv4 -6/--ipv6 --negotiation-tip=v --show-forced-updates --set-upstream`
)
export const fetch = git(
  `-v/--verbose -q/--quiet --all --set-upstream -a/--append --atomic --upload-pack=x -f/--force -m/--multiple -t/--tags -n
   -j/--jobs=v --prefetch -p/--prune -P/--prune-tags --recurse-submodules[=v] --dry-run --write-fetch-head -k/--keep
   -u/--update-head-ok --progress --depth=v --shallow-since=v --shallow-exclude=v --deepen=v --unshallow --refetch
   --update-shallow --refmap=v -o/--server-option=v -4/--ipv4 -6/--ipv6 --negotiation-tip=v --negotiate-only --filter=v
   --auto-maintenance --auto-gc --show-forced-updates --write-commit-graph --stdin`
)
export const add = git(
  `-n/--dry-run -v/--verbose -i/--interactive -p/--patch -e/--edit -f/--force -u/--update --renormalize -N/--intent-to-add -A/--all
   --ignore-removal --refresh --ignore-errors --ignore-missing --sparse --chmod=v --pathspec-from-file=v --pathspec-file-nul`
)
export const rm = git(
  `-n/--dry-run -q/--quiet --cached -f/--force -r --ignore-unmatch --sparse --pathspec-from-file=v --pathspec-file-nul`
)
export const stashPush = git(
  `-k/--keep-index -S/--staged -p/--patch -q/--quiet -u/--include-untracked -a/--all -m/--message=v --pathspec-from-file=v
   --pathspec-file-nul`
)

/** git's own commands in 2.39 (`git help -a`): anything else may be an alias or a correction (help.autocorrect). */
export const BUILTIN_COMMANDS: ReadonlySet<string> = new Set(
  `add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format
   checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects
   credential credential-cache credential-store describe diagnose diff diff-files diff-index diff-tree difftool fast-export
   fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon
   gc get-tar-commit-id grep gui hash-object help hook http-backend http-fetch http-push imap-send index-pack init init-db instaweb
   interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index
   merge-octopus merge-one-file merge-ours merge-recursive merge-resolve merge-subtree merge-tree mergetool mktag mktree
   multi-pack-index mv name-rev notes p4 pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push quiltimport
   range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd remote-ftp remote-ftps remote-http remote-https
   repack replace request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack sh-i18n--envsubst shell
   shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule submodule--helper
   svn switch symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack
   var verify-commit verify-pack verify-tag version web--browse whatchanged worktree write-tree`
    .split(/\s+/)
    .filter((c) => c.length > 0)
)
