// `lait serve --mcp`: the configured agents and workflows as MCP tools, over stdio (stdout is the
// protocol; notes go to stderr) or over streamable HTTP at `http://ADDR/mcp`. Every call runs as a
// fiber of the server's own set, so calls run side by side, a client's cancellation interrupts its
// call, and when the server stops (stdin closed, Ctrl-C, SIGTERM) every running call is interrupted
// and its finalizers run (MCP servers it started stopped, its trace written) before lait exits.
import type { IncomingMessage, ServerResponse } from "node:http"
import { Cause, Console, Effect, Exit, FiberSet } from "effect"
import { LaitConfig } from "../config/LaitConfig.ts"
import { primaryError, renderChain } from "../core/errors.ts"
import { type HttpListener, listenHttp } from "../platform/httpServer.ts"
import { configSecrets } from "../trace/content.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { buildCatalog, type ServedTool } from "./catalog.ts"
import { callLayers, runTool } from "./call.ts"
import { ServeError } from "./serveErrors.ts"
import { makeServeTrace, type ServeTrace } from "./trace.ts"
import { redact } from "../core/redaction.ts"

export interface HttpAddress {
  readonly host: string
  readonly port: number
}

export interface ServeOptions {
  readonly version: string
  /** Streamable HTTP on this address; stdio when undefined. */
  readonly http: HttpAddress | undefined
  /** Host header values accepted besides the loopback names (`name` any port, `name:port` that one). */
  readonly allowedHosts: ReadonlyArray<string>
  readonly tracePath: string | undefined
}

/** `HOST:PORT`, `[IPv6]:PORT`, or a bare `PORT` (bound to 127.0.0.1); undefined when it is neither. */
export const parseHttpAddress = (text: string): HttpAddress | undefined => {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[^:[\]]*):)?(\d{1,5})$/.exec(text.trim())
  if (match === null) return undefined
  const port = Number(match[2])
  if (port > 65_535) return undefined
  const host = match[1] === undefined || match[1] === "" ? "127.0.0.1" : match[1].replace(/^\[(.*)\]$/, "$1")
  return { host, port }
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"]

/** Whether a request's Host header may reach the server (a DNS-rebinding page names its own host). */
export const hostAllowed = (header: string | undefined, allowed: ReadonlyArray<string>): boolean => {
  if (header === undefined || header === "") return false
  const host = header.toLowerCase()
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]!
  if (LOOPBACK_NAMES.includes(name)) return true
  return allowed.some((entry) => {
    const wanted = entry.toLowerCase()
    return wanted === host || wanted === name
  })
}

const urlOf = ({ host, port }: HttpAddress): string =>
  `http://${host.includes(":") ? `[${host}]` : host}:${port}/mcp`

const loadSdk = () =>
  Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/stdio.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js")
  ]).then(([server, stdio, http, types]) => ({ ...server, ...stdio, ...http, ...types }))
type Sdk = Awaited<ReturnType<typeof loadSdk>>

interface ToolResult {
  readonly [key: string]: unknown
  readonly content: Array<{ readonly type: "text"; readonly text: string }>
  readonly isError?: boolean
}

/**
 * One call in a run context of its own. Its trace is added however it ends; a failure is the tool
 * result, marked as an error, with the line `lait run` would print; an interruption stays one.
 */
const callTool = (tool: ServedTool, args: Readonly<Record<string, unknown>> | undefined, trace: ServeTrace) =>
  Effect.gen(function*() {
    const tracer = yield* RunTracer
    return yield* runTool(tool, args).pipe(
      Effect.onExit((exit) =>
        Effect.flatMap(tracer.all, (recorded) =>
          trace.add(
            tool.name,
            recorded,
            Exit.isSuccess(exit) ? "succeeded" : Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : "failed"
          ))
      ),
      Effect.exit
    )
  }).pipe(
    Effect.provide(callLayers, { local: true }),
    Effect.flatMap((exit): Effect.Effect<ToolResult> => {
      if (Exit.isSuccess(exit)) return Effect.succeed({ content: [{ type: "text", text: redact(exit.value) }] })
      if (Cause.hasInterruptsOnly(exit.cause)) return Effect.interrupt
      const error = primaryError(exit.cause)
      return Effect.succeed({ content: [{ type: "text", text: redact(renderChain(error)) }], isError: true })
    })
  )

