/**
 * Options of programs that users allow with prefix rules (`Bash(make test:*)`, `Bash(curl:*)`) or
 * name in deny rules (`Bash(rm -rf:*)`). The coreutils file commands, make 4.3, curl 7.88, tar 1.34
 * are complete (their `--help`); for wget, rsync, ssh, awk, node, python and npm the tables list
 * the options that run programs, write or read files, change configuration or take an argument,
 * and guards.ts treats any abbreviation that could stand for a dangerous option as that option.
 * Notation: options/table.ts.
 */
import { optionTable as t } from "../table.js"

const HELP = "--help --version"

// ---- coreutils file commands (deny and ask rules name their options) -------------------------

export const rm = t(
  `-f/--force -i -I --interactive[=v] --one-file-system --no-preserve-root --preserve-root[=v] -r/-R/--recursive -d/--dir -v/--verbose ${HELP}`
)
export const chmod = t(
  `-c/--changes -f/--silent/--quiet -v/--verbose --no-preserve-root --preserve-root --reference=r -R/--recursive ${HELP}`
)
export const chown = t(
  `-c/--changes -f/--silent/--quiet -v/--verbose --dereference -h/--no-dereference --from=v --no-preserve-root --preserve-root
   --reference=r -R/--recursive -H -L -P ${HELP}`
)
export const chgrp = t(
  `-c/--changes -f/--silent/--quiet -v/--verbose --dereference -h/--no-dereference --no-preserve-root --preserve-root --reference=r
   -R/--recursive -H -L -P ${HELP}`
)
export const cp = t(
  `-a/--archive --attributes-only --backup[=v] -b --copy-contents -d -f/--force -i/--interactive -H -l/--link -L/--dereference
   -n/--no-clobber -P/--no-dereference -p --preserve[=v] --no-preserve=v --parents -R/-r/--recursive --reflink[=v]
   --remove-destination --sparse=v --strip-trailing-slashes -s/--symbolic-link -S/--suffix=v -t/--target-directory=w
   -T/--no-target-directory -u/--update -v/--verbose -x/--one-file-system -Z --context[=v] ${HELP}`
)
export const mv = t(
  `--backup[=v] -b -f/--force -i/--interactive -n/--no-clobber --strip-trailing-slashes -S/--suffix=v -t/--target-directory=w
   -T/--no-target-directory -u/--update -v/--verbose -Z/--context ${HELP}`
)
export const mkdir = t(`-m/--mode=v -p/--parents -v/--verbose -Z --context[=v] ${HELP}`)
export const ln = t(
  `--backup[=v] -b -d/-F/--directory -f/--force -i/--interactive -L/--logical -n/--no-dereference -P/--physical -r/--relative
   -s/--symbolic -S/--suffix=v -t/--target-directory=w -T/--no-target-directory -v/--verbose ${HELP}`
)
export const touch = t(`-a -c/--no-create -d/--date=v -f -h/--no-dereference -m -r/--reference=r -t=v --time=v ${HELP}`)

// ---- programs allowed by prefix rules ----------------------------------------------------------

/** make: another makefile, directory or `--eval` runs other recipes; `--touch` writes. */
export const make = t(
  `-b/-m -B/--always-make -C/--directory=x -d --debug[=v] -e/--environment-overrides -E/--eval=x -f/--file/--makefile=x -h/--help
   -i/--ignore-errors -I/--include-dir=x -j/--jobs[=v] -k/--keep-going -l/--load-average/--max-load[=v] -L/--check-symlink-times
   -n/--just-print/--dry-run/--recon -o/--old-file/--assume-old=v -O/--output-sync[=v] -p/--print-data-base -q/--question
   -r/--no-builtin-rules -R/--no-builtin-variables -s/--silent/--quiet --no-silent -S/--no-keep-going/--stop -t/--touch!w --trace
   -v/--version -w/--print-directory --no-print-directory -W/--what-if/--new-file/--assume-new=v --warn-undefined-variables`
)

