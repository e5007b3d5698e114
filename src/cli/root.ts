// The command tree. Each subcommand lives in its own file and is registered here when it lands.
import { Command } from "effect/cli"
import { globalFlags } from "./global.ts"

export const root = Command.make("lait").pipe(
  Command.withDescription(
    "Run YAML LLM workflows against any OpenAI-compatible server, and test them: record/replay, evals, traces."
  ),
  Command.withGlobalFlags(globalFlags),
  Command.withSubcommands([])
)
