// `lait agent run FILE|NAME [INPUT]` and `lait agent list` (docs/agents.md). `agent run` runs one agent
// Markdown file the way an `agent:` step does (src/workflow/modelSteps.ts), with its frontmatter and the
// config's `default:` only: INPUT is JSON-parsed (else a string) for the system-prompt template, and
// its text as given is the user message. Its tools, MCP servers, subagents and skills go through the
// same tool loop; record/replay, cache, traces and usage work as for `lait run`. There is no --model:
// an agent's model is its own.
import { Effect, Layer, Option } from "effect"
import { Argument, Command } from "effect/cli"
import * as nodePath from "node:path"
import type { Json } from "../core/json.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { stdinIsTerminal } from "../platform/rawStdout.ts"
import { RecordHint } from "../model/recordHint.ts"
import { RunUsage } from "../model/RunUsage.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { RunContext } from "../workflow/RunContext.ts"
import { CommandError } from "./commandErrors.ts"
import { runRecordHint } from "./recordHints.ts"
import { registryListCommand } from "./registries.ts"
import { resolvePromptText, resolveRegistered } from "./runWorkflow.ts"
import { runAndEmit } from "./runOutput.ts"
import { runFlags, withRunServices } from "./runFlags.ts"

/** INPUT as JSON when it parses, else the text itself. */
export const parseAgentInput = (text: string): Json => {
  try {
    return JSON.parse(text) as Json
  } catch {
    return text
  }
}

const runLayers = Layer.mergeAll(RunUsage.layer, RunTracer.layer, RunContext.layerConfig())

const run = Command.make(
  "run",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription("Agent Markdown file, or an 'agents:' name from lait.config.yml")
    ),
    input: Argument.String("input").pipe(
      Argument.withDescription(
        "The agent's input, parsed as JSON when it is JSON; '-' reads stdin (piped stdin is appended to INPUT)"
      ),
      Argument.optional
    ),
    ...runFlags
  },
  Effect.fn("cli.agent.run")(function*(flags) {
    // Loaded on demand so that other commands never pay for templates, YAML or Ajv.
    const [{ loadAgentFile }, { makeModelSteps }] = yield* Effect.promise(() =>
      Promise.all([import("../lang/agentFile.ts"), import("../workflow/modelSteps.ts")])
    )
    const loader = yield* FileLoader
    const target = yield* resolveRegistered(flags.file, "agents")
    const definition = yield* loadAgentFile(target)
    const text = yield* resolvePromptText(
      Option.getOrUndefined(flags.input),
      stdinIsTerminal(),
      loader.readStdin
    )
    if (text === undefined) return yield* new CommandError({ reason: { _tag: "InputRequired" } })
    const label = definition.name ?? nodePath.basename(target, ".md")
    yield* runAndEmit(
      flags,
      Effect.scoped(Effect.gen(function*() {
        const steps = yield* makeModelSteps
        return yield* steps.runAgentFile(definition, parseAgentInput(text), { label, userText: text })
      })),
      { history: { kind: "agent", model: definition.model ?? null, prompt: text } }
    )
  }, (effect, { file }) =>
    effect.pipe(
      Effect.provide(runLayers),
      Effect.provideService(RecordHint, runRecordHint(["agent", "run"], file))
    ))
).pipe(
  Command.withDescription("Run an agent Markdown file (frontmatter + system-prompt template) on INPUT"),
  withRunServices
)

const list = registryListCommand("agents", "List the agents: entries of lait.config.yml", async () => {
  const { loadAgentFile } = await import("../lang/agentFile.ts")
  return (_, path) => ({ path, description: Effect.map(loadAgentFile(path), (agent) => agent.description) })
})

export const agentCommand = Command.make("agent").pipe(
  Command.withDescription("Run agent Markdown files, or list the agents registered in lait.config.yml"),
  Command.withSubcommands([run, list])
)
