import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect, JSONSchema, Option } from "effect"
import { ReadTool } from "../../src/tools/Read.js"
import { inputJsonSchema } from "../../src/Tool.js"
import { hashContent } from "../../src/services/FileState.js"
import {
  decodeInput,
  makeEnv,
  makeTempDir,
  removeDir,
  runTool,
  withSettings,
  write
} from "../fixtures/files/harness.js"

let dir: string
beforeEach(() => {
  dir = makeTempDir()
})
afterEach(() => removeDir(dir))

const read = (input: Record<string, unknown>) => Effect.flatMap(makeEnv(dir), (env) => runTool(ReadTool, input, env))

describe("Read: text", () => {
  it.effect("numbers lines as N<TAB>line and drops the CR of CRLF line ends", () =>
    Effect.gen(function*() {
      const file = write(path.join(dir, "a.txt"), "alpha\r\nbeta\r\ngamma")
      const out = yield* read({ file_path: file })
      expect(out).toMatchObject({ stage: "ok", text: "1\talpha\n2\tbeta\n3\tgamma" })
    }))

  it.effect("a final newline shows as a last empty line, as in Claude Code", () =>
    Effect.gen(function*() {
      const file = write(path.join(dir, "a.txt"), "a\nb\n")
      const out = yield* read({ file_path: file })
      expect(out.text).toBe("1\ta\n2\tb\n3\t")
    }))

  it.effect("reads the whole file by default (no line cap), and offset (1-based) / limit select a range", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`)
      const file = write(path.join(dir, "long.txt"), lines.join("\n"))
      const whole = yield* read({ file_path: file })
      const shown = whole.text.split("\n")
      expect(shown).toHaveLength(2500)
      expect(shown[2499]).toBe("2500\tline 2500")
      expect(whole.stage === "ok" && whole.data.file.totalLines).toBe(2500)
      const range = yield* read({ file_path: file, offset: "2499", limit: 5 })
      expect(range.text).toBe("2499\tline 2499\n2500\tline 2500")
      // as in Claude Code: offset 0 numbers from 0, a limit that is not positive is no limit
      const zero = yield* read({ file_path: file, offset: 0, limit: 1 })
      expect(zero.text).toBe("0\tline 1")
    }))

  it.effect("an empty file and an offset past the end give Claude Code's notices", () =>
    Effect.gen(function*() {
      const empty = write(path.join(dir, "empty.txt"), "")
      expect((yield* read({ file_path: empty })).text).toBe(
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
      )
      const short = write(path.join(dir, "short.txt"), "one\ntwo\nthree")
      expect((yield* read({ file_path: short, offset: 10 })).text).toBe(
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 3 lines.</system-reminder>"
      )
    }))

  it.effect("a missing file is a clear error naming the cwd, with a similar file (by name) or the path inside the cwd suggested", () =>
    Effect.gen(function*() {
      write(path.join(dir, "config.json"), "{}")
      const out = yield* read({ file_path: path.join(dir, "config.yaml") })
      expect(out).toEqual({
        stage: "failed",
        text: `File does not exist. Note: your current working directory is ${dir}. Did you mean config.json?`
      })
      const only = `only-here-${path.basename(dir)}.txt`
      write(path.join(dir, only), "x")
      expect((yield* read({ file_path: path.join(path.dirname(dir), only) })).text).toBe(
        `File does not exist. Note: your current working directory is ${dir}. Did you mean ${path.join(dir, only)}?`
      )
      const plain = yield* read({ file_path: path.join(dir, "nothing.txt") })
      expect(plain.text).toBe(`File does not exist. Note: your current working directory is ${dir}.`)
    }))

  it.effect("a relative path resolves against the session cwd", () =>
    Effect.gen(function*() {
      write(path.join(dir, "sub", "r.txt"), "relative")
      expect((yield* read({ file_path: "sub/r.txt" })).text).toBe("1\trelative")
    }))

  it.effect("a directory is an EISDIR error", () =>
    Effect.gen(function*() {
      fs.mkdirSync(path.join(dir, "d"))
      const out = yield* read({ file_path: path.join(dir, "d") })
      expect(out.stage).toBe("failed")
      expect(out.text).toContain(`EISDIR: illegal operation on a directory, read '${path.join(dir, "d")}'`)
    }))

  it.effect("a whole-file read over 262,144 bytes fails with the exact text; a range does not", () =>
    Effect.gen(function*() {
      const file = write(path.join(dir, "big.txt"), `${"x".repeat(99)}\n`.repeat(3072))
      expect(yield* read({ file_path: file })).toEqual({
        stage: "failed",
        text:
          "File content (300KB) exceeds maximum allowed size (256KB). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u2014 only if you genuinely need all of it or the user asked for the whole file."
      })
      const part = yield* read({ file_path: file, offset: 1, limit: 3 })
      expect(part.stage).toBe("ok")
    }))

  it.effect("a whole-file read over the token limit returns its first page with Claude Code's continuation note", () =>
    Effect.gen(function*() {
      const lines = Array.from(
        { length: 1500 },
        (_, i) => `${i + 1} alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho`
      )
      const file = write(path.join(dir, "tok.txt"), `${lines.join("\n")}\n`)
      const env = yield* makeEnv(dir)
      const out = yield* runTool(ReadTool, { file_path: file }, env)
      expect(out.stage).toBe("ok")
      const [page, note] = out.text.split("\n\n<system-reminder>\n")
      expect(page!.split("\n")).toHaveLength(921)
      expect(page!.split("\n")[920]).toBe(`921\t${lines[920]}`)
      expect(note).toBe(
        `[Truncated: PARTIAL view \u2014 ${file}: showing lines 1-921 of 1501 total (34599 tokens, cap 25000). Call Read with offset=922 limit=921 for the next page, or Grep to find a specific section. To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u2014 only if you genuinely need all of it or the user asked for the whole file. Do NOT answer from this page alone if the answer may be further in the file.]\n</system-reminder>`
      )
      // only part of the file was seen: Edit may follow, Write may not
      expect(Option.getOrThrow(yield* env.fileState.get(file)).partial).toBe(true)
    }))

  it.effect("a ranged read over the token limit fails with the exact text (the limit comes from the env)", () =>
    Effect.gen(function*() {
      const file = write(path.join(dir, "wide.txt"), `${"y".repeat(2000)}\n`.repeat(60))
      expect(yield* read({ file_path: file, offset: 1, limit: 60 })).toEqual({
        stage: "failed",
        text:
          "File content (30015 tokens) exceeds maximum allowed tokens (25000). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u2014 only if you genuinely need all of it or the user asked for the whole file."
      })
      const small = write(path.join(dir, "small.txt"), "0123456789abcdef\nmore")
      const limited = yield* read({ file_path: small, offset: 1, limit: 2 }).pipe(
        withSettings({ CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS: "3" })
      )
      expect(limited.text).toBe(
        "File content (5 tokens) exceeds maximum allowed tokens (3). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true \u2014 only if you genuinely need all of it or the user asked for the whole file."
      )
    }))

  it.effect("UTF-16LE files with a BOM are decoded", () =>
    Effect.gen(function*() {
      const file = write(
        path.join(dir, "u16.txt"),
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\nwörld", "utf16le")])
      )
      expect((yield* read({ file_path: file })).text).toBe("1\théllo\n2\twörld")
    }))

  it.effect("binary files are refused: by extension before the call, by content in the call", () =>
    Effect.gen(function*() {
      const zip = write(path.join(dir, "a.zip"), "PK")
      expect(yield* read({ file_path: zip })).toEqual({
        stage: "rejected",
        text:
          "This tool cannot read binary files. The file appears to be a binary .zip file. Use a skill for this file type if one is available, or a shell command or script that can read the format."
      })
      const blob = write(path.join(dir, "blob.data"), Buffer.from([1, 2, 0, 3]))
      const out = yield* read({ file_path: blob })
      expect(out.stage).toBe("failed")
      expect(out.text).toContain("This tool cannot read binary files.")
    }))

  it.effect("device files that never end are refused", () =>
    Effect.gen(function*() {
      expect(yield* read({ file_path: "/dev/zero" })).toEqual({
        stage: "rejected",
        text: "Cannot read '/dev/zero': this path names a device or process file that this tool does not read."
      })
    }))

  it.effect("a file that is not valid UTF-8 is read with a note saying so, whatever range is read", () =>
    Effect.gen(function*() {
      const latin1 = write(path.join(dir, "latin1.txt"), Buffer.from("a\nb\ncaf\xe9\nd\n", "latin1"))
      const note =
        "\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"
      expect((yield* read({ file_path: latin1, limit: 2 })).text).toBe(`1\ta\n2\tb${note}`)
      expect((yield* read({ file_path: latin1, offset: 3, limit: 1 })).text).toBe(`3\tcaf\uFFFD${note}`)
      const replacement = write(path.join(dir, "fffd.txt"), "ok \uFFFD fine\n")
      expect((yield* read({ file_path: replacement })).text).toBe("1\tok \uFFFD fine\n2\t")
    }))

  it.effect("files of a running process are refused in every mode (/proc/self/environ holds its secrets)", () =>
    Effect.gen(function*() {
      for (const file of ["/proc/self/environ", "/proc/self/status", `/proc/${process.pid}/cmdline`]) {
        expect(yield* read({ file_path: file })).toEqual({
          stage: "rejected",
          text: `Cannot read '${file}': this path names a device or process file that this tool does not read.`
        })
      }
    }))

  it.effect("a named pipe is never opened (opening one waits for a writer)", () =>
    Effect.gen(function*() {
      const fifo = path.join(dir, "pipe")
      execFileSync("mkfifo", [fifo])
      expect(yield* read({ file_path: fifo })).toEqual({
        stage: "failed",
        text: "Nothing is writing to this pipe. Check that the app serving it is running and unlocked."
      })
    }))

  it.effect("records a snapshot: full for a whole read, partial for a range", () =>
    Effect.gen(function*() {
      const env = yield* makeEnv(dir)
      const file = write(path.join(dir, "s.txt"), "one\r\ntwo\r\n")
      yield* runTool(ReadTool, { file_path: file }, env)
      const full = Option.getOrThrow(yield* env.fileState.get(file))
      expect(full).toEqual({
        mtimeMs: Math.floor(fs.statSync(file).mtimeMs),
        contentHash: hashContent("one\ntwo\n"),
        partial: false
      })
      yield* runTool(ReadTool, { file_path: file, offset: 2, limit: 1 }, env)
      expect(Option.getOrThrow(yield* env.fileState.get(file)).partial).toBe(true)
      yield* runTool(ReadTool, { file_path: file, offset: 1, limit: 100 }, env)
      expect(Option.getOrThrow(yield* env.fileState.get(file)).partial).toBe(false)
    }))
})

describe("Read: images and notebooks", () => {
  const png = Buffer.from(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
      "1f15c4890000000d49444154789c6300010000000500010d0a2db40000000049454e44ae426082",
    "hex"
  )

  it.effect("an image comes back as a base64 image block", () =>
    Effect.gen(function*() {
      const file = write(path.join(dir, "pixel.png"), png)
      const out = yield* read({ file_path: file })
      expect(out.stage === "ok" && out.content).toEqual([
        { type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } }
      ])
      const hooks = out.stage === "ok" ? ReadTool.hookResponse(out.data) : undefined
      expect(hooks).toEqual({ type: "image", file: { filePath: file, type: "image/png", originalSize: png.length } })
      expect(ReadTool.renderResult(out.stage === "ok" ? out.data : undefined)).toMatch(/^Read image/)
    }))

  it.effect("the media type comes from the bytes, not the extension", () =>
    Effect.gen(function*() {
      const file = write(path.join(dir, "really-png.jpg"), png)
      const out = yield* read({ file_path: file })
      expect(out.stage === "ok" && out.data.file.type).toBe("image/png")
    }))

  const refusal = (file: string, detected: string) =>
    `File has an image extension but its content is not a valid PNG/JPEG/GIF/WebP. Detected: ${detected}. This usually means a download saved an error/login page instead of the image. Use \`file "${file}"\` to confirm, or read it as text with Bash (e.g. \`head -c 500\`).`

  it.effect("content that is no image under an image extension is refused with what it looks like (Claude Code's texts)", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string | Buffer, string]> = [
        [
          "login.png",
          "<!DOCTYPE html>\n<html><body>Login</body></html>\n",
          "HTML document (starts with \"<!DOCTYPE html>.<html><b\")"
        ],
        ["bom.jpg", "\ufeff<html>", "HTML document (starts with \"...<html>\")"],
        ["spaced.gif", " <HTML>", "HTML document (starts with \" <HTML>\")"],
        ["error.webp", "{\"error\": \"not found\"}\n", "JSON/text (starts with \"{\"error\": \"not found\"}.\")"],
        ["list.png", "[1, 2, 3]", "JSON/text (starts with \"[1, 2, 3]\")"],
        ["indented.png", "  {\"a\": 1}", "unrecognized bytes (hex: 20 20 7b 22 61 22 3a 20)"],
        ["feed.png", "<?xml version='1.0'?>", "XML/SVG document (starts with \"<?xml version='1.0'?>\")"],
        ["vector.PNG", "<svg></svg>", "XML/SVG document (starts with \"<svg></svg>\")"],
        ["doc.jpeg", "%PDF-1.4\n", "PDF document"],
        [
          "deck.png",
          Buffer.from("504b0304140000000800", "hex"),
          "ZIP archive (Office documents such as .pptx/.docx/.xlsx are ZIPs)"
        ],
        ["riff.webp", "RIFF but not webp\n", "unrecognized bytes (hex: 52 49 46 46 20 62 75 74)"],
        ["one.png", Buffer.from("89", "hex"), "unrecognized bytes (hex: 89)"]
      ]
      for (const [name, content, detected] of cases) {
        const file = write(path.join(dir, name), content)
        const out = yield* read({ file_path: file })
        expect(out, name).toMatchObject({ stage: "failed", text: refusal(file, detected) })
      }
    }))

  it.effect("an image whose size its header does not give is refused; an empty one names the file", () =>
    Effect.gen(function*() {
      for (
        const [name, hex] of [
          ["signature.png", "89504e470d0a1a0a"],
          ["nosof.jpg", "ffd8ffe000104a46494600010101004800480000ffd9"],
          ["riff.webp", "524946460400000057454250"]
        ] as const
      ) {
        const file = write(path.join(dir, name), Buffer.from(hex, "hex"))
        expect(yield* read({ file_path: file }), name).toMatchObject({
          stage: "failed",
          text:
            "Unable to resize image — image processing is unavailable and dimensions could not be read from the file header. Please convert the image to PNG, JPEG, GIF, or WebP."
        })
      }
      const empty = write(path.join(dir, "empty.png"), "")
      expect(yield* read({ file_path: empty })).toMatchObject({
        stage: "failed",
        text: `Image file is empty: ${empty}`
      })
    }))

  it.effect("GIF, JPEG and WebP headers with a size are sent as they are", () =>
    Effect.gen(function*() {
      const gif = Buffer.from("474946383761030003000000003b", "hex")
      const jpeg = Buffer.from(
        "ffd8ffe000104a46494600010101004800480000ffc0001108006400640301220002110103110 1ffd9".replace(/ /g, ""),
        "hex"
      )
      const webp = Buffer.from("524946461800000057454250565038580a00000000000000630000310000", "hex")
      for (
        const [name, bytes, type] of [["a.gif", gif, "image/gif"], ["a.jpg", jpeg, "image/jpeg"], [
          "a.webp",
          webp,
          "image/webp"
        ]] as const
      ) {
        const out = yield* read({ file_path: write(path.join(dir, name), bytes) })
        expect(out.stage === "ok" && out.data.file.type, name).toBe(type)
      }
    }))

  it.effect("a notebook's cells are rendered as text with their outputs", () =>
    Effect.gen(function*() {
      const notebook = {
        metadata: { language_info: { name: "python" } },
        nbformat: 4,
        nbformat_minor: 5,
        cells: [
          { id: "intro", cell_type: "markdown", source: ["# Title\n", "text"], metadata: {} },
          {
            id: "code1",
            cell_type: "code",
            source: "print(1)",
            metadata: {},
            outputs: [{ output_type: "stream", name: "stdout", text: ["1\n"] }],
            execution_count: 1
          },
          {
            cell_type: "code",
            source: "1/0",
            metadata: {},
            outputs: [{ output_type: "error", ename: "ZeroDivisionError", evalue: "division by zero", traceback: [] }]
          }
        ]
      }
      const file = write(path.join(dir, "nb.ipynb"), JSON.stringify(notebook))
      const out = yield* read({ file_path: file })
      expect(out.text).toBe(
        [
          "<cell id=\"intro\"><cell_type>markdown</cell_type># Title\ntext</cell id=\"intro\">",
          "<cell id=\"code1\">print(1)</cell id=\"code1\">",
          "\n1\n",
          "<cell id=\"cell-2\">1/0</cell id=\"cell-2\">",
          "\nZeroDivisionError: division by zero"
        ].join("\n")
      )
    }))
})

