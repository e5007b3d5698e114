// Reads a streamed (`stream: true`) chat completion: server-sent events, each a chunk whose text is
// handed to the sink as soon as it is parsed, folded into the one completion the call returns. The
// same byte cap as a whole body applies (src/model/httpBody.ts), so an endless or oversized stream
// costs at most the cap (an unfinished line is part of it); interrupting the reading fiber
// cancels the body's reader at once.
import { Effect, Stream } from "effect"
import type { HttpClientError, HttpClientResponse } from "effect/http"
import type { CappedBody } from "./httpBody.ts"
import { type SseEvent, SseDecoder } from "./sse.ts"
import { chunkError, CompletionAssembler } from "./streamAssembly.ts"
import type { DeltaSink } from "./streamSink.ts"

export type StreamedBody =
  | CappedBody
  /** The stream's chunks as one `chat.completion`. */
  | { readonly _tag: "Assembled"; readonly raw: unknown }
  /** An `error` event, or a chunk carrying `error`: what the server said. */
  | { readonly _tag: "Reported"; readonly detail: string }
  | { readonly _tag: "InvalidJson" }

export const isEventStream = (response: HttpClientResponse.HttpClientResponse): boolean =>
  (response.headers["content-type"] ?? "").toLowerCase().startsWith("text/event-stream")

/** Whether any text reached the sink: from then on a failure cannot be retried without repeating it. */
export interface Emitted {
  value: boolean
}

export const readEventStream = (
  response: HttpClientResponse.HttpClientResponse,
  limit: number,
  sink: DeltaSink,
  emitted: Emitted
): Effect.Effect<StreamedBody, HttpClientError.HttpClientError> =>
  Effect.suspend(() => {
    const decoder = new SseDecoder()
    const assembler = new CompletionAssembler()
    let total = 0
    let outcome: StreamedBody | undefined = undefined
    let done = false

    /** false once the stream is over (`[DONE]`) or failed. */
    const handle = (events: ReadonlyArray<SseEvent>): Effect.Effect<boolean> =>
      Effect.gen(function*() {
        for (const event of events) {
          if (event.data.trim() === "[DONE]") {
            done = true
            return false
          }
          let chunk: unknown
          try {
            chunk = JSON.parse(event.data)
          } catch {
            outcome = event.event === "error"
              ? { _tag: "Reported", detail: event.data.trim() }
              : { _tag: "InvalidJson" }
            return false
          }
          const error = chunkError(chunk) ?? (event.event === "error" ? event.data.trim() : undefined)
          if (error !== undefined) {
            outcome = { _tag: "Reported", detail: error }
            return false
          }
          for (const delta of assembler.add(chunk)) {
            emitted.value = true
            yield* sink(delta)
          }
        }
        return true
      })

    return Stream.runForEachWhile(response.stream, (bytes) => {
      total += bytes.length
      if (total > limit) {
        outcome = { _tag: "TooLarge" }
        return Effect.succeed(false)
      }
      return handle(decoder.push(bytes))
    }).pipe(
      Effect.flatMap(() => (outcome !== undefined || done ? Effect.void : handle(decoder.end()))),
      Effect.map((): StreamedBody => outcome ?? { _tag: "Assembled", raw: assembler.completion() }),
      Effect.catchIf(
        (e) => e.reason._tag === "EmptyBodyError",
        () => Effect.succeed<StreamedBody>({ _tag: "Assembled", raw: assembler.completion() })
      )
    )
  })
