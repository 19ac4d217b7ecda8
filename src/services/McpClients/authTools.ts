/**
 * The tools that stand in for a remote server that needs a sign-in, in an interactive session
 * (as Claude Code offers them; a print-mode session gets none): `mcp__<server>__authenticate`
 * starts the OAuth flow and gives the model the URL to show the person;
 * `mcp__<server>__complete_authentication` finishes it with the address the browser ended on,
 * when the redirect to the local callback could not load. Once signed in, the server connects
 * again and its own tools replace these. Descriptions and result texts are Claude Code's.
 */
import { Effect, Schema } from "effect"
import { buildTool, type AnyTool } from "../../Tool.js"
import { allow, ask } from "../../Permission.js"
import { mcpToolName } from "./naming.js"

export type SignInProblem =
  | { readonly _tag: "NoFlow" }
  | { readonly _tag: "NoCode" }
  | { readonly _tag: "WrongState" }
  | { readonly _tag: "Failed"; readonly reason: string }

export interface SignIn {
  /** Starts a sign-in: the URL to open, or `Authorized` when a stored sign-in was still good. */
  readonly start: () => Effect.Effect<
    { readonly _tag: "Url"; readonly url: string } | { readonly _tag: "Authorized" },
    string
  >
  /** Finishes the sign-in in progress with the callback address. */
  readonly complete: (callbackUrl: string) => Effect.Effect<void, SignInProblem>
}

const EmptyInput = Schema.Struct({})
const CompleteInput = Schema.Struct({
  callback_url: Schema.String.annotations({
    description:
      "The full callback URL from the browser address bar after authorizing, e.g. http://localhost:<port>/callback?code=...&state=..."
  })
})

const AVAILABLE = "available automatically"
const NOW_AVAILABLE = "The server's tools should now be available."

export const makeAuthTools = (server: string, type: string, url: string, signIn: SignIn): ReadonlyArray<AnyTool> => {
  const authenticateName = mcpToolName(server, "authenticate")
  const completeName = mcpToolName(server, "complete_authentication")
  let origin = url
  try {
    origin = new URL(url).origin
  } catch {
    origin = url
  }
  const authenticateDescription =
    `The "${server}" MCP server (${type} at ${origin}) is installed but requires authentication. ` +
    "Call this tool to start the OAuth flow \u2014 you'll receive an authorization URL to share with the user. " +
    `Once the user completes authorization in their browser, the server's real tools will become ${AVAILABLE}.`
  const completeDescription =
    `Complete an in-progress OAuth flow for the "${server}" MCP server by submitting the callback URL. Call \`${authenticateName}\` first to start the flow and get the authorization URL. ` +
    "After the user authorizes in their browser, the browser is redirected to a `http://localhost:<port>/callback?code=...&state=...` URL \u2014 " +
    "on remote sessions that page fails to load, but the URL in the address bar is still valid. Pass that full URL here as `callback_url`. " +
    "If the user declines this call, do not retry it. If this session cannot ask them, tell them to finish signing in by running /mcp."
  const mcp = (toolName: string) => ({ serverName: server, toolName })
  const authenticate = buildTool({
    name: authenticateName,
    description: authenticateDescription,
    prompt: authenticateDescription,
    inputSchema: EmptyInput,
    mcp: mcp("authenticate"),
    checkPermissions: () => Effect.succeed(allow()),
    call: () =>
      signIn.start().pipe(
        Effect.map((started) => ({
          data: started._tag === "Authorized"
            ? `Authentication completed silently for ${server}. ${NOW_AVAILABLE}`
            : `Ask the user to open this URL in their browser to authorize the ${server} MCP server:\n\n${started.url}\n\n` +
              `Once they complete the flow, the server's tools will become ${AVAILABLE}.\n\n` +
              `If the browser shows a connection error on the redirect page, ask the user to paste the full URL from the address bar and call \`${completeName}\` with it.`
        })),
        Effect.catchAll((reason) =>
          Effect.succeed({
            data:
              `Failed to start OAuth flow for ${server}: ${reason}. Ask the user to run /mcp and authenticate manually.`
          })
        )
      ),
    mapResult: (text: string) => text,
    renderUse: () => `Authenticate ${server} MCP server`
  })
  const complete = buildTool({
    name: completeName,
    description: completeDescription,
    prompt: completeDescription,
    inputSchema: CompleteInput,
    mcp: mcp("complete_authentication"),
    // a pasted URL from anywhere else could connect the server to someone else's account: always asked
    checkPermissions: () =>
      Effect.succeed(ask(`Finish signing in to ${server} with a callback URL.`, { kind: "safety" })),
    call: (input) =>
      signIn.complete(input.callback_url).pipe(
        Effect.as({ data: `Authentication complete for ${server}. ${NOW_AVAILABLE}` }),
        Effect.catchAll((problem) => {
          switch (problem._tag) {
            case "NoFlow":
              return Effect.succeed({
                data:
                  `No OAuth flow is in progress for ${server}; it may have timed out. Call \`${authenticateName}\` to start a new one, then, once the user has approved it, ask them for the full URL in their browser's address bar.`
              })
            case "NoCode":
              return Effect.succeed({
                data:
                  "Invalid callback URL: missing authorization code. Ask the user to paste the full redirect URL from their browser's address bar, including the `?code=...&state=...` query string."
              })
            case "WrongState":
              return Effect.succeed({
                data:
                  `That callback URL belongs to a different sign-in attempt for ${server} (its state does not match the flow in progress), or carries no authorization code. The current flow is still waiting: ask the user for the URL from the page this sign-in opened, then retry.`
              })
            case "Failed":
              return Effect.succeed({ data: `Authentication failed for ${server}: ${problem.reason}` })
          }
        })
      ),
    mapResult: (text: string) => text,
    renderUse: () => `Complete authentication for ${server} MCP server`
  })
  return [authenticate, complete]
}
