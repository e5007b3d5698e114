// lait's HTTP listener (`lait proxy`, `lait serve --mcp --http`), for handlers written against the
// web's Request and Response: each runtime's own server, Bun.serve under Bun and Deno.serve under
// Deno, so the same sources run under both. node:http is Bun's emulation on top of the same server
// and cost the proxy about half its time per request (bench/README.md, issue 41). No idle timeout: a
// model's whole answer, or an MCP tool call's, may take minutes to start; the deadline for a request
// body is the handler's (./httpBody.ts).
import { osErrorText } from "./process.ts"

export interface HttpListener {
  /** The address actually bound (port 0 becomes the port the OS chose). */
  readonly host: string
  readonly port: number
  /** Stops accepting, ends every open connection (streams included) and resolves when closed. */
  readonly close: () => Promise<void>
}

export type FetchHandler = (request: Request) => Response | Promise<Response>

/** The part of Deno's server lait uses; its types are not installed here. */
interface DenoRuntime {
  readonly serve: (options: {
    readonly hostname: string
    readonly port: number
    readonly onListen: (address: { readonly hostname: string; readonly port: number }) => void
    readonly handler: FetchHandler
  }) => { readonly shutdown: () => Promise<void> }
}

const listenDeno = (deno: DenoRuntime, host: string, port: number, handler: FetchHandler): Promise<HttpListener> =>
  new Promise((resolve, reject) => {
    try {
      const server = deno.serve({
        hostname: host,
        port,
        handler,
        onListen: (bound) => resolve({ host: bound.hostname, port: bound.port, close: () => server.shutdown() })
      })
    } catch (error) {
      reject(osErrorText(error))
    }
  })

/** Resolves once listening; rejects with the OS's reason (`address already in use`, ...) as text. */
export const listenFetch = (host: string, port: number, handler: FetchHandler): Promise<HttpListener> => {
  const deno = (globalThis as { readonly Deno?: DenoRuntime }).Deno
  if (deno !== undefined) return listenDeno(deno, host, port, handler)
  try {
    const server = Bun.serve({ hostname: host, port, idleTimeout: 0, development: false, fetch: handler })
    return Promise.resolve({
      host: server.hostname ?? host,
      port: server.port ?? port,
      close: () => server.stop(true)
    })
  } catch (error) {
    return Promise.reject(osErrorText(error))
  }
}
