// Opening an MCP connection with @modelcontextprotocol/sdk (loaded only when a step first uses an MCP
// server). stdio servers run in their own process group (./stdio.ts); streamable HTTP goes through a
// fetch that never follows redirects (a server must not send lait's headers elsewhere) and reads at
// most 16 MiB of any response body, a long-lived SSE stream included.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import { describeNetworkFailure } from "../../core/network.ts"
import { VERSION } from "../../version.ts"
import { GroupStdioTransport, type StdioServerParameters } from "./stdio.ts"

export const MAX_HTTP_BODY_BYTES = 16 * 1024 * 1024

export interface McpConnection {
  readonly client: Client
  /** Closes the session and, for stdio, stops the server's whole process group. Never rejects. */
  readonly close: () => Promise<void>
  /** Why the transport broke, when it did (e.g. an oversized frame). */
  readonly failure: () => string | undefined
  /** The server's process id (stdio). */
  readonly pid: number | undefined
}

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

const newClient = () => new Client({ name: "lait", version: VERSION }, { capabilities: {} })

const settle = (p: Promise<unknown>): Promise<void> => p.then(() => undefined, () => undefined)

export const connectStdio = async (params: StdioServerParameters, options: ConnectOptions): Promise<McpConnection> => {
  const transport = new GroupStdioTransport(params)
  const client = newClient()
  const close = () => settle(client.close()).then(() => transport.close())
  // Spawning happens inside connect(); register first so a shutdown racing the handshake still stops it.
  options.onOpen(close)
  try {
    await client.connect(transport, { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) })
  } catch (error) {
    await close()
    throw transport.failure !== undefined && error instanceof Error
      ? new Error(`${error.message}: ${transport.failure}`, { cause: error })
      : error
  }
  return { client, close, failure: () => transport.failure, pid: transport.pid }
}

export const connectHttp = async (
  url: string,
  headers: Readonly<Record<string, string>>,
  options: ConnectOptions
): Promise<McpConnection> => {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
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
  const client = newClient()
  const close = async () => {
    // Ending the session lets the server free it; a server that is gone or slow must not hold us up.
    if (transport.sessionId !== undefined) {
      await Promise.race([settle(transport.terminateSession()), new Promise((done) => setTimeout(done, 2000).unref?.())])
    }
    await settle(client.close())
  }
  options.onOpen(close)
  try {
    await client.connect(transport, { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) })
  } catch (error) {
    await close()
    throw error
  }
  return { client, close, failure: () => undefined, pid: undefined }
}
