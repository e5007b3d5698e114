// A whole (not streamed) model answer, fetched and read under a byte cap without Effect's HTTP client:
// a server that sends an endless or huge body must cost at most the cap in memory, never the
// machine. The cap is the file read limit by default, so whatever lait accepts from a server it can
// also read back from a cassette of the same size. No effect/http here: a run that only asks for
// whole answers (an eval, a `lait run` without streaming) never evaluates the HTTP client's modules
// (bench/README.md, issue 24 round 9); streaming reads through the client (./httpBody.ts).
import { Effect } from "effect"
import { READ_LIMIT } from "../platform/FileLoader.ts"

export const DEFAULT_RESPONSE_LIMIT = READ_LIMIT

export type CappedBody =
  | { readonly _tag: "Body"; readonly text: string }
  /** The body passed the cap (or announced it would): nothing of it is kept. */
  | { readonly _tag: "TooLarge" }

const decoder = new TextDecoder()

/** `chunks` (`total` bytes in all) as one text, decoded as `Response.text()` would. */
export const joined = (chunks: ReadonlyArray<Uint8Array>, total: number): CappedBody => {
  if (chunks.length === 1) return { _tag: "Body", text: decoder.decode(chunks[0]) }
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.length
  }
  return { _tag: "Body", text: decoder.decode(bytes) }
}

/**
 * A web body read with its own reader, up to `limit` bytes: the same cap and errors as reading it as
 * an Effect Stream, at a fraction of the cost per request (an eval sends thousands). An abort of
 * `signal` (a timeout, Ctrl-C) cancels the reader, which releases the connection.
 */
export const readBodyCapped = async (
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  signal: AbortSignal
): Promise<CappedBody> => {
  if (body === null) return { _tag: "Body", text: "" }
  const reader = body.getReader()
  const cancel = () => void reader.cancel().catch(() => undefined)
  signal.addEventListener("abort", cancel, { once: true })
  try {
    const chunks: Array<Uint8Array> = []
    let total = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return joined(chunks, total)
      total += value.length
      if (total > limit) {
        cancel()
        return { _tag: "TooLarge" }
      }
      chunks.push(value)
    }
  } finally {
    signal.removeEventListener("abort", cancel)
    reader.releaseLock()
  }
}

/** A request as fetchCapped sends it; header names in lower case. */
export interface WholeRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: Uint8Array<ArrayBuffer> | undefined
}

/** An answer read whole (up to the cap) by fetchCapped; header names in lower case. */
export interface CappedResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: CappedBody
}

/** What fetchCapped fails with when its `timeoutMillis` passed first. */
export const FETCH_TIMED_OUT: unique symbol = Symbol("lait/fetchCapped/timedOut")

/**
 * `request` sent with the runtime's `fetch` and its answer read as readCapped (./httpBody.ts) reads
 * it: what Effect's fetch client and readCapped do together (the same URL check, headers, body bytes
 * and cap), without the client's request and response wrappers, which cost an eval's model run as
 * much as the rest of its request handling (bench/README.md, issue 24 round 8). Interrupting it
 * aborts the request, or cancels the body's reader once the answer has begun; so does
 * `timeoutMillis` (from sending to the last byte, at most setTimeout's longest wait), which then
 * fails with FETCH_TIMED_OUT. Any other failure is what went wrong: an invalid URL
 * (`InvalidUrlError`, as the client says it), else the runtime's own error, for describeNetworkFailure.
 */
export const fetchCapped = (
  request: WholeRequest,
  limit: number,
  timeoutMillis?: number
): Effect.Effect<CappedResponse, unknown> =>
  Effect.suspend(() => {
    let url: URL
    try {
      url = new URL(request.url)
    } catch (cause) {
      return Effect.fail({ _tag: "InvalidUrlError", cause })
    }
    // As the fetch client does: the runtime sets the length of the body it sends.
    const { "content-length": _length, ...headers } = request.headers
    const body = request.body
    return Effect.tryPromise({
      try: async (interrupted) => {
        // One signal for both reasons to stop: an interruption of the fiber, or the timer.
        const stop = new AbortController()
        const abort = () => stop.abort()
        interrupted.addEventListener("abort", abort, { once: true })
        let timedOut = false
        const timer = timeoutMillis === undefined ? undefined : setTimeout(() => {
          timedOut = true
          stop.abort()
        }, timeoutMillis)
        try {
          const response = await fetch(url, { method: request.method, headers, body, signal: stop.signal })
          const length = response.headers.get("content-length")
          const declared = length === null || !/^\d+$/.test(length) ? Number.NaN : Number(length)
          const encoded = response.headers.has("content-encoding")
          const answer: CappedBody = Number.isFinite(declared) && declared > limit
            ? (void response.body?.cancel().catch(() => undefined), { _tag: "TooLarge" })
            // A length within the cap, of the body as it will be read (not compressed), bounds it: read
            // at once. Otherwise chunk by chunk, counting (a compressed body may inflate past the cap).
            : Number.isFinite(declared) && !encoded
            ? { _tag: "Body", text: await response.text() }
            : await readBodyCapped(response.body, limit, stop.signal)
          // A cancelled reader ends like a finished one: what it read is not the whole answer.
          if (timedOut) throw FETCH_TIMED_OUT
          // Read only when asked for (a retry's Retry-After): copying them costs more than the body.
          let answerHeaders: Record<string, string> | undefined
          return {
            status: response.status,
            get headers() {
              if (answerHeaders === undefined) {
                answerHeaders = {}
                for (const [name, value] of response.headers) answerHeaders[name.toLowerCase()] = value
              }
              return answerHeaders
            },
            body: answer
          }
        } catch (cause) {
          throw timedOut ? FETCH_TIMED_OUT : cause
        } finally {
          clearTimeout(timer)
          interrupted.removeEventListener("abort", abort)
        }
      },
      catch: (cause) => cause
    })
  })
