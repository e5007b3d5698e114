// What the commands that ask a model without a workflow or the run flags (`lait compare`, `lait prompt
// run`) run with: the model client and tool cassettes as the global flags and the config choose, the
// config read even from a FIFO, and per handler run its token usage and trace recorder.
import { Layer } from "effect"
import { Command } from "effect/cli"
import { RunUsage } from "../model/RunUsage.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { configLayer } from "./config.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { toolCassettesLayer } from "./toolLayers.ts"

/** Provided around the handler, so each run counts its own tokens and events. */
export const runMeters = Layer.mergeAll(RunUsage.layer, RunTracer.layer)

export const withAskServices = <const Name extends string, Input, ContextInput, E, R>(
  command: Command.Command<Name, Input, ContextInput, E, R>
) =>
  command.pipe(
    Command.provide(modelClientLayer({})),
    Command.provide(toolCassettesLayer({})),
    Command.provide(configLayer({ waitForWriter: true }))
  )
