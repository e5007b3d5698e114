// The command tree. Each subcommand lives in its own file and is registered here when it lands.
import { Command } from "effect/cli"
import { cacheCommand } from "./cache.ts"
import { configCommand } from "./config.ts"
import { globalFlags } from "./global.ts"
import { graphCommand } from "./graph.ts"
import { runCommand } from "./run.ts"

export const root = Command.make("lait").pipe(
  Command.withDescription(
    "Run YAML LLM workflows against any OpenAI-compatible server, and test them: record/replay, evals, traces."
  ),
  Command.withSubcommands([runCommand, cacheCommand, configCommand, graphCommand]),
  // After the subcommands, so their handlers' reads of the global flags count as satisfied.
  Command.withGlobalFlags(globalFlags)
)
