// Reads a streamed (`stream: true`) chat completion: server-sent events, each a chunk whose text is
// handed to the sink as soon as it is parsed, folded into the one completion the call returns. It is
// a reader of the body's pieces for ModelHttp (./ModelHttp.ts), which applies the same byte cap as to
// a whole body, so an endless or oversized stream costs at most the cap (an unfinished line is part
// of it), and cancels the body's reader at once when the reading fiber is interrupted.
import { Effect } from "effect"
import { errorText, streamErrorStatus } from "./errorBody.ts"
import type { CappedBody, HttpHead, PieceReader } from "./ModelHttp.ts"
import { type SseEvent, SseDecoder } from "./sse.ts"
import { chunkError, CompletionAssembler, type StreamDelta } from "./streamAssembly.ts"
import type { DeltaSink } from "./streamSink.ts"

export type StreamedBody =
  | CappedBody
  /** The stream's chunks as one `chat.completion`. */
  | { readonly _tag: "Assembled"; readonly raw: unknown }
  /**
   * An `error` event, or a chunk carrying `error`: what the server said, and the HTTP status it
   * stands for when it names one (./errorBody.ts).
   */
  | { readonly _tag: "Reported"; readonly detail: string; readonly status?: number | undefined }
  | { readonly _tag: "InvalidJson" }

export const isEventStream = (head: HttpHead): boolean =>
  (head.headers["content-type"] ?? "").toLowerCase().startsWith("text/event-stream")

/** Whether any text reached the sink: from then on a failure cannot be retried without repeating it. */
export interface Emitted {
  value: boolean
}

export const eventStreamReader = (sink: DeltaSink, emitted: Emitted): PieceReader<StreamedBody> => {
  const decoder = new SseDecoder()
  const assembler = new CompletionAssembler()
  let outcome: StreamedBody | undefined = undefined
  let done = false

  const emit = (deltas: ReadonlyArray<StreamDelta>): Effect.Effect<void> =>
    Effect.gen(function*() {
      for (const delta of deltas) {
        emitted.value = true
        yield* sink(delta)
      }
    })

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
        const error = chunkError(chunk) ?? (event.event === "error" ? errorText(chunk) ?? event.data.trim() : undefined)
        if (error !== undefined) {
          outcome = { _tag: "Reported", detail: error, status: streamErrorStatus(chunk) }
          return false
        }
        yield* emit(assembler.add(chunk))
      }
      return true
    })

  return {
    piece: (bytes) => handle(decoder.push(bytes)),
    // A body that ended without `[DONE]` may still hold an event without its blank line.
    end: Effect.suspend(() => (outcome !== undefined || done ? Effect.void : handle(decoder.end()))).pipe(
      Effect.andThen(Effect.suspend(() => outcome === undefined ? emit(assembler.flush()) : Effect.void)),
      Effect.map((): StreamedBody => outcome ?? { _tag: "Assembled", raw: assembler.completion() })
    )
  }
}
