// A model server's answer is read as a stream and abandoned once it passes a byte cap: a server that
// sends an endless or huge body must cost at most the cap in memory, never the machine. The cap is
// the file read limit by default, so whatever lait accepts from a server it can also read back from
// a cassette of the same size.
import { Effect, Option, Stream } from "effect"
import { HttpClientError, HttpClientResponse } from "effect/http"
import { READ_LIMIT } from "../platform/FileLoader.ts"

export const DEFAULT_RESPONSE_LIMIT = READ_LIMIT

const KIB = 1024
const MIB = 1024 * KIB
const GIB = 1024 * MIB

/** `16 MiB`, `512 KiB`, `1.5 MiB`, `1000 bytes`: sizes as people read them (two decimals at most). */
export const formatBytes = (bytes: number): string => {
  const unit = bytes >= GIB
    ? [GIB, "GiB"] as const
    : bytes >= MIB
    ? [MIB, "MiB"] as const
    : bytes >= KIB
    ? [KIB, "KiB"] as const
    : undefined
  if (unit === undefined) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`
  return `${Number((bytes / unit[0]).toFixed(2))} ${unit[1]}`
}

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

// A fetch response's body read with its own reader: the same cap and errors as reading it as an
// Effect Stream, at a fraction of the cost per request (an eval sends thousands). Interrupting the
// read (a timeout, Ctrl-C) cancels the reader, which releases the connection.
const readWebCapped = (
  response: HttpClientResponse.HttpClientResponse,
  web: Response,
  limit: number
): Effect.Effect<CappedBody, HttpClientError.HttpClientError> => {
  const body = web.body
  if (body === null) return Effect.succeed<CappedBody>({ _tag: "Body", text: "" })
  return Effect.tryPromise({
    try: async (signal) => {
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
            return { _tag: "TooLarge" } as const
          }
          chunks.push(value)
        }
      } finally {
        signal.removeEventListener("abort", cancel)
        reader.releaseLock()
      }
    },
    catch: (cause) =>
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.DecodeError({ request: response.request, response, cause })
      })
  })
}

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
