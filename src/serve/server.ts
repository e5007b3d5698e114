// `lait serve --mcp`: the configured agents and workflows as MCP tools, over stdio (stdout is the
// protocol; notes go to stderr) or over streamable HTTP at `http://ADDR/mcp`. Every call runs as a
// fiber of the server's own set, so calls run side by side (at most --max-calls at once), a client's
// cancellation (or, over HTTP, its hanging up) interrupts its call, and when the server stops (stdin
// closed, Ctrl-C, SIGTERM) every running call is interrupted and its finalizers run (MCP servers it
// started stopped, its trace written) before lait exits.
import { Cause, Console, Effect, Exit, FiberSet } from "effect"
import { LaitConfig } from "../config/LaitConfig.ts"
import { primaryError, renderChain } from "../core/errors.ts"
import { configSecrets } from "../trace/content.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { isLoopbackHost } from "../platform/httpAccess.ts"
import { buildCatalog, type ServedTool } from "./catalog.ts"
import { callLayers, runTool } from "./call.ts"
import { type HttpOptions, serveHttp } from "./http.ts"
import { loadSdk, type McpServer, type Sdk, type TrackCall, untracked } from "./sdk.ts"
import { makeServeTrace, type ServeTrace } from "./trace.ts"
import { redact } from "../core/redaction.ts"

export interface ServeOptions {
  readonly version: string
  /** Streamable HTTP with these settings; stdio when undefined. */
  readonly http: HttpOptions | undefined
  /** Tool calls running at once at most, over every session; another is refused while they run. */
  readonly maxCalls: number
  readonly tracePath: string | undefined
}

interface ToolResult {
  readonly [key: string]: unknown
  readonly content: Array<{ readonly type: "text"; readonly text: string }>
  readonly isError: boolean
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
      // `isError: false` is sent, not left out, as the original's server does: a client that reads a
      // missing field as unknown still sees a success (docs/serve.md).
      if (Exit.isSuccess(exit)) {
        return Effect.succeed({ content: [{ type: "text", text: redact(exit.value) }], isError: false })
      }
      if (Cause.hasInterruptsOnly(exit.cause)) return Effect.interrupt
      const error = primaryError(exit.cause)
      return Effect.succeed({ content: [{ type: "text", text: redact(renderChain(error)) }], isError: true })
    })
  )

type CallRequirements = Effect.Services<ReturnType<typeof callTool>>

export const serveMcp = (options: ServeOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const config = yield* LaitConfig
    // On a non-loopback address, workflows lint finds shell-injectable are not served at all.
    const network = options.http !== undefined && !isLoopbackHost(options.http.address.host)
    const tools = yield* buildCatalog({ network })
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    const trace = yield* makeServeTrace(options.tracePath, configSecrets(config.config, config.env))
    const sdk: Sdk = yield* Effect.promise(loadSdk)
    const run = yield* FiberSet.makeRuntimePromise<CallRequirements>()
    const summary = tools.length === 0 ? "no tools" : `${tools.length} tool(s): ${tools.map((t) => t.name).join(", ")}`
    if (tools.length === 0) {
      yield* Console.error("warning: lait serve --mcp: no 'agents:' or 'workflows:' entry can be served")
    }
    let running = 0
    const busy: ToolResult = {
      content: [{
        type: "text",
        text: `lait serve is busy: ${options.maxCalls} tool call(s) are already running (see --max-calls); ` +
          "try again later"
      }],
      isError: true
    }

    const makeServer = (track: TrackCall): McpServer => {
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
        // Refused rather than queued: a queue would hold every waiting request, the growth this cap prevents.
        if (running >= options.maxCalls) return busy
        running++
        const call = track(extra)
        return run(callTool(tool, request.params.arguments, trace), { signal: call.signal }).finally(() => {
          running--
          call.done()
        })
      })
      return server
    }

    if (options.http !== undefined) return yield* serveHttp(options.http, sdk, makeServer, summary)
    const server = makeServer(untracked)
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
  }))
