// Generates the API docs with @effect/docgen: Markdown pages for the public modules (docgen.json
// lists what is left out) into docs/api/, after checking that every export has `@since` and that
// every `@example` type-checks. `--check` runs the checks and keeps nothing.
//
// docgen reads `name` and `homepage` from the package.json of its working directory, and the
// package has no homepage to publish; so it runs in a temporary folder that links to the sources.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const check = process.argv.includes("--check")
const work = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-docgen-"))

try {
  for (const name of ["src", "tsconfig.json", "node_modules"]) {
    fs.symlinkSync(path.join(root, name), path.join(work, name))
  }
  fs.copyFileSync(path.join(root, "docgen.json"), path.join(work, "docgen.json"))
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
  fs.writeFileSync(
    path.join(work, "package.json"),
    JSON.stringify({ name: pkg.name, version: pkg.version, homepage: "" })
  )

  const docgen = spawnSync(process.execPath, [path.join(root, "node_modules", "@effect", "docgen", "bin.cjs")], {
    cwd: work,
    // docgen type-checks the examples with the `tsc` it finds on PATH
    env: {
      ...process.env,
      PATH: `${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`
    },
    stdio: ["ignore", "inherit", "inherit"]
  })
  if (docgen.status !== 0) process.exit(docgen.status ?? 1)

  if (!check) {
    const out = path.join(root, "docs", "api")
    fs.rmSync(out, { recursive: true, force: true })
    fs.cpSync(path.join(work, "docs"), out, { recursive: true, filter: (from) => path.basename(from) !== "examples" })
    process.stderr.write(`API docs written to ${path.relative(process.cwd(), out) || "."}/modules/\n`)
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true })
}
