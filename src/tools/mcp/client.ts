// Opening an MCP connection with @modelcontextprotocol/sdk (loaded only when a step first uses an MCP
// server). stdio servers run in their own process group (./stdio.ts); streamable HTTP goes through a
// fetch that never follows redirects (a server must not send lait's headers elsewhere) and reads at
// most 16 MiB of any response body, a long-lived SSE stream included. An HTTP answer that is not a
// JSON-RPC message breaks the connection, so the request it answered fails at once with one line.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { FetchLike, Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { describeNetworkFailure } from "../../core/network.ts"
import { VERSION } from "../../version.ts"
import { isSchemaError, type McpConnection } from "./protocol.ts"
import { GroupStdioTransport, type StdioServerParameters } from "./stdio.ts"

export const MAX_HTTP_BODY_BYTES = 16 * 1024 * 1024

export interface ConnectOptions {
  readonly timeoutMs: number
  readonly signal?: AbortSignal | undefined
  /** Called as soon as something exists that shutdown must close, before the handshake. */
  readonly onOpen: (close: () => Promise<void>) => void
}

class BodyTooLarge extends Error {
  constructor() {
    super(`HTTP response body exceeds ${MAX_HTTP_BODY_BYTES} bytes`)
  }
}

/** A configured URL may carry a `${TOKEN}` in its query or user part; the message shows neither. */
const withoutCredentials = (url: string | URL): string => {
  try {
    const parsed = new URL(String(url))
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return "the server's URL"
  }
}

/**
 * `fetch` with redirects left unfollowed (an error), every body capped at MAX_HTTP_BODY_BYTES, and a
 * server that cannot be reached reported as model requests report it.
 */
export const limitedFetch = (base: FetchLike = fetch): FetchLike => async (url, init) => {
  const response = await base(url, { ...init, redirect: "manual" }).catch((error: unknown) => {
    // An abort is the SDK's own timeout or shutdown, which it reports itself.
    if (error instanceof Error && error.name === "AbortError") throw error
    throw new Error(`failed to reach '${withoutCredentials(url)}': ${describeNetworkFailure(error)}`, { cause: error })
  })
  if (response.status >= 300 && response.status < 400 && response.status !== 304) {
    const location = response.headers.get("location")
    await response.body?.cancel().catch(() => undefined)
    throw new Error(
      `the server answered HTTP ${response.status} with a redirect${location === null ? "" : ` to '${location}'`}; ` +
        "lait does not follow redirects from MCP servers"
    )
  }
  const length = response.headers.get("content-length")
  if (length !== null && Number(length) > MAX_HTTP_BODY_BYTES) {
    await response.body?.cancel().catch(() => undefined)
    throw new BodyTooLarge()
  }
  if (response.body === null) return response
  let total = 0
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength
        if (total > MAX_HTTP_BODY_BYTES) controller.error(new BodyTooLarge())
        else controller.enqueue(chunk)
      }
    })
  )
  return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers })
}

const NOT_JSON_RPC = "the server answered with something that is not a JSON-RPC message"

/**
 * The HTTP transport with answers checked. The SDK reports a JSON body or SSE event that is not
 * JSON-RPC (or not JSON) through onerror and drops it, so the request it answered would wait for the
 * I/O timeout (an SSE event) or fail with the schema's multi-line issue list (a JSON body). Here it
 * closes the connection instead: every pending request fails with "Connection closed" and `failure`
 * says why.
 */
class CheckedTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: Transport["onmessage"]
  failure: string | undefined

  constructor(private readonly inner: StreamableHTTPClientTransport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version)
  }

  start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage) => this.onmessage?.(message)
    this.inner.onclose = () => this.onclose?.()
    this.inner.onerror = (error) => {
      if ((isSchemaError(error) || error instanceof SyntaxError) && this.failure === undefined) {
        this.failure = NOT_JSON_RPC
        this.onerror?.(new Error(NOT_JSON_RPC))
        void this.inner.close()
        return
      }
      this.onerror?.(error)
    }
    return this.inner.start()
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // The same object the SDK hands any transport; exactOptionalPropertyTypes only sees different spellings.
    return this.inner.send(message, options as Parameters<StreamableHTTPClientTransport["send"]>[1])
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}

/** `error` with the reason the transport broke, when there is one. */
const withFailure = (error: unknown, failure: string | undefined): unknown =>
  failure !== undefined && error instanceof Error ? new Error(`${error.message}: ${failure}`, { cause: error }) : error

const newClient = () => new Client({ name: "lait", version: VERSION }, { capabilities: {} })

const settle = (p: Promise<unknown>): Promise<void> => p.then(() => undefined, () => undefined)

/**
 * The MCP handshake over `transport`. `close` is registered first, so that a shutdown racing the
 * handshake still stops the server; a failed handshake closes it and says why the transport broke.
 */
const handshake = async (
  client: Client,
  transport: Transport & { readonly failure: string | undefined },
  close: () => Promise<void>,
  options: ConnectOptions
): Promise<void> => {
  options.onOpen(close)
  try {
    await client.connect(transport, {
      timeout: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {})
    })
  } catch (error) {
    await close()
    throw withFailure(error, transport.failure)
  }
}

export const connectStdio = async (params: StdioServerParameters, options: ConnectOptions): Promise<McpConnection> => {
  const transport = new GroupStdioTransport(params)
  const client = newClient()
  const close = () => settle(client.close()).then(() => transport.close())
  // Spawning happens inside connect().
  await handshake(client, transport, close, options)
  return { client, close, failure: () => transport.failure, pid: transport.pid }
}

export const connectHttp = async (
  url: string,
  headers: Readonly<Record<string, string>>,
  options: ConnectOptions
): Promise<McpConnection> => {
  const http = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...headers } },
    fetch: limitedFetch(),
    // Redirects are ours to refuse (limitedFetch), not the SDK's to follow within the origin.
    redirectPolicy: "follow",
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1
    }
  })
  const transport = new CheckedTransport(http)
  const client = newClient()
  const close = async () => {
    // Ending the session lets the server free it; a server that is gone, slow or broken must not hold us up.
    if (transport.failure === undefined && http.sessionId !== undefined) {
      await Promise.race([settle(http.terminateSession()), new Promise((done) => setTimeout(done, 2000).unref?.())])
    }
    await settle(client.close())
  }
  await handshake(client, transport, close, options)
  return { client, close, failure: () => transport.failure, pid: undefined }
}
