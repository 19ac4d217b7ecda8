/**
 * Answers an "ask" (last, after PermissionRequest hooks): a terminal
 * prompt, a library callback (`canUseTool`), or — when nothing can ask — a denial.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import * as readline from "node:readline"
import type { AnyTool } from "../Tool.js"
import type { SessionContext } from "../Session.js"
import type { Ask, RuleSuggestion } from "../Permission.js"
import { parseRuleText } from "../PermissionRules.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ApprovalRequest {
  readonly tool: AnyTool
  /** The input as checked (paths absolute). */
  readonly input: unknown
  readonly toolUseId: string
  /** The prompt text, e.g. `Claude requested permissions to use Bash, but you haven't granted it yet.` */
  readonly message: string
  readonly decision: Ask
  readonly suggestions: ReadonlyArray<RuleSuggestion>
  readonly session: SessionContext
}

/**
 * @since 0.1.0
 * @category models
 */
export type ApprovalAnswer =
  | {
    readonly behavior: "allow"
    /** once: this call; session: add the suggested rules for this session; always: also save them to `.claude/settings.local.json`. */
    readonly scope: "once" | "session" | "always"
    readonly updatedInput?: Record<string, unknown>
    /** The rules to add for session/always; defaults to the request's suggestions. */
    readonly rules?: ReadonlyArray<string>
  }
  | {
    readonly behavior: "deny"
    /** Shown to the model after the rejection text (what a person typed at the prompt). */
    readonly feedback?: string
    /** Shown to the model in place of the rejection text, as the Agent SDK's `canUseTool` denial `message` is. */
    readonly message?: string
    /** Stop the whole turn, not just this call. */
    readonly interrupt?: boolean
  }

/**
 * @since 0.1.0
 * @category models
 */
export interface ApproverService {
  /** True when someone (a person or a callback) can answer; false means every ask is denied. */
  readonly canAsk: boolean
  readonly request: (request: ApprovalRequest) => Effect.Effect<ApprovalAnswer>
}

/**
 * @since 0.1.0
 * @category services
 */
export class Approver extends Context.Tag("toolgate/Approver")<Approver, ApproverService>() {}

/**
 * Nothing can ask: every "ask" is denied (fail closed).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDeny: Layer.Layer<Approver> = Layer.succeed(Approver, {
  canAsk: false,
  request: () => Effect.succeed({ behavior: "deny" })
})

/**
 * A library callback decides, like the Agent SDK's `canUseTool`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCallback = (
  canUseTool: (request: ApprovalRequest) => Effect.Effect<ApprovalAnswer>
): Layer.Layer<Approver> => Layer.succeed(Approver, { canAsk: true, request: canUseTool })

// ---------------------------------------------------------------------------------------------
// The terminal prompt

/** Shells, wrappers and runners: a prefix rule on them approves any command at all. */
const WRAPPER_PREFIXES = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "fish",
  "csh",
  "tcsh",
  "ash",
  "busybox",
  "env",
  "xargs",
  "sudo",
  "doas",
  "su",
  "runuser",
  "pkexec",
  "eval",
  "exec",
  "command",
  "builtin",
  "source",
  ".",
  "nohup",
  "timeout",
  "time",
  "nice",
  "ionice",
  "stdbuf",
  "setsid",
  "watch",
  "flock",
  "chroot",
  "unshare",
  "nsenter",
  "script",
  "ssh",
  "find",
  "parallel",
  "strace",
  "ltrace",
  "gdb",
  "coproc",
  "trap",
  "noglob"
])

/** Interpreters and package runners: dangerous as a bare prefix or followed by a flag (`node -e`, `python -c`). */
const INTERPRETERS = new Set([
  "node",
  "nodejs",
  "deno",
  "bun",
  "bunx",
  "npx",
  "pnpx",
  "uvx",
  "pipx",
  "perl",
  "ruby",
  "php",
  "lua",
  "luajit",
  "Rscript",
  "osascript",
  "pwsh",
  "powershell",
  "tclsh",
  "wish",
  "expect",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "jshell",
  "irb"
])

const isInterpreter = (name: string) =>
  INTERPRETERS.has(name) || /^python[0-9.]*$/.test(name) || /^pypy[0-9.]*$/.test(name)

/**
 * True for a rule that would approve far more than the command asked about: the whole Bash
 * tool, or a prefix/wildcard rule on a shell, a wrapper (`env`, `xargs`, `sudo`, `find`…) or an
 * interpreter. Such rules are never offered for "always".
 *
 * @since 0.1.0
 * @category guards
 */
