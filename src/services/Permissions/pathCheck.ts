/**
 * The permission check of one file path, for reads and writes (path rules, protected
 * paths, working directories; every name the path goes by). Fail-closed:
 *   1. every name of the path is a candidate (lexical, symlink hops, real path);
 *   2. deny if any candidate matches a deny rule (writes: Edit and Read deny);
 *   3. a path that cannot be resolved asks;
 *   4. writes: a protected name or a hard-linked target asks before any allow rule;
 *   5. ask if any candidate matches an ask rule;
 *   6. plan mode: writes ask even with an allow rule;
 *   7. allow when every candidate is covered by an allow rule or a working directory the mode
 *      grants (reads always; writes in acceptEdits); otherwise ask.
 */
import * as path from "node:path"
import { expandPath, InvalidPath } from "../../internal/expandPath.js"
import * as Messages from "./messages.js"
import { pathRuleMatches, type PathRuleAnchors } from "./pathRules.js"
import {
  isCaseInsensitiveVolume,
  isDirectory,
  isHardLinked,
  resolveCandidates,
  type PathResolution
} from "./pathResolution.js"
import { isAgentConfigPath, protectedComponent } from "../../ProtectedPaths.js"
import { pathRuleSuggestion } from "./suggestions.js"
import * as Permission from "../../Permission.js"
import type {
  AskKind,
  Decision,
  DecisionReason,
  PermissionMode,
  PermissionRule,
  RuleSuggestion
} from "../../Permission.js"
import { containingDirectory, type WorkingDirectory } from "./workingDirectories.js"

export type PathAccess = "read" | "write"

export interface PathCheckContext {
  /** Usable rules of every source (already validated). */
  readonly rules: ReadonlyArray<PermissionRule>
  readonly mode: PermissionMode
  /** Where relative paths resolve (the session's cwd). */
  readonly cwd: string
  /** The launch directory: anchor of relative allow patterns and of suggestions. */
  readonly launchCwd: string
  readonly anchors: PathRuleAnchors
  readonly workingDirectories: ReadonlyArray<WorkingDirectory>
  readonly home: string
  /** The tool asking, for the NotebookEdit exception to Read deny rules. */
  readonly toolName: string
}

/** What every name of the path (given, symlink hops, real path) says, whatever the verdict. */
export interface PathFacts {
  /** Every name resolved and inside a working directory. */
  readonly within: boolean
  /** The protected name some name of the path runs into. */
  readonly protectedName?: string
}

const NO_FACTS: PathFacts = { within: false }

/** A path's decision, and what its names are, whatever the decision (the shell analyzer uses both). */
export interface PathCheck {
  readonly decision: Decision
  readonly facts: PathFacts
}

const ask = (
  kind: AskKind,
  message: string,
  reason: DecisionReason,
  facts: PathFacts,
  suggestions: ReadonlyArray<RuleSuggestion> = []
): PathCheck => ({
  decision: Permission.ask(message, { kind, reason, suggestions }),
  facts
})

/** Expands like the executor; an absolute path keeps its `..` so the walk applies them physically. */
const toAbsolute = (input: string, cwd: string, home: string): string => {
  if (input.includes("\0")) throw new InvalidPath(input, "contains a NUL byte")
  if (path.isAbsolute(input)) return input
  return expandPath(input, cwd, home)
}

const rulesFor = (
  rules: ReadonlyArray<PermissionRule>,
  behavior: PermissionRule["behavior"],
  toolNames: ReadonlyArray<string>
) => rules.filter((r) => r.behavior === behavior && toolNames.includes(r.toolName))

/** Every name a path goes by, for every spelling the executor might open. */
interface PathNames {
  readonly absolute: string
  readonly resolutions: ReadonlyArray<PathResolution>
  readonly candidates: ReadonlyArray<string>
  readonly directory: boolean
}

