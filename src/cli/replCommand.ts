// `lait chat`: the interactive conversation (docs/repl.md). Declared here with its flags
// (./replFlags.ts); the loop and the chat core load when the command runs.
import { Effect, Layer, Option } from "effect"
import { Command } from "effect/cli"
import { configLayer } from "./config.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { replFlags } from "./replFlags.ts"
import { toolCassettesLayer } from "./toolLayers.ts"

export const replCommand = Command.make(
  "chat",
  replFlags,
  Effect.fn("cli.repl")(function*(flags) {
    const { runChatRepl } = yield* Effect.promise(() => import("./replRun.ts"))
    const services = Layer.mergeAll(
      modelClientLayer({ record: Option.getOrUndefined(flags.record), replay: Option.getOrUndefined(flags.replay) }),
      toolCassettesLayer({ record: Option.getOrUndefined(flags.record) })
    ).pipe(Layer.provideMerge(configLayer({ waitForWriter: true })))
    return yield* runChatRepl(flags).pipe(Effect.provide(services))
  })
).pipe(
  Command.withDescription(
    "Chat interactively: each line is answered (streamed) with the conversation so far, and each answer " +
      "recorded in `lait history` (and --session); no model needed to start (/model NAME); /help lists the commands"
  )
)
