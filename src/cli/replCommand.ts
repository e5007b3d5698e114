// `lait chat`: the interactive conversation (docs/repl.md). Declared here with the chat flags that
// apply to a whole conversation; the loop and the chat core load when the command runs.
import { Effect, Layer, Option } from "effect"
import { Command } from "effect/cli"
import { chatFlags, samplingFlags, systemFlags, toolFlags } from "./chatFlags.ts"
import { configLayer } from "./config.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { toolCassettesLayer } from "./toolLayers.ts"

export const replFlags = {
  model: chatFlags.model,
  baseUrl: chatFlags.baseUrl,
  apiKey: chatFlags.apiKey,
  ...systemFlags,
  ...samplingFlags,
  ...toolFlags,
  session: chatFlags.session,
  showReasoning: chatFlags.showReasoning,
  showUsage: chatFlags.showUsage,
  noHistory: chatFlags.noHistory,
  record: chatFlags.record,
  replay: chatFlags.replay
}

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
    "Chat interactively: each line is answered (streamed) with the conversation so far; /help lists the commands"
  )
)
