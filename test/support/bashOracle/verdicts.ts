/**
 * The permission verdict for a command, from the real Permissions stage: settings loaded from the
 * scratch tree's files (the context's rules as `--allowed-tools`), the real Bash tool, real path
 * checks, and the given analyzer. One runtime per rule set, built on first use.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import * as path from "node:path"
import type { Decision } from "../../../src/Permission.js"
import type { SessionContext } from "../../../src/Session.js"
import * as FileState from "../../../src/services/FileState.js"
import * as Permissions from "../../../src/services/Permissions.js"
import * as Settings from "../../../src/services/Settings.js"
import * as ShellAnalyzer from "../../../src/services/ShellAnalyzer.js"
import { makeBashTool } from "../../../src/tools/Bash.js"
import type { OracleContext } from "./contexts.js"
import type { ScratchLayout } from "./scratch.js"

export interface Verdicts {
  readonly decide: (command: string, ctx: OracleContext) => Promise<Decision>
  readonly dispose: () => Promise<void>
}

export const makeVerdicts = (
  layout: ScratchLayout,
  managedDir: string,
  analyzer: ShellAnalyzer.ShellAnalyzerService
): Verdicts => {
  const bash = makeBashTool({ analyzer })
  const runtimes = new Map<string, ManagedRuntime.ManagedRuntime<Permissions.Permissions, unknown>>()
  const runtimeFor = (allow: ReadonlyArray<string>) => {
    const key = JSON.stringify(allow)
    const known = runtimes.get(key)
    if (known !== undefined) return known
    const settings = Settings.layer({
      cwd: layout.proj,
      home: layout.home,
      userConfigDir: path.join(layout.home, ".claude"),
      managedDir,
      allowedTools: allow
    })
    const runtime = ManagedRuntime.make(
      Permissions.layer.pipe(
        Layer.provide(Layer.mergeAll(settings, FileState.layer, Layer.succeed(ShellAnalyzer.ShellAnalyzer, analyzer)))
      )
    )
    runtimes.set(key, runtime)
    return runtime
  }
  const sessionOf = (ctx: OracleContext): SessionContext => ({
    sessionId: "bash-oracle",
    sessionDir: path.join(layout.root, "..", "session"),
    projectDir: layout.proj,
    cwd: path.join(layout.proj, ctx.cwd),
    additionalDirectories: [],
    permissionMode: ctx.mode
  })
  return {
    decide: (command, ctx) =>
      runtimeFor(ctx.allow).runPromise(
        Effect.flatMap(Permissions.Permissions, (p) =>
          p.decide({ tool: bash, input: { command }, session: sessionOf(ctx) }))
      ),
    dispose: async () => {
      for (const runtime of runtimes.values()) await runtime.dispose()
      runtimes.clear()
    }
  }
}
