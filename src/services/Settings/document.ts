/**
 * The settings document (`.claude/settings*.json`, managed settings, `--settings`) as far as this
 * stage reads it, decoded with effect/Schema. A document that does not decode is broken: its
 * error names the file and the place inside it (`permissions.deny[2]`), and toolgate refuses to
 * run rather than drop rules it cannot read (fail closed); so does a `hooks` block that
 * does not decode (Settings/hooks.ts). Keys this stage does not read are kept as they are for the
 * stages that do (hooks, MCP approvals, env, …).
 */
import { Either, ParseResult, Schema } from "effect"
import { BrokenSettings } from "../../Errors.js"
import { formatPath } from "../../internal/formatIssues.js"
import { readJsonObjectFile, parseJsonObject, type JsonObjectRead } from "../../internal/json.js"
import { PERMISSION_MODES } from "../../Permission.js"
import { HooksBlock } from "./hooks.js"
import { SandboxBlock } from "./sandbox.js"

const RuleList = Schema.Array(Schema.String)

const MODE_NAMES = [...PERMISSION_MODES, "manual"] as const

/** `manual` is Claude Code's alias of `default`. */
const Mode = Schema.String.pipe(
  Schema.filter((name) =>
    (MODE_NAMES as ReadonlyArray<string>).includes(name) ||
    `Expected one of ${MODE_NAMES.map((m) => JSON.stringify(m)).join(", ")}, actual ${JSON.stringify(name)}`
  )
)

const field = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const PermissionsBlock = Schema.Struct({
  allow: field(RuleList),
  deny: field(RuleList),
  ask: field(RuleList),
  additionalDirectories: field(RuleList),
  defaultMode: field(Mode),
  disableBypassPermissionsMode: field(Schema.Literal("disable"))
})

export const SettingsDocument = Schema.Struct({
  permissions: field(PermissionsBlock),
  allowManagedPermissionRulesOnly: field(Schema.Boolean),
  sandbox: field(SandboxBlock),
  hooks: field(HooksBlock)
})

export type PermissionsBlock = typeof PermissionsBlock.Type

/** A decoded document: the fields this stage reads, and every key as written. */
export interface SettingsDocument {
  readonly permissions: PermissionsBlock
  readonly allowManagedPermissionRulesOnly: boolean
  /** The `sandbox` block, when the document has one. */
  readonly sandbox?: SandboxBlock
  readonly raw: Readonly<Record<string, unknown>>
}

const decode = Schema.decodeUnknownEither(SettingsDocument, { errors: "all", onExcessProperty: "ignore" })

/** `permissions.deny[2]: Expected string, actual 7` for each problem; the first one leads. */
const describeIssues = (error: ParseResult.ParseError): ReadonlyArray<string> => {
  const byPlace = new Map<string, string>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const place = formatPath(issue.path)
    if (!byPlace.has(place)) byPlace.set(place, place === "" ? issue.message : `${place}: ${issue.message}`)
  }
  return Array.from(byPlace.values())
}

const brokenFile = (label: string, problems: ReadonlyArray<string>): BrokenSettings =>
  new BrokenSettings({
    file: label,
    problem: problems.length <= 1
      ? (problems[0] ?? "unusable")
      : `${problems[0]} (and ${problems.length - 1} more problem${problems.length === 2 ? "" : "s"})`
  })

export type DocumentRead =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Loaded"; readonly document: SettingsDocument }
  | { readonly _tag: "Broken"; readonly error: BrokenSettings }

const fromJson = (read: JsonObjectRead, label: string): DocumentRead => {
  if (read._tag === "Missing") return read
  if (read._tag === "Failed") {
    return {
      _tag: "Broken",
      error: brokenFile(label, [read.reason.startsWith("must be") ? `settings ${read.reason}` : read.reason])
    }
  }
  const decoded = decode(read.json)
  if (Either.isLeft(decoded)) return { _tag: "Broken", error: brokenFile(label, describeIssues(decoded.left)) }
  return {
    _tag: "Loaded",
    document: {
      permissions: decoded.right.permissions ?? {},
      allowManagedPermissionRulesOnly: decoded.right.allowManagedPermissionRulesOnly === true,
      ...(decoded.right.sandbox === undefined ? {} : { sandbox: decoded.right.sandbox }),
      raw: read.json
    }
  }
}

export const readSettingsFile = (file: string): DocumentRead => fromJson(readJsonObjectFile(file), file)

export const parseSettingsText = (text: string, label: string): DocumentRead => fromJson(parseJsonObject(text), label)