/** curl: output files, configuration files, files sent (`-T`, `-d @file`, `-F x=@file`: see guards.ts). */
export const curl = t(
  `--abstract-unix-socket=v --alt-svc=w --anyauth -a/--append --aws-sigv4=v --basic --cacert=r --capath=r -E/--cert=r --cert-status
   --cert-type=v --ciphers=v --compressed --compressed-ssh -K/--config=c --connect-timeout=v --connect-to=v -C/--continue-at=v
   -b/--cookie=v -c/--cookie-jar=w --create-dirs!w --create-file-mode=v --crlf --crlfile=r --curves=v -d/--data=v --data-ascii=v
   --data-binary=v --data-raw=v --data-urlencode=v --delegation=v --digest -q/--disable --disable-eprt --disable-epsv
   --disallow-username-in-url --dns-interface=v --dns-ipv4-addr=v --dns-ipv6-addr=v --dns-servers=v --doh-cert-status
   --doh-insecure --doh-url=v -D/--dump-header=w --egd-file=r --engine=c --etag-compare=r --etag-save=w --expect100-timeout=v
   -f/--fail --fail-early --fail-with-body --false-start -F/--form=v --form-escape --form-string=v --ftp-account=v
   --ftp-alternative-to-user=v --ftp-create-dirs --ftp-method=v --ftp-pasv -P/--ftp-port=v --ftp-pret --ftp-skip-pasv-ip
   --ftp-ssl-ccc --ftp-ssl-ccc-mode=v --ftp-ssl-control -G/--get -g/--globoff --happy-eyeballs-timeout-ms=v --haproxy-protocol
   -I/--head -H/--header=v -h/--help[=v] --hostpubmd5=v --hostpubsha256=v --hsts=w --http0.9 -0/--http1.0 --http1.1 --http2
   --http2-prior-knowledge --http3 --http3-only --ignore-content-length -i/--include -k/--insecure --interface=v -4/--ipv4
   -6/--ipv6 --json=v -j/--junk-session-cookies --keepalive-time=v --key=r --key-type=v --krb=v --libcurl=w --limit-rate=v
   -l/--list-only --local-port=v -L/--location --location-trusted --login-options=v --mail-auth=v --mail-from=v --mail-rcpt=v
   --mail-rcpt-allowfails -M/--manual --max-filesize=v --max-redirs=v -m/--max-time=v --metalink --negotiate -n/--netrc
   --netrc-file=r --netrc-optional -:/--next --no-alpn -N/--no-buffer --no-clobber --no-keepalive --no-npn --no-progress-meter
   --no-sessionid --noproxy=v --ntlm --ntlm-wb --oauth2-bearer=v -o/--output=w --output-dir=w -Z/--parallel --parallel-immediate
   --parallel-max=v --pass=v --path-as-is --pinnedpubkey=v --post301 --post302 --post303 --preproxy=v --progress-bar --proto=v
   --proto-default=v --proto-redir=v -x/--proxy=v --proxy-anyauth --proxy-basic --proxy-cacert=r --proxy-capath=r --proxy-cert=r
   --proxy-cert-type=v --proxy-ciphers=v --proxy-crlfile=r --proxy-digest --proxy-header=v --proxy-insecure --proxy-key=r
   --proxy-key-type=v --proxy-negotiate --proxy-ntlm --proxy-pass=v --proxy-pinnedpubkey=v --proxy-service-name=v
   --proxy-ssl-allow-beast --proxy-ssl-auto-client-cert --proxy-tls13-ciphers=v --proxy-tlsauthtype=v --proxy-tlspassword=v
   --proxy-tlsuser=v --proxy-tlsv1 -U/--proxy-user=v --proxy1.0=v -p/--proxytunnel --pubkey=r -Q/--quote=v --random-file=r
   -r/--range=v --rate=v --raw -e/--referer=v -J/--remote-header-name!w -O/--remote-name!w --remote-name-all!w -R/--remote-time
   --remove-on-error -X/--request=v --request-target=v --resolve=v --retry=v --retry-all-errors --retry-connrefused
   --retry-delay=v --retry-max-time=v --sasl-authzid=v --sasl-ir --service-name=v -S/--show-error -s/--silent --socks4=v
   --socks4a=v --socks5=v --socks5-basic --socks5-gssapi --socks5-gssapi-nec --socks5-gssapi-service=v --socks5-hostname=v
   -Y/--speed-limit=v -y/--speed-time=v --ssl --ssl-allow-beast --ssl-auto-client-cert --ssl-no-revoke --ssl-reqd
   --ssl-revoke-best-effort -2/--sslv2 -3/--sslv3 --stderr=w --styled-output --suppress-connect-headers --tcp-fastopen
   --tcp-nodelay -t/--telnet-option=v --tftp-blksize=v --tftp-no-options -z/--time-cond=v --tls-max=v --tls13-ciphers=v
   --tlsauthtype=v --tlspassword=v --tlsuser=v -1/--tlsv1 --tlsv1.0 --tlsv1.1 --tlsv1.2 --tlsv1.3 --tr-encoding --trace=w
   --trace-ascii=w --trace-time --unix-socket=v -T/--upload-file=r --url=v --url-query=v -B/--use-ascii -u/--user=v
   -A/--user-agent=v -v/--verbose -V/--version -w/--write-out=v --xattr`
)

