// An answer Effect's HTTP client received (a streamed request's error body, `lait doctor`'s checks), read
// under the same byte cap as a whole answer (./fetchCapped.ts): it is abandoned once it passes the cap.
import { Effect, Option, Stream } from "effect"
import { HttpClientError, HttpClientResponse } from "effect/http"
import { type CappedBody, joined, readBodyCapped } from "./fetchCapped.ts"

export type { CappedBody } from "./fetchCapped.ts"

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
