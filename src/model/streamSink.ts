// Where the text of an answer goes as it arrives (`lait PROMPT --stream`, the `lait chat` REPL). A
// request made where a sink is provided is streamed by the live layer (stream: true) and each piece
// of text is handed to the sink at once; an answer from a cassette or the cache, which arrives at
// once, is handed over whole. Either way the call still returns the assembled answer. A module of its
// own, with no imports at run time, so the command line can provide it without loading the layers.
import { Context, Effect } from "effect"
import type { ModelResult } from "./call.ts"
import type { StreamDelta } from "./streamAssembly.ts"

export type { StreamDelta } from "./streamAssembly.ts"

export type DeltaSink = (delta: StreamDelta) => Effect.Effect<void>

export const StreamSink = Context.Reference<DeltaSink | undefined>("lait/model/StreamSink", {
  defaultValue: () => undefined
})

/**
 * Whether a streamed request must report its usage (`stream_options: {include_usage: true}`): set by
 * whoever needs the tokens (`--show-usage`, `--record`, a compaction's token trigger). A traced run
 * and an endpoint with `pricing:` ask for it anyway (src/model/Live.ts); otherwise the option is not
 * sent, as the original lait does not, since some servers refuse fields they do not know.
 */
export const UsageWanted = Context.Reference<boolean>("lait/model/UsageWanted", { defaultValue: () => false })

/** Hands an answer that was not streamed (replayed, cached, or a server that ignored `stream`) to the sink. */
export const emitWhole = (result: ModelResult): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const sink = fiber.getRef(StreamSink)
    if (sink === undefined) return Effect.void
    const reasoning = result.reasoning !== null && result.reasoning !== ""
      ? sink({ _tag: "Reasoning", text: result.reasoning })
      : Effect.void
    return result.content !== null && result.content !== ""
      ? Effect.andThen(reasoning, sink({ _tag: "Content", text: result.content }))
      : reasoning
  })
