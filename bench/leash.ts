/**
 * The leash's start cost (src/internal/leash.ts): `bash --noprofile --norc -c true` started as
 * toolgate starts every shell, hook and MCP server (in a PID namespace of its own, through
 * bubblewrap) against the same shell started directly, to its exit. Paired rounds in one process;
 * wall time, since the work is in the child processes.
 */
import { spawn } from "node:child_process"
import { leash, leashStatus } from "../src/internal/leash.js"
import { now, pairedRounds, plainMetric, ratioMetric, type Benchmark } from "./harness.js"

const SHELL = "/bin/bash"
const ARGS = ["--noprofile", "--norc", "-c", "true"] as const

const runToExit = (file: string, args: ReadonlyArray<string>) => async () => {
  const t0 = now()
  await new Promise<void>((resolve, reject) => {
    const child = spawn(file, [...args], { stdio: "ignore", detached: true })
    child.once("error", reject)
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`bench: ${file} exited with ${code}`))))
  })
  return now() - t0
}

export const leashBench: Benchmark = {
  name: "leash",
  run: async () => {
    const status = leashStatus()
    if (status._tag !== "Namespace") throw new Error(`bench: no leash on this machine: ${status.reason}`)
    const leashed = leash(SHELL, ARGS)
    const samples = await pairedRounds(
      [
        ["direct", runToExit(SHELL, ARGS)],
        ["leashed", runToExit(leashed.file, leashed.args)]
      ],
      { warmup: 5, rounds: 40 }
    )
    const baseline = { name: "shell started directly", samples: samples.direct }
    return [
      plainMetric({ name: "leash.direct_shell", unit: "ms wall" }, samples.direct),
      ratioMetric({ name: "leash.leashed_vs_direct", unit: "ms wall" }, samples.leashed, baseline),
      plainMetric(
        {
          name: "leash.start_cost",
          unit: "ms wall",
          note: "per process started, over the direct start of the same round"
        },
        samples.leashed.map((v, i) => v - samples.direct[i]!)
      )
    ]
  }
}
