// Reading one HTTP request body whole, with a size cap and a deadline (`lait serve --mcp --http`,
// `lait proxy`, both on ./fetchServer.ts): a client that trickles bytes or sends a flood holds nothing
// for long. Each server answers the failures in its own protocol's words.

export type JsonBody =
  | { readonly ok: true; readonly json: unknown }
  /** `aborted`: the client went away; nothing can be answered. */
  | { readonly ok: false; readonly problem: "too-large" | "timeout" | "not-json" | "aborted" }

const parsed = (text: string): JsonBody => {
  try {
    return { ok: true, json: JSON.parse(text) as unknown }
  } catch {
    return { ok: false, problem: "not-json" }
  }
}

const TIMEOUT = Symbol("timeout")
type Failed = { readonly problem: "timeout" | "too-large" }

/** A body without a length, read chunk by chunk so a flood stops at the cap. */
const readChunked = async (
  body: ReadableStream<Uint8Array> | null,
  deadline: Promise<typeof TIMEOUT>,
  maxBytes: number
): Promise<string | Failed> => {
  if (body === null) return ""
  const reader = body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const next = await Promise.race([reader.read(), deadline])
    if (next === TIMEOUT || (!next.done && (size += next.value.byteLength) > maxBytes)) {
      void reader.cancel().catch(() => undefined)
      return { problem: next === TIMEOUT ? "timeout" : "too-large" }
    }
    if (next.done) return Buffer.concat(chunks).toString("utf8")
    chunks.push(next.value)
  }
}

/**
 * The body parsed as JSON, under the cap and within the deadline; past either, the rest is not read
 * (the caller answers 413 or 408 and closes the connection). A body of a declared length is taken
 * whole from the server (a client's usual request; touching `request.body` would make a stream of it
 * first); only one sent without a length is read chunk by chunk.
 */
export const readJsonRequest = async (request: Request, timeoutMs: number, maxBytes: number): Promise<JsonBody> => {
  const length = request.headers.get("content-length")
  if (length !== null && Number(length) > maxBytes) return { ok: false, problem: "too-large" }
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<typeof TIMEOUT>((resolve) => timer = setTimeout(() => resolve(TIMEOUT), timeoutMs))
  try {
    const body = length !== null
      ? await Promise.race([request.text(), deadline])
      : await readChunked(request.body, deadline, maxBytes)
    if (body === TIMEOUT) return { ok: false, problem: "timeout" }
    return typeof body === "string" ? parsed(body) : { ok: false, problem: body.problem }
  } catch {
    return { ok: false, problem: "aborted" }
  } finally {
    clearTimeout(timer)
  }
}
