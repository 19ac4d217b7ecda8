// The quick start: `toolgate run` with the scripted model on the bundled session
// (examples/sessions/quickstart.jsonl) over a fresh copy of examples/project. No API key needed:
// a recorded model reads several files in parallel, greps, edits a file and runs the tests, and
// toolgate runs every call through its real pipeline (permissions, hooks, scheduling).
// Extra arguments go to `toolgate run` (e.g. --output-format json, --replay-speed 0).
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const bin = process.env.TOOLGATE_BIN ?? join(root, "dist", "toolgate.cjs")
// `npm start` on a fresh clone: build the CLI first
if (!existsSync(bin)) {
  const built = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { cwd: root, stdio: "inherit" })
  if (built.status !== 0) process.exit(built.status ?? 1)
}
const work = realpathSync(mkdtempSync(join(tmpdir(), "toolgate-quickstart-")))
const project = join(work, "project")
cpSync(join(root, "examples", "project"), project, { recursive: true })
const session = join(work, "session")

const extra = process.argv.slice(2)
const quiet = extra.includes("--output-format") || extra.includes("--json")
if (!quiet) {
  console.log(
    `toolgate run: a scripted model (examples/sessions/quickstart.jsonl) on a copy of examples/project at ${project}`
  )
  console.log("Edits are accepted (--permission-mode acceptEdits); the only command allowed is `node test/run.js`.\n")
}
const args = [
  bin,
  "run",
  "-p",
  ...(quiet ? [] : ["--verbose"]),
  "--replay",
  join(root, "examples", "sessions", "quickstart.jsonl"),
  "--cwd",
  project,
  "--permission-mode",
  "acceptEdits",
  "--allowed-tools",
  "Bash(node test/run.js)",
  "--session-dir",
  session,
  ...extra
]
const result = spawnSync(process.execPath, args, { stdio: "inherit" })
if (!quiet && result.status === 0) {
  console.log(
    `\nReplay the recorded session over a fresh copy:  node ${bin} replay ${
      join(session, "transcript.jsonl")
    } --cwd <copy of examples/project>`
  )
  console.log("Run it against Claude instead:                   ANTHROPIC_API_KEY=… node dist/toolgate.cjs run")
}
process.exit(result.status ?? 1)
