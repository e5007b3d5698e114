// One tool call of `lait serve --mcp`: the arguments become the run's initial value and inputs, and
// the workflow runs through the engine `lait run` uses, in a run context of its own (usage, trace,
// model steps and their MCP servers), so concurrent calls never share state. The result is the
// workflow's output in text form (JSON text for structured output); any failure is one line.
import { Effect, Layer } from "effect"
import * as nodePath from "node:path"
import { LaitConfig } from "../config/LaitConfig.ts"
import { isJsonObject, type Json, textForm } from "../core/json.ts"
import { SubagentError } from "../tools/subagentErrors.ts"
import { resolveInitial, resolveInputs } from "../lang/inputs.ts"
import { loadWorkflow, parseWorkflowText } from "../lang/load.ts"
import { loadSchemaRef } from "../lang/schemaRef.ts"
import { RunUsage } from "../model/RunUsage.ts"
import type { Answerer } from "../platform/terminal.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { Engine } from "../workflow/Engine.ts"
import { LlmSteps } from "../workflow/LlmSteps.ts"
import { Progress } from "../workflow/progress.ts"
import { RunContext } from "../workflow/RunContext.ts"
import type { ServedTool } from "./catalog.ts"
import { ServeError } from "./serveErrors.ts"

/** stdin is the protocol's (stdio) or nobody's (HTTP): a nested `ask:` takes its default or fails. */
const noTerminal: Answerer = {
  interactive: () => false,
  read: () => Effect.die("lait serve never reads answers from stdin")
}

/**
 * A fresh run context per call, progress dropped (stdout is the protocol, and interleaved lines of
 * concurrent calls on stderr would help nobody). Provide it `{ local: true }`.
 */
export const callLayers = LlmSteps.layerModel.pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      Engine.layer,
      RunUsage.layer,
      RunTracer.layer,
      Progress.layerSilent,
      RunContext.layerConfig({ answerer: noTerminal })
    )
  )
)

type Arguments = Readonly<Record<string, unknown>>

const describe = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return `got ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`
}

/** `{input?, inputs?}` of a workflow tool; `input` keeps its JSON type unless it is text. */
const workflowArguments = (args: Arguments) =>
  Effect.suspend(() => {
    const inputs = args["inputs"]
    if (inputs !== undefined && inputs !== null && !isJsonObject(inputs as Json)) {
      return Effect.fail(
        new ServeError({ reason: { _tag: "ArgumentsInvalid", what: "'inputs'", detail: describe(inputs) } })
      )
    }
    return Effect.succeed({
      input: args["input"] as Json | undefined,
      inputs: Object.entries((inputs ?? {}) as Readonly<Record<string, Json>>)
    })
  })

const runWorkflowTool = (path: string, args: Arguments) =>
  Effect.gen(function*() {
    const { input, inputs } = yield* workflowArguments(args)
    const workflow = yield* loadWorkflow(path, { waitForWriter: false })
    let initial: Json
    if (input !== undefined) {
      const schema = yield* loadSchemaRef(workflow.inputSchema)
      initial = yield* resolveInitial(
        schema,
        typeof input === "string" ? { kind: "text", text: input } : { kind: "typed", value: input }
      )
    } else if (workflow.inputs.length > 0) {
      initial = null
    } else {
      return yield* new ServeError({ reason: { _tag: "MissingInput" } })
    }
    const resolved = yield* resolveInputs(
      workflow.inputs,
      inputs.map(([key, value]) => [key, { kind: "typed", value }] as const)
    )
    const result = yield* (yield* Engine).run(workflow, initial, resolved)
    return textForm(result.output)
  })

/**
 * An agent runs as the one `agent:` step of a workflow made for the call, so it gets the same model
 * settings, tool loop, usage and trace as in any workflow. With an `input_schema` the whole arguments
 * object is its input (validated by the step); otherwise their `input` field.
 */
const runAgentTool = (name: string, structured: boolean, args: Arguments) =>
  Effect.gen(function*() {
    if (!structured && !Object.hasOwn(args, "input")) {
      return yield* new SubagentError({ reason: { _tag: "MissingInput" } })
    }
    const input = (structured ? args : args["input"]) as Json
    // The agent file stands in as the made-up workflow's path: the engine resolves that path (cycle
    // detection), and nothing is read from it here.
    const where = (yield* LaitConfig).config.agents?.[name] ?? nodePath.resolve(`${name}.md`)
    const workflow = yield* parseWorkflowText(`version: 2\nsteps:\n  - agent: ${JSON.stringify(name)}\n`, where)
    const result = yield* (yield* Engine).run(workflow, input, {})
    return textForm(result.output)
  })

/** The call's result text; the caller provides `callLayers`. */
export const runTool = (
  tool: ServedTool,
  args: Arguments | undefined
) =>
  tool.target.kind === "workflow"
    ? runWorkflowTool(tool.target.path, args ?? {})
    : runAgentTool(tool.target.name, tool.target.structured, args ?? {})
