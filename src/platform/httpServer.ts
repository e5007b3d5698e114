// A plain HTTP listener (`lait serve --mcp --http`). node:http rather than Bun.serve so the same
// sources run under Deno; and no idle timeout, since an MCP tool call's answer may take minutes to
// start streaming. The deadline for a request body is the handler's (src/serve/http.ts).
import * as http from "node:http"
import { osErrorText } from "./process.ts"

export type HttpHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void

export interface HttpListener {
  /** The address actually bound (port 0 becomes the port the OS chose). */
  readonly host: string
  readonly port: number
  /** Stops accepting, ends every open connection (streams included) and resolves when closed. */
  readonly close: () => Promise<void>
}

/** Resolves once listening; rejects with the OS's reason (`address already in use`, ...) as text. */
export const listenHttp = (host: string, port: number, handler: HttpHandler): Promise<HttpListener> =>
  new Promise((resolve, reject) => {
    const server = http.createServer(handler)
    server.requestTimeout = 0
    server.headersTimeout = 60_000
    server.keepAliveTimeout = 5_000
    server.once("error", (error) => reject(osErrorText(error)))
    server.listen(port, host, () => {
      const address = server.address()
      const bound = typeof address === "object" && address !== null ? address : { address: host, port }
      resolve({
        host: bound.address,
        port: bound.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          })
      })
    })
  })
