/**
 * Command hooks from every settings source: entries merge across sources,
 * `disableAllHooks` turns off non-managed hooks (a managed one turns off all), managed
 * `allowManagedHooksOnly` keeps only managed hooks. A settings file whose `hooks` block is
 * malformed never gets here (it is broken: Settings/hooks.ts); sources given as values (a
 * library's, a server's) may still hold malformed entries, which are skipped with a notice naming
 * the file and the field. A name that is no hook event is ignored, as Claude Code ignores it,
 * with a notice.
 */
import { CLAUDE_CODE_HOOK_EVENTS, type SettingsSource } from "../Settings.js"
import { closest } from "../../internal/closest.js"
import type { RuleSource } from "../../Permission.js"
import { HOOK_EVENTS, isToolEvent, MATCHED_FIELD, type HookEvent } from "./types.js"
import { isRecord } from "../../internal/json.js"

export const DEFAULT_TIMEOUT_SECONDS = 600

export interface CommandHookHandler {
  readonly event: HookEvent
  readonly matcher: string | undefined
  /** Shell form: the shell string; exec form (with `args`): the executable. */
  readonly command: string
  readonly args: ReadonlyArray<string> | undefined
  readonly shell: "bash" | "powershell"
  readonly timeoutMs: number
  readonly if: string | undefined
  readonly async: boolean
  readonly source: RuleSource
  readonly file: string | undefined
}

export interface HookConfig {
  readonly handlers: ReadonlyArray<CommandHookHandler>
  /** Problems found while reading the configuration (ignored entries, unsupported types). */
  readonly notices: ReadonlyArray<string>
}

/** Claude Code keys command hooks by shell + command + if; exec-form arguments are part of the command. */
export const dedupeKey = (h: CommandHookHandler): string =>
  JSON.stringify([h.shell, h.command, h.args ?? null, h.if ?? null])

/** How a hook is named in messages: the command as configured. */
export const handlerLabel = (h: CommandHookHandler): string =>
  h.args === undefined ? h.command : [h.command, ...h.args].join(" ")

const hooksDisabled = (sources: ReadonlyArray<SettingsSource>) => {
  const managedOff = sources.some((s) => s.source === "policySettings" && s.settings.disableAllHooks === true)
  // a scalar: the highest non-managed source that sets it decides
  const nonManaged = sources.find((s) =>
    s.source !== "policySettings" && typeof s.settings.disableAllHooks === "boolean"
  )
  const managedOnly = sources.some((s) => s.source === "policySettings" && s.settings.allowManagedHooksOnly === true)
  return { managedOff, nonManagedOff: nonManaged?.settings.disableAllHooks === true, managedOnly }
}

export const readHookConfig = (sources: ReadonlyArray<SettingsSource>): HookConfig => {
  const handlers: Array<CommandHookHandler> = []
  const notices: Array<string> = []
  const { managedOff, nonManagedOff, managedOnly } = hooksDisabled(sources)
  if (managedOff) return { handlers, notices }
  for (const s of sources) {
    const managed = s.source === "policySettings"
    if (!managed && (nonManagedOff || managedOnly)) continue
    const label = s.file ?? s.source
    const hooks = s.settings.hooks
    if (hooks === undefined) continue
    if (!isRecord(hooks)) {
      notices.push(`${label}: field "hooks" must be an object; ignored`)
      continue
    }
    for (const [eventName, groups] of Object.entries(hooks)) {
      if (!(CLAUDE_CODE_HOOK_EVENTS as ReadonlyArray<string>).includes(eventName)) {
        const guess = closest(eventName, CLAUDE_CODE_HOOK_EVENTS)
        notices.push(
          `${label}: "hooks.${eventName}" is not a hook event; ignored${
            guess === undefined ? "" : ` (did you mean "${guess}"?)`
          }`
        )
        continue
      }
      if (!(HOOK_EVENTS as ReadonlyArray<string>).includes(eventName)) continue // events toolgate does not fire
      const event = eventName as HookEvent
      if (!Array.isArray(groups)) {
        notices.push(`${label}: field "hooks.${event}" must be an array; ignored`)
        continue
      }
      groups.forEach((group, gi) => {
        const where = `hooks.${event}[${gi}]`
        if (!isRecord(group) || !Array.isArray(group.hooks)) {
          notices.push(`${label}: field "${where}" must be an object with a "hooks" array; ignored`)
          return
        }
        if (group.matcher !== undefined && typeof group.matcher !== "string") {
          notices.push(`${label}: field "${where}.matcher" must be a string; group ignored`)
          return
        }
        // matchers on events without matcher support are ignored
        const matcher = isToolEvent(event) || MATCHED_FIELD[event] !== undefined
          ? (group.matcher as string | undefined)
          : undefined
        group.hooks.forEach((raw, hi) => {
          const handler = readHandler(raw, label, `${where}.hooks[${hi}]`, event, matcher, s, notices)
          if (handler !== undefined) handlers.push(handler)
        })
      })
    }
  }
  return { handlers, notices }
}

const readHandler = (
  raw: unknown,
  label: string,
  where: string,
  event: HookEvent,
  matcher: string | undefined,
  s: SettingsSource,
  notices: Array<string>
): CommandHookHandler | undefined => {
  const field = (name?: string) => `${label}: field "${where}${name === undefined ? "" : `.${name}`}"`
  if (!isRecord(raw)) {
    notices.push(`${field()} must be an object; ignored`)
    return undefined
  }
  if (raw.type !== "command") {
    notices.push(
      typeof raw.type === "string"
        ? `${field()}: hook type "${raw.type}" is not supported by toolgate; ignored`
        : `${field("type")} must be "command"; ignored`
    )
    return undefined
  }
  if (typeof raw.command !== "string" || raw.command.trim() === "") {
    notices.push(`${field("command")} must be a non-empty string; ignored`)
    return undefined
  }
  let args: ReadonlyArray<string> | undefined
  if (raw.args !== undefined) {
    if (!Array.isArray(raw.args) || raw.args.some((a) => typeof a !== "string")) {
      notices.push(`${field("args")} must be an array of strings; ignored`)
      return undefined
    }
    args = raw.args as ReadonlyArray<string>
  }
  let timeoutSeconds = DEFAULT_TIMEOUT_SECONDS
  if (raw.timeout !== undefined) {
    if (typeof raw.timeout !== "number" || !Number.isFinite(raw.timeout) || raw.timeout <= 0) {
      notices.push(
        `${field("timeout")} must be a positive number of seconds; the default ${DEFAULT_TIMEOUT_SECONDS} s is used`
      )
    } else timeoutSeconds = raw.timeout
  }
  if (raw.if !== undefined && typeof raw.if !== "string") {
    notices.push(`${field("if")} must be a permission rule string; ignored`)
    return undefined
  }
  const condition = typeof raw.if === "string" && raw.if.trim() !== "" ? raw.if.trim() : undefined
  if (condition !== undefined && !isToolEvent(event)) {
    notices.push(`${field()}: "if" is only supported on tool events; this hook never runs`)
    return undefined
  }
  const shell = raw.shell === "powershell" ? "powershell" : "bash"
  if (raw.shell !== undefined && raw.shell !== "bash" && raw.shell !== "powershell") {
    notices.push(`${field("shell")} must be "bash" or "powershell"; bash is used`)
  }
  return {
    event,
    matcher,
    command: raw.command,
    args,
    shell,
    timeoutMs: Math.round(timeoutSeconds * 1000),
    if: condition,
    async: raw.async === true || raw.asyncRewake === true,
    source: s.source,
    file: s.file
  }
}
