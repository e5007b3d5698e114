// A gateway in front of a model server, for the interop suite: like Portkey it refuses a request that
// does not say where to route it (`x-portkey-provider`), with Portkey's own error text, and passes
// every other request through unchanged (streams too), keeping the headers it saw.
export interface Gateway {
  readonly baseUrl: string
  readonly seen: Array<Readonly<Record<string, string>>>
  stop(): Promise<void>
}

/** Listens on 127.0.0.1 (a free port) and forwards `/v1/...` to `upstream` (a `.../v1` URL). */
export const startGateway = (upstream: string, required = "x-portkey-provider"): Gateway => {
  const seen: Array<Readonly<Record<string, string>>> = []
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const headers = Object.fromEntries(request.headers.entries())
      seen.push(headers)
      if (headers[required] === undefined) {
        const message = "Either x-portkey-config or x-portkey-provider header is required"
        return Response.json({ status: "failure", message }, { status: 400 })
      }
      const url = new URL(request.url)
      const target = `${upstream.replace(/\/v1$/, "")}${url.pathname}${url.search}`
      const forwarded = new Headers(request.headers)
      forwarded.delete("host")
      forwarded.delete(required)
      const answer = await fetch(target, {
        method: request.method,
        headers: forwarded,
        ...(request.method === "GET" ? {} : { body: await request.arrayBuffer() })
      })
      // fetch decoded the body: its length and encoding no longer describe what is passed on.
      const back = new Headers(answer.headers)
      back.delete("content-encoding")
      back.delete("content-length")
      return new Response(answer.body, { status: answer.status, headers: back })
    }
  })
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    seen,
    stop: () => server.stop(true)
  }
}
