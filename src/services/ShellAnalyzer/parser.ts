/**
 * The shell parser: web-tree-sitter with the tree-sitter-bash WASM grammar.
 * Loaded lazily, once per owner. Every failure mode (load failure, input over the cap, deadline, a WASM
 * abort) yields "no tree", which the analyzer turns into "too complex" (ask).
 */
import * as v8 from "node:v8"
import { Effect } from "effect"
import { createRequire } from "node:module"
import * as fs from "node:fs"
import { resolutionBases } from "../../internal/packageResolution.js"
import type * as TreeSitter from "web-tree-sitter"

export type SyntaxNode = TreeSitter.Node
export type SyntaxTree = TreeSitter.Tree

/** Longer commands are never parsed (over 10,000 characters always asks, as in Claude Code). */
export const MAX_COMMAND_LENGTH = 10_000
/** Parse deadline; tree-sitter is super-linear on pathological input. */
export const PARSE_DEADLINE_MS = 50

type TreeSitterModule = typeof TreeSitter

interface Loaded {
  readonly module: TreeSitterModule
  readonly language: TreeSitter.Language
  parser: TreeSitter.Parser
}

type LoadState =
  | { readonly _tag: "NotLoaded" }
  | { readonly _tag: "Loading"; readonly promise: Promise<void> }
  | { readonly _tag: "Ready"; readonly loaded: Loaded }
  | { readonly _tag: "Failed"; readonly error: string }

const resolveFrom = (specifier: string): { readonly resolved: string; readonly req: NodeJS.Require } => {
  let lastError: unknown
  for (const base of resolutionBases()) {
    try {
      // A runtime require (not the bundler's): the packages stay in node_modules, loaded on demand.
      const req = createRequire(base)
      return { resolved: req.resolve(specifier), req }
    } catch (error) {
      lastError = error
    }
  }
  throw lastError instanceof Error ? lastError : new Error(`cannot resolve ${specifier}`)
}

const load = async (): Promise<Loaded> => {
  // V8's optimising tier-up of the grammar's WebAssembly keeps every core busy for about a second
  // after the first parses, which stalls the commands toolgate starts meanwhile (a Bash call then
  // took ~0.8 s instead of ~20 ms). A parse is a small part of a decision, so the baseline
  // compiler is enough (measured: no change in decisions per second).
  v8.setFlagsFromString("--liftoff-only")
  const { req, resolved } = resolveFrom("web-tree-sitter")
  // Each parser gets a copy of the module code of its own: the module keeps its WASM instance in
  // module scope, so a second `Parser.init` on a shared copy would pull the memory from under the
  // first parser's trees; and after a WASM abort that memory may be corrupt (later parses of
  // ordinary input abort too), so the fresh parser needs fresh code.
  delete req.cache[resolved]
  const module = req("web-tree-sitter") as TreeSitterModule
  const runtimeWasm = req.resolve("web-tree-sitter/web-tree-sitter.wasm")
  const grammarWasm = resolveFrom("tree-sitter-bash/tree-sitter-bash.wasm").resolved
  await module.Parser.init({ locateFile: () => runtimeWasm, wasmBinary: fs.readFileSync(runtimeWasm) } as never)
  const language = await module.Language.load(new Uint8Array(fs.readFileSync(grammarWasm)))
  const parser = new module.Parser()
  parser.setLanguage(language)
  return { module, language, parser }
}

export type ParseResult =
  | { readonly _tag: "Parsed"; readonly tree: SyntaxTree }
  | { readonly _tag: "Failed"; readonly reason: string }

/** One tree-sitter parser, loaded on first use; its owner (the ShellAnalyzer layer) keeps it. */
export interface ShellParser {
  /** Loads the parser once; never fails (after a failed load every parse fails: ask). */
  readonly ensure: Effect.Effect<void>
  /** Why the parser cannot be used, if it cannot (not loaded yet, or failed to load). */
  readonly unavailable: () => string | undefined
  /**
   * Parses synchronously (after `ensure`). The caller must `tree.delete()` the tree. A deadline
   * overrun or any exception yields Failed; an exception also replaces the parser, because a WASM
   * abort leaves the old instance unusable.
   */
  readonly parse: (source: string, deadlineMs?: number, maxLength?: number) => ParseResult
  /** For tests: the next parse throws as a WASM abort would (a real abort needs seconds of input). */
  readonly injectFault: () => void
}

/**
 * A parser that loads tree-sitter on its first `ensure`. With `unavailable`, it never loads
 * and every parse fails with that reason (as after a failed load).
 */
export const makeShellParser = (options: { readonly unavailable?: string } = {}): ShellParser => {
  let state: LoadState = options.unavailable === undefined
    ? { _tag: "NotLoaded" }
    : { _tag: "Failed", error: options.unavailable }

  const startLoading = (): Promise<void> => {
    const promise = load().then(
      (loaded) => {
        state = { _tag: "Ready", loaded }
      },
      (error: unknown) => {
        state = { _tag: "Failed", error: error instanceof Error ? error.message : String(error) }
      }
    )
    state = { _tag: "Loading", promise }
    return promise
  }

  const ensure: Effect.Effect<void> = Effect.suspend(() => {
    switch (state._tag) {
      case "Ready":
      case "Failed":
        return Effect.void
      case "Loading": {
        const promise = state.promise
        return Effect.promise(() => promise)
      }
      case "NotLoaded":
        return Effect.promise(() => startLoading())
    }
  })

  const unavailable = (): string | undefined =>
    state._tag === "Ready"
      ? undefined
      : state._tag === "Failed"
      ? `the shell parser failed to load (${state.error})`
      : "the shell parser is not loaded"

  const parse = (
    source: string,
    deadlineMs: number = PARSE_DEADLINE_MS,
    maxLength: number = MAX_COMMAND_LENGTH
  ): ParseResult => {
    if (state._tag !== "Ready") return { _tag: "Failed", reason: unavailable() ?? "the shell parser is not available" }
    if (source.length > maxLength) {
      return { _tag: "Failed", reason: `the command is longer than ${maxLength} characters` }
    }
    const loaded = state.loaded
    try {
      // A second attempt keeps a stall of the process (GC, a busy machine) from failing an
      // ordinary command; pathological input runs out of time on both.
      for (let attempt = 0; attempt < 2; attempt++) {
        const deadline = performance.now() + deadlineMs
        const tree = loaded.parser.parse(source, null, {
          // Returning true cancels the parse (the .d.ts says void; the runtime honours the boolean).
          progressCallback: (() => performance.now() > deadline) as unknown as (s: TreeSitter.ParseState) => void
        })
        if (tree !== null) return { _tag: "Parsed", tree }
        loaded.parser.reset()
      }
      return { _tag: "Failed", reason: "parsing the command took too long" }
    } catch (error) {
      // The Parser instance is dead after a WASM abort, and the module may be too: reload it all.
      // Until the reload is done every command is "too complex"; `ensure` waits for it.
      try {
        loaded.parser.delete()
      } catch {
        // already dead
      }
      void startLoading()
      return {
        _tag: "Failed",
        reason: `the shell parser failed (${error instanceof Error ? error.message : String(error)})`
      }
    }
  }

  const injectFault = (): void => {
    if (state._tag !== "Ready") return
    state.loaded.parser.parse = () => {
      throw new Error("RuntimeError: Aborted() (injected)")
    }
  }

  return { ensure, unavailable, parse, injectFault }
}
