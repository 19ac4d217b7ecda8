/**
 * Claude Code's `sandbox` settings block, decoded with effect/Schema, and merged across sources
 * into the policy the Sandbox stage applies. A field of the wrong type makes the whole file broken
 * (toolgate refuses to run rather than drop a restriction it cannot read); keys toolgate does not
 * read are kept as written.
 *
 * Merging follows the direction of each value, so that a project nobody trusted can only make the
 * sandbox stricter: it may switch the sandbox on and add to the deny lists, but its `true` for a
 * setting that loosens the sandbox (auto-approval, unsandboxed commands, all Unix sockets, …) and
 * its additions to allow lists are ignored. Everything else takes the value of the highest source
 * that sets it; lists merge across sources.
 */
import { Schema } from "effect"

const field = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })
const Strings = Schema.Array(Schema.String)
const Port = Schema.Int.pipe(Schema.between(1, 65535))

export const SandboxNetworkBlock = Schema.Struct(
  {
    allowedDomains: field(Strings),
    deniedDomains: field(Strings),
    allowUnixSockets: field(Strings),
    allowAllUnixSockets: field(Schema.Boolean),
    allowLocalBinding: field(Schema.Boolean),
    httpProxyPort: field(Port),
    socksProxyPort: field(Port)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

export const SandboxFilesystemBlock = Schema.Struct(
  {
    allowWrite: field(Strings),
    denyWrite: field(Strings),
    denyRead: field(Strings),
    allowRead: field(Strings)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

export const SandboxBlock = Schema.Struct(
  {
    enabled: field(Schema.Boolean),
    /** Stop instead of running unsandboxed when the sandbox cannot start. */
    failIfUnavailable: field(Schema.Boolean),
    autoAllowBashIfSandboxed: field(Schema.Boolean),
    excludedCommands: field(Strings),
    allowUnsandboxedCommands: field(Schema.Boolean),
    enableWeakerNestedSandbox: field(Schema.Boolean),
    network: field(SandboxNetworkBlock),
    filesystem: field(SandboxFilesystemBlock)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type SandboxBlock = typeof SandboxBlock.Type

/** Where a merged value came from: a settings source name, or `default`. */
export type SandboxValueSource = string

/** The `sandbox` settings in force for a session. */
export interface SandboxSettings {
  readonly enabled: boolean
  readonly failIfUnavailable: boolean
  /** Approve Bash calls that run in the sandbox without asking (deny and ask rules still apply). Default false. */
  readonly autoAllowBashIfSandboxed: boolean
  /** Bash rule patterns of commands that run outside the sandbox (they still go through permissions). */
  readonly excludedCommands: ReadonlyArray<string>
  /** Whether `dangerouslyDisableSandbox: true` may take a call out of the sandbox (after approval). Default true. */
  readonly allowUnsandboxedCommands: boolean
  readonly enableWeakerNestedSandbox: boolean
  readonly network: {
    readonly allowedDomains: ReadonlyArray<string>
    readonly deniedDomains: ReadonlyArray<string>
    readonly allowUnixSockets: ReadonlyArray<string>
    readonly allowAllUnixSockets: boolean
    readonly allowLocalBinding: boolean
    readonly httpProxyPort?: number
    readonly socksProxyPort?: number
  }
  readonly filesystem: {
    readonly allowWrite: ReadonlyArray<string>
    readonly denyWrite: ReadonlyArray<string>
    readonly denyRead: ReadonlyArray<string>
    readonly allowRead: ReadonlyArray<string>
  }
  /** The source of each scalar that was set (`enabled` → `userSettings`), for `toolgate doctor`. */
  readonly sources: Readonly<Record<string, SandboxValueSource>>
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  enabled: false,
  failIfUnavailable: false,
  autoAllowBashIfSandboxed: false,
  excludedCommands: [],
  allowUnsandboxedCommands: true,
  enableWeakerNestedSandbox: false,
  network: {
    allowedDomains: [],
    deniedDomains: [],
    allowUnixSockets: [],
    allowAllUnixSockets: false,
    allowLocalBinding: false
  },
  filesystem: { allowWrite: [], denyWrite: [], denyRead: [], allowRead: [] },
  sources: {}
}

/** One source's block, highest precedence first, and whether the user trusts that source. */
export interface SandboxSource {
  readonly source: string
  readonly block: SandboxBlock
  /** False for a project's settings when the workspace is not trusted. */
  readonly trusted: boolean
}

type Direction = "restrictsWhenTrue" | "loosensWhenTrue"

type BooleanKey =
  | "enabled"
  | "failIfUnavailable"
  | "autoAllowBashIfSandboxed"
  | "allowUnsandboxedCommands"
  | "enableWeakerNestedSandbox"

const BOOLEANS: ReadonlyArray<readonly [BooleanKey, Direction]> = [
  ["enabled", "restrictsWhenTrue"],
  ["failIfUnavailable", "restrictsWhenTrue"],
  ["autoAllowBashIfSandboxed", "loosensWhenTrue"],
  ["allowUnsandboxedCommands", "loosensWhenTrue"],
  ["enableWeakerNestedSandbox", "loosensWhenTrue"]
]

const NETWORK_BOOLEANS: ReadonlyArray<"allowAllUnixSockets" | "allowLocalBinding"> = [
  "allowAllUnixSockets",
  "allowLocalBinding"
]

/** The value of the highest source that may set it; an untrusted source only in the direction that restricts. */
const mergeBoolean = (
  sources: ReadonlyArray<SandboxSource>,
  read: (block: SandboxBlock) => boolean | undefined,
  direction: Direction,
  fallback: boolean
): { readonly value: boolean; readonly source?: string } => {
  for (const s of sources) {
    const value = read(s.block)
    if (value === undefined) continue
    const restricts = direction === "restrictsWhenTrue" ? value : !value
    if (!s.trusted && !restricts) continue
    return { value, source: s.source }
  }
  return { value: fallback }
}

const mergeList = (
  sources: ReadonlyArray<SandboxSource>,
  read: (block: SandboxBlock) => ReadonlyArray<string> | undefined,
  fromUntrusted: boolean
) => {
  const out: Array<string> = []
  for (const s of sources) {
    if (!s.trusted && !fromUntrusted) continue
    for (const entry of read(s.block) ?? []) if (!out.includes(entry)) out.push(entry)
  }
  return out
}

const mergePort = (sources: ReadonlyArray<SandboxSource>, read: (block: SandboxBlock) => number | undefined) => {
  for (const s of sources) {
    const value = read(s.block)
    if (value !== undefined && s.trusted) return value
  }
  return undefined
}

/** The sandbox policy of the sources (highest precedence first). */
export const mergeSandboxSettings = (sources: ReadonlyArray<SandboxSource>): SandboxSettings => {
  if (sources.length === 0) return DEFAULT_SANDBOX_SETTINGS
  const found: Record<string, string> = {}
  const bool = (
    key: string,
    read: (b: SandboxBlock) => boolean | undefined,
    direction: Direction,
    fallback: boolean
  ) => {
    const merged = mergeBoolean(sources, read, direction, fallback)
    if (merged.source !== undefined) found[key] = merged.source
    return merged.value
  }
  const scalars = Object.fromEntries(
    BOOLEANS.map(([key, direction]) => [key, bool(key, (b) => b[key], direction, DEFAULT_SANDBOX_SETTINGS[key])])
  ) as Record<BooleanKey, boolean>
  const networkBooleans = Object.fromEntries(
    NETWORK_BOOLEANS.map((key) => [key, bool(`network.${key}`, (b) => b.network?.[key], "loosensWhenTrue", false)])
  ) as Record<(typeof NETWORK_BOOLEANS)[number], boolean>
  const httpProxyPort = mergePort(sources, (b) => b.network?.httpProxyPort)
  const socksProxyPort = mergePort(sources, (b) => b.network?.socksProxyPort)
  return {
    ...scalars,
    excludedCommands: mergeList(sources, (b) => b.excludedCommands, false),
    network: {
      allowedDomains: mergeList(sources, (b) => b.network?.allowedDomains, false),
      deniedDomains: mergeList(sources, (b) => b.network?.deniedDomains, true),
      allowUnixSockets: mergeList(sources, (b) => b.network?.allowUnixSockets, false),
      ...networkBooleans,
      ...(httpProxyPort === undefined ? {} : { httpProxyPort }),
      ...(socksProxyPort === undefined ? {} : { socksProxyPort })
    },
    filesystem: {
      allowWrite: mergeList(sources, (b) => b.filesystem?.allowWrite, false),
      denyWrite: mergeList(sources, (b) => b.filesystem?.denyWrite, true),
      denyRead: mergeList(sources, (b) => b.filesystem?.denyRead, true),
      allowRead: mergeList(sources, (b) => b.filesystem?.allowRead, false)
    },
    sources: found
  }
}
