// The services the record/replay flags of `lait run` and `lait agent run` choose: the model client and
// the tool tape, and the config (waiting for a concurrent writer). Without effect/cli: the command tree
// provides them around the handler (src/cli/runFlags.ts, outermost live OTLP export), the lean `lait
// run` path the same way but without live export: a command line with OTEL_* export set never takes
// that path (src/cli/leanArgs.ts), and the export layer, reading the same variables, would be empty.
import { Effect, Option } from "effect"
import { configLayer } from "./configLayer.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { toolCassettesLayer } from "./toolLayers.ts"

/** The flags of `runFlags` that choose how model requests and tool calls are answered. */
export interface RunServiceFlags {
  readonly record: Option.Option<string>
  readonly replay: Option.Option<string>
  readonly strictReplay: boolean
  readonly recordMissing: Option.Option<string>
  readonly replayTools: boolean
  /** `--header`, as given. */
  readonly header: ReadonlyArray<string>
}

/** Innermost first, as they are provided. */
export const runServiceLayers = (
  { record, replay, strictReplay, recordMissing, replayTools, header }: RunServiceFlags
) => ({
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
  config: configLayer({ waitForWriter: true, headers: header })
})

/** `handler` with the services, as src/cli/runFlags.ts's `withRunServices` provides them (but live export). */
export const provideRunServices = <A, E, R>(flags: RunServiceFlags, handler: Effect.Effect<A, E, R>) => {
  const layers = runServiceLayers(flags)
  return handler.pipe(
    Effect.provide(layers.model),
    Effect.provide(layers.tools),
    Effect.provide(layers.config)
  )
}
