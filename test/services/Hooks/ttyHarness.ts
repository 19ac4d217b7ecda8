/**
 * Run inside a pseudo-terminal: prints whether a plain child process and a hook process can open
 * /dev/tty. Hooks must run without a controlling terminal (claude-code-spec §2.5).
 */
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { runHookProcess } from "../../../src/services/Hooks/runProcess.js"

const probe = "(: </dev/tty) 2>/dev/null && echo present || echo none"
const plain = spawnSync("bash", ["-c", probe], { stdio: ["inherit", "pipe", "inherit"] }).stdout.toString().trim()

void Effect.runPromise(
  runHookProcess({
    command: probe,
    args: undefined,
    shell: "bash",
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "" },
    stdin: "{}",
    timeoutMs: 10_000
  })
).then((outcome) => {
  const hook = outcome._tag === "Exited" ? outcome.stdout.trim() : outcome._tag
  process.stdout.write(`\nRESULT plain=${plain} hook=${hook}\n`)
  process.exit(0)
})
