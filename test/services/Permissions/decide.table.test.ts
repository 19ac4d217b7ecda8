/**
 * Table of permission decisions drawn from claude-code-spec §1, each case citing its section.
 * Every case goes through the real Permissions layer with Settings loaded from real files in a
 * temporary project (a git repository), a fake home and a managed-settings directory.
 * Tokens in rules and paths: {p} project, {o} outside dir, {h} home, {e} extra dir, {r} temp root.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AnyTool } from "../../../src/Tool.js"
import type { SettingsOptions } from "../../../src/services/Settings.js"
import type { PermissionMode, RuleSource } from "../../../src/Permission.js"
import { explainDecision } from "../../../src/cli/permissionsCheck.js"
import * as F from "./fixture.js"
import * as Permission from "../../../src/Permission.js"

interface Case {
  readonly spec: string
  readonly name: string
  readonly files?: F.SettingsFiles
  /** Settings options; `trustProject` defaults to true. `flag: true` passes the flag file as --settings. */
  readonly options?: Partial<SettingsOptions>
  /** Session mode; "settings" takes the mode the settings resolved. */
  readonly mode?: PermissionMode | "settings"
  readonly tool: AnyTool
  readonly input: unknown
  readonly expect: "allow" | "ask" | "deny"
  readonly forced?: boolean
  /** The outcome after the mode's part (dontAsk turns an ask into a deny). */
  readonly final?: "allow" | "ask" | "deny"
  readonly rule?: string
  readonly source?: RuleSource
  readonly message?: string | RegExp
  readonly reasonType?: string
  readonly suggestion?: string
  readonly warning?: RegExp
  readonly settingsMode?: PermissionMode
}

const R = (path: string) => ({ file_path: path })
const E = (path: string) => ({ file_path: path, old_string: "a", new_string: "b" })
const W = (path: string) => ({ file_path: path, content: "x" })
const NB = (path: string) => ({ notebook_path: path, new_source: "x" })
const G = (path: string) => ({ pattern: "*", path })
const URL_ = (url: string) => ({ url, prompt: "summarise" })
const AG = (type?: string, extra: Record<string, unknown> = {}) => ({
  description: "d",
  prompt: "p",
  ...(type === undefined ? {} : { subagent_type: type }),
  ...extra
})
const SK = (skill: string, args?: string) => (args === undefined ? { skill } : { skill, args })
const perms = (p: Record<string, unknown>) => ({ permissions: p })

const github = F.mcpTool("github", "get_issue")
const githubCreate = F.mcpTool("github", "create_issue")
const gitlab = F.mcpTool("gitlab", "get_issue")
const interactiveMcp = F.mcpTool("approvals", "confirm", true)

