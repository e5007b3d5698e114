// The command tree. Each subcommand lives in its own file and is registered here when it lands.
// The root command itself is one-shot chat (`lait [FLAGS] PROMPT`, src/cli/chatRun.ts); a
// subcommand's name wins over a PROMPT.
import { Effect, Layer, Option } from "effect"
import { Command } from "effect/cli"
import { agentCommand } from "./agent.ts"
import { cacheCommand } from "./cache.ts"
import { cassettesCommand } from "./cassettes.ts"
import { chatFlags } from "./chatFlags.ts"
import { compareCommand } from "./compare.ts"
import { configCommand, configLayer } from "./config.ts"
import { doctorCommand } from "./doctor.ts"
import { evalCommand } from "./eval.ts"
import { globalFlags } from "./global.ts"
import { graphCommand } from "./graph.ts"
import { historyCommand } from "./history.ts"
import { initCommand } from "./init.ts"
import { lintCommand } from "./lint.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { modelsCommand } from "./models.ts"
import { promptCommand } from "./prompt.ts"
import { skillCommand, workflowCommand } from "./registries.ts"
import { replCommand } from "./replCommand.ts"
import { runCommand } from "./run.ts"
import { runsCommand } from "./runs.ts"
import { schemaCommand } from "./schema.ts"
import { serveCommand } from "./serve.ts"
import { sessionsCommand } from "./sessions.ts"
import { testCommand } from "./test.ts"
import { toolCassettesLayer } from "./toolLayers.ts"
import { traceCommand } from "./trace.ts"
import { liveExportLayer } from "../trace/live/layer.ts"

export const subcommands = [
  runCommand,
  runsCommand,
  agentCommand,
  cacheCommand,
  cassettesCommand,
  configCommand,
  graphCommand,
  testCommand,
  evalCommand,
  traceCommand,
  historyCommand,
  lintCommand,
  schemaCommand,
  initCommand,
  modelsCommand,
  doctorCommand,
  workflowCommand,
  skillCommand,
  serveCommand,
  sessionsCommand,
  promptCommand,
  compareCommand,
  replCommand
] as const

export const root = Command.make(
  "lait",
  chatFlags,
  Effect.fn("cli.chat")(function*(flags) {
    // No prompt at a terminal: the conversation of `lait chat`, with the same flags.
    const interactive = Option.isNone(flags.prompt) && Option.isNone(flags.promptName) && process.stdin.isTTY === true
    const { runOneShot } = yield* Effect.promise(() => import("./chatRun.ts"))
    const repl = interactive ? yield* Effect.promise(() => import("./replRun.ts")) : undefined
    const services = Layer.mergeAll(
      modelClientLayer({ record: Option.getOrUndefined(flags.record), replay: Option.getOrUndefined(flags.replay) }),
      toolCassettesLayer({ record: Option.getOrUndefined(flags.record) })
    ).pipe(Layer.provideMerge(configLayer({ waitForWriter: true })))
    // Provided here rather than on the command: they would otherwise be built for every subcommand.
    const run = repl !== undefined ? repl.runChatRepl(flags) : runOneShot(flags)
    return yield* run.pipe(Effect.provide(services), Effect.provide(liveExportLayer))
  })
).pipe(
  Command.withDescription(
    "Run YAML LLM workflows against any OpenAI-compatible server, and test them: record/replay, evals, traces. " +
      "With a PROMPT and no subcommand: one-shot chat."
  ),
  Command.withSubcommands(subcommands),
  // After the subcommands, so their handlers' reads of the global flags count as satisfied.
  Command.withGlobalFlags(globalFlags)
)