/** wget: where it writes, what it reads and runs (the download itself lands in the current directory). */
export const wget = t(
  `-V/--version -h/--help -b/--background!u -e/--execute=c -o/--output-file=w -a/--append-output=w -d/--debug -q/--quiet -v/--verbose
   -n=v -i/--input-file=r -F/--force-html -B/--base=v --config=c --no-config --rejected-log=w -t/--tries=v -O/--output-document=w
   -c/--continue -N/--timestamping -S/--server-response -T/--timeout=v -w/--wait=v -Q/--quota=v -4/--inet4-only -6/--inet6-only
   -x/--force-directories!w -P/--directory-prefix=w -E/--adjust-extension -U/--user-agent=v --post-file=r --body-file=r
   --load-cookies=r --save-cookies=w --certificate=r --private-key=r --ca-certificate=r --ca-directory=r --crl-file=r
   --hsts-file=w --warc-file=w --warc-tempdir=w --use-askpass=x -r/--recursive -l/--level=v -k/--convert-links -K/--backup-converted
   -m/--mirror -p/--page-requisites -A/--accept=v -R/--reject=v -D/--domains=v -H/--span-hosts -L/--relative -I/--include-directories=v
   -X/--exclude-directories=v --header=v --user=v --password=v --method=v --body-data=v --post-data=v`
)

/** tar: programs it runs and files it writes beyond the archive's own members. */
export const tar = t(
  `-A/--catenate/--concatenate -c/--create --delete -d/--diff/--compare -r/--append --test-label -t/--list -u/--update
   -x/--extract/--get --check-device -g/--listed-incremental=w -G/--incremental --hole-detection=v --ignore-failed-read --level=v
   --no-check-device --no-seek -n/--seek --occurrence[=v] --sparse-version=v -S/--sparse --add-file=v -C/--directory=v
   --exclude=v --exclude-backups --exclude-caches --exclude-caches-all --exclude-caches-under=v --exclude-ignore=v
   --exclude-ignore-recursive=v --exclude-tag=v --exclude-tag-all=v --exclude-tag-under=v --exclude-vcs --exclude-vcs-ignores
   --no-null --no-recursion --no-unquote --no-verbatim-files-from --null --recursion -T/--files-from=R --unquote
   --verbatim-files-from -X/--exclude-from=r --anchored --ignore-case --no-anchored --no-ignore-case --no-wildcards
   --no-wildcards-match-slash --wildcards --wildcards-match-slash --keep-directory-symlink --keep-newer-files -k/--keep-old-files
   --no-overwrite-dir --one-top-level[=v] --overwrite --overwrite-dir --recursive-unlink --remove-files --skip-old-files
   -U/--unlink-first -W/--verify --ignore-command-error --no-ignore-command-error -O/--to-stdout --to-command=x
   --atime-preserve[=v] --clamp-mtime --delay-directory-restore --group=v --group-map=r --mode=v --mtime=v -m/--touch
   --no-delay-directory-restore --no-same-owner --no-same-permissions --numeric-owner --owner=v --owner-map=r
   -p/--preserve-permissions/--same-permissions --same-owner --sort=v -s/--preserve-order/--same-order --acls --no-acls
   --no-selinux --no-xattrs --selinux --xattrs --xattrs-exclude=v --xattrs-include=v --force-local -f/--file=v
   -F/--info-script/--new-volume-script=x -L/--tape-length=v -M/--multi-volume --rmt-command=x --rsh-command=x --volno-file=w
   -b/--blocking-factor=v -B/--read-full-records -i/--ignore-zeros --record-size=v -H/--format=v --old-archive/--portability
   --pax-option=v --posix -V/--label=v -a/--auto-compress -I/--use-compress-program=x -j/--bzip2 -J/--xz --lzip --lzma --lzop
   --no-auto-compress --zstd -z/--gzip/--gunzip/--ungzip -Z/--compress/--uncompress --backup[=v] --hard-dereference
   -h/--dereference -K/--starting-file=v --newer-mtime=v -N/--newer/--after-date=v --one-file-system -P/--absolute-names
   --suffix=v --strip-components=v --transform/--xform=v --checkpoint[=v] --checkpoint-action=x --full-time --index-file=w
   -l/--check-links --no-quote-chars=v --quote-chars=v --quoting-style=v -R/--block-number --show-defaults --show-omitted-dirs
   --show-snapshot-field-ranges --show-transformed-names/--show-stored-names --totals[=v] --utc -v/--verbose --warning=v
   -w/--interactive/--confirmation -o -?/--help --restrict --usage --version`
)