describe("Read: contract", () => {
  it("has Claude Code's flags, schema and permission subject", () => {
    const input = { file_path: "x.txt" }
    expect(ReadTool.name).toBe("Read")
    expect(ReadTool.isReadOnly(input)).toBe(true)
    expect(ReadTool.isConcurrencySafe(input)).toBe(true)
    expect(ReadTool.isDestructive(input)).toBe(false)
    expect(ReadTool.interruptBehavior()).toBe("cancel")
    expect(ReadTool.maxResultSizeChars).toBe(Number.POSITIVE_INFINITY)
    const session = {
      sessionId: "s",
      sessionDir: "/tmp/s",
      projectDir: "/w",
      cwd: "/w/sub",
      additionalDirectories: [],
      permissionMode: "default" as const
    }
    expect(ReadTool.expandInput(input, session)).toEqual({ file_path: "/w/sub/x.txt" })
    expect(ReadTool.permissionSubject(input, session)).toEqual({ kind: "read", path: "/w/sub/x.txt" })
    const schema = inputJsonSchema(ReadTool) as {
      properties: Record<string, { description?: string }>
      required: Array<string>
      additionalProperties: boolean
    }
    expect(schema.required).toEqual(["file_path"])
    expect(schema.additionalProperties).toBe(false)
    expect(schema.properties.offset?.description).toContain("line number to start")
    expect(JSONSchema.make).toBeDefined()
  })

  it("coerces numeric strings and rejects unknown keys", () => {
    expect(decodeInput(ReadTool, { file_path: "/a", offset: "3", limit: "10" })).toMatchObject({
      _tag: "Right",
      right: { offset: 3, limit: 10 }
    })
    expect(decodeInput(ReadTool, { file_path: "/a", limit: 0 })._tag).toBe("Left")
    expect(decodeInput(ReadTool, { file_path: "/a", extra: 1 })._tag).toBe("Left")
  })

  it.effect("the footprint is the real path, symlinks resolved", () =>
    Effect.gen(function*() {
      const target = write(path.join(dir, "real.txt"), "x")
      fs.symlinkSync(target, path.join(dir, "link.txt"))
      const env = yield* makeEnv(dir)
      const footprint = yield* ReadTool.footprint!({ file_path: path.join(dir, "link.txt") }, env.session)
      expect(footprint).toEqual({ reads: [target], writes: [] })
    }))
})