type CallRequirements = Effect.Services<ReturnType<typeof callTool>>

/** A JSON-RPC error answer for requests refused before they reach the protocol. */
const refuse = (response: ServerResponse, status: number, message: string): void => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }))
}

export const serveMcp = (options: ServeOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const config = yield* LaitConfig
    const tools = yield* buildCatalog
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    const trace = yield* makeServeTrace(options.tracePath, configSecrets(config.config, config.env))
    const sdk: Sdk = yield* Effect.promise(loadSdk)
    const run = yield* FiberSet.makeRuntimePromise<CallRequirements>()
    const summary = tools.length === 0 ? "no tools" : `${tools.length} tool(s): ${tools.map((t) => t.name).join(", ")}`
    if (tools.length === 0) {
      yield* Console.error("warning: lait serve --mcp: no 'agents:' or 'workflows:' entry can be served")
    }

    const makeServer = () => {
      const server = new sdk.Server(
        { name: "lait", version: options.version },
        { capabilities: { tools: {} }, instructions: "lait's configured workflows and agents, as MCP tools" }
      )
      server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({
        tools: tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema as { readonly type: "object" } & Record<string, unknown>
        }))
      }))
      server.setRequestHandler(sdk.CallToolRequestSchema, (request, extra) => {
        const tool = byName.get(request.params.name)
        if (tool === undefined) {
          throw new sdk.McpError(sdk.ErrorCode.InvalidParams, `unknown tool '${request.params.name}'`)
        }
        return run(callTool(tool, request.params.arguments, trace), { signal: extra.signal })
      })
      return server
    }

    if (options.http === undefined) {
      const server = makeServer()
      yield* Effect.acquireRelease(
        Effect.promise(() => server.connect(new sdk.StdioServerTransport())),
        () => Effect.promise(() => server.close().catch(() => undefined))
      )
      yield* Console.error(`note: lait serve --mcp: ready over stdio with ${summary}`)
      // The client closing our stdin is how a stdio session ends.
      return yield* Effect.callback<void>((resume) => {
        const done = () => resume(Effect.void)
        process.stdin.once("end", done)
        process.stdin.once("close", done)
        return Effect.sync(() => {
          process.stdin.off("end", done)
          process.stdin.off("close", done)
        })
      })
    }

    interface Session {
      readonly server: ReturnType<typeof makeServer>
      readonly transport: InstanceType<Sdk["StreamableHTTPServerTransport"]>
    }
    const sessions = new Map<string, Session>()
    const handle = (request: IncomingMessage, response: ServerResponse): void => {
      if (!hostAllowed(request.headers.host, options.allowedHosts)) {
        return refuse(response, 403, `Host header '${request.headers.host ?? ""}' is not allowed (see --allowed-host)`)
      }
      if (new URL(request.url ?? "/", "http://localhost").pathname !== "/mcp") {
        return refuse(response, 404, "not found; the MCP endpoint is /mcp")
      }
      const sessionId = request.headers["mcp-session-id"]
      if (typeof sessionId === "string") {
        const session = sessions.get(sessionId)
        if (session === undefined) return refuse(response, 404, "Session not found")
        void session.transport.handleRequest(request, response).catch(() => undefined)
        return
      }
      if (request.method !== "POST") return refuse(response, 400, "Bad Request: No valid session ID provided")
      // A session per client, made by its initialize request (the transport refuses anything else).
      const server = makeServer()
      const transport: Session["transport"] = new sdk.StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, { server, transport })
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
      }
      void server.connect(transport).then(() => transport.handleRequest(request, response)).catch(() => undefined)
    }
    const address = options.http
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
          await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => undefined)))
          await bound.close()
        })
    )
    yield* Console.error(`note: lait serve --mcp: ready at ${urlOf(listener)} with ${summary}`)
    return yield* Effect.never
  }))
