/**
 * Shared pieces for the hook tests: a temporary project, a session, a few tools with the
 * permission subjects of the real ones, and a Hooks layer built from settings objects.
 */
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import { isRecordAlive, readPidRecords, type PidRecord } from "../../support/pidRecords.js"
import * as os from "node:os"
import * as path from "node:path"
import { buildTool, type AnyTool } from "../../../src/Tool.js"
import type { SessionContext } from "../../../src/Session.js"
import * as Settings from "../../../src/services/Settings.js"
import * as Hooks from "../../../src/services/Hooks.js"
import type { RuleSource } from "../../../src/Permission.js"
import { layerSharedShellAnalyzer } from "../../support/shellAnalyzer.js"

export const FIXTURES = path.resolve(__dirname, "../../fixtures/hooks")
export const fixture = (name: string) => path.join(FIXTURES, name)

for (const f of fs.readdirSync(FIXTURES)) fs.chmodSync(path.join(FIXTURES, f), 0o755)

export const makeProject = (): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-hooks-")))

export const removeProject = (dir: string) => fs.rmSync(dir, { recursive: true, force: true })

export const sessionFor = (project: string, overrides: Partial<SessionContext> = {}): SessionContext => ({
  sessionId: "session-123",
  sessionDir: path.join(project, ".session"),
  projectDir: project,
  cwd: project,
  additionalDirectories: [],
  permissionMode: "default",
  transcriptPath: path.join(project, ".session", "transcript.jsonl"),
  ...overrides
})

const nothing = () => Effect.succeed({ data: "" })

export const bashTool: AnyTool = buildTool({
  name: "Bash",
  inputSchema: Schema.Struct({
    command: Schema.String,
    timeout: Schema.optional(Schema.Number),
    run_in_background: Schema.optional(Schema.Boolean)
  }),
  description: "bash",
  call: nothing,
  permissionSubject: (input: any) => ({ kind: "bash", command: input.command })
})

export const writeTool: AnyTool = buildTool({
  name: "Write",
  inputSchema: Schema.Struct({ file_path: Schema.String, content: Schema.String }),
  description: "write",
  call: nothing,
  permissionSubject: (input: any) => ({ kind: "write", path: input.file_path })
})

export const editTool: AnyTool = buildTool({
  name: "Edit",
  inputSchema: Schema.Struct({ file_path: Schema.String, old_string: Schema.String, new_string: Schema.String }),
  description: "edit",
  call: nothing,
  permissionSubject: (input: any) => ({ kind: "write", path: input.file_path })
})

export const readTool: AnyTool = buildTool({
  name: "Read",
  inputSchema: Schema.Struct({ file_path: Schema.String }),
  description: "read",
  call: nothing,
  permissionSubject: (input: any) => ({ kind: "read", path: input.file_path })
})

export const agentTool: AnyTool = buildTool({
  name: "Agent",
  aliases: ["Task"],
  inputSchema: Schema.Struct({
    prompt: Schema.String,
    subagent_type: Schema.String,
    model: Schema.optional(Schema.String)
  }),
  description: "agent",
  call: nothing,
  permissionSubject: (input: any) => ({ kind: "agent", agentType: input.subagent_type })
})

export const notebookEditTool: AnyTool = buildTool({
  name: "NotebookEdit",
  inputSchema: Schema.Struct({ notebook_path: Schema.String }),
  description: "notebook",
  call: nothing,
  permissionSubject: (input: any) => ({ kind: "write", path: input.notebook_path })
})

export const webFetchTool: AnyTool = buildTool({
  name: "WebFetch",
  inputSchema: Schema.Struct({ url: Schema.String, prompt: Schema.String }),
  description: "fetch",
  call: nothing,
  permissionSubject: (input: any) => ({ kind: "url", url: input.url })
})

export const mcpTool: AnyTool = buildTool({
  name: "mcp__memory__create_entities",
  inputSchema: Schema.Struct({ entities: Schema.Array(Schema.String) }),
  description: "mcp",
  call: nothing,
  mcp: { serverName: "memory", toolName: "create_entities", source: "project" }
})

export interface SourceSpec {
  readonly source?: RuleSource
  readonly settings: Record<string, unknown>
}

/** A Hooks layer reading `hooks` from the given settings objects (highest precedence first). */
export const hooksLayer = (
  project: string,
  sources: ReadonlyArray<SourceSpec>,
  inProcess?: ReadonlyArray<Hooks.InProcessHook>
) => {
  const settings = Settings.layerStatic({
    cwd: project,
    sources: sources.map((s, i) => ({
      source: s.source ?? "projectSettings",
      file: path.join(project, `settings-${i}.json`),
      root: project,
      settings: s.settings
    }))
  })
  const hooks = inProcess === undefined ? Hooks.layer : Hooks.layerWithInProcess(inProcess)
  return hooks.pipe(Layer.provide(Layer.merge(settings, layerSharedShellAnalyzer)))
}

/** `{ hooks: { <event>: [{ matcher, hooks: [...handlers] }] } }` */
export const hooksSettings = (
  event: Hooks.HookEvent,
  matcher: string | undefined,
  handlers: ReadonlyArray<Record<string, unknown>>
) => ({
  hooks: { [event]: [{ ...(matcher === undefined ? {} : { matcher }), hooks: handlers }] }
})

export const cmd = (command: string, extra: Record<string, unknown> = {}) => ({ type: "command", command, ...extra })

/** Runs PreToolUse once with a fresh Hooks layer. */
export const preToolUse = (
  project: string,
  sources: ReadonlyArray<SourceSpec>,
  tool: AnyTool,
  toolInput: unknown,
  options: { readonly session?: SessionContext; readonly inProcess?: ReadonlyArray<Hooks.InProcessHook> } = {}
) =>
  Effect.gen(function*() {
    const hooks = yield* Hooks.Hooks
    return yield* hooks.preToolUse({
      tool,
      toolInput,
      toolUseId: "toolu_01",
      session: options.session ?? sessionFor(project)
    })
  }).pipe(Effect.provide(hooksLayer(project, sources, options.inProcess)))

/** True when a pid no longer names a live process (a zombie counts as gone). */
export const isGone = (pid: number | PidRecord): boolean => !isRecordAlive(typeof pid === "number" ? { pid } : pid)

/** The pids hang.sh recorded: the hook's shell, then its child. */
export const readHangPids = (file: string): ReadonlyArray<PidRecord> => readPidRecords(file)

/** Waits (bounded) until a killed process has really terminated; SIGKILL delivery is asynchronous. */
export const waitGone = (pid: number | PidRecord) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100 && !isGone(pid); i++) yield* Effect.sleep("50 millis")
    return isGone(pid)
  })

export const readJson = (file: string): any => JSON.parse(fs.readFileSync(file, "utf8"))