describe("Read: PDF (the rest is in conformance/scenarios/read-pdf.json, recorded from Claude Code)", () => {
  /** A one-page PDF that poppler reads. */
  const onePage = [
    "%PDF-1.4",
    "1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj",
    "2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj",
    "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj",
    "trailer<</Root 1 0 R>>",
    "%%EOF",
    ""
  ].join("\n")

  /** Runs `effect` with a PATH that has no poppler (nor anything else). */
  const withoutPoppler = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const saved = process.env.PATH
        process.env.PATH = path.join(dir, "empty-bin")
        return saved
      }),
      () => effect,
      (saved) => Effect.sync(() => (process.env.PATH = saved))
    )

  it.effect("a whole read is a line naming the file and a document block", () =>
    Effect.gen(function*() {
      const file = write(path.join(dir, "a.pdf"), onePage)
      const out = yield* read({ file_path: file })
      expect(out.stage).toBe("ok")
      if (out.stage !== "ok") return
      expect(out.content).toEqual([
        { type: "text", text: `PDF file read: ${file} (${onePage.length} bytes)` },
        {
          type: "document",
          source: { type: "base64", media_type: "application/pdf", data: Buffer.from(onePage).toString("base64") }
        }
      ])
    }))

  it.effect("over 20 MB a whole read is refused before the file is read", () =>
    Effect.gen(function*() {
      const file = write(path.join(dir, "big.pdf"), onePage)
      fs.truncateSync(file, 20 * 1024 * 1024 + 1)
      expect(yield* read({ file_path: file })).toMatchObject({
        stage: "failed",
        text: "PDF file exceeds maximum allowed size of 20MB."
      })
    }))

  it.effect("without poppler: pages say pdftoppm is missing, and a whole read is sent uncounted", () =>
    withoutPoppler(Effect.gen(function*() {
      const file = write(path.join(dir, "a.pdf"), onePage)
      expect(yield* read({ file_path: file, pages: "1" })).toMatchObject({
        stage: "failed",
        text:
          "pdftoppm is not installed. Install poppler-utils (e.g. `brew install poppler` or `apt-get install poppler-utils`) to enable PDF page rendering."
      })
      expect((yield* read({ file_path: file })).stage).toBe("ok")
    })))

  it.effect("pages of a text file's name are checked as for a PDF, and ignored when fine", () =>
    Effect.gen(function*() {
      const file = write(path.join(dir, "a.txt"), "x\n")
      expect((yield* read({ file_path: file, pages: "a" })).stage).toBe("rejected")
      expect(yield* read({ file_path: file, pages: "1" })).toMatchObject({ stage: "ok", text: "1\tx\n2\t" })
    }))
})