const pathNames = (
  input: string,
  ctx: Pick<PathCheckContext, "cwd" | "home">
): PathNames | { readonly invalid: string } => {
  let absolute: string
  try {
    absolute = toAbsolute(input, ctx.cwd, ctx.home)
  } catch (e) {
    return { invalid: e instanceof Error ? e.message : String(e) }
  }
  // the executor may open the NFC form or the trimmed form: check every spelling
  const spellings = new Set([absolute, absolute.normalize("NFC")])
  if (input.trim() !== input && input.trim() !== "") {
    try {
      spellings.add(toAbsolute(input.trim(), ctx.cwd, ctx.home))
    } catch {
      // the untrimmed spelling is still checked
    }
  }
  const resolutions = Array.from(spellings, resolveCandidates)
  const candidates = Array.from(new Set(resolutions.flatMap((r) => r.candidates)))
  return { absolute, resolutions, candidates, directory: isDirectory(absolute) }
}

/** The first deny rule of `tool` ("Read" or "Edit") that matches some name of the path. */
const denyRuleOf = (
  tool: "Read" | "Edit",
  names: PathNames,
  ctx: PathCheckContext,
  bareCovers: boolean
): PermissionRule | undefined => {
  const options = { isDirectory: names.directory, foldCase: true }
  return rulesFor(ctx.rules, "deny", [tool]).find((rule) =>
    rule.content === undefined
      ? bareCovers
      : names.candidates.some((c) => pathRuleMatches(rule, c, ctx.anchors, options))
  )
}

/**
 * Which deny rules cover a path, by family: what the file tools check before hooks run
 * (Claude Code's validateInput), and what searches use to leave denied files out. A path that
 * cannot be expanded counts as denied (fail closed).
 */
export const pathDenials = (
  input: string,
  ctx: PathCheckContext
): { readonly read?: PermissionRule; readonly edit?: PermissionRule; readonly invalid?: string } => {
  const names = pathNames(input, ctx)
  if ("invalid" in names) return { invalid: names.invalid }
  const read = denyRuleOf("Read", names, ctx, false)
  const edit = denyRuleOf("Edit", names, ctx, true)
  return { ...(read === undefined ? {} : { read }), ...(edit === undefined ? {} : { edit }) }
}

