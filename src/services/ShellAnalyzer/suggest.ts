/**
 * Rules to offer on "always allow": one per simple
 * command that needed approval, at most five, and never a broad prefix of a program that runs
 * other programs (`Bash(bash:*)`, `Bash(env:*)`, `Bash(xargs:*)`, `Bash(sudo:*)`,
 * `Bash(find:*)`, interpreters) or `Bash(*)`.
 */
import { formatRule } from "../../PermissionRules.js"
import type { RuleSuggestion } from "../../Permission.js"
import { renderArgv } from "./bashRules.js"
import type { SimpleCommand } from "./types.js"
import { commandKey } from "./wrappers.js"

export const MAX_SUGGESTIONS = 5

/** Programs for which a prefix rule would approve arbitrary code: only exact rules are offered. */
const NEVER_PREFIX = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "csh",
  "tcsh",
  "env",
  "xargs",
  "sudo",
  "doas",
  "su",
  "find",
  "eval",
  "exec",
  "command",
  "builtin",
  "source",
  ".",
  "timeout",
  "nice",
  "nohup",
  "time",
  "stdbuf",
  "watch",
  "setsid",
  "ionice",
  "flock",
  "python",
  "python2",
  "python3",
  "node",
  "nodejs",
  "deno",
  "bun",
  "perl",
  "ruby",
  "php",
  "lua",
  "luajit",
  "rscript",
  "osascript",
  "pwsh",
  "powershell",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "sed",
  "ssh",
  "docker",
  "kubectl",
  "git",
  "npx",
  "bunx",
  "pnpx",
  "uvx",
  "rm",
  "chmod",
  "chown",
  "dd",
  "curl",
  "wget"
])

/** Programs whose first argument is a subcommand worth keeping in the rule (`git push`, `npm test`). */
const SUBCOMMAND_PROGRAMS = new Set([
  "git",
  "npm",
  "yarn",
  "pnpm",
  "cargo",
  "go",
  "docker",
  "kubectl",
  "make",
  "pip",
  "pip3",
  "poetry",
  "uv",
  "gh",
  "brew",
  "apt",
  "apt-get",
  "dotnet",
  "mvn",
  "gradle",
  "bundle",
  "rake",
  "terraform",
  "helm",
  "aws",
  "gcloud",
  "az",
  "composer",
  "mix",
  "stack",
  "cabal",
  "deno",
  "bun",
  "swift",
  "rustup",
  "nx",
  "npx",
  "bunx",
  "pnpx",
  "turbo",
  "vercel",
  "wrangler",
  "systemctl",
  "journalctl"
])

/** Never a one-word prefix, but fine with their subcommand or package named. */
const PREFIX_WITH_SUBCOMMAND = new Set(["git", "docker", "kubectl", "npx", "bunx", "pnpx"])

/** Subcommands followed by a script name (`npm run build`). */
const RUN_SUBCOMMANDS = new Set(["run", "run-script", "exec", "test", "x"])

const PLAIN_TOKEN = /^[A-Za-z0-9_./@+-][A-Za-z0-9_./@+:=,-]*$/

const exactRule = (argv: ReadonlyArray<string>): string => formatRule("Bash", renderArgv(argv).replace(/\*/g, "\\*"))

const suggestionFor = (command: SimpleCommand): string | undefined => {
  if (command.argv.length === 0) return undefined
  const argv: Array<string> = []
  let dynamic = false
  for (const w of command.argv) {
    if (typeof w === "string") argv.push(w)
    else dynamic = true
  }
  if (dynamic || argv.length === 0) return undefined
  const argv0 = argv[0]!
  const key = commandKey(argv0)
  const plain = (i: number) =>
    argv[i] !== undefined && PLAIN_TOKEN.test(argv[i]!) && !argv[i]!.startsWith("-") && !argv[i]!.endsWith(":")
  if (!PLAIN_TOKEN.test(argv0) || argv0.endsWith(":")) return exactRule(argv)
  if (SUBCOMMAND_PROGRAMS.has(key) && plain(1)) {
    const tokens = [argv0, argv[1]!]
    if (RUN_SUBCOMMANDS.has(argv[1]!) && plain(2)) tokens.push(argv[2]!)
    // git, docker and npx with a named subcommand/package are fine as prefixes (guards still ask for -c, --exec, …).
    if (!NEVER_PREFIX.has(key) || PREFIX_WITH_SUBCOMMAND.has(key)) return formatRule("Bash", `${tokens.join(" ")}:*`)
    return exactRule(argv)
  }
  if (NEVER_PREFIX.has(key)) return exactRule(argv)
  return formatRule("Bash", `${argv0}:*`)
}

/** At most five allow rules, one per command that needed approval, none of them a dangerous prefix. */
export const suggestRules = (commands: ReadonlyArray<SimpleCommand>): ReadonlyArray<RuleSuggestion> => {
  const out: Array<RuleSuggestion> = []
  for (const command of commands) {
    const rule = suggestionFor(command)
    if (rule === undefined || out.some((s) => s.rule === rule)) continue
    out.push({ rule, behavior: "allow" })
    if (out.length >= MAX_SUGGESTIONS) break
  }
  return out
}
