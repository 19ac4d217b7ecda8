// Type-checks TypeScript code blocks as modules of their own that import `toolgate` and
// `toolgate/promise` as a user would (resolved to src/). Reads `[{ name, code }]` as JSON on stdin,
// prints the type errors as a JSON array of strings. A process of its own: a whole-program check
// takes long enough to starve the test worker's event loop.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const blocks = JSON.parse(fs.readFileSync(0, "utf8"))

const options = {
  noEmit: true,
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2023.d.ts", "lib.esnext.disposable.d.ts"],
  types: ["node"],
  baseUrl: root,
  paths: { toolgate: ["src/index.ts"], "toolgate/promise": ["src/promise/index.ts"] }
}

// virtual files beside the sources, so that packages resolve from the repository's node_modules
const files = new Map(blocks.map((b) => [path.join(root, "docs", `${b.name}.ts`), b.code]))
const host = ts.createCompilerHost(options)
const readFile = host.readFile.bind(host)
const getSourceFile = host.getSourceFile.bind(host)
host.fileExists = (file) => files.has(file) || ts.sys.fileExists(file)
host.readFile = (file) => files.get(file) ?? readFile(file)
host.getSourceFile = (file, language, onError) => {
  const code = files.get(file)
  return code === undefined ? getSourceFile(file, language, onError) : ts.createSourceFile(file, code, language)
}

const program = ts.createProgram([...files.keys()], options, host)
const errors = ts
  .getPreEmitDiagnostics(program)
  .filter((d) => d.file === undefined || files.has(d.file.fileName))
  .map((d) => {
    const where = d.file === undefined
      ? ""
      : `${path.basename(d.file.fileName, ".ts")}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: `
    return where + ts.flattenDiagnosticMessageText(d.messageText, "\n")
  })
process.stdout.write(JSON.stringify(errors))
