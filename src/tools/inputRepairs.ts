/**
 * Inputs models often get slightly wrong, fixed before validation as Claude Code fixes them
 * (so the call runs instead of failing): other names for a field, a one-element array for a
 * number, a bound that only means "no bound". Each returns the repaired input, or undefined when
 * nothing needed fixing.
 */
type Input = Readonly<Record<string, unknown>>

const has = (input: Input, key: string) => Object.hasOwn(input, key)

/** An integer given as a number or a string of digits; else undefined. */
const integerOf = (value: unknown): number | undefined => {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined
  if (typeof value === "string" && /^[-+]?\d+$/.test(value.trim())) return Number(value)
  return undefined
}

/** Moves `from` to `to` when only `from` is given and `accept` takes its value. */
const rename = (
  out: Record<string, unknown>,
  from: string,
  to: string,
  accept: (v: unknown) => boolean = () => true
): boolean => {
  if (!has(out, from) || has(out, to) || !accept(out[from])) return false
  out[to] = out[from]
  delete out[from]
  return true
}

/**
 * Read: `offset`/`limit` given as one-element arrays are unwrapped; a negative offset and a limit
 * of 0 or less mean "from the start" and "no limit"; `length` is another name for `limit`; a
 * `description` is dropped.
 */
export const repairReadInput = (input: Input): Record<string, unknown> | undefined => {
  const out: Record<string, unknown> = { ...input }
  let changed = false
  for (const key of ["offset", "limit"]) {
    const value = out[key]
    if (Array.isArray(value) && value.length === 1) {
      out[key] = value[0]
      changed = true
    }
  }
  const offset = integerOf(out.offset)
  if (offset !== undefined && offset < 0) {
    delete out.offset
    changed = true
  }
  const limit = integerOf(out.limit)
  if (limit !== undefined && limit <= 0) {
    delete out.limit
    changed = true
  }
  if (has(out, "length")) {
    const length = integerOf(out.length)
    if (!has(out, "limit") && length !== undefined && length > 0) out.limit = length
    delete out.length
    changed = true
  }
  if (has(out, "description")) {
    delete out.description
    changed = true
  }
  return changed ? out : undefined
}

/** Edit: `path`, `old_str`, `new_str` and `replace_name` are other names for its fields. */
export const repairEditInput = (input: Input): Record<string, unknown> | undefined => {
  const out: Record<string, unknown> = { ...input }
  let changed = false
  if (has(out, "replace_name")) {
    if (!has(out, "replace_all")) out.replace_all = out.replace_name === true || out.replace_name === "true"
    delete out.replace_name
    changed = true
  }
  const isString = (v: unknown) => typeof v === "string"
  changed = rename(out, "path", "file_path", isString) || changed
  changed = rename(out, "old_str", "old_string", isString) || changed
  changed = rename(out, "new_str", "new_string", isString) || changed
  return changed ? out : undefined
}

/** Bash: `timeout_ms` is another name for `timeout`, `command_description` for `description`. */
export const repairBashInput = (input: Input): Record<string, unknown> | undefined => {
  const out: Record<string, unknown> = { ...input }
  let changed = rename(
    out,
    "timeout_ms",
    "timeout",
    (v) => typeof v === "number" || (typeof v === "string" && /^\d+$/.test(v))
  )
  if (has(out, "command_description")) {
    if (!has(out, "description") && typeof out.command_description === "string") {
      out.description = out.command_description
    }
    delete out.command_description
    changed = true
  }
  return changed ? out : undefined
}