export const isDangerousRule = (rule: string): boolean => {
  const { toolName, content } = parseRuleText(rule)
  if (toolName !== "Bash" && toolName !== "PowerShell") return false
  if (content === undefined) return true
  const text = content.trim()
  const legacy = text.endsWith(":*")
  const star = text.indexOf("*")
  if (!legacy && star === -1) return false // an exact command
  const prefix = (legacy ? text.slice(0, -2) : text.slice(0, star)).trim()
  if (prefix === "") return true
  const words = prefix.split(/\s+/)
  const first = words[0]!.replace(/^.*\//, "")
  if (WRAPPER_PREFIXES.has(first)) return true
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) return true // an environment prefix
  if (isInterpreter(first)) return words.length === 1 || words[1]!.startsWith("-")
  return false
}

/**
 * The allow rules to offer for "session" / "always": the suggestions minus dangerous ones.
 *
 * @since 0.1.0
 * @category utils
 */
export const offeredRules = (suggestions: ReadonlyArray<RuleSuggestion>): ReadonlyArray<string> =>
  Array.from(new Set(suggestions.filter((s) => s.behavior === "allow" && !isDangerousRule(s.rule)).map((s) => s.rule)))

const INVISIBLE =
  // C0/C1 controls, DEL, soft hyphen, combining grapheme joiner, zero-width and bidi controls, odd spaces, BOM, tags
  /[\u0000-\u001f\u007f-\u009f\u00a0\u00ad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g

/**
 * Shows invisible and control characters as escapes (`\u200b`, `\r`); backslashes double when anything was escaped.
 *
 * @since 0.1.0
 * @category utils
 */
export const escapeForDisplay = (text: string): string => {
  INVISIBLE.lastIndex = 0
  if (!INVISIBLE.test(text)) return text
  INVISIBLE.lastIndex = 0
  return text.replace(/\\/g, "\\\\").replace(INVISIBLE, (ch) => {
    switch (ch) {
      case "\n":
        return "\\n"
      case "\r":
        return "\\r"
      case "\t":
        return "\\t"
      default: {
        const cp = ch.codePointAt(0)!
        return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, "0")}`
      }
    }
  })
}

/**
 * An input value on one line, safe to print.
 *
 * @since 0.1.0
 * @category utils
 */
export const displayValue = (value: unknown): string =>
  escapeForDisplay(typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)))

/**
 * @since 0.1.0
 * @category models
 */
export type Choice = "once" | "session" | "always" | "deny"

/**
 * @since 0.1.0
 * @category models
 */
export interface PromptView {
  readonly text: string
  readonly choices: ReadonlyArray<{ readonly key: string; readonly choice: Choice }>
  readonly rules: ReadonlyArray<string>
}

/**
 * The prompt as text, and the choices it offers.
 *
 * @since 0.1.0
 * @category utils
 */
export const renderPrompt = (request: ApprovalRequest): PromptView => {
  const rules = offeredRules(request.suggestions)
  const lines: Array<string> = ["", `── Permission request: ${escapeForDisplay(request.tool.name)} ──`]
  if (typeof request.input === "object" && request.input !== null && !Array.isArray(request.input)) {
    for (const [key, value] of Object.entries(request.input)) {
      lines.push(`  ${escapeForDisplay(key)}: ${displayValue(value)}`)
    }
  } else lines.push(`  ${displayValue(request.input)}`)
  return questionView(
    lines,
    request,
    rules,
    (list) => `  3. Yes, and always allow (saved to .claude/settings.local.json): ${list}`
  )
}

/**
 * The end of every permission prompt: the reason, the commands still needing approval, and the
 * numbered choices (the keys the terminal reads). `alwaysLine` words choice 3 for the rule list.
 *
 * @since 0.1.0
 * @category utils
 */
export const questionView = (
  head: ReadonlyArray<string>,
  request: ApprovalRequest,
  rules: ReadonlyArray<string>,
  alwaysLine: (list: string) => string
): PromptView => {
  const lines = [...head, "", escapeForDisplay(request.message)]
  const pending = (request.decision.subcommands ?? []).filter((s) => s.behavior !== "allow")
  if (pending.length > 0) {
    lines.push("Commands that need approval:")
    for (const s of pending) {
      lines.push(`  • ${escapeForDisplay(s.command)}${s.reason === "" ? "" : `  (${escapeForDisplay(s.reason)})`}`)
    }
  }
  const choices: Array<{ key: string; choice: Choice }> = [{ key: "1", choice: "once" }]
  lines.push("", "Do you want to proceed?", "  1. Yes, once")
  if (rules.length > 0) {
    const list = rules.map(escapeForDisplay).join(", ")
    lines.push(`  2. Yes, and don't ask again this session for: ${list}`)
    lines.push(alwaysLine(list))
    choices.push({ key: "2", choice: "session" }, { key: "3", choice: "always" })
  }
  lines.push("  4. No, and tell Claude what to do differently")
  choices.push({ key: "4", choice: "deny" })
  return { text: `${lines.join("\n")}\n`, choices, rules }
}

const ALIASES: Record<string, Choice> = { y: "once", yes: "once", s: "session", a: "always", n: "deny", no: "deny" }

const parseChoice = (line: string, view: PromptView): Choice | undefined => {
  const key = line.trim().toLowerCase()
  const byKey = view.choices.find((c) => c.key === key)?.choice
  const aliased = ALIASES[key]
  if (byKey !== undefined) return byKey
  return aliased !== undefined && view.choices.some((c) => c.choice === aliased) ? aliased : undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface TerminalIO {
  readonly input: NodeJS.ReadableStream
  readonly output: NodeJS.WritableStream
}

/**
 * @since 0.1.0
 * @category models
 */
export type LineResult = { readonly _tag: "Line"; readonly line: string } | { readonly _tag: "Closed" } | {
  readonly _tag: "Interrupt"
}

/**
 * One question on a readline interface: a line, end of input, or Ctrl-C.
 *
 * @since 0.1.0
 * @category utils
 */
export const question = (rl: readline.Interface, text: string): Effect.Effect<LineResult> =>
  Effect.async<LineResult>((resume) => {
    let done = false
    const finish = (result: LineResult) => {
      if (done) return
      done = true
      rl.off("close", onClose)
      rl.off("SIGINT", onSigint)
      resume(Effect.succeed(result))
    }
    const onClose = () => finish({ _tag: "Closed" })
    const onSigint = () => finish({ _tag: "Interrupt" })
    rl.once("close", onClose)
    rl.once("SIGINT", onSigint)
    rl.question(text, (line) => finish({ _tag: "Line", line }))
    return Effect.sync(() => {
      done = true
      rl.off("close", onClose)
      rl.off("SIGINT", onSigint)
    })
  })

/**
 * How a prompt looks: the text and the choices (the CLI draws a richer one).
 *
 * @since 0.1.0
 * @category models
 */
export type PromptRenderer = (request: ApprovalRequest) => PromptView

const promptOnce = (io: TerminalIO, request: ApprovalRequest, render: PromptRenderer): Effect.Effect<ApprovalAnswer> =>
  Effect.scoped(
    Effect.gen(function*() {
      const rl = yield* Effect.acquireRelease(
        Effect.sync(() => readline.createInterface({ input: io.input, output: io.output, terminal: true })),
        (rl) => Effect.sync(() => rl.close())
      )
      const view = render(request)
      io.output.write(view.text)
      const keys = view.choices.map((c) => c.key).join("/")
      for (;;) {
        const answer = yield* question(rl, `Choose [${keys}]: `)
        if (answer._tag === "Closed") return { behavior: "deny" } satisfies ApprovalAnswer
        if (answer._tag === "Interrupt") return { behavior: "deny", interrupt: true } satisfies ApprovalAnswer
        const choice = parseChoice(answer.line, view)
        if (choice === undefined) {
          io.output.write(`Please answer ${keys}.\n`)
          continue
        }
        if (choice === "once") return { behavior: "allow", scope: "once" } satisfies ApprovalAnswer
        if (choice === "session" || choice === "always") {
          return { behavior: "allow", scope: choice, rules: view.rules } satisfies ApprovalAnswer
        }
        const feedback = yield* question(rl, "Tell Claude what to do differently (Enter to skip): ")
        if (feedback._tag === "Interrupt") return { behavior: "deny", interrupt: true } satisfies ApprovalAnswer
        const text = feedback._tag === "Line" ? feedback.line.trim() : ""
        return (text === "" ? { behavior: "deny" } : { behavior: "deny", feedback: text }) satisfies ApprovalAnswer
      }
    })
  )

/**
 * An interactive prompt on the given streams; prompts are shown one at a time.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeTerminal = (io: TerminalIO, render: PromptRenderer = renderPrompt): Effect.Effect<ApproverService> =>
  Effect.gen(function*() {
    const semaphore = yield* Effect.makeSemaphore(1)
    const request = Effect.fn("Approver.request")(function*(req: ApprovalRequest) {
      return yield* semaphore.withPermits(1)(promptOnce(io, req, render))
    })
    return Approver.of({ canAsk: true, request })
  })

/**
 * Asks on the terminal when stdin and stdout are TTYs; otherwise nothing can ask and every ask is denied.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTerminal: Layer.Layer<Approver> = Layer.unwrapEffect(
  Effect.sync(() =>
    process.stdin.isTTY === true && process.stdout.isTTY === true
      ? Layer.effect(Approver, makeTerminal({ input: process.stdin, output: process.stdout }))
      : layerDeny
  )
)
