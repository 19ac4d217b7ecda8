/**
 * OAuth for remote MCP servers that answer 401 (the MCP authorization spec, through the SDK's
 * `auth()`): discovery, dynamic client registration, PKCE, a callback on 127.0.0.1, the code
 * exchange and token refresh. Registrations and tokens are kept per server URL in
 * `~/.toolgate/mcp-oauth.json` (mode 0600, replaced atomically), so a signed-in server connects
 * with its token next time.
 *
 * A sign-in is started by the model's `mcp__<server>__authenticate` call (see authTools.ts): the
 * person opens the URL; the browser comes back to the callback (or the person pastes the address
 * into `mcp__<server>__complete_authentication`), and the server is connected again.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import { Either, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { writeFileAtomic } from "../../internal/atomicWrite.js"
import { documentIssue } from "../../internal/documentIssue.js"
import { readJsonObjectFile } from "../../internal/json.js"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const Stored = Schema.Struct({ client: Schema.optional(JsonObject), tokens: Schema.optional(JsonObject) })
type Stored = typeof Stored.Type
const Store = Schema.Record({ key: Schema.String, value: Stored })
type Store = typeof Store.Type

export const oauthStoreFile = (home: string): string => path.join(home, ".toolgate", "mcp-oauth.json")

/** The store, or why it cannot be used (a broken file is never overwritten: it may hold other sign-ins). */
const readStore = (file: string): Either.Either<Store, string> => {
  const read = readJsonObjectFile(file)
  if (read._tag === "Missing") return Either.right({})
  if (read._tag === "Failed") return Either.left(`${file}: ${read.reason}`)
  return Schema.decodeUnknownEither(Store)(read.json).pipe(Either.mapLeft((e) => `${file}: ${documentIssue(e)}`))
}

const storedFor = (file: string, serverUrl: string): Stored | undefined =>
  Either.getOrUndefined(readStore(file))?.[serverUrl]

const updateStore = async (file: string, serverUrl: string, change: (entry: Stored) => Stored): Promise<void> => {
  const store = readStore(file)
  if (Either.isLeft(store)) throw new Error(`cannot save the sign-in: ${store.left}`)
  const next = { ...store.right, [serverUrl]: change(store.right[serverUrl] ?? {}) }
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 })
}

export const hasStoredTokens = (file: string, serverUrl: string): boolean =>
  storedFor(file, serverUrl)?.tokens !== undefined

export interface Provider extends OAuthClientProvider {
  /** The `state` this provider sends with its authorization request. */
  readonly state: () => string
}

/**
 * The SDK's OAuthClientProvider over the store. `onRedirect` receives the authorization URL a
 * sign-in needs; without one (a connection at start-up), no sign-in starts, the SDK reports the
 * server unauthorized and it stays `needs-auth`.
 */
export const makeProvider = (
  file: string,
  serverUrl: string,
  redirectUrl: string,
  onRedirect?: (url: URL) => void
): Provider => {
  let verifier = ""
  const state = randomBytes(16).toString("hex")
  return {
    state: () => state,
    redirectUrl,
    clientMetadata: {
      client_name: "toolgate",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none"
    },
    clientInformation: () => storedFor(file, serverUrl)?.client as never,
    saveClientInformation: (client) => updateStore(file, serverUrl, (e) => ({ ...e, client: { ...client } })),
    tokens: () => storedFor(file, serverUrl)?.tokens as never,
    saveTokens: (tokens) => updateStore(file, serverUrl, (e) => ({ ...e, tokens: { ...tokens } })),
    redirectToAuthorization: (url) => onRedirect?.(url),
    saveCodeVerifier: (v) => {
      verifier = v
    },
    codeVerifier: () => verifier
  }
}

/** The local page the browser comes back to after the sign-in; each visit goes to `onCallback`. */
export interface CallbackServer {
  readonly redirectUrl: string
  readonly close: () => void
}

export const startCallbackServer = (onCallback: (url: URL) => void): Promise<CallbackServer> =>
  new Promise((resolve, reject) => {
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://localhost")
      if (url.pathname !== "/callback") {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end(
        "<!doctype html><title>toolgate</title><p>toolgate received the sign-in. You can close this tab and go back to the terminal.</p>"
      )
      onCallback(url)
    })
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.unref()
      resolve({ redirectUrl: `http://localhost:${port}/callback`, close: () => server.close() })
    })
  })
