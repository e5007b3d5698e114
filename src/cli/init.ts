// `lait init [workflow|test|eval|agent] [PATH]`: write a commented starter file that `lait lint`
// accepts, never overwriting anything. Without a kind it writes lait.config.yml (as upstream). The
// test and eval starters point at `workflow.yml` in the current directory (the workflow starter's
// default name), with paths computed relative to where they are written, and say on stderr what is
// still missing (the workflow, the recorded answers) for them to pass `lait lint` and run. YAML starters
// begin with a `# yaml-language-server: $schema=...` line pointing at .lait-schemas/<kind>.schema.json,
// which is written too when missing (docs/editors.md).
import { Console, Effect, Option } from "effect"
import { Argument, Command } from "effect/cli"
import * as nodePath from "node:path"
import { CommandError } from "./commandErrors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { printLine } from "./output.ts"
import { SCHEMA_DIR, schemaModeline, writeSchemaFiles } from "./schemaFiles.ts"

export const INIT_KINDS = ["workflow", "test", "eval", "agent"] as const
export type InitKind = (typeof INIT_KINDS)[number] | "config"

export const DEFAULT_PATHS: { readonly [K in InitKind]: string } = {
  config: "lait.config.yml",
  workflow: "workflow.yml",
  test: "workflow.test.yml",
  eval: "workflow.eval.yml",
  agent: "agent.md"
}

/** The sample input the test and eval starters use (the test replays answers recorded for it). */
const SAMPLE_INPUT = "lait runs YAML workflows against OpenAI-compatible servers, records the model's answers " +
  "once and replays them in tests, so a workflow can be checked in CI without a model."

const CONFIG_STARTER = `# lait configuration. lait reads the first lait.config.yml found from the current directory
# upward (and ~/.config/lait/config.yml underneath it). Check it with: lait lint lait.config.yml
# The first line points editors at its JSON Schema (docs/editors.md).

# Defaults for every model request (a workflow's own default: wins over these).
default:
  model: local
  # temperature: 0.2
  # max_tokens: 1024
  # cache: true          # reuse identical answers from .lait/cache/

# Model aliases: the first entry is used, later ones are fallbacks (on 5xx, 429, timeouts).
models:
  local:
    - provider:
        base_url: http://localhost:1234/v1
        # api_key: \${OPENAI_API_KEY}   # \${VAR} reads the environment (and .env)
      model_id: your-model-id
      # pricing: {input_per_1m: 0.15, output_per_1m: 0.60}   # USD, for --show-usage and usage assertions

# Registries that steps refer to by name:
# workflows:
#   summarize: ./workflow.yml
# agents:
#   reviewer: ./agents/reviewer.md
# mcp_servers:
#   filesystem:
#     command: npx
#     args: ["-y", "@modelcontextprotocol/server-filesystem", "."]
# tools:
#   word_count:
#     command: [wc, -w]
#     description: Counts the words of its standard input
`

const WORKFLOW_STARTER = `# A lait workflow (version 2).
#   run it:           lait run workflow.yml "some text to summarise"
#   record answers:   lait run workflow.yml "some text to summarise" --record recordings
#   check it:         lait lint workflow.yml
# A prompt step needs a model: set default.model below or in lait.config.yml (lait init).
# The first line points editors at its JSON Schema (docs/editors.md).
name: summarize
description: summarises the text given as PROMPT
# What the PROMPT must be: a text. It also says that the workflow needs one, so lait lint does not
# ask for {{input}} to be guarded against a run on inputs: alone.
input_schema: {type: string}

# Named parameters, bound with --input KEY=VALUE; a default makes one optional.
inputs:
  lines:
    type: integer
    default: 3
    description: the most lines the summary may have

# Settings for this file's model steps (lait.config.yml's default: applies underneath).
# default:
#   model: local
#   temperature: 0.2

steps:
  # The value flows from step to step; {{input}} is the current one, {{inputs.x}} a declared input.
  - id: summary
    prompt: |
      Summarise the following text in at most {{inputs.lines}} lines.

      {{input}}
  # jq reshapes values; $steps holds the value of every step that has an id.
  - jq: '{summary: ., lines: ($steps.summary | split("\\n") | length)}'

# The workflow's result: jq over the last value, $steps and $inputs.
output: .summary
`

const testStarter = (paths: { readonly workflow: string; readonly record: string; readonly workflowFromCwd: string }) =>
  `# A lait test: runs the workflow against recorded model answers, never calling a model.
#   1. record once:  lait run ${paths.workflowFromCwd} ${JSON.stringify(SAMPLE_INPUT)} --record ${paths.record}
#   2. test:         lait test <this file>      (lait lint checks it without running)
# Paths are relative to this file. The first line points editors at its JSON Schema (docs/editors.md).
workflow: ${paths.workflow}
# The first input, as a YAML value (the same text the answers were recorded with).
input: ${JSON.stringify(SAMPLE_INPUT)}
# Values for the workflow's inputs: (they are part of what was recorded).
# inputs:
#   lines: 3
replay: recordings
# Every assertion is checked, in order, against the output (its text form).
assert:
  - type: jq
    expr: 'length > 0'
  - type: step_output
    id: summary
    assert:
      - type: jq
        expr: 'split("\\n") | length <= 3'
  - type: usage
    max_total_tokens: 4000
  # - type: equals
  #   value: "the exact output"
  # - type: contains
  #   value: "CI"
`

