// The services the record/replay flags of `lait run` and `lait agent run` choose: the model client and
// the tool tape, the config (waiting for a concurrent writer), and, outermost, live OTLP export: read
// before .env is loaded, and flushed after everything else has closed. Without effect/cli: the command
// tree provides them around the handler (src/cli/runFlags.ts), the lean `lait run` path the same way.
import { Effect, Option } from "effect"
import { configLayer } from "./configLayer.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { toolCassettesLayer } from "./toolLayers.ts"
import { liveExportLayer } from "../trace/live/layer.ts"

/** The flags of `runFlags` that choose how model requests and tool calls are answered. */
export interface RunServiceFlags {
  readonly record: Option.Option<string>
  readonly replay: Option.Option<string>
  readonly strictReplay: boolean
  readonly recordMissing: Option.Option<string>
  readonly replayTools: boolean
}

/** Innermost first, as they are provided. */
export const runServiceLayers = ({ record, replay, strictReplay, recordMissing, replayTools }: RunServiceFlags) => ({
  model: modelClientLayer({
    record: Option.getOrUndefined(record),
    replay: Option.getOrUndefined(replay),
    strictReplay,
    recordMissing: Option.getOrUndefined(recordMissing)
  }),
  tools: toolCassettesLayer({
    record: Option.getOrUndefined(record),
    replay: Option.getOrUndefined(replay),
    replayTools
  }),
  config: configLayer({ waitForWriter: true }),
  live: liveExportLayer
})

/** `handler` with the services, provided as src/cli/runFlags.ts's `withRunServices` provides them. */
export const provideRunServices = <A, E, R>(flags: RunServiceFlags, handler: Effect.Effect<A, E, R>) => {
  const layers = runServiceLayers(flags)
  return handler.pipe(
    Effect.provide(layers.model),
    Effect.provide(layers.tools),
    Effect.provide(layers.config),
    Effect.provide(layers.live)
  )
}
