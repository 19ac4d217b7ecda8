/**
 * The published package, as a consumer gets it: `npm pack`, install the tarball into a fresh
 * project, run the README's library snippets with plain `node` and type-check a TypeScript
 * consumer with `tsc`. The README's snippets are the files in examples/library/, checked here
 * word for word.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"

const ROOT = path.resolve(__dirname, "..", "..")
const EXAMPLES = path.join(ROOT, "examples", "library")
const SNIPPETS = [
  "compose-runtime.mjs",
  "write-a-tool.mjs",
  "test-a-stage.mjs",
  "testing.mjs",
  "promise-runtime.mjs",
  "promise-query.mjs",
  "agent-sdk-port.mjs"
] as const

// Asynchronous on purpose: a long synchronous child would starve the test worker's event loop.
const run = (file: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  promisify(execFile)(file, [...args], { cwd, encoding: "utf8", env, maxBuffer: 64 * 1024 * 1024 }).then((r) =>
    r.stdout
  )

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  run("npm", args, cwd, { ...process.env, npm_config_loglevel: "error" })

interface PackedFile {
  readonly path: string
  readonly size: number
}

let work: string
let consumer: string
let packed: {
  readonly filename: string
  readonly size: number
  readonly unpackedSize: number
  readonly files: ReadonlyArray<PackedFile>
}

beforeAll(async () => {
  if (
    !fs.existsSync(path.join(ROOT, "dist", "lib", "index.js")) ||
    !fs.existsSync(path.join(ROOT, "dist", "toolgate.cjs"))
  ) {
    throw new Error("dist/ is not built: run `npm run build` (npm test does)")
  }
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-package-")))
  packed = JSON.parse(await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT))[0]
  consumer = path.join(work, "consumer")
  fs.mkdirSync(consumer)
  fs.writeFileSync(
    path.join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" })
  )
  const effectVersion =
    JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", "effect", "package.json"), "utf8")).version
  // From npm's cache when it has everything (it does after `npm ci`); the registry otherwise.
  await npm([
    "install",
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
    path.join(work, packed.filename),
    `effect@${effectVersion}`
  ], consumer)
}, 600_000)

afterAll(async () => {
  if (work !== undefined) await fs.promises.rm(work, { recursive: true, force: true })
}, 120_000)

describe("the published package", () => {
  it("holds the library, its declarations and the CLI, and nothing else", () => {
    const files = packed.files.map((f) => f.path)
    expect(files).toContain("dist/lib/index.js")
    expect(files).toContain("dist/lib/index.d.ts")
    expect(files).toContain("dist/toolgate.cjs")
    expect(files).toContain("dist/toolgate-main.cjs")
    expect(files).toContain("dist/lib/promise/index.js")
    expect(files).toContain("dist/lib/promise/index.d.ts")
    // the library's code is bundled (index, promise, one shared chunk); the CLI's is not in it
    const unwanted = files.filter((f) =>
      /^(test|bench|src|scripts|conformance|examples)\/|\.map$|\.v8cache$|^dist\/lib\/cli\/.*\.js$/.test(f)
    )
    expect(unwanted).toEqual([])
  })

  it("the README's snippets are the example files, word for word", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
    for (const name of SNIPPETS) {
      const text = fs.readFileSync(path.join(EXAMPLES, name), "utf8")
      expect(readme.includes("```js\n" + text + "```\n"), `README.md shows ${name}`).toBe(true)
    }
  })

  it.each(SNIPPETS)("%s runs with plain node in a consumer project", async (name) => {
    fs.copyFileSync(path.join(EXAMPLES, name), path.join(consumer, name))
    const home = fs.mkdtempSync(path.join(work, "home-"))
    const out = await run(process.execPath, [name], consumer, { ...process.env, HOME: home })
    if (name === "compose-runtime.mjs") {
      const message = JSON.parse(out)
      expect(message.content.map((b: { tool_use_id: string }) => b.tool_use_id)).toEqual(["toolu_1", "toolu_2"])
      expect(message.content[0].content).toContain("hello from toolgate")
      expect(message.content[1].is_error).toBe(true)
    }
    if (name === "write-a-tool.mjs") expect(out.trim()).toBe("3 words")
    if (name === "test-a-stage.mjs") expect(out).toContain("nothing ran")
    if (name === "testing.mjs") expect(out).toContain("the replaced validator refused NOTES.txt")
    if (name === "promise-runtime.mjs") {
      expect(out).toContain("Read: \"1\\thello from toolgate")
      expect(out).toContain("Write: refused: Write is not allowed in this example")
      expect(out).toContain("Bash sleep 30, aborted: error result")
      expect(out).toContain("broken settings: BrokenSettings")
    }
    if (name === "promise-query.mjs") {
      expect(out).toMatch(/refused: .*Keep every file; only read them\./)
      expect(out).toContain("success: I read notes.txt and left it in place.")
      expect(out).toContain("notes.txt is still there")
    }
    if (name === "agent-sdk-port.mjs") {
      expect(out).toContain("ok: tests pass")
      expect(out).toContain("error: Only the tests may run.")
      expect(out).toMatch(/^success after \d+ turns: The tests pass\.$/m)
    }
  }, 120_000)

  it("installs no storage driver, and `toolgate serve` names the one to install", async () => {
    for (const driver of ["better-sqlite3", "pg", "@effect/sql-sqlite-node", "@effect/sql-pg"]) {
      expect(fs.existsSync(path.join(consumer, "node_modules", driver)), driver).toBe(false)
    }
    const home = fs.mkdtempSync(path.join(work, "home-"))
    const bin = path.join(consumer, "node_modules", ".bin", "toolgate")
    const env = { ...process.env, HOME: home, TOOLGATE_SERVE_TOKEN: "a-token-of-thirty-two-characters" }
    const failure = (storage: ReadonlyArray<string>) =>
      run(
        bin,
        ["serve", "--port", "0", "--unsandboxed", "--state-dir", path.join(home, "state"), ...storage],
        consumer,
        env
      ).then(
        () => "started",
        (error: { stderr?: string }) => String(error.stderr)
      )
    expect(await failure([])).toContain("SQLite storage needs the better-sqlite3 package, which is not installed")
    expect(await failure([])).toContain("`npm install better-sqlite3`")
    expect(await failure(["--storage", "postgres://nobody@127.0.0.1:1/none"])).toContain("`npm install pg`")
  }, 120_000)

  it("a TypeScript consumer type-checks against the published declarations", async () => {
    fs.copyFileSync(path.join(EXAMPLES, "consumer.ts"), path.join(consumer, "consumer.ts"))
    fs.mkdirSync(path.join(consumer, "node_modules", "@types"), { recursive: true })
    fs.symlinkSync(
      path.join(ROOT, "node_modules", "@types", "node"),
      path.join(consumer, "node_modules", "@types", "node")
    )
    fs.writeFileSync(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"]
        },
        files: ["consumer.ts"]
      })
    )
    const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc")
    const result = await run(process.execPath, [tsc, "-p", "."], consumer).catch((error: { stdout?: string }) =>
      String(error.stdout ?? error)
    )
    expect(result).toBe("")
  }, 300_000)

  // The consumer's check above skips library files (checking all of effect's would take minutes),
  // so a declaration importing a package the consumer does not get would pass silently there.
  it("every package the declarations import is one the consumer installs", () => {
    const declared = new Set(
      Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).dependencies ?? {})
    )
    const missing = new Set<string>()
    for (const file of packed.files.map((f) => f.path).filter((f) => f.endsWith(".d.ts"))) {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8")
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "")
      for (const match of code.matchAll(/(?:\bfrom\s+|\bimport\(\s*)["']([^"'.][^"']*)["']/g)) {
        const specifier = match[1]!
        if (specifier.startsWith("node:")) continue
        const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!
        if (!declared.has(name)) missing.add(`${file}: ${specifier}`)
      }
    }
    expect([...missing]).toEqual([])
  })
})