const cases: ReadonlyArray<Case> = [
  // ---------------------------------------------------------------- §1.1 sources and precedence
  {
    spec: "§1.1",
    name: "user allow applies",
    files: { user: perms({ allow: ["Read(/{o}/**)"] }) },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "allow",
    source: "userSettings"
  },
  {
    spec: "§1.1",
    name: "project deny beats user allow",
    files: { user: perms({ allow: ["Edit(src/**)"] }), project: perms({ deny: ["Edit(src/**)"] }) },
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "deny",
    source: "projectSettings"
  },
  {
    spec: "§1.1",
    name: "user deny blocks project allow",
    files: { user: perms({ deny: ["Edit(src/a.ts)"] }), project: perms({ allow: ["Edit(src/**)"] }) },
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "deny",
    source: "userSettings"
  },
  {
    spec: "§1.1",
    name: "managed deny beats --allowedTools",
    files: { managed: perms({ deny: ["WebSearch"] }) },
    options: { allowedTools: ["WebSearch"] },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "deny",
    source: "policySettings"
  },
  {
    spec: "§1.1",
    name: "ask anywhere beats allow anywhere",
    files: { local: perms({ ask: ["Edit(src/**)"] }), managed: perms({ allow: ["Edit(src/**)"] }) },
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    forced: true,
    source: "localSettings"
  },
  {
    spec: "§1.1",
    name: "--settings file deny",
    files: { flag: perms({ deny: ["Read(docs/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/docs/readme.md"),
    expect: "deny",
    source: "flagSettings"
  },
  {
    spec: "§1.1",
    name: "--settings inline JSON deny",
    options: { settings: ["{\"permissions\":{\"deny\":[\"WebSearch\"]}}"] },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "deny",
    source: "flagSettings"
  },
  {
    spec: "§1.1",
    name: "--disallowedTools denies",
    options: { disallowedTools: ["WebSearch"] },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "deny",
    source: "cliArg"
  },
  {
    spec: "§1.1",
    name: "--allowedTools allows",
    options: { allowedTools: ["WebSearch"] },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow",
    source: "cliArg"
  },
  {
    spec: "§1.1",
    name: "--allowedTools list with parentheses and commas",
    options: { allowedTools: ["Read(/{o}/**),WebSearch"] },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow",
    source: "cliArg"
  },
  {
    spec: "§1.1",
    name: "local settings allow",
    files: { local: perms({ allow: ["WebSearch"] }) },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow",
    source: "localSettings"
  },
  {
    spec: "§1.1",
    name: "managed-settings.d drop-in deny",
    files: { managedDropIns: { "10-web.json": perms({ deny: ["WebSearch"] }) } },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "deny",
    source: "policySettings"
  },
  {
    spec: "§1.1",
    name: "managed file and drop-in rules merge",
    files: { managed: perms({ allow: ["WebSearch"] }), managedDropIns: { "20.json": perms({ ask: ["WebSearch"] }) } },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.1",
    name: "rule arrays merge: allow in user, allow in local both apply",
    files: { user: perms({ allow: ["WebSearch"] }), local: perms({ allow: ["Read(/{o}/**)"] }) },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "allow",
    source: "localSettings"
  },
  {
    spec: "§1.1 trust",
    name: "untrusted project allow rules are skipped",
    files: { project: perms({ allow: ["WebSearch"] }) },
    options: { trustProject: false },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: false,
    warning: /not trusted/
  },
  {
    spec: "§1.1 trust",
    name: "untrusted project deny rules apply",
    files: { project: perms({ deny: ["WebSearch"] }) },
    options: { trustProject: false },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "deny",
    source: "projectSettings"
  },
  {
    spec: "§1.1 trust",
    name: "untrusted project ask rules apply",
    files: { project: perms({ ask: ["WebSearch"] }) },
    options: { trustProject: false },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.1 trust",
    name: "untrusted project additionalDirectories are skipped",
    files: { project: perms({ additionalDirectories: ["{o}"] }) },
    options: { trustProject: false },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "ask",
    warning: /additionalDirectories ignored/
  },
  {
    spec: "§1.1 trust",
    name: "trusted project additionalDirectories apply",
    files: { project: perms({ additionalDirectories: ["{o}"] }) },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "allow",
    reasonType: "workingDirectory"
  },
  {
    spec: "§1.1 trust",
    name: "untracked local settings allow rules apply untrusted",
    files: { local: perms({ allow: ["WebSearch"] }) },
    options: { trustProject: false },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow",
    source: "localSettings"
  },
  {
    spec: "§1.1 trust",
    name: "user allow rules apply untrusted",
    files: { user: perms({ allow: ["WebSearch"] }) },
    options: { trustProject: false },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow",
    source: "userSettings"
  },
  {
    spec: "§1.1 managed-only",
    name: "allowManagedPermissionRulesOnly ignores user allow",
    files: { managed: { allowManagedPermissionRulesOnly: true }, user: perms({ allow: ["WebSearch"] }) },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.1 managed-only",
    name: "allowManagedPermissionRulesOnly ignores --allowedTools",
    files: { managed: { allowManagedPermissionRulesOnly: true } },
    options: { allowedTools: ["WebSearch"] },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask"
  },
  {
    spec: "§1.1 managed-only",
    name: "allowManagedPermissionRulesOnly keeps managed allow",
    files: {
      managed: { allowManagedPermissionRulesOnly: true, permissions: { allow: ["WebSearch"] } },
      user: perms({ deny: ["WebSearch"] })
    },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow",
    source: "policySettings"
  },
  {
    spec: "§1.1 managed-only",
    name: "allowManagedPermissionRulesOnly outside managed has no effect",
    files: { user: { allowManagedPermissionRulesOnly: true, permissions: { allow: ["WebSearch"] } } },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow",
    source: "userSettings"
  },
  {
    spec: "§1.1 managed-only",
    name: "allowManagedPermissionRulesOnly ignores project allow too",
    files: { managed: { allowManagedPermissionRulesOnly: true }, project: perms({ allow: ["Read(/{o}/**)"] }) },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "ask"
  },
  {
    spec: "§1.1 managed-only",
    name: "allowManagedPermissionRulesOnly keeps --disallowedTools",
    files: { managed: { allowManagedPermissionRulesOnly: true, permissions: { allow: ["WebSearch"] } } },
    options: { disallowedTools: ["WebSearch"] },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "deny",
    source: "cliArg"
  },

  // ---------------------------------------------------------------- §1.2 defaultMode and scalars
  {
    spec: "§1.2",
    name: "user defaultMode acceptEdits accepts edits",
    files: { user: perms({ defaultMode: "acceptEdits" }) },
    mode: "settings",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "allow",
    settingsMode: "acceptEdits"
  },
  {
    spec: "§1.2",
    name: "project defaultMode beats user defaultMode",
    files: { user: perms({ defaultMode: "acceptEdits" }), project: perms({ defaultMode: "plan" }) },
    mode: "settings",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    forced: true,
    settingsMode: "plan"
  },
  {
    spec: "§1.2",
    name: "defaultMode auto is ignored from project settings",
    files: { user: perms({ defaultMode: "acceptEdits" }), project: perms({ defaultMode: "auto" }) },
    mode: "settings",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "allow",
    settingsMode: "acceptEdits",
    warning: /auto/
  },
  {
    spec: "§1.2",
    name: "defaultMode auto is ignored from local settings",
    files: { local: perms({ defaultMode: "auto" }) },
    mode: "settings",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    settingsMode: "default"
  },
  {
    spec: "§1.2",
    name: "defaultMode auto from user settings is kept (behaves like default)",
    files: { user: perms({ defaultMode: "auto" }) },
    mode: "settings",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    forced: false,
    settingsMode: "auto"
  },
  {
    spec: "§1.2",
    name: "manual is an alias of default",
    files: { local: perms({ defaultMode: "manual" }), user: perms({ defaultMode: "acceptEdits" }) },
    mode: "settings",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    settingsMode: "default"
  },
  {
    spec: "§1.11",
    name: "--permission-mode overrides defaultMode",
    files: { project: perms({ defaultMode: "plan" }) },
    options: { permissionMode: "acceptEdits" },
    mode: "settings",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "allow",
    settingsMode: "acceptEdits"
  },
  {
    spec: "§1.2",
    name: "disableBypassPermissionsMode drops defaultMode bypass",
    files: {
      managed: perms({ disableBypassPermissionsMode: "disable" }),
      user: perms({ defaultMode: "bypassPermissions" })
    },
    mode: "settings",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    settingsMode: "default"
  },
  {
    spec: "§1.2",
    name: "disableBypassPermissionsMode from any file disables a bypass session",
    files: { project: perms({ disableBypassPermissionsMode: "disable" }) },
    mode: "bypassPermissions",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.2",
    name: "managed defaultMode beats user defaultMode",
    files: { managed: perms({ defaultMode: "plan" }), user: perms({ defaultMode: "bypassPermissions" }) },
    mode: "settings",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    settingsMode: "plan"
  },

  // ---------------------------------------------------------------- §1.7 `/` anchor by source
  {
    spec: "§1.7 anchors",
    name: "project `/src/**` anchors at the project root",
    files: { project: perms({ allow: ["Edit(/src/**)"] }) },
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "allow",
    rule: "Edit(/src/**)"
  },
  {
    spec: "§1.7 anchors",
    name: "project `/src/**` does not match a nested src",
    files: { project: perms({ allow: ["Edit(/src/**)"] }) },
    tool: F.EditTool,
    input: E("{p}/lib/src/c.ts"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.7 anchors",
    name: "user `/secrets/**` anchors at ~/.claude, not home",
    files: { user: perms({ deny: ["Read(/secrets/**)"] }) },
    tool: F.ReadTool,
    input: R("{h}/secrets/key"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.7 anchors",
    name: "user `/secrets/**` denies under ~/.claude",
    files: { user: perms({ deny: ["Read(/secrets/**)"] }) },
    tool: F.ReadTool,
    input: R("{h}/.claude/secrets/x"),
    expect: "deny"
  },
  {
    spec: "§1.7 anchors",
    name: "--settings file `/data/**` anchors at the file's directory",
    files: { flag: perms({ deny: ["Read(/data/**)"] }) },
    options: { addDirs: ["{r}/flag"] },
    tool: F.ReadTool,
    input: R("{r}/flag/data/x.txt"),
    expect: "deny",
    source: "flagSettings"
  },
  {
    spec: "§1.7 anchors",
    name: "local `/docs/**` anchors at the original cwd",
    files: { local: perms({ deny: ["Read(/docs/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/docs/readme.md"),
    expect: "deny",
    source: "localSettings"
  },
  {
    spec: "§1.7 anchors",
    name: "--allowedTools `/src/**` anchors at the original cwd",
    options: { allowedTools: ["Edit(/src/**)"] },
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "allow",
    source: "cliArg"
  },
  {
    spec: "§1.7 anchors",
    name: "a single leading `/` is not absolute",
    files: { project: perms({ deny: ["Read(/{o}/**)".replace("/{o}", "{o}")] }) },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.7 anchors",
    name: "`//` is the filesystem root",
    files: { project: perms({ deny: ["Read(/{o}/secrets/**)"] }) },
    tool: F.ReadTool,
    input: R("{o}/secrets/token"),
    expect: "deny"
  },
  {
    spec: "§1.7 anchors",
    name: "`~/` is the home directory (deny)",
    files: { project: perms({ deny: ["Read(~/secrets/**)"] }) },
    tool: F.ReadTool,
    input: R("{h}/secrets/key"),
    expect: "deny"
  },
  {
    spec: "§1.7 anchors",
    name: "`~/` is the home directory (allow)",
    files: { user: perms({ allow: ["Read(~/notes/**)"] }) },
    tool: F.ReadTool,
    input: R("{h}/notes/todo.md"),
    expect: "allow"
  },
  {
    spec: "§1.7 anchors",
    name: "relative pattern is relative to the cwd",
    files: { project: perms({ deny: ["Read(docs/*.md)"] }) },
    tool: F.ReadTool,
    input: R("{p}/docs/readme.md"),
    expect: "deny"
  },
  {
    spec: "§1.7 anchors",
    name: "`./` pattern is relative to the cwd",
    files: { project: perms({ deny: ["Read(./docs/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/docs/readme.md"),
    expect: "deny"
  },
  {
    spec: "§1.7 anchors",
    name: "`*` stays within a segment",
    files: { project: perms({ deny: ["Read(/packages/*/index.ts)"] }) },
    tool: F.ReadTool,
    input: R("{p}/packages/api/src/index.ts"),
    expect: "allow"
  },
  {
    spec: "§1.7 anchors",
    name: "`**` crosses segments",
    files: { project: perms({ deny: ["Read(/packages/**/index.ts)"] }) },
    tool: F.ReadTool,
    input: R("{p}/packages/api/src/index.ts"),
    expect: "deny"
  },

  // ---------------------------------------------------------------- §1.7 asymmetries
  {
    spec: "§1.7",
    name: "bare file name matches at the root",
    files: { project: perms({ deny: ["Read(.env)"] }) },
    tool: F.ReadTool,
    input: R("{p}/.env"),
    expect: "deny",
    message: /^Permission to read .*\/proj\/\.env has been denied\.$/
  },
  {
    spec: "§1.7",
    name: "bare file name matches at any depth",
    files: { project: perms({ deny: ["Read(.env)"] }) },
    tool: F.ReadTool,
    input: R("{p}/config/.env"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "bare file name does not match .env.example",
    files: { project: perms({ deny: ["Read(.env)"] }) },
    tool: F.ReadTool,
    input: R("{p}/.env.example"),
    expect: "allow"
  },
  {
    spec: "§1.7",
    name: "bare file name does not reach parents of the cwd",
    files: { project: perms({ deny: ["Read(.env)"] }) },
    tool: F.ReadTool,
    input: R("{o}/.env"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.7",
    name: "single-segment dir deny matches at any depth",
    files: { project: perms({ deny: ["Read(src/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/lib/src/c.ts"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "single-segment dir deny matches at the cwd",
    files: { project: perms({ deny: ["Read(src/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "single-segment dir ask matches at any depth",
    files: { project: perms({ ask: ["Read(src/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/packages/api/src/index.ts"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.7",
    name: "single-segment dir allow matches only <cwd>/src",
    files: { project: perms({ allow: ["Edit(src/**)"] }) },
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "allow"
  },
  {
    spec: "§1.7",
    name: "single-segment dir allow does not match a nested src",
    files: { project: perms({ allow: ["Edit(src/**)"] }) },
    tool: F.EditTool,
    input: E("{p}/lib/src/c.ts"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.7",
    name: "anchored `/src/**` deny only at its anchor",
    files: { project: perms({ deny: ["Read(/src/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/lib/src/c.ts"),
    expect: "allow"
  },
  {
    spec: "§1.7",
    name: "multi-segment `src/components/**` deny only at its anchor",
    files: { project: perms({ deny: ["Read(src/components/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/src/components/b.ts"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "multi-segment deny leaves the parent alone",
    files: { project: perms({ deny: ["Read(src/components/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "allow"
  },
  {
    spec: "§1.7",
    name: "`**/src/**` matches everywhere",
    files: { project: perms({ deny: ["Read(**/src/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/packages/api/src/index.ts"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "Edit allow also grants read",
    files: { user: perms({ allow: ["Edit(/{o}/**)"] }) },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "allow",
    rule: "Edit(/{o}/**)"
  },
  {
    spec: "§1.7",
    name: "bare Edit allow also grants read",
    files: { user: perms({ allow: ["Edit"] }) },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "allow"
  },
  {
    spec: "§1.7",
    name: "Read allow does not grant edit",
    files: { user: perms({ allow: ["Read(/{o}/**)"] }) },
    mode: "acceptEdits",
    tool: F.EditTool,
    input: E("{o}/file.txt"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.7",
    name: "Read deny blocks Edit",
    files: { project: perms({ deny: ["Read(.env)"] }) },
    mode: "acceptEdits",
    tool: F.EditTool,
    input: E("{p}/.env"),
    expect: "deny",
    message: /^Permission to edit .*\.env has been denied\.$/
  },
  {
    spec: "§1.7",
    name: "Read deny blocks Write",
    files: { project: perms({ deny: ["Read(.env)"] }) },
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.env"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "Read deny blocks creating the file",
    files: { project: perms({ deny: ["Read(.env)"] }) },
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/newdir/deeper/.env"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "Read deny does not cover NotebookEdit",
    files: { project: perms({ deny: ["Read(nb.ipynb)"] }) },
    mode: "acceptEdits",
    tool: F.NotebookEditTool,
    input: NB("{p}/nb.ipynb"),
    expect: "allow"
  },
  {
    spec: "§1.7",
    name: "Edit deny does not block Read",
    files: { project: perms({ deny: ["Edit(docs/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/docs/readme.md"),
    expect: "allow"
  },
  {
    spec: "§1.7",
    name: "Edit deny covers Write",
    files: { project: perms({ deny: ["Edit(docs/**)"] }) },
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/docs/new.md"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "Edit deny covers NotebookEdit",
    files: { project: perms({ deny: ["Edit(*.ipynb)"] }) },
    mode: "acceptEdits",
    tool: F.NotebookEditTool,
    input: NB("{p}/nb.ipynb"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "Read deny covers Grep on the directory itself",
    files: { project: perms({ deny: ["Read(src/**)"] }) },
    tool: F.GrepTool,
    input: G("{p}/src"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "Read deny covers Glob under the directory",
    files: { project: perms({ deny: ["Read(/docs/**)"] }) },
    tool: F.GlobTool,
    input: G("{p}/docs"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "Glob inside the working directory is allowed",
    tool: F.GlobTool,
    input: G("{p}/src"),
    expect: "allow",
    reasonType: "workingDirectory"
  },
  {
    spec: "§1.7",
    name: "escaped parentheses in a path rule",
    files: { project: perms({ deny: ["Read(/docs/a\\(1\\).md)"] }) },
    tool: F.ReadTool,
    input: R("{p}/docs/a(1).md"),
    expect: "deny"
  },
  {
    spec: "§1.7",
    name: "Read ask rule forces a prompt inside the working directory",
    files: { project: perms({ ask: ["Read(/docs/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/docs/readme.md"),
    expect: "ask",
    forced: true,
    message: /^Claude requested permissions to read from .*\/docs\/readme\.md, but you haven't granted it yet\.$/,
    rule: "Read(/docs/**)"
  },
  {
    spec: "§1.7",
    name: "Edit ask rule forces a prompt in acceptEdits",
    files: { project: perms({ ask: ["Edit(/src/**)"] }) },
    mode: "acceptEdits",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.7",
    name: "specificity is irrelevant: broad deny beats exact allow",
    files: { project: perms({ deny: ["Read(src/**)"], allow: ["Read(src/a.ts)"] }) },
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "deny"
  },

  // ---------------------------------------------------------------- §1.7 defaults without rules
  {
    spec: "§1.7 defaults",
    name: "read inside the working directory",
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "allow",
    reasonType: "workingDirectory"
  },
  {
    spec: "§1.7 defaults",
    name: "read outside asks",
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "ask",
    forced: false,
    message: /^Claude requested permissions to read from .*\/outside\/file\.txt, but you haven't granted it yet\.$/,
    suggestion: "Read(/{o}/**)"
  },
  {
    spec: "§1.7 defaults",
    name: "write inside asks in default",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    forced: false,
    message: /^Claude requested permissions to write to .*\/src\/a\.ts, but you haven't granted it yet\.$/,
    suggestion: "Edit(/src/**)"
  },
  {
    spec: "§1.7 defaults",
    name: "write inside allowed in acceptEdits",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/src/new.ts"),
    expect: "allow",
    reasonType: "mode"
  },
  {
    spec: "§1.7 defaults",
    name: "write outside asks in acceptEdits",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{o}/new.txt"),
    expect: "ask",
    forced: false,
    suggestion: "Edit(/{o}/**)"
  },
  { spec: "§1.7 defaults", name: "Grep inside allowed", tool: F.GrepTool, input: G("{p}"), expect: "allow" },
  { spec: "§1.7 defaults", name: "Grep outside asks", tool: F.GrepTool, input: G("{o}"), expect: "ask", forced: false },
  {
    spec: "§1.7 defaults",
    name: "read of the home directory file asks, suggestion is the file only",
    tool: F.ReadTool,
    input: R("{h}/.bashrc"),
    expect: "ask",
    forced: false
  },

  // ---------------------------------------------------------------- §1.7 symlinks
  {
    spec: "§1.7 symlinks",
    name: "allow needs the target too",
    files: { project: perms({ allow: ["Read(/link-outside/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/link-outside/file.txt"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.7 symlinks",
    name: "allow of link and target allows",
    files: { project: perms({ allow: ["Read(/link-outside/**)", "Read(/{o}/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/link-outside/file.txt"),
    expect: "allow"
  },
  {
    spec: "§1.7 symlinks",
    name: "deny on the target applies through the link",
    files: { project: perms({ deny: ["Read(/{h}/secrets/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/link-secret"),
    expect: "deny"
  },
  {
    spec: "§1.7 symlinks",
    name: "deny on the link name applies",
    files: { project: perms({ deny: ["Read(/link-secret)"] }) },
    tool: F.ReadTool,
    input: R("{p}/link-secret"),
    expect: "deny"
  },
  {
    spec: "§1.7 symlinks",
    name: "link to outside is not inside the working directory",
    tool: F.ReadTool,
    input: R("{p}/link-outside/file.txt"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.7 symlinks",
    name: "link within the project stays inside",
    tool: F.ReadTool,
    input: R("{p}/src-link/a.ts"),
    expect: "allow"
  },
  {
    spec: "§1.7 symlinks",
    name: "deny through an in-project link",
    files: { project: perms({ deny: ["Read(/src/a.ts)"] }) },
    tool: F.ReadTool,
    input: R("{p}/src-link/a.ts"),
    expect: "deny"
  },
  {
    spec: "§1.7 symlinks",
    name: "dangling link to an outside target asks in acceptEdits",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/dangling"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.7 symlinks",
    name: "write through a link into a denied dir is denied",
    files: { project: perms({ deny: ["Edit(/{o}/secrets/**)"] }) },
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/link-outside/secrets/token"),
    expect: "deny"
  },

  // ---------------------------------------------------------------- §1.3 grammar
  {
    spec: "§1.3",
    name: "`Bash(*)` is the whole tool",
    files: { project: perms({ deny: ["Bash(*)"] }) },
    tool: F.BashTool,
    input: { command: "ls" },
    expect: "deny",
    message: "Permission to use Bash has been denied."
  },
  {
    spec: "§1.3",
    name: "`Bash()` is the whole tool",
    files: { project: perms({ deny: ["Bash()"] }) },
    tool: F.BashTool,
    input: { command: "ls" },
    expect: "deny"
  },
  {
    spec: "§1.3",
    name: "`WebFetch(domain:*)` is the whole tool",
    files: { project: perms({ allow: ["WebFetch(domain:*)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://anything.example/"),
    expect: "allow"
  },
  {
    spec: "§1.3 legacy",
    name: "`Task(Explore)` means Agent(Explore)",
    files: { project: perms({ deny: ["Task(Explore)"] }) },
    tool: F.AgentTool,
    input: AG("Explore"),
    expect: "deny",
    message: "Agent type 'Explore' has been denied by permission rule 'Task(Explore)' from projectSettings."
  },
  {
    spec: "§1.3 legacy",
    name: "bare `Task` denies Agent",
    files: { project: perms({ deny: ["Task"] }) },
    tool: F.AgentTool,
    input: AG("Explore"),
    expect: "deny",
    message: "Permission to use Agent has been denied."
  },
  {
    spec: "§1.3 legacy",
    name: "`KillShell` means TaskStop",
    files: { project: perms({ deny: ["KillShell"] }) },
    tool: F.TaskStopTool,
    input: { task_id: "1" },
    expect: "deny"
  },
  {
    spec: "§1.3 legacy",
    name: "`BashOutputTool` means TaskOutput",
    files: { project: perms({ deny: ["BashOutputTool"] }) },
    tool: F.TaskOutputTool,
    input: { task_id: "1" },
    expect: "deny"
  },
  {
    spec: "§1.3 legacy",
    name: "`AgentOutputTool` allow means TaskOutput",
    files: { project: perms({ allow: ["AgentOutputTool"] }) },
    tool: F.TaskOutputTool,
    input: { task_id: "1" },
    expect: "allow"
  },
  {
    spec: "§1.3",
    name: "tool names are case-sensitive",
    files: { project: perms({ deny: ["webSearch"] }) },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.3",
    name: "a Write path deny rule, which Claude Code never consults, applies as Edit",
    files: { project: perms({ deny: ["Write(/notes.txt)"] }) },
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/notes.txt"),
    expect: "deny",
    warning: /never consults; toolgate applies it as Edit\(\/notes\.txt\)/
  },
  {
    spec: "§1.3",
    name: "bare Write still matches the Write tool",
    files: { project: perms({ deny: ["Write"] }) },
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/notes.txt"),
    expect: "deny"
  },
  {
    spec: "§1.3",
    name: "NotebookEdit path allow is never consulted",
    files: { project: perms({ allow: ["NotebookEdit(/nb.ipynb)"] }) },
    tool: F.NotebookEditTool,
    input: NB("{p}/nb.ipynb"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.3",
    name: "a Glob path deny rule applies as Read",
    files: { project: perms({ deny: ["Glob(/src/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "deny",
    warning: /applies it as Read/
  },
  {
    spec: "§1.3",
    name: "MultiEdit path rule is warned about",
    files: { project: perms({ deny: ["MultiEdit(/src/**)"] }) },
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "allow",
    warning: /MultiEdit/
  },
  {
    spec: "§1.3",
    name: "empty rule is warned and ignored",
    files: { project: perms({ allow: [""] }) },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    warning: /empty/
  },

  // ---------------------------------------------------------------- §1.3 parameter rules
  {
    spec: "§1.3 params",
    name: "`Agent(model:opus)` denies that model",
    files: { project: perms({ deny: ["Agent(model:opus)"] }) },
    tool: F.AgentTool,
    input: AG("Explore", { model: "opus" }),
    expect: "deny"
  },
  {
    spec: "§1.3 params",
    name: "`Agent(model:opus)` leaves other models",
    files: { project: perms({ deny: ["Agent(model:opus)"] }) },
    tool: F.AgentTool,
    input: AG("Explore", { model: "sonnet" }),
    expect: "allow"
  },
  {
    spec: "§1.3 params",
    name: "omitted parameter never matches",
    files: { project: perms({ deny: ["Agent(model:opus)"] }) },
    tool: F.AgentTool,
    input: AG("Explore"),
    expect: "allow"
  },
  {
    spec: "§1.3 params",
    name: "wildcard in the value",
    files: { project: perms({ deny: ["Agent(model:op*)"] }) },
    tool: F.AgentTool,
    input: AG("Explore", { model: "opus" }),
    expect: "deny"
  },
  {
    spec: "§1.3 params",
    name: "exact otherwise",
    files: { project: perms({ deny: ["Agent(model:op)"] }) },
    tool: F.AgentTool,
    input: AG("Explore", { model: "opus" }),
    expect: "allow"
  },
  {
    spec: "§1.3 params",
    name: "whitespace around `:` is ignored",
    files: { project: perms({ deny: ["Agent(model : opus)"] }) },
    tool: F.AgentTool,
    input: AG("Explore", { model: "opus" }),
    expect: "deny"
  },
  {
    spec: "§1.3 params",
    name: "`Agent(isolation:worktree)` ask forces a prompt",
    files: { project: perms({ ask: ["Agent(isolation:worktree)"] }) },
    tool: F.AgentTool,
    input: AG("Explore", { isolation: "worktree" }),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.3 params",
    name: "`Bash(run_in_background:true)` deny",
    files: { project: perms({ deny: ["Bash(run_in_background:true)"] }) },
    tool: F.BashTool,
    input: { command: "sleep 1", run_in_background: true },
    expect: "deny"
  },
  {
    spec: "§1.3 params",
    name: "parameter deny applies in bypassPermissions",
    files: { project: perms({ deny: ["Bash(run_in_background:true)"] }) },
    mode: "bypassPermissions",
    tool: F.BashTool,
    input: { command: "sleep 1", run_in_background: true },
    expect: "deny"
  },
  ...["echo ${x", "echo $(echo hi", "echo \"${x\"", "echo $[1+", "echo ${x:-", "touch a; echo ${y"].map((
    command
  ): Case => ({
    spec: "§1.12 critical paths (Claude Code 2.1.332, asked)",
    name: `a $ expansion left open asks even in bypassPermissions: ${command}`,
    mode: "bypassPermissions",
    tool: F.BashTool,
    input: { command },
    expect: "ask",
    message: /^Claude Code can't be sure it read this command the way the shell will/
  })),
  ...["echo hi )", "echo <(ls", "echo a && "].map((command): Case => ({
    spec: "§1.6 compound commands (Claude Code 2.1.332, asked)",
    name: `a command that does not parse: "Parse error" (${command})`,
    files: { project: perms({ allow: ["Bash(echo:*)"] }) },
    tool: F.BashTool,
    input: { command },
    expect: "ask",
    message: "Parse error"
  })),
  {
    spec: "§1.3 params",
    name: "primary field parameter rule is ignored (Read)",
    files: { project: perms({ deny: ["Read(file_path:*)"] }) },
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "allow",
    warning: /primary field/
  },
  {
    spec: "§1.3 params",
    name: "primary field parameter rule is ignored (WebFetch url)",
    files: { project: perms({ deny: ["WebFetch(url:*)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://example.com/"),
    expect: "ask",
    forced: false,
    warning: /primary field/
  },
  {
    spec: "§1.3 params",
    name: "parameter rules are deny/ask only: allow keeps the tool's syntax",
    files: { project: perms({ allow: ["TaskStop(task_id:1)"] }) },
    tool: F.TaskStopTool,
    input: { task_id: "1" },
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.3 params",
    name: "parameter ask on a non-primary field of Read",
    files: { project: perms({ ask: ["Read(offset:*)"] }) },
    tool: F.ReadTool,
    input: { file_path: "{p}/src/a.ts", offset: 10 },
    expect: "ask",
    forced: true
  },

  // ---------------------------------------------------------------- §1.3 tool-name globs
  {
    spec: "§1.3 globs",
    name: "deny `*` removes every tool",
    files: { project: perms({ deny: ["*"] }) },
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "deny"
  },
  {
    spec: "§1.3 globs",
    name: "deny `mcp__*` denies MCP tools",
    files: { project: perms({ deny: ["mcp__*"] }) },
    tool: github,
    input: {},
    expect: "deny"
  },
  {
    spec: "§1.3 globs",
    name: "deny `mcp__*` leaves built-ins",
    files: { project: perms({ deny: ["mcp__*"] }) },
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "allow"
  },
  {
    spec: "§1.3 globs",
    name: "ask `mcp__*` forces a prompt",
    files: { project: perms({ ask: ["mcp__*"] }) },
    tool: github,
    input: {},
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.3 globs",
    name: "allow `*` is skipped",
    files: { project: perms({ allow: ["*"] }) },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: false,
    warning: /glob/
  },
  {
    spec: "§1.3 globs",
    name: "allow `B*` is skipped",
    files: { project: perms({ allow: ["B*"] }) },
    tool: F.BashTool,
    input: { command: "make build" },
    expect: "ask",
    warning: /glob/
  },
  {
    spec: "§1.3 globs",
    name: "allow `mcp__*` is skipped",
    files: { project: perms({ allow: ["mcp__*"] }) },
    tool: github,
    input: {},
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.3 globs",
    name: "allow `mcp__github__get_*` allows the subset",
    files: { project: perms({ allow: ["mcp__github__get_*"] }) },
    tool: github,
    input: {},
    expect: "allow"
  },
  {
    spec: "§1.3 globs",
    name: "allow `mcp__github__get_*` leaves other tools",
    files: { project: perms({ allow: ["mcp__github__get_*"] }) },
    tool: githubCreate,
    input: {},
    expect: "ask"
  },
  {
    spec: "§1.3 globs",
    name: "deny `mcp__github__create_*`",
    files: { project: perms({ deny: ["mcp__github__create_*"] }) },
    tool: githubCreate,
    input: {},
    expect: "deny"
  },

  // ---------------------------------------------------------------- §1.4 evaluation order
  {
    spec: "§1.4",
    name: "deny beats allow in the same file",
    files: { project: perms({ allow: ["WebSearch"], deny: ["WebSearch"] }) },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "deny",
    message: "Permission to use WebSearch has been denied."
  },
  {
    spec: "§1.4",
    name: "ask beats allow",
    files: { project: perms({ allow: ["WebSearch"], ask: ["WebSearch"] }) },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: true,
    message: "Claude requested permissions to use WebSearch, but you haven't granted it yet.",
    rule: "WebSearch"
  },
  {
    spec: "§1.4",
    name: "deny beats ask",
    files: { project: perms({ ask: ["WebSearch"] }), user: perms({ deny: ["WebSearch"] }) },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "deny"
  },
  {
    spec: "§1.4",
    name: "content deny beats whole-tool ask",
    files: { project: perms({ ask: ["Read"], deny: ["Read(.env)"] }) },
    tool: F.ReadTool,
    input: R("{p}/.env"),
    expect: "deny"
  },
  {
    spec: "§1.4",
    name: "whole-tool allow allows a read outside",
    files: { project: perms({ allow: ["Read"] }) },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "allow"
  },
  {
    spec: "§1.4",
    name: "whole-tool allow does not beat a content deny",
    files: { project: perms({ allow: ["Read"], deny: ["Read(.env)"] }) },
    tool: F.ReadTool,
    input: R("{p}/.env"),
    expect: "deny"
  },
  {
    spec: "§1.4",
    name: "a tool with no rule asks, suggesting the tool",
    tool: F.ExitPlanModeTool,
    input: {},
    expect: "ask",
    forced: false,
    message: "Claude requested permissions to use ExitPlanMode, but you haven't granted it yet.",
    suggestion: "ExitPlanMode"
  },
  {
    spec: "§1.4",
    name: "a tool whose own check allows needs no rule",
    tool: F.TodoWriteTool,
    input: { todos: [] },
    expect: "allow",
    reasonType: "tool"
  },
  {
    spec: "§1.4",
    name: "whole-tool deny beats the tool's own allow",
    files: { project: perms({ deny: ["TodoWrite"] }) },
    tool: F.TodoWriteTool,
    input: { todos: [] },
    expect: "deny"
  },
  {
    spec: "§1.4",
    name: "requiresUserInteraction asks even with an allow rule",
    files: { project: perms({ allow: ["AskUserQuestion"] }) },
    tool: F.AskUserQuestionTool,
    input: { question: "?" },
    expect: "ask",
    forced: true
  },

  // ---------------------------------------------------------------- §1.5/§1.6 Bash through the real analyzer
  {
    spec: "§1.5",
    name: "Bash deny rule denies with Claude Code's text",
    files: { project: perms({ deny: ["Bash(rm *)"] }) },
    tool: F.BashTool,
    input: { command: "rm -rf tmp" },
    expect: "deny",
    message: "Permission to use Bash with command rm -rf tmp has been denied."
  },
  {
    spec: "§1.5",
    name: "Bash deny rule sees past env assignments",
    files: { project: perms({ deny: ["Bash(rm *)"] }) },
    mode: "bypassPermissions",
    tool: F.BashTool,
    input: { command: "FOO=bar rm -rf tmp" },
    expect: "deny"
  },
  {
    spec: "§1.5",
    name: "Bash wildcard allow",
    files: { local: perms({ allow: ["Bash(npm run *)"] }) },
    tool: F.BashTool,
    input: { command: "npm run build" },
    expect: "allow",
    source: "localSettings"
  },
  {
    spec: "§1.6",
    name: "Bash allow does not cover a compound",
    files: { local: perms({ allow: ["Bash(npm run *)"] }) },
    tool: F.BashTool,
    input: { command: "npm run build && make install" },
    expect: "ask"
  },
  {
    spec: "§1.6",
    name: "read-only Bash runs in default",
    tool: F.BashTool,
    input: { command: "ls -la" },
    expect: "allow"
  },
  {
    spec: "§1.11 bypass",
    name: "bypass: plain Bash command runs",
    mode: "bypassPermissions",
    tool: F.BashTool,
    input: { command: "make build" },
    expect: "allow"
  },
  {
    spec: "§1.12 critical",
    name: "bypass: critical rm still asks",
    mode: "bypassPermissions",
    tool: F.BashTool,
    input: { command: "rm -rf /" },
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.6",
    name: "acceptEdits: redirect inside the project runs",
    mode: "acceptEdits",
    tool: F.BashTool,
    input: { command: "echo hi > out.txt" },
    expect: "allow"
  },
  {
    spec: "§1.6",
    name: "acceptEdits: redirect into .git asks",
    mode: "acceptEdits",
    tool: F.BashTool,
    input: { command: "echo hi > .git/config" },
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.6",
    name: "Edit deny applies to a redirect target",
    files: { project: perms({ deny: ["Edit(docs/**)"] }) },
    mode: "acceptEdits",
    tool: F.BashTool,
    input: { command: "echo hi > docs/x.md" },
    expect: "deny"
  },
  {
    spec: "§1.6",
    name: "Read deny applies to cat",
    files: { project: perms({ deny: ["Read(.env)"] }) },
    tool: F.BashTool,
    input: { command: "cat .env" },
    expect: "deny"
  },
  {
    spec: "§1.11 dontAsk",
    name: "dontAsk: unapproved Bash becomes a deny",
    mode: "dontAsk",
    tool: F.BashTool,
    input: { command: "make build" },
    expect: "ask",
    final: "deny"
  },

  // ---------------------------------------------------------------- §1.8 WebFetch
  {
    spec: "§1.8",
    name: "domain rule matches the host",
    files: { local: perms({ allow: ["WebFetch(domain:example.com)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://example.com/docs"),
    expect: "allow"
  },
  {
    spec: "§1.8",
    name: "domain match is case-insensitive, trailing dot ignored",
    files: { local: perms({ allow: ["WebFetch(domain:example.com)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://EXAMPLE.com./x"),
    expect: "allow"
  },
  {
    spec: "§1.8",
    name: "trailing dot on the rule side ignored",
    files: { local: perms({ allow: ["WebFetch(domain:Example.COM.)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://example.com/"),
    expect: "allow"
  },
  {
    spec: "§1.8",
    name: "exact domain does not match a subdomain",
    files: { local: perms({ allow: ["WebFetch(domain:example.com)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://docs.example.com/"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.8",
    name: "`*.example.com` matches any depth",
    files: { local: perms({ allow: ["WebFetch(domain:*.example.com)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://a.b.example.com/"),
    expect: "allow"
  },
  {
    spec: "§1.8",
    name: "`*.example.com` does not match example.com",
    files: { local: perms({ allow: ["WebFetch(domain:*.example.com)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://example.com/"),
    expect: "ask"
  },
  {
    spec: "§1.8",
    name: "`example.*` matches one label",
    files: { local: perms({ allow: ["WebFetch(domain:example.*)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://example.org/"),
    expect: "allow"
  },
  {
    spec: "§1.8",
    name: "`example.*` does not match example.evil.com",
    files: { local: perms({ allow: ["WebFetch(domain:example.*)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://example.evil.com/"),
    expect: "ask"
  },
  {
    spec: "§1.8",
    name: "`*.example.com` does not match evilexample.com",
    files: { local: perms({ allow: ["WebFetch(domain:*.example.com)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://evilexample.com/"),
    expect: "ask"
  },
  {
    spec: "§1.8",
    name: "domain deny",
    files: { project: perms({ deny: ["WebFetch(domain:evil.com)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://evil.com/x"),
    expect: "deny"
  },
  {
    spec: "§1.8",
    name: "domain ask forces a prompt",
    files: { project: perms({ ask: ["WebFetch(domain:*.corp.example)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://wiki.corp.example/"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.8",
    name: "userinfo does not fool the host check",
    files: { local: perms({ allow: ["WebFetch(domain:example.com)"] }) },
    tool: F.WebFetchTool,
    input: URL_("https://example.com@evil.com/"),
    expect: "ask"
  },
  {
    spec: "§1.8",
    name: "no rule asks with a domain suggestion",
    tool: F.WebFetchTool,
    input: URL_("https://docs.example.net/page"),
    expect: "ask",
    forced: false,
    suggestion: "WebFetch(domain:docs.example.net)"
  },
  {
    spec: "§1.8",
    name: "URL that does not parse asks (forced)",
    files: { local: perms({ allow: ["WebFetch"] }) },
    tool: F.WebFetchTool,
    input: URL_("not a url"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.8",
    name: "WebSearch bare allow",
    files: { local: perms({ allow: ["WebSearch"] }) },
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow"
  },
  {
    spec: "§1.8",
    name: "WebSearch without a rule asks",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: false,
    suggestion: "WebSearch"
  },

  // ---------------------------------------------------------------- §1.9 MCP
  {
    spec: "§1.9",
    name: "`mcp__github` covers every tool of the server",
    files: { local: perms({ allow: ["mcp__github"] }) },
    tool: githubCreate,
    input: {},
    expect: "allow"
  },
  {
    spec: "§1.9",
    name: "`mcp__github__*` covers every tool of the server",
    files: { local: perms({ allow: ["mcp__github__*"] }) },
    tool: github,
    input: {},
    expect: "allow"
  },
  {
    spec: "§1.9",
    name: "`mcp__github__get_issue` covers one tool",
    files: { local: perms({ allow: ["mcp__github__get_issue"] }) },
    tool: githubCreate,
    input: {},
    expect: "ask"
  },
  {
    spec: "§1.9",
    name: "server rule does not cover another server",
    files: { local: perms({ allow: ["mcp__github"] }) },
    tool: gitlab,
    input: {},
    expect: "ask"
  },
  {
    spec: "§1.9",
    name: "server name is not a prefix match",
    files: { local: perms({ allow: ["mcp__git"] }) },
    tool: github,
    input: {},
    expect: "ask"
  },
  {
    spec: "§1.9",
    name: "MCP tool with no rule asks, suggesting the tool",
    tool: github,
    input: {},
    expect: "ask",
    forced: false,
    suggestion: "mcp__github__get_issue"
  },
  {
    spec: "§1.9",
    name: "deny `mcp__github__*`",
    files: { user: perms({ deny: ["mcp__github__*"] }) },
    tool: github,
    input: {},
    expect: "deny"
  },
  {
    spec: "§1.9",
    name: "requiresUserInteraction prompts despite an allow rule",
    files: { local: perms({ allow: ["mcp__approvals"] }) },
    tool: interactiveMcp,
    input: {},
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.9",
    name: "requiresUserInteraction prompts in bypassPermissions",
    mode: "bypassPermissions",
    tool: interactiveMcp,
    input: {},
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.9",
    name: "requiresUserInteraction prompts in acceptEdits",
    mode: "acceptEdits",
    tool: interactiveMcp,
    input: {},
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.9",
    name: "requiresUserInteraction is denied in dontAsk",
    files: { local: perms({ allow: ["mcp__approvals"] }) },
    mode: "dontAsk",
    tool: interactiveMcp,
    input: {},
    expect: "ask",
    final: "deny"
  },

  // ---------------------------------------------------------------- §1.10 Agent and Skill
  {
    spec: "§1.10",
    name: "launching a subagent needs no permission",
    tool: F.AgentTool,
    input: AG("Explore"),
    expect: "allow"
  },
  {
    spec: "§1.10",
    name: "`Agent(Explore)` deny with its message",
    files: { project: perms({ deny: ["Agent(Explore)"] }) },
    tool: F.AgentTool,
    input: AG("Explore"),
    expect: "deny",
    message: "Agent type 'Explore' has been denied by permission rule 'Agent(Explore)' from projectSettings."
  },
  {
    spec: "§1.10",
    name: "`Agent(Explore)` deny leaves other types",
    files: { project: perms({ deny: ["Agent(Explore)"] }) },
    tool: F.AgentTool,
    input: AG("Plan"),
    expect: "allow"
  },
  {
    spec: "§1.10",
    name: "default agent type is general-purpose",
    files: { project: perms({ deny: ["Agent(general-purpose)"] }) },
    tool: F.AgentTool,
    input: AG(),
    expect: "deny"
  },
  {
    spec: "§1.10",
    name: "`Agent(Plan)` ask forces a prompt",
    files: { project: perms({ ask: ["Agent(Plan)"] }) },
    tool: F.AgentTool,
    input: AG("Plan"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.10",
    name: "`Skill(deploy)` allows the bare skill",
    files: { local: perms({ allow: ["Skill(deploy)"] }) },
    tool: F.SkillTool,
    input: SK("deploy"),
    expect: "allow"
  },
  {
    spec: "§1.10",
    name: "`Skill(deploy)` does not allow it with arguments",
    files: { local: perms({ allow: ["Skill(deploy)"] }) },
    tool: F.SkillTool,
    input: SK("deploy", "prod"),
    expect: "ask"
  },
  {
    spec: "§1.10",
    name: "`Skill(deploy *)` allows any arguments",
    files: { local: perms({ allow: ["Skill(deploy *)"] }) },
    tool: F.SkillTool,
    input: SK("deploy", "prod --force"),
    expect: "allow"
  },
  {
    spec: "§1.10",
    name: "`Skill(deploy *)` allows no arguments",
    files: { local: perms({ allow: ["Skill(deploy *)"] }) },
    tool: F.SkillTool,
    input: SK("deploy"),
    expect: "allow"
  },
  {
    spec: "§1.10",
    name: "`Skill(deploy *)` does not allow deployer",
    files: { local: perms({ allow: ["Skill(deploy *)"] }) },
    tool: F.SkillTool,
    input: SK("deployer"),
    expect: "ask"
  },
  {
    spec: "§1.10",
    name: "`Skill(deploy)` deny covers any arguments",
    files: { project: perms({ deny: ["Skill(deploy)"] }) },
    tool: F.SkillTool,
    input: SK("deploy", "prod"),
    expect: "deny"
  },
  {
    spec: "§1.10",
    name: "bare `Skill` deny disables all skills",
    files: { project: perms({ deny: ["Skill"] }) },
    tool: F.SkillTool,
    input: SK("lint"),
    expect: "deny"
  },
  {
    spec: "§1.10",
    name: "skill without a rule asks, suggesting it",
    tool: F.SkillTool,
    input: SK("lint"),
    expect: "ask",
    forced: false,
    suggestion: "Skill(lint)"
  },

  // ---------------------------------------------------------------- §1.11 modes
  {
    spec: "§1.11 plan",
    name: "plan: edit with an allow rule still asks",
    files: { project: perms({ allow: ["Edit(/src/**)"] }) },
    mode: "plan",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    forced: true,
    message: /^Cannot write to .*\/src\/a\.ts while in plan mode\.$/
  },
  {
    spec: "§1.11 plan",
    name: "plan: bare Edit allow still asks",
    files: { project: perms({ allow: ["Edit"] }) },
    mode: "plan",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    forced: true,
    message: /^Cannot write to .*\/src\/a\.ts while in plan mode\.$/
  },
  {
    spec: "§1.11 plan",
    name: "plan: reads inside run",
    mode: "plan",
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "allow"
  },
  {
    spec: "§1.11 plan",
    name: "plan: write outside asks (forced)",
    mode: "plan",
    tool: F.WriteTool,
    input: W("{o}/x.txt"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.11 plan",
    name: "plan: deny still denies",
    files: { project: perms({ deny: ["Edit(/src/**)"] }) },
    mode: "plan",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "deny"
  },
  {
    spec: "§1.11 acceptEdits",
    name: "acceptEdits: NotebookEdit inside",
    mode: "acceptEdits",
    tool: F.NotebookEditTool,
    input: NB("{p}/nb.ipynb"),
    expect: "allow"
  },
  {
    spec: "§1.11 acceptEdits",
    name: "acceptEdits: new file in a new directory inside",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/new/dir/file.ts"),
    expect: "allow"
  },
  {
    spec: "§1.11 acceptEdits",
    name: "acceptEdits: additional directory",
    options: { addDirs: ["{e}"] },
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{e}/out.csv"),
    expect: "allow"
  },
  {
    spec: "§1.11 acceptEdits",
    name: "acceptEdits: WebSearch still asks",
    mode: "acceptEdits",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.11 bypass",
    name: "bypass: write outside runs",
    mode: "bypassPermissions",
    tool: F.WriteTool,
    input: W("{o}/x.txt"),
    expect: "allow",
    reasonType: "mode"
  },
  {
    spec: "§1.11 bypass",
    name: "bypass: tool without a rule runs",
    mode: "bypassPermissions",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow"
  },
  {
    spec: "§1.11 bypass",
    name: "bypass: deny rule still denies",
    files: { project: perms({ deny: ["WebSearch"] }) },
    mode: "bypassPermissions",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "deny"
  },
  {
    spec: "§1.11 bypass",
    name: "bypass: content deny still denies",
    files: { project: perms({ deny: ["Read(.env)"] }) },
    mode: "bypassPermissions",
    tool: F.ReadTool,
    input: R("{p}/.env"),
    expect: "deny"
  },
  {
    spec: "§1.11 bypass",
    name: "bypass: ask rule still asks",
    files: { project: perms({ ask: ["WebSearch"] }) },
    mode: "bypassPermissions",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.11 bypass",
    name: "bypass: content ask rule still asks",
    files: { project: perms({ ask: ["Edit(/src/**)"] }) },
    mode: "bypassPermissions",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.11 dontAsk",
    name: "dontAsk: read inside runs",
    mode: "dontAsk",
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "allow",
    final: "allow"
  },
  {
    spec: "§1.11 dontAsk",
    name: "dontAsk: no rule becomes a deny",
    mode: "dontAsk",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    final: "deny"
  },
  {
    spec: "§1.11 dontAsk",
    name: "dontAsk: allow rule runs",
    files: { local: perms({ allow: ["WebSearch"] }) },
    mode: "dontAsk",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "allow",
    final: "allow"
  },
  {
    spec: "§1.11 dontAsk",
    name: "dontAsk: ask rule becomes a deny",
    files: { local: perms({ ask: ["WebSearch"], allow: ["WebSearch"] }) },
    mode: "dontAsk",
    tool: F.WebSearchTool,
    input: { query: "q" },
    expect: "ask",
    final: "deny"
  },
  {
    spec: "§1.11 dontAsk",
    name: "dontAsk: write inside becomes a deny",
    mode: "dontAsk",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    final: "deny"
  },
  {
    spec: "§1.11 dontAsk",
    name: "dontAsk: AskUserQuestion is denied",
    mode: "dontAsk",
    tool: F.AskUserQuestionTool,
    input: { question: "?" },
    expect: "ask",
    final: "deny"
  },
  {
    spec: "§1.11 auto",
    name: "auto: edits ask like default (no classifier)",
    mode: "auto",
    tool: F.EditTool,
    input: E("{p}/src/a.ts"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.11 auto",
    name: "auto: reads inside run",
    mode: "auto",
    tool: F.ReadTool,
    input: R("{p}/src/a.ts"),
    expect: "allow"
  },
  { spec: "§1.11 default", name: "default: ExitPlanMode asks", tool: F.ExitPlanModeTool, input: {}, expect: "ask" },
  {
    spec: "§1.11 default",
    name: "default: TodoWrite runs",
    tool: F.TodoWriteTool,
    input: { todos: [] },
    expect: "allow"
  },

  // ---------------------------------------------------------------- §1.12 protected paths
  {
    spec: "§1.12",
    name: "acceptEdits: .git/config asks (sensitive)",
    mode: "acceptEdits",
    tool: F.EditTool,
    input: E("{p}/.git/config"),
    expect: "ask",
    forced: true,
    message: /^Claude requested permissions to edit .*\/\.git\/config which is a sensitive file\.$/
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .vscode asks",
    mode: "acceptEdits",
    tool: F.EditTool,
    input: E("{p}/.vscode/settings.json"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .claude/settings.json asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.claude/settings.json"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .claude/worktrees is not protected",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.claude/worktrees/w1/file.txt"),
    expect: "allow"
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .husky asks",
    mode: "acceptEdits",
    tool: F.EditTool,
    input: E("{p}/.husky/pre-commit"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .config/git asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.config/git/config"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .cargo asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.cargo/config.toml"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .devcontainer asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.devcontainer/devcontainer.json"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .envrc asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.envrc"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .npmrc asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.npmrc"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .mcp.json asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.mcp.json"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: lefthook.yml asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/lefthook.yml"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: nested gradle-wrapper.properties asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/gradle/wrapper/gradle-wrapper.properties"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "acceptEdits: .pre-commit-config.yaml asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.pre-commit-config.yaml"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "~/.bashrc asks even with an allow rule",
    files: { user: perms({ allow: ["Edit(~/**)"] }) },
    mode: "acceptEdits",
    tool: F.EditTool,
    input: E("{h}/.bashrc"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "allow rules do not pre-approve protected paths",
    files: { project: perms({ allow: ["Edit(/.vscode/**)"] }) },
    tool: F.EditTool,
    input: E("{p}/.vscode/settings.json"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "bare Edit allow does not pre-approve protected paths",
    files: { project: perms({ allow: ["Edit"] }) },
    tool: F.EditTool,
    input: E("{p}/.git/config"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "default: protected path asks (forced)",
    tool: F.EditTool,
    input: E("{p}/.git/config"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "bypassPermissions allows protected writes (≥ 2.1.126)",
    mode: "bypassPermissions",
    tool: F.EditTool,
    input: E("{p}/.git/config"),
    expect: "allow"
  },
  {
    spec: "§1.12",
    name: "dontAsk denies protected writes",
    mode: "dontAsk",
    tool: F.EditTool,
    input: E("{p}/.git/config"),
    expect: "ask",
    final: "deny"
  },
  {
    spec: "§1.12",
    name: "plan: protected write asks",
    mode: "plan",
    tool: F.EditTool,
    input: E("{p}/.git/config"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "reading a protected file is fine",
    tool: F.ReadTool,
    input: R("{p}/.git/config"),
    expect: "allow"
  },
  {
    spec: "§1.12",
    name: "deny still beats a protected ask",
    files: { project: perms({ deny: ["Edit(/.git/**)"] }) },
    mode: "bypassPermissions",
    tool: F.EditTool,
    input: E("{p}/.git/config"),
    expect: "deny"
  },
  {
    spec: "§1.12",
    name: "case variant .GIT asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.GIT/config"),
    expect: "ask",
    forced: true
  },
  {
    spec: "§1.12",
    name: "case variant .BashRC asks",
    mode: "acceptEdits",
    tool: F.WriteTool,
    input: W("{p}/.BashRC"),
    expect: "ask",
    forced: true
  },

  // ---------------------------------------------------------------- §1.13 working directories
  {
    spec: "§1.13",
    name: "--add-dir makes reads allowed",
    options: { addDirs: ["{e}"] },
    tool: F.ReadTool,
    input: R("{e}/data.csv"),
    expect: "allow",
    reasonType: "workingDirectory"
  },
  {
    spec: "§1.13",
    name: "without --add-dir the read asks",
    tool: F.ReadTool,
    input: R("{e}/data.csv"),
    expect: "ask",
    forced: false
  },
  {
    spec: "§1.13",
    name: "user additionalDirectories apply untrusted",
    files: { user: perms({ additionalDirectories: ["{e}"] }) },
    options: { trustProject: false },
    tool: F.ReadTool,
    input: R("{e}/data.csv"),
    expect: "allow"
  },
  {
    spec: "§1.13",
    name: "additionalDirectories with `~/`",
    files: { user: perms({ additionalDirectories: ["~/notes"] }) },
    tool: F.ReadTool,
    input: R("{h}/notes/todo.md"),
    expect: "allow"
  },
  {
    spec: "§1.13",
    name: "additional directory does not cover its sibling",
    options: { addDirs: ["{e}"] },
    tool: F.ReadTool,
    input: R("{o}/file.txt"),
    expect: "ask"
  },
  {
    spec: "§1.13",
    name: "writes in an additional directory ask in default",
    options: { addDirs: ["{e}"] },
    tool: F.WriteTool,
    input: W("{e}/x.csv"),
    expect: "ask",
    forced: false
  }
]

describe("Permissions.decide — claude-code-spec §1 table", () => {
  let fx: F.Fixture
  beforeAll(() => {
    fx = F.makeFixture()
  })
  afterAll(() => fx.cleanup())

  it("has at least 150 cases, each citing the spec", () => {
    expect(cases.length).toBeGreaterThanOrEqual(150)
    for (const c of cases) expect(c.spec).toMatch(/^§1\.\d+/)
  })

  it.each(cases.map((c) => [`${c.spec} ${c.name}`, c] as const))("%s", async (_, c) => {
    const flagFile = F.writeSettings(fx, F.fillDeep(fx, c.files ?? {}))
    const baseOptions = F.fillDeep(fx, { trustProject: true, ...c.options })
    const options = F.settingsOptions(fx, {
      ...baseOptions,
      ...(flagFile === undefined ? {} : { settings: [...(baseOptions.settings ?? []), flagFile] })
    })
    const { decision, loaded, session } = await F.decide(
      options,
      c.tool,
      F.fillDeep(fx, c.input),
      (l) => F.session(fx, c.mode === "settings" ? l.mode : (c.mode ?? "default"))
    )
    const context = `${c.spec} ${c.name}: ${JSON.stringify(decision)}`
    expect(Permission.behaviorOf(decision), context).toBe(c.expect)
    if (c.forced !== undefined) {
      expect(Permission.behaviorOf(decision) === "ask" && Permission.isForced(decision as Permission.Ask), context)
        .toBe(c.forced)
    }
    if (c.rule !== undefined) {
      expect(decision.reason.type, context).toBe("rule")
      if (decision.reason.type === "rule") expect(decision.reason.rule.raw).toBe(F.fill(fx, c.rule))
    }
    if (c.source !== undefined) {
      expect(decision.reason.type, context).toBe("rule")
      if (decision.reason.type === "rule") expect(decision.reason.rule.source).toBe(c.source)
    }
    if (c.reasonType !== undefined) expect(decision.reason.type, context).toBe(c.reasonType)
    if (c.message !== undefined) {
      const message = Permission.behaviorOf(decision) === "allow" ? "" : (decision as Permission.Ask).message
      if (typeof c.message === "string") expect(message).toBe(c.message)
      else expect(message).toMatch(c.message)
    }
    if (c.suggestion !== undefined) {
      expect(Permission.behaviorOf(decision)).toBe("ask")
      if (Permission.behaviorOf(decision) === "ask") {
        expect((decision as Permission.Ask).suggestions.map((s) => s.rule)).toContain(F.fill(fx, c.suggestion))
      }
    }
    if (c.warning !== undefined) expect(loaded.warnings.join("\n")).toMatch(c.warning)
    if (c.settingsMode !== undefined) expect(loaded.mode).toBe(c.settingsMode)
    if (c.final !== undefined) {
      const explained = explainDecision(decision, {
        toolName: c.tool.name,
        input: c.input,
        mode: session.permissionMode,
        bypassDisabled: loaded.bypassDisabled === true
      })
      expect(explained.json.decision, context).toBe(c.final)
      if (c.final === "deny" && Permission.behaviorOf(decision) === "ask") {
        expect(explained.json.message).toMatch(
          new RegExp(
            `^Permission to use ${c.tool.name} has been denied because Claude Code is running in don't ask mode\\. IMPORTANT: You \\*may\\* attempt`
          )
        )
      }
    }
  })
})
