/**
 * The sandbox a file search's ripgrep runs in: a served session's, where nothing outside the
 * session's directories exists. Undefined (the CLI): ripgrep runs on the host, as always.
 */
import { Context, type Effect, type Scope } from "effect"

export interface SearchProcess {
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
}

export interface SandboxedSearch {
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
}

/** How to start the process inside the sandbox (undefined: there is none to start it in). */
export type SearchSandboxService = (
  request: SearchProcess
) => Effect.Effect<SandboxedSearch | undefined, { readonly reason: string }, Scope.Scope>

export class SearchSandbox extends Context.Reference<SearchSandbox>()("toolgate/SearchSandbox", {
  defaultValue: (): SearchSandboxService | undefined => undefined
}) {}
