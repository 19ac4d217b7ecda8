/**
 * A real project on disk for permission tests: a git repository with settings files, a fake
 * home with user settings, managed settings, symlinks, and small fake tools that declare the
 * permission subjects the real tools do.
 */
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { buildTool, type AnyTool } from "../../../src/Tool.js"
import type { SessionContext } from "../../../src/Session.js"
import type { Decision, PermissionMode } from "../../../src/Permission.js"
import * as FileState from "../../../src/services/FileState.js"
import * as Permissions from "../../../src/services/Permissions.js"
import * as Settings from "../../../src/services/Settings.js"
import { layerSharedShellAnalyzer } from "../../support/shellAnalyzer.js"
import * as Permission from "../../../src/Permission.js"

export interface Fixture {
  readonly root: string
  readonly home: string
  readonly proj: string
  readonly outside: string
  readonly extra: string
  readonly managed: string
  readonly userConfigDir: string
  readonly p: (...parts: ReadonlyArray<string>) => string
  readonly cleanup: () => void
}

const write = (file: string, content: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, content)
}

export const makeFixture = (): Fixture => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-perm-")))
  const home = path.join(root, "home")
  const proj = path.join(root, "proj")
  const outside = path.join(root, "outside")
  const extra = path.join(root, "extra")
  const managed = path.join(root, "managed")
  const p = (...parts: ReadonlyArray<string>) => path.join(proj, ...parts)
  for (const dir of [home, proj, outside, extra, managed]) fs.mkdirSync(dir, { recursive: true })
  execFileSync("git", ["init", "-q", proj])
  write(p("src", "a.ts"), "a")
  write(p("src", "components", "b.ts"), "b")
  write(p("lib", "src", "c.ts"), "c")
  write(p("docs", "readme.md"), "docs")
  write(p(".env"), "SECRET=1")
  write(p("config", ".env"), "SECRET=2")
  write(p(".env.example"), "SECRET=")
  write(p("migrations", "001.sql"), "sql")
  write(p("packages", "api", "src", "index.ts"), "api")
  write(p("notes.txt"), "notes")
  write(p("nb.ipynb"), "{}")
  write(p(".vscode", "settings.json"), "{}")
  write(p(".claude", "worktrees", "w1", "file.txt"), "w")
  write(p(".husky", "pre-commit"), "#!/bin/sh")
  write(path.join(home, ".bashrc"), "# rc")
  write(path.join(home, "secrets", "key"), "key")
  write(path.join(home, "notes", "todo.md"), "todo")
  write(path.join(outside, "file.txt"), "outside")
  write(path.join(outside, ".env"), "OUTSIDE=1")
  write(p("docs", "a(1).md"), "paren")
  write(path.join(root, "flag", "data", "x.txt"), "flag data")
  write(path.join(outside, "secrets", "token"), "token")
  write(path.join(extra, "data.csv"), "1,2")
  write(path.join(root, "proj-evil", "x.txt"), "evil")
  fs.symlinkSync(outside, p("link-outside"))
  fs.symlinkSync(path.join(home, "secrets", "key"), p("link-secret"))
  fs.symlinkSync(path.join(outside, "not-yet.txt"), p("dangling"))
  fs.symlinkSync(p("src"), p("src-link"))
  return {
    root,
    home,
    proj,
    outside,
    extra,
    managed,
    userConfigDir: path.join(home, ".claude"),
    p,
    cleanup: () => fs.rmSync(root, { recursive: true, force: true })
  }
}

export interface SettingsFiles {
  readonly managed?: unknown
  readonly managedDropIns?: Readonly<Record<string, unknown>>
  readonly flag?: unknown
  readonly local?: unknown
  readonly project?: unknown
  readonly user?: unknown
}

const writeJson = (file: string, value: unknown) =>
  write(file, typeof value === "string" ? value : JSON.stringify(value))

