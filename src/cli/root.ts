// The command tree. Each subcommand lives in its own file and is registered here when it lands.
// The root command itself is one-shot chat (`lait [FLAGS] PROMPT`, src/cli/chatRun.ts); a
// subcommand's name wins over a PROMPT.
// Only the subcommand a command line names is loaded (with `import()`): evaluating the other
// twenty-odd command modules, and what they import, was a third of what `lait run` paid to load the
// CLI. The root help, shell completions and a command line naming none get the whole tree.
import { Effect, Layer, Option } from "effect"
import { Command } from "effect/cli"
import type { agentCommand } from "./agent.ts"
import type { cacheCommand } from "./cache.ts"
import type { cassettesCommand } from "./cassettes.ts"
import { chatFlags } from "./chatFlags.ts"
import type { compareCommand } from "./compare.ts"
import { configCommand, configLayer } from "./config.ts"
import type { doctorCommand } from "./doctor.ts"
import type { evalCommand } from "./eval.ts"
import { globalFlags, globalSettingsLayer } from "./global.ts"
import type { graphCommand } from "./graph.ts"
import type { historyCommand } from "./history.ts"
import type { initCommand } from "./init.ts"
import type { lintCommand } from "./lint.ts"
import { modelClientLayer } from "./modelLayers.ts"
import type { modelsCommand } from "./models.ts"
import type { promptCommand } from "./prompt.ts"
import type { skillCommand, workflowCommand } from "./registries.ts"
import type { replCommand } from "./replCommand.ts"
import type { runCommand } from "./run.ts"
import type { runsCommand } from "./runs.ts"
import type { schemaCommand } from "./schema.ts"
import type { proxyCommand } from "./proxy.ts"
import type { serveCommand } from "./serve.ts"
import type { sessionsCommand } from "./sessions.ts"
import type { testCommand } from "./test.ts"
import { toolCassettesLayer } from "./toolLayers.ts"
import type { traceCommand } from "./trace.ts"
import { liveExportLayer } from "../trace/live/layer.ts"
import { stdinIsTerminal } from "../platform/rawStdout.ts"

type Subcommand =
  | typeof runCommand
  | typeof runsCommand
  | typeof agentCommand
  | typeof cacheCommand
  | typeof cassettesCommand
  | typeof configCommand
  | typeof graphCommand
  | typeof testCommand
  | typeof evalCommand
  | typeof traceCommand
  | typeof historyCommand
  | typeof lintCommand
  | typeof schemaCommand
  | typeof initCommand
  | typeof modelsCommand
  | typeof doctorCommand
  | typeof workflowCommand
  | typeof skillCommand
  | typeof serveCommand
  | typeof proxyCommand
  | typeof sessionsCommand
  | typeof promptCommand
  | typeof compareCommand
  | typeof replCommand

// In the order `lait --help` lists them.
const loaders: Record<string, () => Promise<Subcommand>> = {
  run: () => import("./run.ts").then((m) => m.runCommand),
  runs: () => import("./runs.ts").then((m) => m.runsCommand),
  agent: () => import("./agent.ts").then((m) => m.agentCommand),
  cache: () => import("./cache.ts").then((m) => m.cacheCommand),
  cassettes: () => import("./cassettes.ts").then((m) => m.cassettesCommand),
  config: () => Promise.resolve(configCommand),
  graph: () => import("./graph.ts").then((m) => m.graphCommand),
  test: () => import("./test.ts").then((m) => m.testCommand),
  eval: () => import("./eval.ts").then((m) => m.evalCommand),
  trace: () => import("./trace.ts").then((m) => m.traceCommand),
  history: () => import("./history.ts").then((m) => m.historyCommand),
  lint: () => import("./lint.ts").then((m) => m.lintCommand),
  schema: () => import("./schema.ts").then((m) => m.schemaCommand),
  init: () => import("./init.ts").then((m) => m.initCommand),
  models: () => import("./models.ts").then((m) => m.modelsCommand),
  doctor: () => import("./doctor.ts").then((m) => m.doctorCommand),
  workflow: () => import("./registries.ts").then((m) => m.workflowCommand),
  skill: () => import("./registries.ts").then((m) => m.skillCommand),
  serve: () => import("./serve.ts").then((m) => m.serveCommand),
  proxy: () => import("./proxy.ts").then((m) => m.proxyCommand),
  sessions: () => import("./sessions.ts").then((m) => m.sessionsCommand),
  prompt: () => import("./prompt.ts").then((m) => m.promptCommand),
  compare: () => import("./compare.ts").then((m) => m.compareCommand),
  chat: () => import("./replCommand.ts").then((m) => m.replCommand)
}

/** Every subcommand's name, in the order `lait --help` lists them. */
export const subcommandNames: ReadonlyArray<string> = Object.keys(loaders)

/** Loads the named subcommands (every one when `names` is undefined). */
export const loadSubcommands = (names: ReadonlyArray<string> = subcommandNames): Promise<ReadonlyArray<Subcommand>> =>
  Promise.all(names.map((name) => loaders[name]!()))

/** The root command with these subcommands. */
export const makeRoot = (subcommands: ReadonlyArray<Subcommand>) =>
  Command.make(
    "lait",
    chatFlags,
    Effect.fn("cli.chat")(function*(flags) {
      // No prompt at a terminal: the conversation of `lait chat`, with the same flags.
      const interactive = Option.isNone(flags.prompt) && Option.isNone(flags.promptName) && stdinIsTerminal()
      const { runOneShot } = yield* Effect.promise(() => import("./chatRun.ts"))
      const repl = interactive ? yield* Effect.promise(() => import("./replRun.ts")) : undefined
      const services = Layer.mergeAll(
        modelClientLayer({ record: Option.getOrUndefined(flags.record), replay: Option.getOrUndefined(flags.replay) }),
        toolCassettesLayer({ record: Option.getOrUndefined(flags.record) })
      ).pipe(Layer.provideMerge(configLayer({ waitForWriter: true, headers: flags.header })))
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
    // Around every handler, the root's and each subcommand's: what the global flags say, for those that read them.
    Command.provide(globalSettingsLayer),
    // After the subcommands, so their handlers' reads of the global flags count as satisfied.
    Command.withGlobalFlags(globalFlags)
  )
