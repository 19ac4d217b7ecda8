/**
 * The one path expansion shared by permission checks and the tools that open files:
 * only `~` and `~/` expand, a NUL byte is refused,
 * relative paths resolve against the cwd, the result is normalised and NFC.
 */
import * as os from "node:os"
import * as path from "node:path"

export class InvalidPath extends Error {
  constructor(readonly input: string, reason: string) {
    super(`Invalid path ${JSON.stringify(input)}: ${reason}`)
  }
}

export const expandPath = (input: string, cwd: string, home: string = os.homedir()): string => {
  if (input.includes("\0")) throw new InvalidPath(input, "contains a NUL byte")
  const trimmed = input.trim()
  const withHome = trimmed === "~" ? home : trimmed.startsWith("~/") ? path.join(home, trimmed.slice(2)) : trimmed
  return path.resolve(cwd, withHome).normalize("NFC")
}

/** True when `child` is `parent` or inside it, compared by path components (never string prefixes). */
export const isWithin = (child: string, parent: string): boolean => {
  const relative = path.relative(parent, child)
  return relative === "" || (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative))
}
