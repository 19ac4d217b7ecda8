// The quick start: copies the example project to a fresh temporary folder, fills its path into
// the example message, and runs `toolgate exec` on it (no API key needed).
import { execFileSync } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const project = join(realpathSync(mkdtempSync(join(tmpdir(), "toolgate-example-"))), "project")
cpSync("examples/project", project, { recursive: true })
const message = readFileSync("examples/message.json", "utf8").replaceAll("{{PROJECT}}", project)
console.log(`toolgate exec on a copy of examples/project at ${project}\n`)
const args = [
  "dist/toolgate.cjs",
  "exec",
  "-",
  "--cwd",
  project,
  "--permission-mode",
  "acceptEdits",
  "--allowed-tools",
  "Bash(node test/run.js)",
  "--session-dir",
  join(project, "..", "session"),
  "--timeline",
  ...process.argv.slice(2)
]
execFileSync(process.execPath, args, { input: message, stdio: ["pipe", "inherit", "inherit"] })
