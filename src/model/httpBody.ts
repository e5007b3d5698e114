// A model server's answer is read as a stream and abandoned once it passes a byte cap: a server that
// sends an endless or huge body must cost at most the cap in memory, never the machine. The cap is
// the file read limit by default, so whatever lait accepts from a server it can also read back from
// a cassette of the same size.
import { Effect, Option, Stream } from "effect"
import { Headers, HttpClientError, type HttpClientRequest, HttpClientResponse } from "effect/http"
import { READ_LIMIT } from "../platform/FileLoader.ts"

export const DEFAULT_RESPONSE_LIMIT = READ_LIMIT

export type CappedBody =
  | { readonly _tag: "Body"; readonly text: string }
  /** The body passed the cap (or announced it would): nothing of it is kept. */
  | { readonly _tag: "TooLarge" }

const decoder = new TextDecoder()

/**
 * The body as text (decoded as `Response.text()` would), or `TooLarge` as soon as more than `limit`
 * bytes arrived or `Content-Length` says they will. Stopping early cancels the body's reader, which
 * releases the connection; the bytes read so far are dropped.
 */
export const readCapped = (
  response: HttpClientResponse.HttpClientResponse,
  limit: number
): Effect.Effect<CappedBody, HttpClientError.HttpClientError> =>
  Effect.suspend(() => {
    const declared = Number(response.headers["content-length"])
    if (Number.isFinite(declared) && declared > limit) return Effect.succeed<CappedBody>({ _tag: "TooLarge" })
    const web = HttpClientResponse.toWeb(response)
    return Option.isSome(web) ? readWebCapped(response, web.value, limit) : readStreamCapped(response, limit)
  })

const joined = (chunks: ReadonlyArray<Uint8Array>, total: number): CappedBody => {
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
const readBodyCapped = async (
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

const readWebCapped = (
  response: HttpClientResponse.HttpClientResponse,
  web: Response,
  limit: number
): Effect.Effect<CappedBody, HttpClientError.HttpClientError> =>
  Effect.tryPromise({
    try: (signal) => readBodyCapped(web.body, limit, signal),
    catch: (cause) =>
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.DecodeError({ request: response.request, response, cause })
      })
  })

/** An answer read whole (up to the cap) by fetchCapped. */
export interface CappedResponse {
  readonly status: number
  readonly headers: Headers.Headers
  readonly body: CappedBody
}

/** What fetchCapped fails with when its `timeoutMillis` passed first. */
export const FETCH_TIMED_OUT: unique symbol = Symbol("lait/fetchCapped/timedOut")

/**
 * `request` sent with the runtime's `fetch` and its answer read as readCapped reads it: what Effect's
 * fetch client and readCapped do together (the same URL check, headers, body bytes and cap), without
 * the client's request and response wrappers, which cost an eval's model run as much as the rest of
 * its request handling (bench/README.md, issue 24 round 8). Interrupting it aborts the request, or
 * cancels the body's reader once the answer has begun; so does `timeoutMillis` (from sending to the
 * last byte, at most setTimeout's longest wait), which then fails with FETCH_TIMED_OUT. Any other
 * failure is what went wrong: an invalid URL (`InvalidUrlError`, as the client says it), else the
 * runtime's own error, for describeNetworkFailure.
 */
export const fetchCapped = (
  request: HttpClientRequest.HttpClientRequest,
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
    const given = request.body
    if (given._tag !== "Empty" && given._tag !== "Uint8Array" && given._tag !== "Raw") {
      return Effect.die(new Error(`fetchCapped sends byte bodies only, not ${given._tag}`))
    }
    const body = given._tag === "Empty" ? undefined : given.body as Uint8Array<ArrayBuffer>
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
          let answerHeaders: Headers.Headers | undefined
          return {
            status: response.status,
            get headers() {
              return answerHeaders ??= Headers.fromInput(response.headers)
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

const readStreamCapped = (
  response: HttpClientResponse.HttpClientResponse,
  limit: number
): Effect.Effect<CappedBody, HttpClientError.HttpClientError> =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let total = 0
    return Stream.runForEachWhile(response.stream, (chunk) =>
      Effect.sync(() => {
        total += chunk.length
        if (total > limit) return false
        chunks.push(chunk)
        return true
      })).pipe(
        Effect.map((): CappedBody => (total > limit ? { _tag: "TooLarge" } : joined(chunks, total))),
        // A response without a body (a bare 204 or 503) has no stream to read: its text is empty.
        Effect.catchIf(
          (e) => e.reason._tag === "EmptyBodyError",
          () => Effect.succeed<CappedBody>({ _tag: "Body", text: "" })
        )
      )
  })