/** rsync: the remote shell and the remote rsync are programs; file lists and filter files are read. */
export const rsync = t(
  `-e/--rsh=x --rsync-path=x --files-from=R --exclude-from=r --include-from=r -f/--filter=v --password-file=r --log-file=w
   --write-batch=w --only-write-batch=w --read-batch=r -T/--temp-dir=w --backup-dir=w --partial-dir=w --compare-dest=v
   --copy-dest=v --link-dest=v -M/--remote-option=c --config=c --daemon!u --early-input=r --outbuf=v --chmod=v --chown=v
   --usermap=v --groupmap=v -B/--block-size=v --max-size=v --min-size=v --max-delete=v --bwlimit=v --timeout=v --contimeout=v
   --port=v --sockopts=v --iconv=v --checksum-choice=v --compress-choice=v --compress-level=v --skip-compress=v --suffix=v
   --out-format=v --log-file-format=v --info=v --debug=v --modify-window=v --stop-after=v --stop-at=v --protocol=v`
)

/** ssh: options that take an argument (the command runs remotely; a local one through these options). */
export const ssh = t(
  `-b=v -B=v -c=v -D=v -E=w -e=v -F=c -I=c -i=r -J=v -L=v -l=v -m=v -O=v -o=c -p=v -Q=v -R=v -S=c -W=v -w=v`
)

/** awk (gawk, mawk): program files, extensions and output files. */
export const awk = t(
  `-f/--file=x -E/--exec=x -i/--include=x -l/--load=x -e/--source=x -o/--pretty-print[=w] -p/--profile[=w] -d/--dump-variables[=w]
   -D/--debug[=x] -v/--assign=v -F/--field-separator=v -W=c -M/--bignum -S/--sandbox -b/--characters-as-bytes -c/--traditional
   -C/--copyright -g/--gen-pot -h/--help -L/--lint[=v] -n/--non-decimal-data -N/--use-lc-numeric -O/--optimize -P/--posix
   -r/--re-interval -s/--no-optimize -t/--lint-old -V/--version`
)

/** node: code given on the command line, modules preloaded, files read for settings. */
export const node = t(
  `-e/--eval=x -p/--print=x -r/--require=x --import=x --loader=x --experimental-loader=x --env-file=r --env-file-if-exists=r
   -C/--conditions=v --input-type=v --title=v --inspect[=v] --inspect-brk[=v] -i/--interactive!x --test --watch --watch-path=v`
)

/** python: code given on the command line and modules run as scripts. */
export const python = t(`-c=x -m=x -W=v -X=v -i!x -b -B -d -E -h -I -O -P -q -s -S -u -v -V -x`)

/** npm, pnpm, yarn: configuration that runs programs, other package roots, global installs. */
export const PACKAGE_MANAGER_DANGERS: Readonly<Record<string, "exec" | "write" | "config" | "read" | "network">> = {
  prefix: "exec",
  userconfig: "config",
  globalconfig: "config",
  "script-shell": "exec",
  shell: "exec",
  "node-options": "exec",
  "init-module": "exec",
  editor: "exec",
  browser: "exec",
  viewer: "exec",
  git: "exec",
  "node-gyp": "exec",
  call: "exec",
  package: "exec",
  global: "write",
  location: "write",
  cache: "write",
  "logs-dir": "write",
  "pack-destination": "write",
  "provenance-file": "read",
  cafile: "read",
  registry: "network",
  proxy: "network",
  "https-proxy": "network",
  "dangerously-allow-all-scripts": "config",
  dir: "exec",
  cwd: "exec",
  "global-dir": "write",
  "modules-dir": "write",
  "use-yarnrc": "config",
  "virtual-store-dir": "write",
  "store-dir": "write"
}
/** npm's one-letter shorthands for those (`-C` is `--prefix`; pnpm's `-C` is `--dir`). */
export const PACKAGE_MANAGER_SHORT_DANGERS: ReadonlySet<string> = new Set(["C", "g", "c", "L"])
