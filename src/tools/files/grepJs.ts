/**
 * Grep without ripgrep: the same files (walk.ts) and the same output lines as
 * `rg --no-config --hidden --max-columns 500 --sort path …` for the modes Grep uses, so the tool's
 * result text does not depend on which engine ran.
 */
import * as fs from "node:fs"
import { compileOverrides } from "./globPattern.js"
import { compileSearchRegex } from "./regex.js"
import { typeGlobs } from "./rgTypes.js"
import { walkFiles, walkFilesAt, type OpenedRoot, type WalkedFile } from "./walk.js"
import type { GrepSearch, GrepRawResult } from "./grepSearch.js"
import { VCS_DIRECTORIES } from "./paths.js"

const MAX_COLUMNS = 500

/**
 * `opened`: the root opened and checked (a path naming it, `/proc/<pid>/fd/N`): the walk then
 * enters no folder and reads no file through a symlink put in its place, nor one whose real path
 * `allowed` refuses (see walk.ts).
 */
export const runJsGrep = async (
  search: GrepSearch,
  signal?: AbortSignal,
  opened?: OpenedRoot
): Promise<GrepRawResult> => {
  const at = opened?.at
  const regex = compileSearchRegex(search.pattern, {
    caseInsensitive: search.caseInsensitive,
    multiline: search.multiline
  })
  let selectedTypes: ReadonlyArray<string> | undefined
  if (search.type !== undefined) {
    selectedTypes = typeGlobs(search.type)
    if (selectedTypes === undefined) throw new Error(`unrecognized file type: ${search.type}`)
  }
  const walkOptions = {
    root: search.root,
    overrides: compileOverrides([...VCS_DIRECTORIES.map((d) => `!${d}`), ...search.globs]),
    respectIgnoreFiles: true,
    typeGlobs: selectedTypes,
    signal
  }
  const files: AsyncIterable<WalkedFile> = search.rootIsFile
    ? single({ path: search.root, open: at ?? search.root })
    : at === undefined
    ? named(walkFiles(walkOptions))
    : walkFilesAt({ ...walkOptions, ...opened! })
  const lines: Array<string> = []
  const matched: Array<string> = []
  const printer = new ContextPrinter(search, lines)
  for await (const walked of files) {
    signal?.throwIfAborted()
    const file = walked.path
    if (search.keepFile !== undefined && !search.rootIsFile && !search.keepFile(file)) continue
    let bytes: Buffer
    try {
      bytes = at === undefined || search.rootIsFile
        ? await fs.promises.readFile(walked.open)
        : await readUnfollowed(walked.open, opened?.allowed)
    } catch {
      continue
    }
    const text = decode(bytes)
    const label = search.rootIsFile ? undefined : file
    if (text.includes("\0")) {
      if (!search.rootIsFile) continue
      binaryFile(search, regex, text, file, lines, matched)
      continue
    }
    const fileLines = splitLines(text)
    const { matches, count } = search.multiline
      ? multilineMatches(regex, text, fileLines, search.onlyMatching)
      : lineMatches(regex, fileLines, search.onlyMatching)
    if (count === 0) continue
    matched.push(file)
    if (search.mode === "count") lines.push(`${file}\0${count}`)
    else if (search.mode === "content") printer.file(label, fileLines, matches)
    if (search.maxRecords !== undefined && lines.length >= search.maxRecords) break
  }
  return search.mode === "files_with_matches" ? { kind: "files", files: matched } : { kind: "lines", lines }
}

async function* single(file: WalkedFile): AsyncGenerator<WalkedFile> {
  yield file
}

async function* named(paths: AsyncIterable<string>): AsyncGenerator<WalkedFile> {
  for await (const p of paths) yield { path: p, open: p }
}

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants

/** A regular file's bytes, refusing a symlink (or a FIFO, a device) put in its place, and a file `allowed` refuses. */
const readUnfollowed = async (file: string, allowed: ((realPath: string) => boolean) | undefined): Promise<Buffer> => {
  const handle = await fs.promises.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${file} is not a regular file`)
    if (allowed !== undefined && !allowed(await fs.promises.readlink(`/proc/self/fd/${handle.fd}`))) {
      throw new Error(`${file} is outside what this search may read`)
    }
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

/** UTF-16 with a BOM is transcoded and a UTF-8 BOM dropped, as ripgrep does. */
const decode = (bytes: Buffer): string => {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString("utf16le")
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    const swapped = Buffer.from(bytes.subarray(2))
    swapped.swap16()
    return swapped.toString("utf16le")
  }
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return bytes.subarray(3).toString("utf8")
  }
  return bytes.toString("utf8")
}

const splitLines = (text: string): ReadonlyArray<string> => {
  if (text === "") return []
  const lines = text.split("\n")
  if (text.endsWith("\n")) lines.pop()
  return lines
}

/** For each matching line (0-based), the texts `-o` prints (the whole line otherwise). */
type Matches = Map<number, ReadonlyArray<string>>

/** Matching lines and ripgrep's count: matching lines, or in multiline mode the matched spans. */
interface FileMatches {
  readonly matches: Matches
  readonly count: number
}

const lineMatches = (regex: RegExp, lines: ReadonlyArray<string>, onlyMatching: boolean): FileMatches => {
  const matches: Matches = new Map()
  lines.forEach((line, index) => {
    regex.lastIndex = 0
    if (!onlyMatching) {
      if (regex.test(line)) matches.set(index, [line])
      return
    }
    const found = allMatches(regex, line, 0, line.length)
    if (found.length > 0) matches.set(index, found.map((m) => m.text))
  })
  return { matches, count: matches.size }
}

const allMatches = (regex: RegExp, text: string, from: number, to: number) => {
  const found: Array<{ readonly start: number; readonly text: string }> = []
  regex.lastIndex = from
  for (let m = regex.exec(text); m !== null && m.index <= to; m = regex.exec(text)) {
    found.push({ start: m.index, text: m[0] })
    if (m[0] === "") regex.lastIndex = m.index + 1
    if (regex.lastIndex > text.length) break
  }
  return found
}

const multilineMatches = (
  regex: RegExp,
  text: string,
  lines: ReadonlyArray<string>,
  onlyMatching: boolean
): FileMatches => {
  const starts: Array<number> = []
  let offset = 0
  for (const line of lines) {
    starts.push(offset)
    offset += line.length + 1
  }
  const lineAt = (position: number): number => {
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (starts[mid]! <= position) lo = mid
      else hi = mid - 1
    }
    return lo
  }
  const matches: Matches = new Map()
  const add = (line: number, printed: string) => matches.set(line, [...(matches.get(line) ?? []), printed])
  let position = 0
  let spans = 0
  regex.lastIndex = 0
  while (position <= text.length && lines.length > 0) {
    regex.lastIndex = position
    const m = regex.exec(text)
    if (m === null) break
    const start = m.index
    const end = start + m[0].length
    const first = lineAt(start)
    const last = lineAt(end > start ? end - 1 : start)
    spans++
    if (onlyMatching) {
      const pieces = m[0].split("\n")
      pieces.forEach((piece, i) => {
        if (i === pieces.length - 1 && piece === "" && pieces.length > 1) return
        add(first + i, piece)
      })
      position = end > start ? end : end + 1
    } else {
      for (let line = first; line <= last; line++) if (!matches.has(line)) matches.set(line, [lines[line]!])
      position = starts[last]! + lines[last]!.length + 1
    }
  }
  return { matches, count: spans }
}

/** An explicitly named file with NUL bytes: its count, or its matching lines and ripgrep's notice that it is binary. */
const binaryFile = (
  search: GrepSearch,
  regex: RegExp,
  text: string,
  file: string,
  lines: Array<string>,
  matched: Array<string>
) => {
  const count = splitLines(text.replaceAll("\0", "\n")).filter((line) => {
    regex.lastIndex = 0
    return regex.test(line)
  }).length
  if (count === 0) return
  matched.push(file)
  if (search.mode === "count") lines.push(`${file}\0${count}`)
  else if (search.mode === "content") {
    // Claude Code shows the matching lines that hold no NUL byte, then ripgrep's notice
    splitLines(text).forEach((line, index) => {
      regex.lastIndex = 0
      if (!line.includes("\0") && regex.test(line)) {
        lines.push(`${search.lineNumbers ? `${index + 1}:` : ""}${line.replace(/\r$/, "")}`)
      }
    })
    lines.push(
      `binary file matches (found "\\0" byte around offset ${Buffer.byteLength(text.slice(0, text.indexOf("\0")))})`
    )
  }
}

/** ripgrep's `--null` content output: `path\0N:text` matches, `path\0N-text` context, `--` between groups. */
class ContextPrinter {
  private printedAny = false
  private readonly contextOn: boolean

  constructor(
    private readonly search: GrepSearch,
    private readonly out: Array<string>
  ) {
    this.contextOn = search.before > 0 || search.after > 0
  }

  file(label: string | undefined, lines: ReadonlyArray<string>, matches: Matches): void {
    let last = -1
    let printedInFile = false
    let afterLeft = 0
    const emit = (index: number, kind: ":" | "-", text: string) => {
      if (this.contextOn && this.printedAny && (!printedInFile || index !== last + 1)) this.out.push("--")
      const prefix = `${label === undefined ? "" : `${label}\0`}${this.search.lineNumbers ? `${index + 1}${kind}` : ""}`
      // a CR before the line end goes, as Claude Code splits ripgrep's output
      this.out.push(prefix + clip(text, kind).replace(/\r$/, ""))
      this.printedAny = true
      printedInFile = true
    }
    for (let index = 0; index < lines.length; index++) {
      const printed = matches.get(index)
      if (printed !== undefined) {
        for (let j = Math.max(index - this.search.before, last + 1); j < index; j++) {
          emit(j, "-", lines[j]!)
          last = j
        }
        for (const text of printed) emit(index, ":", text)
        last = index
        afterLeft = this.search.after
      } else if (afterLeft > 0) {
        emit(index, "-", lines[index]!)
        last = index
        afterLeft--
      }
    }
  }
}

const clip = (text: string, kind: ":" | "-"): string =>
  Buffer.byteLength(text, "utf8") > MAX_COLUMNS
    ? (kind === ":" ? "[Omitted long matching line]" : "[Omitted long context line]")
    : text
