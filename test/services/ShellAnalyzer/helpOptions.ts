/**
 * Reads the options a program lists in its `--help` (or `git <cmd> -h`) text: each help line
 * that starts with an option gives one option, its spellings and whether it takes an argument.
 * Used to keep the analyzer's option tables equal to what the installed programs accept.
 */
export interface HelpOption {
  readonly names: ReadonlyArray<string>
  /** Per spelling: none, required, optional. */
  readonly arity: ReadonlyMap<string, "none" | "required" | "optional">
}

const NAME = /^(--?[A-Za-z0-9?][\w.-]*)(.*)$/

/** The options of one help text, in order. */
export const helpOptions = (
  text: string,
  options: { readonly angleArguments?: boolean } = {}
): ReadonlyArray<HelpOption> => {
  const out: Array<HelpOption> = []
  for (const line of text.split("\n")) {
    const m = /^\s{1,14}(-[^\s].*)$/.exec(line)
    if (m === null) continue
    let head = m[1]!
    // curl: one blank before the description; only `<arg>` is an argument.
    if (options.angleArguments === true) head = /^(?:-\S, )?--?[\w.#:-]+(?: <[^>]*>)?/.exec(head)?.[0] ?? head
    const cut = head.search(/\s{2,}|\t/)
    if (cut !== -1) head = head.slice(0, cut)
    const names: Array<string> = []
    const arity = new Map<string, "none" | "required" | "optional">()
    for (const raw of head.split(/,\s*|\s+(?=--?[A-Za-z])/)) {
      const part = raw.trim()
      const nm = NAME.exec(part)
      if (nm === null) continue
      const name = nm[1]!
      const rest = nm[2]!.trim()
      const kind = rest.startsWith("[") ? "optional" : rest.length > 0 ? "required" : "none"
      names.push(name)
      arity.set(name, kind)
    }
    if (names.length > 0) out.push({ names, arity })
  }
  return out
}
