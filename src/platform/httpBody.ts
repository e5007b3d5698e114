// Reading one HTTP request body whole, with a size cap and a deadline (`lait serve --mcp --http`,
// `lait proxy`): a client that trickles bytes or sends a flood holds nothing for long. Each server
// answers the failures in its own protocol's words.
import type { IncomingMessage } from "node:http"

export type JsonBody =
  | { readonly ok: true; readonly json: unknown }
  /** `aborted`: the client went away; nothing can be answered. */
  | { readonly ok: false; readonly problem: "too-large" | "timeout" | "not-json" | "aborted" }

/**
 * The body parsed as JSON. On `too-large` and `timeout` the rest of the body is no longer read: the
 * caller answers (413/408) and destroys the request.
 */
export const readJsonBody = (request: IncomingMessage, timeoutMs: number, maxBytes: number): Promise<JsonBody> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const finish = (body: JsonBody) => {
      clearTimeout(timer)
      request.off("data", onData)
      request.off("end", onEnd)
      request.off("error", onError)
      resolve(body)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) finish({ ok: false, problem: "too-large" })
      else chunks.push(chunk)
    }
    const onEnd = () => {
      try {
        finish({ ok: true, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown })
      } catch {
        finish({ ok: false, problem: "not-json" })
      }
    }
    const onError = () => finish({ ok: false, problem: "aborted" })
    const timer = setTimeout(() => finish({ ok: false, problem: "timeout" }), timeoutMs)
    request.on("data", onData)
    request.once("end", onEnd)
    request.once("error", onError)
  })
