// The command tree. Each subcommand lives in its own file and is registered here when it lands.
import { Command } from "effect/cli"
import { agentCommand } from "./agent.ts"
import { cacheCommand } from "./cache.ts"
import { cassettesCommand } from "./cassettes.ts"
import { configCommand } from "./config.ts"
import { doctorCommand } from "./doctor.ts"
import { evalCommand } from "./eval.ts"
import { globalFlags } from "./global.ts"
import { graphCommand } from "./graph.ts"
import { historyCommand } from "./history.ts"
import { initCommand } from "./init.ts"
import { lintCommand } from "./lint.ts"
import { modelsCommand } from "./models.ts"
import { runCommand } from "./run.ts"
import { runsCommand } from "./runs.ts"
import { skillCommand, workflowCommand } from "./registries.ts"
import { schemaCommand } from "./schema.ts"
import { serveCommand } from "./serve.ts"
import { testCommand } from "./test.ts"
import { traceCommand } from "./trace.ts"

export const root = Command.make("lait").pipe(
  Command.withDescription(
    "Run YAML LLM workflows against any OpenAI-compatible server, and test them: record/replay, evals, traces."
  ),
  Command.withSubcommands([
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
    serveCommand
  ]),
  // After the subcommands, so their handlers' reads of the global flags count as satisfied.
  Command.withGlobalFlags(globalFlags)
)