const evalStarter = (paths: { readonly workflow: string }) =>
  `# A lait eval: runs the target for every case (--repeat N times) against a live model and reports
# how reliably the assertions hold.   lait eval <this file> --repeat 5
# Paths are relative to this file. The first line points editors at its JSON Schema (docs/editors.md).
target:
  workflow: ${paths.workflow}
  # inputs:
  #   lines: 2
# Or a single prompt:  target: {model: local, prompt: "Summarise: {{input}}"}
cases:
  - input: ${JSON.stringify(SAMPLE_INPUT)}
    assert:
      - type: jq
        expr: 'length > 0'
      # A model grades the output from 0.0 to 1.0; it passes at the threshold (default 0.7).
      - type: llm_judge
        criteria: The summary states only facts that are in the input.
        # model: local
        # threshold: 0.8
`

const AGENT_STARTER = `---
# A lait agent: the frontmatter holds its settings, the body below is its system prompt (a
# Handlebars template that sees input, steps, inputs and loop). Use it from a workflow step:
#   - agent: ./agent.md
# Check it with: lait lint agent.md    (lait schema agent prints the frontmatter's JSON Schema)
name: summarizer
description: summarises text faithfully
# model: local
# temperature: 0.2
# output_schema:          # strict structured output
#   type: object
#   properties: {summary: {type: string}}
#   required: [summary]
---
You summarise the text you are given. Keep every statement faithful to it and add nothing.
`

/** A path relative to `from`, written the way a YAML reference is (forward slashes). */
const relativeRef = (from: string, to: string): string => {
  const relative = nodePath.relative(from, to)
  return relative.split(nodePath.sep).join("/")
}

interface Plan {
  readonly path: string
  readonly contents: string
  /** Notes for stderr: what the starter refers to that does not exist yet. */
  readonly notes: ReadonlyArray<string>
}

export const planInit = (
  kind: InitKind,
  target: string | undefined,
  cwd: string = process.cwd()
): Effect.Effect<Plan, never, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    const workflowExists = yield* files.exists(nodePath.resolve(cwd, DEFAULT_PATHS.workflow))
    const recordingsExist = yield* files.exists(
      nodePath.join(nodePath.dirname(nodePath.resolve(cwd, target ?? DEFAULT_PATHS[kind])), "recordings")
    )
    return plan(kind, target, cwd, workflowExists, recordingsExist)
  })

const plan = (
  kind: InitKind,
  target: string | undefined,
  cwd: string,
  workflowExists: boolean,
  recordingsExist: boolean
): Plan => {
  const path = target ?? DEFAULT_PATHS[kind]
  const dir = nodePath.dirname(nodePath.resolve(cwd, path))
  const workflowAbsolute = nodePath.resolve(cwd, DEFAULT_PATHS.workflow)
  const workflowRef = relativeRef(dir, workflowAbsolute)
  const notes: Array<string> = []
  const noteMissingWorkflow = () => {
    if (!workflowExists) {
      notes.push(`note: '${DEFAULT_PATHS.workflow}' does not exist yet; create it with 'lait init workflow'`)
    }
  }
  // YAML starters begin with the modeline of the YAML language server (agent.md is Markdown).
  const modeline = kind === "agent" ? "" : `${schemaModeline(kind, path, SCHEMA_DIR, cwd)}\n`
  switch (kind) {
    case "config":
      return { path, contents: modeline + CONFIG_STARTER, notes }
    case "workflow":
      return { path, contents: modeline + WORKFLOW_STARTER, notes }
    case "agent":
      return { path, contents: AGENT_STARTER, notes }
    case "eval":
      noteMissingWorkflow()
      return { path, contents: modeline + evalStarter({ workflow: workflowRef }), notes }
    case "test": {
      noteMissingWorkflow()
      const recordings = nodePath.join(dir, "recordings")
      const record = relativeRef(cwd, recordings) || "."
      if (!recordingsExist) {
        notes.push(
          `note: record the answers it replays first: lait run ${DEFAULT_PATHS.workflow} '...' --record ${record}`
        )
      }
      return {
        path,
        contents: modeline + testStarter({ workflow: workflowRef, record, workflowFromCwd: DEFAULT_PATHS.workflow }),
        notes
      }
    }
  }
}


export const initCommand = Command.make(
  "init",
  {
    kind: Argument.Literals("kind", INIT_KINDS).pipe(
      Argument.withDescription("What to create: workflow, test, eval or agent (none: lait.config.yml)"),
      Argument.optional
    ),
    path: Argument.String("path").pipe(
      Argument.withDescription(
        "Where to write it (default: workflow.yml, workflow.test.yml, workflow.eval.yml, agent.md)"
      ),
      Argument.optional
    )
  },
  Effect.fn("cli.init")(function*({ kind, path }) {
    const chosen = Option.getOrElse(kind, () => "config" as const)
    const plan = yield* planInit(chosen, Option.getOrUndefined(path))
    // lstat: a dangling symlink is still something we would overwrite.
    if (yield* Effect.isSuccess(FileLoader.use((files) => files.lstat(plan.path)))) {
      return yield* new CommandError({ reason: { _tag: "InitExists", path: plan.path } })
    }
    yield* FileLoader.use((files) => files.writeAtomic(plan.path, plan.contents))
    yield* printLine(`created '${plan.path}'`)
    // The schema the modeline points at, unless one is there already (`lait schema --write` refreshes it).
    if (chosen !== "agent") {
      for (const written of yield* writeSchemaFiles(SCHEMA_DIR, [chosen], { keep: true })) {
        yield* printLine(`created '${written}'`)
      }
    }
    for (const note of plan.notes) yield* Console.error(note)
  })
).pipe(
  Command.withDescription("Write a commented starter file (lait.config.yml, a workflow, test, eval or agent)")
)
