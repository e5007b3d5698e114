// `lait chat`: the interactive conversation (docs/repl.md). Declared here with the chat flags that
// apply to a whole conversation; the loop and the chat core load when the command runs.
import { Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
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
  // The one-shot wording does not fit a conversation: these describe what happens for each answer.
  session: chatFlags.session.pipe(
    Flag.withDescription("Start from .lait/sessions/NAME.jsonl and append each answered question to it")
  ),
  showReasoning: chatFlags.showReasoning.pipe(
    Flag.withDescription("Print the model's reasoning to stderr before each answer")
  ),
  showUsage: chatFlags.showUsage.pipe(
    Flag.withDescription("Print the conversation's token usage so far to stderr after each answer")
  ),
  noHistory: chatFlags.noHistory.pipe(
    Flag.withDescription("Do not record the answers in `lait history` (default.history: false: never)")
  ),
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
    "Chat interactively: each line is answered (streamed) with the conversation so far, and each answer " +
      "recorded in `lait history` (and --session); no model needed to start (/model NAME); /help lists the commands"
  )
)
