// `lait serve --mcp --http`: MCP's streamable HTTP transport at /mcp, one SDK server per session, and
// the limits that keep a client from exhausting the process (docs/serve.md#limits): a request must
// pass the Host, Origin and token checks (src/platform/httpAccess.ts) before anything is allocated for it; a
// POST body must arrive whole within a deadline and under a size cap before it is parsed; sessions are
// capped (the oldest idle one makes room) and expire when idle; and a tool call whose client hangs up
// on its POST is cancelled, as `notifications/cancelled` and DELETE cancel it.
import { Console, Effect } from "effect"
import { type HttpListener, listenFetch } from "../platform/fetchServer.ts"
import { readJsonRequest } from "../platform/httpBody.ts"
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
const refuse = (status: number, message: string, headers: Readonly<Record<string, string>> = {}): Response =>
  Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status, headers })

/**
 * The whole body, parsed (src/platform/httpBody.ts); or the answer that refuses it (408 past the
 * deadline, 413 over the cap, both closing the connection; 400 when it is not JSON).
 */
const readBody = async (request: Request, timeoutMs: number): Promise<{ readonly json: unknown } | Response> => {
  const body = await readJsonRequest(request, timeoutMs, MAX_BODY_BYTES)
  if (body.ok) return body
  switch (body.problem) {
    case "not-json": {
      const parseError = { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }
      return Response.json(parseError, { status: 400 })
    }
    case "too-large": {
      const why = `Payload Too Large: a message may hold at most ${MAX_BODY_BYTES} bytes`
      return refuse(413, why, { connection: "close" })
    }
    case "timeout": {
      const why = `Request Timeout: the body did not arrive within ${timeoutMs / 1000} s (see --body-timeout)`
      return refuse(408, why, { connection: "close" })
    }
    case "aborted":
      // Nobody is there to read an answer.
      return new Response(null, { status: 400 })
  }
}

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
    const post = (session: Session, request: Request, json: unknown): Promise<Response> => {
      const hangups = callIds(json).map((id) => {
        const controller = new AbortController()
        session.hangups.set(id, controller)
        return [id, controller] as const
      })
      if (hangups.length > 0) {
        // A call already answered is over: aborting its controller then changes nothing.
        request.signal.addEventListener("abort", () => {
          for (const [id, controller] of hangups) {
            controller.abort()
            if (session.hangups.get(id) === controller) session.hangups.delete(id)
          }
        }, { once: true })
      }
      return session.transport.handleRequest(request, { parsedBody: json })
    }

    /** An initialize request: a new session, if there is room. */
    const open = (request: Request, json: unknown): Promise<Response> => {
      if (sessions.size + opening >= limits.maxSessions && !evictIdle()) {
        const why = `Service Unavailable: ${limits.maxSessions} sessions are open and busy (see --max-sessions)`
        return Promise.resolve(refuse(503, why))
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
        transport: new sdk.WebStandardStreamableHTTPServerTransport({
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
      return server.connect(session.transport)
        .then(() => session.transport.handleRequest(request, { parsedBody: json }))
        .finally(() => {
          uncount()
          // Not an initialize request (the transport refused it): nothing will ever use this server.
          if (session.transport.sessionId === undefined) void server.close().catch(() => undefined)
        })
    }

    const handle = async (request: Request): Promise<Response> => {
      const header = (name: string) => request.headers.get(name) ?? undefined
      const host = header("host")
      const origin = header("origin")
      if (!hostAllowed(host, options.allowedHosts)) {
        return refuse(403, `Host header '${host ?? ""}' is not allowed (see --allowed-host)`)
      }
      if (!originAllowed(origin, { loopback, allowed: options.allowedOrigins })) {
        return refuse(403, `Origin '${origin ?? ""}' is not allowed (see --allow-origin)`)
      }
      if (!authorized(header("authorization"))) {
        return refuse(401, "Unauthorized: a valid 'Authorization: Bearer' token is required", {
          "www-authenticate": "Bearer"
        })
      }
      if (new URL(request.url).pathname !== "/mcp") return refuse(404, "not found; the MCP endpoint is /mcp")
      const sessionId = header("mcp-session-id")
      const session = sessionId === undefined ? undefined : sessions.get(sessionId)
      if (sessionId !== undefined) {
        if (session === undefined) return refuse(404, "Session not found")
        touch(sessionId, session)
      }
      if (request.method !== "POST") {
        if (session === undefined) return refuse(400, "Bad Request: No valid session ID provided")
        return session.transport.handleRequest(request)
      }
      const body = await readBody(request, limits.bodyTimeoutMs)
      if (body instanceof Response) return body
      return session === undefined ? open(request, body.json) : post(session, request, body.json)
    }
    const answer = (request: Request): Promise<Response> =>
      handle(request).catch((error: unknown) => refuse(500, `Internal Server Error: ${String(error)}`))

    const listener: HttpListener = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => listenFetch(address.host, address.port, answer),
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