export const checkPath = (access: PathAccess, input: string, ctx: PathCheckContext): PathCheck => {
  const display = input
  const names = pathNames(input, ctx)
  if ("invalid" in names) {
    return ask(
      "safety",
      access === "read" ? Messages.askToRead(JSON.stringify(display)) : Messages.askToWrite(JSON.stringify(display)),
      { type: "safetyCheck", detail: names.invalid },
      NO_FACTS
    )
  }
  const { absolute, resolutions, candidates, directory } = names
  const denyOptions = { isDirectory: directory, foldCase: true }
  const resolved = resolutions.every((r) => r.ok)
  let protectedName: string | undefined
  for (const candidate of candidates) {
    protectedName = protectedComponent(candidate)
    if (protectedName !== undefined) break
  }
  const within = resolved && candidates.every((c) => containingDirectory(c, ctx.workingDirectories) !== undefined)
  const facts: PathFacts = protectedName === undefined ? { within } : { within, protectedName }

  // 2. deny: any candidate, any source. Read deny also blocks writes (not NotebookEdit, as in Claude Code);
  // a bare Edit/Read deny covers every path written (for reads the whole-tool step has already run)
  const denying = access === "read"
    ? denyRuleOf("Read", names, ctx, false)
    : (denyRuleOf("Edit", names, ctx, true) ??
      (ctx.toolName === "NotebookEdit" ? undefined : denyRuleOf("Read", names, ctx, true)))
  if (denying !== undefined) {
    return {
      decision: Permission.deny(access === "read" ? Messages.readDenied(display) : Messages.editDenied(display), {
        reason: { type: "rule", rule: denying }
      }),
      facts
    }
  }

  // 3. a path whose names are not all known asks
  const failed = resolutions.find((r) => !r.ok)
  if (failed !== undefined && !failed.ok) {
    return ask("safety", access === "read" ? Messages.askToRead(display) : Messages.askToWrite(display), {
      type: "safetyCheck",
      detail: failed.reason
    }, facts)
  }

  if (access === "write") {
    // 4. protected names, then hard links, before any allow rule
    if (protectedName !== undefined) {
      const candidate = candidates.find((c) => protectedComponent(c) !== undefined)!
      const message = candidates.some(isAgentConfigPath)
        ? Messages.askToWrite(display)
        : Messages.askSensitiveFile(display)
      return ask(
        "protected",
        message,
        { type: "safetyCheck", detail: `${candidate} is protected (${protectedName})` },
        facts
      )
    }
    const real = resolutions[0]!
    if (real.ok && real.exists && isHardLinked(real.realPath)) {
      return ask("safety", Messages.askToWrite(display), {
        type: "safetyCheck",
        detail: `${real.realPath} has other hard links; writing it changes them too`
      }, facts)
    }
  }

  // 5. ask rules (Read ask rules also cover writes: never fewer prompts than asked for)
  const askTools = access === "read" ? ["Read"] : ["Edit", "Read"]
  for (const rule of rulesFor(ctx.rules, "ask", askTools)) {
    if (rule.content === undefined) continue
    if (candidates.some((c) => pathRuleMatches(rule, c, ctx.anchors, denyOptions))) {
      return ask("rule", access === "read" ? Messages.askToRead(display) : Messages.askToWrite(display), {
        type: "rule",
        rule
      }, facts)
    }
  }

  // 6. plan mode refuses file edits, whatever the allow rules say
  if (access === "write" && ctx.mode === "plan") {
    return ask("plan", Messages.planModeWrite(display), {
      type: "mode",
      mode: "plan",
      detail: "file edits are never auto-approved in plan mode"
    }, facts)
  }

  // 7. every candidate must be covered
  const allowTools = access === "read" ? ["Read", "Edit"] : ["Edit"]
  const allowRules = rulesFor(ctx.rules, "allow", allowTools)
  const wholeEditAllow = access === "read"
    ? allowRules.find((r) => r.toolName === "Edit" && r.content === undefined)
    : undefined
  const modeCoversWorkingDirs = access === "read" || ctx.mode === "acceptEdits"
  let decidingRule: PermissionRule | undefined
  let usedWorkingDir = false
  let covered = true
  for (const candidate of candidates) {
    const allowOptions = { isDirectory: directory, foldCase: isCaseInsensitiveVolume(candidate) }
    const rule = wholeEditAllow ??
      allowRules.find((r) => r.content !== undefined && pathRuleMatches(r, candidate, ctx.anchors, allowOptions))
    if (rule !== undefined) {
      decidingRule ??= rule
      continue
    }
    if (modeCoversWorkingDirs && containingDirectory(candidate, ctx.workingDirectories) !== undefined) {
      usedWorkingDir = true
      continue
    }
    covered = false
    break
  }
  if (covered) {
    if (decidingRule !== undefined) return { decision: Permission.allow({ type: "rule", rule: decidingRule }), facts }
    if (usedWorkingDir) {
      return access === "read"
        ? {
          decision: Permission.allow({
            type: "workingDirectory",
            detail: "reads inside the working directories are allowed"
          }),
          facts
        }
        : {
          decision: Permission.allow({
            type: "mode",
            mode: ctx.mode,
            detail: "edits inside the working directories are accepted"
          }),
          facts
        }
    }
  }

  const inWorkingDirs = within
  const suggestions = pathRuleSuggestion(
    access === "read" ? "Read" : "Edit",
    resolutions[0]!.ok ? path.resolve(absolute) : absolute,
    directory,
    ctx.launchCwd,
    ctx.home
  )
  // a path inside the working directories whose symlink leads out: Claude Code says where it leads
  const real = resolutions[0]!
  const leadsOut = access === "read" && real.ok &&
    containingDirectory(absolute, ctx.workingDirectories) !== undefined &&
    containingDirectory(real.realPath, ctx.workingDirectories) === undefined
  return ask(
    "unapproved",
    access === "read"
      ? leadsOut
        ? `${Messages.askToRead(display)} ${Messages.resolvesOutside(display, real.realPath)}`
        : Messages.askToRead(display)
      : Messages.askToWrite(display),
    {
      type: "default",
      detail: access === "read"
        ? "the path is outside the working directories and no allow rule matches it"
        : inWorkingDirs
        ? `file edits need approval in ${ctx.mode} mode`
        : "the path is outside the working directories and no allow rule matches it"
    },
    facts,
    suggestions
  )
}
