/**
 * An MCP server on 127.0.0.1 behind OAuth, for sign-in tests: without a bearer token `/mcp`
 * answers 401 with the protected-resource metadata; the authorization server registers clients,
 * approves every authorization at once (redirecting to the client's callback with a code), and
 * exchanges the code (PKCE checked) for a token. With the token, `/mcp` is a stateless
 * streamable-HTTP MCP server with one tool, `echo`.
 */
import { createHash } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface OAuthMcpServer {
  readonly url: string
  /** Tokens handed out so far. */
  readonly issued: () => number
  readonly close: () => Promise<void>
}

const TOKEN = "tok-toolgate-test"

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
  })

export const startOAuthMcpServer = async (): Promise<OAuthMcpServer> => {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js")
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js")
  const { z } = await import("zod")
  const codes = new Map<string, { readonly challenge: string; readonly redirect: string }>()
  let issued = 0
  let base = ""
  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", base)
    const body = req.method === "POST" ? await readBody(req) : ""
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base] })
    }
    if (
      url.pathname.startsWith("/.well-known/oauth-authorization-server") ||
      url.pathname.startsWith("/.well-known/openid-configuration")
    ) {
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"]
      })
    }
    if (url.pathname === "/register") {
      return json(res, 201, {
        ...JSON.parse(body),
        client_id: "client-1",
        client_id_issued_at: Math.floor(Date.now() / 1000)
      })
    }
    if (url.pathname === "/authorize") {
      const code = `code-${codes.size + 1}`
      const redirect = url.searchParams.get("redirect_uri") ?? ""
      codes.set(code, { challenge: url.searchParams.get("code_challenge") ?? "", redirect })
      const back = new URL(redirect)
      back.searchParams.set("code", code)
      back.searchParams.set("state", url.searchParams.get("state") ?? "")
      res.writeHead(302, { location: back.href })
      return res.end()
    }
    if (url.pathname === "/token") {
      const form = new URLSearchParams(body)
      const grant = codes.get(form.get("code") ?? "")
      const verifier = form.get("code_verifier") ?? ""
      const challenge = createHash("sha256").update(verifier).digest("base64url")
      if (grant === undefined || grant.challenge !== challenge) return json(res, 400, { error: "invalid_grant" })
      issued++
      return json(res, 200, { access_token: TOKEN, token_type: "Bearer", expires_in: 3600, refresh_token: "refresh-1" })
    }
    if (url.pathname === "/mcp") {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        return json(res, 401, { error: "unauthorized" }, {
          "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`
        })
      }
      const mcp = new McpServer({ name: "secure", version: "1.0.0" })
      mcp.tool(
        "echo",
        "Echoes the message",
        { message: z.string() },
        async ({ message }) => ({ content: [{ type: "text", text: message }] })
      )
      // stateless: no session ids (exactOptionalPropertyTypes wants the key absent)
      const transport = new StreamableHTTPServerTransport({} as { sessionIdGenerator: () => string })
      res.on("close", () => void transport.close())
      await mcp.connect(transport)
      return transport.handleRequest(req, res, body === "" ? undefined : JSON.parse(body))
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: `${base}/mcp`,
    issued: () => issued,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
