// `lait serve --mcp --http`: MCP's streamable HTTP transport at /mcp, one SDK server per session, and
// the limits that keep a client from exhausting the process (docs/serve.md#limits): a request must
// pass the Host, Origin and token checks (src/platform/httpAccess.ts) before anything is allocated for it; a
// POST body must arrive whole within a deadline and under a size cap before it is parsed; sessions are
// capped (the oldest idle one makes room) and expire when idle; and a tool call whose client hangs up
// on its POST is cancelled, as `notifications/cancelled` and DELETE cancel it.
import type { IncomingMessage, ServerResponse } from "node:http"
import { Console, Effect } from "effect"
import { readJsonBody } from "../platform/httpBody.ts"
import { type HttpListener, listenHttp } from "../platform/httpServer.ts"
import { bearerCheck, type HttpAddress, hostAllowed, isLoopbackHost, originAllowed } from "../platform/httpAccess.ts"
import type { HttpTransport, McpServer, Sdk, TrackCall } from "./sdk.ts"
import { ServeError } from "./serveErrors.ts"

export interface HttpLimits {
  /** Open sessions at most; a new one evicts the least recently active idle one. */
  readonly maxSessions: number
  /** A session with no request and no running call for this long is closed. */
  readonly sessionIdleMs: number
  /** A request body must have arrived whole this long after its headers. */
  readonly bodyTimeoutMs: number
}

export interface HttpOptions {
  readonly address: HttpAddress
  /** Host header values accepted besides the loopback names (`name` any port, `name:port` that one). */
  readonly allowedHosts: ReadonlyArray<string>
  /** Origin header values accepted besides loopback origins (on a loopback address), normalised. */
  readonly allowedOrigins: ReadonlyArray<string>
  /** When set, every request needs `Authorization: Bearer <token>`. */
  readonly token: string | undefined
  readonly limits: HttpLimits
}

/** The SDK's own cap on one message (its `MAXIMUM_MESSAGE_SIZE`), applied before parsing. */
const MAX_BODY_BYTES = 4 * 1024 * 1024

interface Session {
  readonly server: McpServer
  readonly transport: HttpTransport
  running: number
  lastActive: number
  timer: ReturnType<typeof setTimeout> | undefined
  /** The tool calls of this session's open POSTs, by JSON-RPC id, aborted when the client hangs up. */
  readonly hangups: Map<string | number, AbortController>
}

/** A JSON-RPC error answer for requests refused before they reach the protocol. */
const refuse = (
  response: ServerResponse,
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {}
): void => {
  if (response.headersSent) return void response.end()
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }))
}

type Body = { readonly ok: true; readonly json: unknown } | { readonly ok: false }

/**
 * The whole body, parsed (src/platform/httpBody.ts); or the request answered (408 past the deadline,
 * 413 over the cap, 400 when it is not JSON) and its connection closed.
 */
const readBody = (request: IncomingMessage, response: ServerResponse, timeoutMs: number): Promise<Body> =>
  readJsonBody(request, timeoutMs, MAX_BODY_BYTES).then((body): Body => {
    if (body.ok) return body
    switch (body.problem) {
      case "not-json":
        response.writeHead(400, { "content-type": "application/json" })
        response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }))
        break
      case "too-large":
      case "timeout":
        refuse(
          response,
          body.problem === "too-large" ? 413 : 408,
          body.problem === "too-large"
            ? `Payload Too Large: a message may hold at most ${MAX_BODY_BYTES} bytes`
            : `Request Timeout: the body did not arrive within ${timeoutMs / 1000} s (see --body-timeout)`,
          { connection: "close" }
        )
        request.destroy()
        break
      case "aborted":
        break
    }
    return { ok: false }
  })

/** The ids of the `tools/call` requests among a POST's messages (one, or a batch). */
const callIds = (json: unknown): ReadonlyArray<string | number> =>
  (Array.isArray(json) ? json : [json]).flatMap((message: unknown) => {
    if (typeof message !== "object" || message === null) return []
    const { method, id } = message as { readonly method?: unknown; readonly id?: unknown }
    return method === "tools/call" && (typeof id === "string" || typeof id === "number") ? [id] : []
  })

const urlOf = ({ host, port }: HttpAddress): string => `http://${host.includes(":") ? `[${host}]` : host}:${port}/mcp`

