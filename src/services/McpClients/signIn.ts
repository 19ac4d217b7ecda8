/**
 * Sign-in flows for remote MCP servers that need one (see oauth.ts, authTools.ts): one flow at
 * a time per server, its callback server on 127.0.0.1, and the reconnection once the code is
 * exchanged for a token. A browser visit to the callback and a pasted callback URL end a flow
 * the same way.
 */
import { Effect } from "effect"
import type { SignIn, SignInProblem } from "./authTools.js"
import { makeProvider, startCallbackServer, type CallbackServer, type Provider } from "./oauth.js"
import type { McpSdk } from "./sdk.js"

interface Flow {
  readonly provider: Provider
  readonly callback: CallbackServer
}

export interface SignInTarget {
  readonly server: string
  readonly url: string
  /** Connects the server again; the reason it is still not connected, if it is not. */
  readonly reconnect: Effect.Effect<string | undefined>
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))

export const makeSignIns = (storeFile: string, runInBackground: (effect: Effect.Effect<unknown>) => void) => {
  const flows = new Map<string, Flow>()

  const drop = (server: string) => {
    flows.get(server)?.callback.close()
    flows.delete(server)
  }

  const finish = (sdk: McpSdk, target: SignInTarget, callbackUrl: URL): Effect.Effect<void, SignInProblem> =>
    Effect.gen(function*() {
      const flow = flows.get(target.server)
      if (flow === undefined) return yield* Effect.fail<SignInProblem>({ _tag: "NoFlow" })
      const code = callbackUrl.searchParams.get("code")
      const error = callbackUrl.searchParams.get("error")
      if ((code === null || code === "") && error === null) return yield* Effect.fail<SignInProblem>({ _tag: "NoCode" })
      if (callbackUrl.searchParams.get("state") !== flow.provider.state()) {
        return yield* Effect.fail<SignInProblem>({ _tag: "WrongState" })
      }
      drop(target.server)
      if (code === null || code === "") {
        const description = callbackUrl.searchParams.get("error_description")
        return yield* Effect.fail<SignInProblem>({
          _tag: "Failed",
          reason: `the sign-in was refused (${error}${description === null ? "" : `: ${description}`})`
        })
      }
      const result = yield* Effect.tryPromise({
        try: () => sdk.auth(flow.provider, { serverUrl: target.url, authorizationCode: code }),
        catch: (e): SignInProblem => ({ _tag: "Failed", reason: messageOf(e) })
      })
      if (result !== "AUTHORIZED") {
        return yield* Effect.fail<SignInProblem>({ _tag: "Failed", reason: "the server did not accept the sign-in" })
      }
      const stillDown = yield* target.reconnect
      if (stillDown !== undefined) {
        return yield* Effect.fail<SignInProblem>({
          _tag: "Failed",
          reason: `signed in, but the server did not connect: ${stillDown}`
        })
      }
    })

  const signInFor = (sdk: McpSdk, target: SignInTarget): SignIn => ({
    start: () =>
      Effect.gen(function*() {
        drop(target.server)
        const callback = yield* Effect.tryPromise({
          try: () => startCallbackServer((url) => runInBackground(finish(sdk, target, url).pipe(Effect.ignore))),
          catch: (e) => `Failed to start OAuth callback server: ${messageOf(e)}`
        })
        let authorizationUrl: URL | undefined
        const provider = makeProvider(
          storeFile,
          target.url,
          callback.redirectUrl,
          (url) => void (authorizationUrl = url)
        )
        const result = yield* Effect.tryPromise({
          try: () => sdk.auth(provider, { serverUrl: target.url }),
          catch: messageOf
        }).pipe(
          Effect.tapError(() => Effect.sync(() => callback.close()))
        )
        if (result === "AUTHORIZED" || authorizationUrl === undefined) {
          // a stored sign-in was still good (or refreshed): connect with it
          callback.close()
          const stillDown = yield* target.reconnect
          if (stillDown !== undefined) return yield* Effect.fail(stillDown)
          return { _tag: "Authorized" as const }
        }
        flows.set(target.server, { provider, callback })
        return { _tag: "Url" as const, url: authorizationUrl.href }
      }),
    complete: (callbackUrl) =>
      Effect.suspend(() => {
        if (!flows.has(target.server)) return Effect.fail<SignInProblem>({ _tag: "NoFlow" })
        let url: URL
        try {
          url = new URL(callbackUrl)
        } catch {
          return Effect.fail<SignInProblem>({ _tag: "NoCode" })
        }
        return finish(sdk, target, url)
      })
  })

  return { signInFor, closeAll: () => [...flows.keys()].forEach(drop) }
}
