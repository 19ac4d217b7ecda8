/**
 * The tests' own MCP stdio server (test/fixtures/mcp/testServer.mjs), bundled with the SDK it
 * imports into one file: a start is then a plain `node` start instead of resolving and compiling
 * the hundreds of modules of the SDK and zod (about half the CPU of each start; the MCP tests start
 * a few dozen servers).
 */
import { buildSync } from "esbuild"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

const ROOT = path.resolve(import.meta.dirname, "../..")
export const TEST_SERVER_SOURCE = path.join(ROOT, "test/fixtures/mcp/testServer.mjs")

let bundled: string | undefined

/**
 * The bundled test server, made at the first call and kept in node_modules/.cache under a name that
 * changes with the server's source and the installed packages (so later runs reuse it).
 */
export const testServerScript = (): string => {
  if (bundled !== undefined) return bundled
  const installed = path.join(ROOT, "node_modules/.package-lock.json")
  const hash = createHash("sha256")
    .update(fs.readFileSync(TEST_SERVER_SOURCE))
    .update(fs.existsSync(installed) ? fs.readFileSync(installed) : "")
    .digest("hex")
    .slice(0, 16)
  const file = path.join(ROOT, "node_modules/.cache/toolgate-tests", `testServer-${hash}.mjs`)
  if (!fs.existsSync(file)) {
    // several workers may make it at once: each writes a file of its own and renames it into place
    const partial = `${file}.${process.pid}.partial.mjs`
    buildSync({
      entryPoints: [TEST_SERVER_SOURCE],
      outfile: partial,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "error"
    })
    fs.renameSync(partial, file)
  }
  bundled = file
  return file
}