/** Serves until interrupted; then closes every session and the listener. */
export const serveHttp = (
  options: HttpOptions,
  sdk: Sdk,
  makeServer: (track: TrackCall) => McpServer,
  summary: string
) =>
  Effect.gen(function*() {
    const { address, limits } = options
    const sessions = new Map<string, Session>()
    /** Sessions made but not yet initialised: they count against the cap too. */
    let opening = 0
    const loopback = isLoopbackHost(address.host)
    const authorized = options.token === undefined ? () => true : bearerCheck(options.token)

    const forget = (id: string, session: Session) => {
      clearTimeout(session.timer)
      if (sessions.get(id) === session) sessions.delete(id)
      for (const controller of session.hangups.values()) controller.abort()
    }
    // Closing the server closes its transport, whose onclose then forgets the session.
    const close = (id: string, session: Session) => {
      forget(id, session)
      return session.server.close().catch(() => undefined)
    }
    // The idle clock runs only while no call does: a call may take longer than any idle limit.
    const touch = (id: string, session: Session) => {
      session.lastActive = Date.now()
      clearTimeout(session.timer)
      session.timer = session.running > 0 || sessions.get(id) !== session
        ? undefined
        : setTimeout(() => void close(id, session), limits.sessionIdleMs)
    }
    const evictIdle = (): boolean => {
      let oldest: [string, Session] | undefined
      for (const entry of sessions) {
        const idle = entry[1].running === 0
        if (idle && (oldest === undefined || entry[1].lastActive < oldest[1].lastActive)) oldest = entry
      }
      if (oldest !== undefined) void close(...oldest)
      return oldest !== undefined
    }

    const track: TrackCall = (context) => {
      const id = context.sessionId
      const session = id === undefined ? undefined : sessions.get(id)
      if (id === undefined || session === undefined) return { signal: context.signal, done: () => undefined }
      session.running++
      clearTimeout(session.timer)
      const hangup = session.hangups.get(context.requestId)
      session.hangups.delete(context.requestId)
      return {
        signal: hangup === undefined ? context.signal : AbortSignal.any([context.signal, hangup.signal]),
        done: () => {
          session.running--
          touch(id, session)
        }
      }
    }

    /** A POST of a session: its tool calls end when the client hangs up before their answers. */
    const post = (session: Session, request: IncomingMessage, response: ServerResponse, json: unknown) => {
      const hangups = callIds(json).map((id) => {
        const controller = new AbortController()
        session.hangups.set(id, controller)
        return [id, controller] as const
      })
      if (hangups.length > 0) {
        response.once("close", () => {
          for (const [id, controller] of hangups) {
            if (!response.writableFinished) controller.abort()
            else if (session.hangups.get(id) === controller) session.hangups.delete(id)
          }
        })
      }
      void session.transport.handleRequest(request, response, json).catch(() => undefined)
    }

    /** An initialize request: a new session, if there is room. */
    const open = (request: IncomingMessage, response: ServerResponse, json: unknown) => {
      if (sessions.size + opening >= limits.maxSessions && !evictIdle()) {
        const why = `Service Unavailable: ${limits.maxSessions} sessions are open and busy (see --max-sessions)`
        return refuse(response, 503, why)
      }
      opening++
      let counted = true
      const uncount = () => {
        if (counted) opening--
        counted = false
      }
      const server = makeServer(track)
      const session: Session = {
        server,
        transport: new sdk.StreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (id) => {
            uncount()
            sessions.set(id, session)
            touch(id, session)
          }
        }),
        running: 0,
        lastActive: Date.now(),
        timer: undefined,
        hangups: new Map()
      }
      // Ended by its client (DELETE) or by the server (evicted, expired, shutting down).
      session.transport.onclose = () => {
        const id = session.transport.sessionId
        if (id !== undefined) forget(id, session)
      }
      void server.connect(session.transport)
        .then(() => session.transport.handleRequest(request, response, json))
        .catch(() => undefined)
        .finally(() => {
          uncount()
          // Not an initialize request (the transport refused it): nothing will ever use this server.
          if (session.transport.sessionId === undefined) void server.close().catch(() => undefined)
        })
    }

    const handle = (request: IncomingMessage, response: ServerResponse): void => {
      const { host, origin, authorization } = request.headers
      if (!hostAllowed(host, options.allowedHosts)) {
        return refuse(response, 403, `Host header '${host ?? ""}' is not allowed (see --allowed-host)`)
      }
      if (!originAllowed(origin, { loopback, allowed: options.allowedOrigins })) {
        return refuse(response, 403, `Origin '${origin ?? ""}' is not allowed (see --allow-origin)`)
      }
      if (!authorized(authorization)) {
        return refuse(response, 401, "Unauthorized: a valid 'Authorization: Bearer' token is required", {
          "www-authenticate": "Bearer"
        })
      }
      if (new URL(request.url ?? "/", "http://localhost").pathname !== "/mcp") {
        return refuse(response, 404, "not found; the MCP endpoint is /mcp")
      }
      const sessionId = request.headers["mcp-session-id"]
      const session = typeof sessionId === "string" ? sessions.get(sessionId) : undefined
      if (typeof sessionId === "string") {
        if (session === undefined) return refuse(response, 404, "Session not found")
        touch(sessionId, session)
      }
      if (request.method !== "POST") {
        if (session === undefined) return refuse(response, 400, "Bad Request: No valid session ID provided")
        void session.transport.handleRequest(request, response).catch(() => undefined)
        return
      }
      void readBody(request, response, limits.bodyTimeoutMs).then((body) => {
        if (!body.ok) return
        if (session === undefined) return open(request, response, body.json)
        post(session, request, response, body.json)
      })
    }

    const listener: HttpListener = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => listenHttp(address.host, address.port, handle),
        catch: (detail) =>
          new ServeError({
            reason: { _tag: "ListenFailed", address: `${address.host}:${address.port}`, detail: String(detail) }
          })
      }),
      (bound) =>
        Effect.promise(async () => {
          await Promise.all([...sessions].map(([id, session]) => close(id, session)))
          await bound.close()
        })
    )
    yield* Console.error(`note: lait serve --mcp: ready at ${urlOf(listener)} with ${summary}`)
    return yield* Effect.never
  })
