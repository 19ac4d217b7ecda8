// Bundles the CLI into one CommonJS file so it starts fast. Heavy libraries that only some
// commands need stay external and load from node_modules when first used; the Anthropic SDK is
// bundled (still loaded only when a command talks to Claude): resolving and compiling its many
// modules at every `run` cost about a fifth of the command's start. `dist/toolgate.cjs`
// is a small launcher that runs the bundle from V8's code cache (compiling a 3 MB bundle is
// about half of a cold start); the cache is made here and remade by the launcher when the
// Node version changes.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs"

rmSync("dist", { recursive: true, force: true })

const external = [
  // the OpenTelemetry API (the Anthropic SDK's one dependency) keeps its process-wide registry
  // only as a single shared copy
  "@opentelemetry/api",
  "@modelcontextprotocol/sdk",
  "web-tree-sitter",
  "tree-sitter-bash",
  "turndown",
  "ajv",
  "node-pty",
  // \`toolgate serve\`'s database drivers: optional packages (see package.json's
  // peerDependencies), loaded only when a server starts on their storage
  "better-sqlite3",
  "pg",
  "msgpackr-extract"
]

await build({
  entryPoints: ["src/cli/bin.ts"],
  outfile: "dist/toolgate-main.cjs",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: external.flatMap((name) => [name, `${name}/*`]),
  sourcemap: "linked",
  // Short identifiers make a third less code to read, hash and deserialize at every start (the
  // linked source map keeps the names for \`node --enable-source-maps\`).
  minify: true,
  legalComments: "none",
  // Modules that read import.meta.url (for the ESM library) fall back to __filename in the bundle.
  logOverride: { "empty-import-meta": "silent" },
  // import() becomes require() (every external has a CommonJS build): on Node 20 a script run
  // from V8's code cache loses its import() callback. The launcher hands custom tool modules a
  // native import() instead (see src/services/Extensions/customTools.ts).
  supported: { "dynamic-import": false },
  logLevel: "warning"
})

// The library (`toolgate`, `toolgate/promise`): its own code in one shared chunk, ES modules,
// every package left to node_modules (a program and toolgate must share one `effect`). Loading
// one file instead of some 250 small ones is most of what `import("toolgate")` costs beyond
// `import("effect")`. The declarations beside it come from tsc (tsconfig.build.json).
await build({
  entryPoints: { index: "src/index.ts", "promise/index": "src/promise/index.ts" },
  outdir: "dist/lib",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning"
})

// `toolgate --version` alone is answered by the launcher: it needs none of the command code.
const version = /export const VERSION = "([^"]+)"/.exec(readFileSync("src/version.ts", "utf8"))?.[1]
if (version === undefined) throw new Error("build: no VERSION in src/version.ts")

const launcher = `#!/usr/bin/env node
"use strict"
// \`toolgate --version\` alone: the same bytes the front end prints, without loading the commands.
if (process.argv.length === 3 && process.argv[2] === "--version") {
  process.stdout.write(${JSON.stringify(version + " (toolgate)\n")})
  return
}
// Runs toolgate-main.cjs from V8's code cache; without a usable cache it compiles as usual and
// leaves one for the next start (best effort: a read-only install just starts uncached).
const fs = require("node:fs")
const path = require("node:path")
const vm = require("node:vm")
const Module = require("node:module")
const file = path.join(__dirname, "toolgate-main.cjs")
const cacheFile = file + ".v8cache"
let cachedData
try {
  cachedData = fs.readFileSync(cacheFile)
} catch {}
const script = new vm.Script(Module.wrap(fs.readFileSync(file, "utf8")), {
  filename: file,
  cachedData
})
if (cachedData === undefined || script.cachedDataRejected) {
  process.once("exit", () => {
    try {
      const tmp = cacheFile + "." + process.pid
      fs.writeFileSync(tmp, script.createCachedData())
      fs.renameSync(tmp, cacheFile)
    } catch {}
  })
}
// For user modules that may be ES modules (custom tools): a native import() from this file.
globalThis.__toolgateImport = (url) => import(url)
const mod = new Module(file, module)
mod.filename = file
mod.paths = Module._nodeModulePaths(__dirname)
script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, __dirname)
`
writeFileSync("dist/toolgate.cjs", launcher)
chmodSync("dist/toolgate.cjs", 0o755)
rmSync("dist/toolgate-main.cjs.v8cache", { force: true })
// One representative run leaves the cache (with the functions a command compiles lazily).
// (--strict-mcp-config: the repository's own .mcp.json would start an MCP server for nothing)
spawnSync(process.execPath, ["dist/toolgate.cjs", "tools", "--json", "--strict-mcp-config"], { stdio: "ignore" })
