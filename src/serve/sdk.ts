// The MCP SDK's server side, loaded on demand (`lait serve` is the only command that needs it), and the
// part of a request handler's context a tool call uses.
export const loadSdk = () =>
  Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/stdio.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js")
  ]).then(([server, stdio, http, types]) => ({ ...server, ...stdio, ...http, ...types }))
export type Sdk = Awaited<ReturnType<typeof loadSdk>>
export type McpServer = InstanceType<Sdk["Server"]>
export type HttpTransport = InstanceType<Sdk["WebStandardStreamableHTTPServerTransport"]>

/** What a tool call knows of its request: the SDK's signal (`notifications/cancelled`, DELETE). */
export interface CallContext {
  readonly signal: AbortSignal
  readonly sessionId?: string | undefined
  readonly requestId: string | number
}

/**
 * Registers a tool call with its transport: the signal it runs under (the SDK's, plus whatever else
 * ends it, such as the HTTP client hanging up) and `done`, called however it ends.
 */
export type TrackCall = (context: CallContext) => { readonly signal: AbortSignal; readonly done: () => void }

export const untracked: TrackCall = (context) => ({ signal: context.signal, done: () => undefined })
