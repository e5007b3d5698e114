// The live client's streamed request (src/model/Live.ts): sent with Effect's HTTP client and read event
// by event into the sink (./eventStream.ts), or capped whole when the server answers otherwise. Loaded
// with the first streamed request, so that whole answers never evaluate the client's modules.
import { Effect } from "effect"
import { FetchHttpClient, HttpClient, type HttpClientError, HttpClientRequest } from "effect/http"
import { type Emitted, isEventStream, readEventStream, type StreamedBody } from "./eventStream.ts"
import { readCapped } from "./httpBody.ts"
import type { DeltaSink } from "./streamSink.ts"

// The request carries its propagation headers already (./tracePropagation.ts); the client's own span
// would only parse the URL and copy every header into attributes nobody reads.
const untraced = () => true

/** What Live.ts builds for one attempt: the JSON body as bytes, the propagation headers apart. */
export interface StreamedRequest {
  readonly url: string
  readonly authorization: string
  readonly body: Uint8Array<ArrayBuffer>
  readonly propagation: Readonly<Record<string, string>>
}

export const sendStreamed = (
  request: StreamedRequest,
  maxBytes: number,
  sink: DeltaSink,
  emitted: Emitted
): Effect.Effect<
  { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: StreamedBody },
  HttpClientError.HttpClientError
> =>
  HttpClient.HttpClient.use((http) =>
    http.execute(
      HttpClientRequest.post(request.url).pipe(
        HttpClientRequest.setHeader("authorization", request.authorization),
        HttpClientRequest.bodyUint8Array(request.body, "application/json"),
        HttpClientRequest.setHeaders(request.propagation)
      )
    ).pipe(
      Effect.provideService(HttpClient.TracerDisabledWhen, untraced),
      Effect.flatMap((res) =>
        Effect.map(
          res.status >= 200 && res.status < 300 && isEventStream(res)
            ? readEventStream(res, maxBytes, sink, emitted)
            : readCapped(res, maxBytes),
          (body: StreamedBody) => ({ status: res.status, headers: res.headers, body })
        )
      )
    )).pipe(Effect.provide(FetchHttpClient.layer))
