/**
 * npm 11's commands and aliases (lib/utils/cmd-list.js of the npm installed here): npm runs a
 * unique prefix of a command or alias (`npm publis`, `npm pu`), so deny rules see it too.
 */
export const NPM_COMMANDS: ReadonlySet<string> = new Set(
  `access adduser approve-scripts audit bugs cache ci completion config dedupe deny-scripts deprecate diff dist-tag docs doctor edit
   exec explain explore find-dupes fund get help help-search init install install-ci-test install-scripts install-test link ll login
   logout ls org outdated owner pack ping pkg prefix profile prune publish query rebuild repo restart root run sbom search set
   shrinkwrap stage star stars start stop team test token trust undeprecate uninstall unpublish unstar update version view whoami`
    .split(/\s+/)
    .filter((c) => c.length > 0)
)

export const NPM_ALIASES: Readonly<Record<string, string>> = {
  author: "owner",
  home: "docs",
  issues: "bugs",
  info: "view",
  show: "view",
  find: "search",
  add: "install",
  unlink: "uninstall",
  remove: "uninstall",
  rm: "uninstall",
  r: "uninstall",
  un: "uninstall",
  rb: "rebuild",
  list: "ls",
  ln: "link",
  create: "init",
  i: "install",
  it: "install-test",
  cit: "install-ci-test",
  u: "update",
  up: "update",
  c: "config",
  s: "search",
  se: "search",
  tst: "test",
  t: "test",
  ddp: "dedupe",
  v: "view",
  "run-script": "run",
  "clean-install": "ci",
  "clean-install-test": "install-ci-test",
  x: "exec",
  why: "explain",
  la: "ll",
  verison: "version",
  ic: "ci",
  innit: "init",
  in: "install",
  ins: "install",
  inst: "install",
  insta: "install",
  instal: "install",
  isnt: "install",
  isnta: "install",
  isntal: "install",
  isntall: "install",
  "install-clean": "ci",
  "isntall-clean": "ci",
  hlep: "help",
  "dist-tags": "dist-tag",
  upgrade: "update",
  udpate: "update",
  rum: "run",
  sit: "install-ci-test",
  urn: "run",
  ogr: "org",
  "add-user": "adduser"
}

/** pnpm's aliases (pnpm does not take abbreviations). */
export const PNPM_ALIASES: Readonly<Record<string, string>> = {
  i: "install",
  add: "add",
  rm: "remove",
  uninstall: "remove",
  un: "remove",
  up: "update",
  upgrade: "update",
  t: "test",
  tst: "test",
  "run-script": "run",
  ls: "list",
  ln: "link",
  dlx: "dlx"
}
