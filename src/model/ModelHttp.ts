// The one HTTP path to a model server: chat completions whole and streamed, the Responses API and
// `GET /models` (`lait models --remote`, `lait doctor`) all go through this service, which owns what
// every request needs in one place: the trace-propagation headers (./tracePropagation.ts), the byte
// cap on the body (an endless or huge answer costs at most the cap in memory, never the machine; the
// cap is the file read limit by default, so whatever lait accepts from a server it can also read back
// from a cassette of the same size), the timer from sending to the last byte, and the abort when the
// caller is interrupted (Ctrl-C). Failures come back as one small union, which each caller words once.
// `layer` sends with the runtime's `fetch`; `layerTest` answers in memory, through the same code.
// Not Effect's HttpClient: its request and response wrappers cost an eval's model run as much as the
// rest of its request handling, and loading its modules milliseconds before the first request
// (bench/README.md, issue 24 rounds 8 and 9); what it would add here is only a fetch call.
import { Context, Effect, Layer } from "effect"
import { READ_LIMIT } from "../platform/FileLoader.ts"
import { tracePropagation } from "./tracePropagation.ts"

export const DEFAULT_RESPONSE_LIMIT = READ_LIMIT

export type CappedBody =
  | { readonly _tag: "Body"; readonly text: string }
  /** The body passed the cap (or announced it would): nothing of it is kept. */
  | { readonly _tag: "TooLarge" }

export interface HttpRequest {
  readonly method: "GET" | "POST"
  readonly url: string
  /** Header names in lower case; the service adds the propagation headers. */
  readonly headers: Readonly<Record<string, string>>
  readonly body?: Uint8Array<ArrayBuffer> | undefined
}

export interface HttpHead {
  readonly status: number
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
}

/** A body read piece by piece (a stream of events): each piece in order while `piece` answers true, then `end`. */
export interface PieceReader<A> {
  readonly piece: (bytes: Uint8Array) => Effect.Effect<boolean>
  readonly end: Effect.Effect<A>
}

export interface SendOptions<A> {
  /** Bytes of the body beyond which it is dropped (TooLarge) and the connection released. */
  readonly limit: number
  /** From sending to the last byte; then the request is aborted and fails with TimedOut. */
  readonly timeoutMillis?: number | undefined
  /** Given the answer's status and headers, a reader for its body in pieces; undefined: read it whole. */
  readonly pieces?: ((head: HttpHead) => PieceReader<A> | undefined) | undefined
}

export interface HttpAnswer<A> extends HttpHead {
  readonly body: CappedBody | A
}

/**
 * How a request got no answer. `Unreachable.cause` is what went wrong, for describeNetworkFailure
 * (src/core/network.ts): an invalid URL (`InvalidUrlError`), else the runtime's own error.
 */
export type HttpFailure =
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Unreachable"; readonly cause: unknown }
  /** A body read in pieces failed after `bytes` of it had arrived (the connection was reset, say). */
  | { readonly _tag: "BrokenOff"; readonly bytes: number; readonly cause: unknown }

/** What sends the bytes: `fetch`, or an in-memory server. */
export type Transport = (url: URL, init: RequestInit) => Promise<Response>

export interface ModelHttpService {
  readonly send: <A = never>(
    request: HttpRequest,
    options: SendOptions<A>
  ) => Effect.Effect<HttpAnswer<A>, HttpFailure>
}

// setTimeout's longest wait; a longer timeout is Effect's own, which waits in steps.
const MAX_TIMER_MILLIS = 2 ** 31 - 1
const TIMED_OUT: HttpFailure = { _tag: "TimedOut" }
const decoder = new TextDecoder()

/** `chunks` (`total` bytes in all) as one text, decoded as `Response.text()` would. */
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

/** The answer's `Content-Length` when it is one, else NaN. */
const declaredLength = (response: Response): number => {
  const length = response.headers.get("content-length")
  return length === null || !/^\d+$/.test(length) ? Number.NaN : Number(length)
}