/** Writes exactly these settings files (removing any earlier ones); returns the `--settings` path, if any. */
export const writeSettings = (fx: Fixture, files: SettingsFiles): string | undefined => {
  const targets = {
    managed: path.join(fx.managed, "managed-settings.json"),
    local: fx.p(".claude", "settings.local.json"),
    project: fx.p(".claude", "settings.json"),
    user: path.join(fx.userConfigDir, "settings.json"),
    flag: path.join(fx.root, "flag", "flag-settings.json")
  }
  for (const file of Object.values(targets)) fs.rmSync(file, { force: true })
  fs.rmSync(path.join(fx.managed, "managed-settings.d"), { recursive: true, force: true })
  if (files.managed !== undefined) writeJson(targets.managed, files.managed)
  for (const [name, value] of Object.entries(files.managedDropIns ?? {})) {
    writeJson(path.join(fx.managed, "managed-settings.d", name), value)
  }
  if (files.local !== undefined) writeJson(targets.local, files.local)
  if (files.project !== undefined) writeJson(targets.project, files.project)
  if (files.user !== undefined) writeJson(targets.user, files.user)
  if (files.flag !== undefined) {
    writeJson(targets.flag, files.flag)
    return targets.flag
  }
  return undefined
}

export const settingsOptions = (
  fx: Fixture,
  extra: Partial<Settings.SettingsOptions> = {}
): Settings.SettingsOptions => ({
  cwd: fx.proj,
  home: fx.home,
  userConfigDir: fx.userConfigDir,
  managedDir: fx.managed,
  ...extra
})

export const session = (fx: Fixture, mode: PermissionMode, extra: Partial<SessionContext> = {}): SessionContext => ({
  sessionId: "test",
  sessionDir: path.join(fx.root, "session"),
  projectDir: fx.proj,
  cwd: fx.proj,
  additionalDirectories: [],
  permissionMode: mode,
  ...extra
})

const layerOver = (options: Settings.SettingsOptions) =>
  Permissions.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(Settings.layer(options), FileState.layer, layerSharedShellAnalyzer))
  )

type SessionOf = SessionContext | ((loaded: Settings.LoadedSettings) => SessionContext)

const decision = (tool: AnyTool, input: unknown, sessionContext: SessionOf) =>
  Effect.gen(function*() {
    const settings = yield* Settings.Settings
    const loaded = yield* settings.current
    const permissions = yield* Permissions.Permissions
    const base = typeof sessionContext === "function" ? sessionContext(loaded) : sessionContext
    const session = { ...base, additionalDirectories: [...base.additionalDirectories, ...loaded.additionalDirectories] }
    const decision = yield* permissions.decide({ tool, input, session })
    return { decision, loaded, session }
  })

/** Runs `Permissions.decide` through its real layer, with settings loaded from the fixture's files. */
export const decide = (
  options: Settings.SettingsOptions,
  tool: AnyTool,
  input: unknown,
  sessionContext: SessionOf
): Promise<
  { readonly decision: Decision; readonly loaded: Settings.LoadedSettings; readonly session: SessionContext }
> => Effect.runPromise(decision(tool, input, sessionContext).pipe(Effect.provide(layerOver(options))))

/** Many decisions over settings that do not change: the layer is built once. */
export interface Decider {
  readonly decide: (tool: AnyTool, input: unknown, session: SessionContext) => Promise<Decision>
  readonly dispose: () => Promise<void>
}

export const makeDecider = (options: Settings.SettingsOptions): Decider => {
  const runtime = ManagedRuntime.make(layerOver(options))
  return {
    decide: (tool, input, session) =>
      runtime.runPromise(decision(tool, input, session).pipe(Effect.map((d) => d.decision))),
    dispose: () => runtime.dispose()
  }
}

/** Replaces `{p}` `{o}` `{h}` `{e}` `{r}` with the fixture's directories (in rules and paths). */
export const fill = (fx: Fixture, text: string): string =>
  text.replace(
    /\{([pohers])\}/g,
    (_, key: string) =>
      key === "p"
        ? fx.proj
        : key === "o"
        ? fx.outside
        : key === "h"
        ? fx.home
        : key === "e"
        ? fx.extra
        : key === "r"
        ? fx.root
        : fx.p("src")
  )

export const fillDeep = <T>(fx: Fixture, value: T): T =>
  typeof value === "string"
    ? (fill(fx, value) as T)
    : Array.isArray(value)
    ? (value.map((v) => fillDeep(fx, v)) as T)
    : value !== null && typeof value === "object"
    ? (Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(fx, v)])) as T)
    : value

// --- fake tools declaring the subjects of the real ones ---------------------------------------

const noop = () => Effect.succeed({ data: "ok" })

const EditInput = Schema.Struct({ file_path: Schema.String, old_string: Schema.String, new_string: Schema.String })

export const ReadTool = buildTool({
  name: "Read",
  inputSchema: Schema.Struct({ file_path: Schema.String, offset: Schema.optional(Schema.Number) }),
  description: "read",
  isReadOnly: () => true,
  permissionSubject: (input) => ({ kind: "read", path: input.file_path }),
  call: noop
})

