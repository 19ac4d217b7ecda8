// `npm run example`: toolgate exec on examples/message.json, as the README writes it. The message
// writes its own small project to /tmp/toolgate-example (its first call), reads it in parallel,
// fixes a bug with Edit and runs the tests; edits are accepted and the one test command allowed.
import { execFileSync } from "node:child_process"

const args = [
  "dist/toolgate.cjs",
  "exec",
  "examples/message.json",
  "--cwd",
  "/tmp",
  "--permission-mode",
  "acceptEdits",
  "--allowed-tools",
  "Bash(node /tmp/toolgate-example/test/run.js)",
  "--timeline",
  ...process.argv.slice(2)
]
console.log(`node ${args.join(" ")}\n`)
execFileSync(process.execPath, args, { stdio: "inherit" })