/**
 * The status and `body`, with the header names in lower case, copied only when read (a retry's
 * Retry-After): copying them costs more than the body.
 */
const answerOf = <B>(response: Response, body: B): HttpHead & { readonly body: B } => {
  let copied: Record<string, string> | undefined
  return {
    status: response.status,
    get headers() {
      if (copied === undefined) {
        copied = {}
        for (const [name, value] of response.headers) copied[name.toLowerCase()] = value
      }
      return copied
    },
    body
  }
}

/** The runtime sets the length of the body it sends. */
const withoutLength = (headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  if (!("content-length" in headers)) return headers
  const { "content-length": _length, ...rest } = headers
  return rest
}

const isBrokenOff = (cause: unknown): cause is HttpFailure & { readonly _tag: "BrokenOff" } =>
  typeof cause === "object" && cause !== null && (cause as { _tag?: unknown })._tag === "BrokenOff"

const cancelBody = (response: Response) => void response.body?.cancel().catch(() => undefined)

/**
 * The body as text, or TooLarge as soon as more than `limit` bytes arrived or `Content-Length` says
 * they will. An abort of `signal` cancels the reader, which releases the connection.
 */
const readWhole = async (response: Response, limit: number, signal: AbortSignal): Promise<CappedBody> => {
  const declared = declaredLength(response)
  if (declared > limit) {
    cancelBody(response)
    return { _tag: "TooLarge" }
  }
  // A length within the cap, of the body as it will be read (not compressed), bounds it: read at once.
  // Otherwise piece by piece, counting (a compressed body may inflate past the cap).
  if (Number.isFinite(declared) && !response.headers.has("content-encoding")) {
    return { _tag: "Body", text: await response.text() }
  }
  if (response.body === null) return { _tag: "Body", text: "" }
  const reader = response.body.getReader()
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

/**
 * The body through `reader`, under the same cap. Stopping early, an abort of `signal` or an
 * interruption cancels the body's reader.
 */
const readPieces = <A>(
  response: Response,
  limit: number,
  reader: PieceReader<A>,
  signal: AbortSignal
): Effect.Effect<CappedBody | A, unknown> =>
  Effect.suspend(() => {
    if (declaredLength(response) > limit) {
      cancelBody(response)
      return Effect.succeed<CappedBody>({ _tag: "TooLarge" })
    }
    if (response.body === null) return reader.end
    const body = response.body.getReader()
    const cancel = () => void body.cancel().catch(() => undefined)
    signal.addEventListener("abort", cancel, { once: true })
    let total = 0
    const next: Effect.Effect<CappedBody | A, unknown> = Effect.flatMap(
      Effect.tryPromise({
        try: () => body.read(),
        catch: (cause): HttpFailure => ({ _tag: "BrokenOff", bytes: total, cause })
      }),
      ({ done, value }) => {
        if (done) return reader.end
        total += value.length
        if (total > limit) return Effect.succeed<CappedBody>({ _tag: "TooLarge" })
        return Effect.flatMap(reader.piece(value), (more) => (more ? next : reader.end))
      }
    )
    // Read to the end, stopped early, or interrupted: whatever is left of the body is not wanted.
    return Effect.ensuring(
      next,
      Effect.sync(() => {
        signal.removeEventListener("abort", cancel)
        cancel()
      })
    )
  })

export const make = (transport: Transport): ModelHttpService => {
  const send = <A>(request: HttpRequest, options: SendOptions<A>): Effect.Effect<HttpAnswer<A>, HttpFailure> =>
    Effect.flatMap(tracePropagation({ method: request.method, url: request.url }), (propagation) => {
      let url: URL
      try {
        url = new URL(request.url)
      } catch (cause) {
        return Effect.fail<HttpFailure>({ _tag: "Unreachable", cause: { _tag: "InvalidUrlError", cause } })
      }
      const headers = withoutLength(request.headers)
      const millis = options.timeoutMillis
      const timerMillis = millis !== undefined && millis <= MAX_TIMER_MILLIS ? millis : undefined
      // One signal for every reason to stop: an interruption of the caller, or the timer.
      const stop = new AbortController()
      let timedOut = false
      let handle: ReturnType<typeof setTimeout> | undefined
      const arm = (interrupted: AbortSignal) => {
        interrupted.addEventListener("abort", () => stop.abort(), { once: true })
        if (timerMillis !== undefined) {
          handle = setTimeout(() => {
            timedOut = true
            stop.abort()
          }, timerMillis)
        }
      }
      const init: RequestInit = {
        method: request.method,
        headers: { ...headers, ...propagation },
        body: request.body ?? null,
        signal: stop.signal
      }
      // A cancelled reader ends like a finished one: what it read is not the whole answer.
      const failure = (cause: unknown): HttpFailure =>
        timedOut ? TIMED_OUT : isBrokenOff(cause) ? cause : { _tag: "Unreachable", cause }
      const pieces = options.pieces
      const answer: Effect.Effect<HttpAnswer<A>, HttpFailure> = pieces === undefined
        // A whole answer: sent and read in one promise, the cheapest way through (an eval sends thousands).
        ? Effect.tryPromise({
          try: async (interrupted) => {
            arm(interrupted)
            try {
              const response = await transport(url, init)
              const body = await readWhole(response, options.limit, stop.signal)
              if (timedOut) throw TIMED_OUT
              return answerOf<CappedBody | A>(response, body)
            } finally {
              clearTimeout(handle)
            }
          },
          catch: failure
        })
        : Effect.tryPromise({
          try: (interrupted) => (arm(interrupted), transport(url, init)),
          catch: failure
        }).pipe(
          Effect.flatMap((response) => {
            const head = answerOf(response, undefined)
            const reader = pieces(head)
            const read: Effect.Effect<CappedBody | A, unknown> = reader === undefined
              ? Effect.tryPromise({ try: () => readWhole(response, options.limit, stop.signal), catch: (e) => e })
              : readPieces(response, options.limit, reader, stop.signal)
            return Effect.matchEffect(read, {
              onFailure: (cause) => Effect.fail(failure(cause)),
              onSuccess: (body) =>
                timedOut ? Effect.fail(TIMED_OUT) : Effect.succeed({
                  status: head.status,
                  get headers() {
                    return head.headers
                  },
                  body
                })
            })
          }),
          // An interruption while the body is read aborts the request as one while it is sent does.
          Effect.onInterrupt(() => Effect.sync(() => stop.abort())),
          Effect.ensuring(Effect.sync(() => clearTimeout(handle)))
        )
      return millis === undefined || timerMillis !== undefined
        ? answer
        : Effect.catchTag(Effect.timeout(answer, millis), "TimeoutError", () => Effect.fail(TIMED_OUT))
    })
  return { send }
}

export class ModelHttp extends Context.Service<ModelHttp, ModelHttpService>()("lait/model/ModelHttp") {
  /** Requests sent with the runtime's `fetch`. */
  static readonly layer: Layer.Layer<ModelHttp> = Layer.sync(ModelHttp, () => make((url, init) => fetch(url, init)))

  /** Requests answered in memory by `handler` (unit tests): the same headers, cap, timer and abort. */
  static readonly layerTest = (handler: (request: Request) => Response | Promise<Response>): Layer.Layer<ModelHttp> =>
    Layer.sync(ModelHttp, () =>
      make((url, init) =>
        new Promise((resolve, reject) => {
          // As fetch does: an abort (the timer, an interruption) ends a request still waiting for its answer.
          init.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true })
          Promise.resolve().then(() => handler(new Request(url.href, init))).then(resolve, reject)
        })
      ))
}