export const GrepTool = buildTool({
  name: "Grep",
  inputSchema: Schema.Struct({ pattern: Schema.String, path: Schema.String }),
  description: "grep",
  permissionSubject: (input) => ({ kind: "read", path: input.path }),
  call: noop
})

export const GlobTool = buildTool({
  name: "Glob",
  inputSchema: Schema.Struct({ pattern: Schema.String, path: Schema.String }),
  description: "glob",
  permissionSubject: (input) => ({ kind: "read", path: input.path }),
  call: noop
})

export const EditTool = buildTool({
  name: "Edit",
  inputSchema: EditInput,
  description: "edit",
  permissionSubject: (input) => ({ kind: "write", path: input.file_path }),
  call: noop
})

export const WriteTool = buildTool({
  name: "Write",
  inputSchema: Schema.Struct({ file_path: Schema.String, content: Schema.String }),
  description: "write",
  permissionSubject: (input) => ({ kind: "write", path: input.file_path }),
  call: noop
})

export const NotebookEditTool = buildTool({
  name: "NotebookEdit",
  inputSchema: Schema.Struct({ notebook_path: Schema.String, new_source: Schema.String }),
  description: "notebook",
  permissionSubject: (input) => ({ kind: "write", path: input.notebook_path }),
  call: noop
})

export const WebFetchTool = buildTool({
  name: "WebFetch",
  inputSchema: Schema.Struct({ url: Schema.String, prompt: Schema.String }),
  description: "fetch",
  permissionSubject: (input) => ({ kind: "url", url: input.url }),
  call: noop
})

export const WebSearchTool = buildTool({
  name: "WebSearch",
  inputSchema: Schema.Struct({ query: Schema.String }),
  description: "search",
  call: noop
})

export const AgentTool = buildTool({
  name: "Agent",
  aliases: ["Task"],
  inputSchema: Schema.Struct({
    description: Schema.String,
    prompt: Schema.String,
    subagent_type: Schema.optional(Schema.String),
    model: Schema.optional(Schema.String),
    isolation: Schema.optional(Schema.String)
  }),
  description: "agent",
  permissionSubject: (input) => ({ kind: "agent", agentType: input.subagent_type ?? "general-purpose" }),
  call: noop
})

export const SkillTool = buildTool({
  name: "Skill",
  inputSchema: Schema.Struct({ skill: Schema.String, args: Schema.optional(Schema.String) }),
  description: "skill",
  permissionSubject: (
    input
  ) => (input.args === undefined
    ? { kind: "skill", name: input.skill }
    : { kind: "skill", name: input.skill, args: input.args }),
  call: noop
})

export const BashTool = buildTool({
  name: "Bash",
  inputSchema: Schema.Struct({
    command: Schema.String,
    timeout: Schema.optional(Schema.Number),
    run_in_background: Schema.optional(Schema.Boolean)
  }),
  description: "bash",
  permissionSubject: (input) => ({ kind: "bash", command: input.command }),
  call: noop
})

export const TodoWriteTool = buildTool({
  name: "TodoWrite",
  inputSchema: Schema.Struct({ todos: Schema.Array(Schema.String) }),
  description: "todo",
  checkPermissions: () => Effect.succeed(Permission.allow()),
  call: noop
})

export const ExitPlanModeTool = buildTool({
  name: "ExitPlanMode",
  inputSchema: Schema.Struct({}),
  description: "exit plan",
  call: noop
})

export const AskUserQuestionTool = buildTool({
  name: "AskUserQuestion",
  inputSchema: Schema.Struct({ question: Schema.String }),
  description: "ask",
  requiresUserInteraction: true,
  checkPermissions: () => Effect.succeed(Permission.allow()),
  call: noop
})

export const TaskStopTool = buildTool({
  name: "TaskStop",
  inputSchema: Schema.Struct({ task_id: Schema.String }),
  description: "stop",
  call: noop
})

export const TaskOutputTool = buildTool({
  name: "TaskOutput",
  inputSchema: Schema.Struct({ task_id: Schema.String }),
  description: "output",
  call: noop
})

export const mcpTool = (server: string, tool: string, requiresUserInteraction = false): AnyTool =>
  buildTool({
    name: `mcp__${server}__${tool}`,
    inputSchema: Schema.Struct({ q: Schema.optional(Schema.String) }),
    description: "mcp",
    mcp: { serverName: server, toolName: tool },
    requiresUserInteraction,
    call: noop
  })
