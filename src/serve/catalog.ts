// What `lait serve --mcp` offers: one MCP tool per `agents:` entry (`agent__<name>`) and per
// `workflows:` entry (`workflow__<name>`) of the configuration, built once at start-up. An entry that
// cannot be offered (its file does not load, its name does not fit a tool name, a workflow that asks
// the terminal) is skipped with a `note:` on stderr, so one bad entry never keeps the others away. A
// workflow `lait lint` finds shell-injectable gets a `warning:`, and is skipped on a non-loopback address.
import { Console, Effect } from "effect"
import { LaitConfig } from "../config/LaitConfig.ts"
import { renderChain } from "../core/errors.ts"
import type { JsonObject } from "../core/json.ts"
import { ToolError } from "../tools/toolErrors.ts"
import { loadWorkflow } from "../lang/load.ts"
import { childStepLists, type Step, type Workflow } from "../lang/model.ts"
import { loadSchemaRef } from "../lang/schemaRef.ts"
import { display } from "../lint/context.ts"
import { untrustedShellFindings } from "../lint/run.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import { qualifyToolName } from "../tools/names.ts"
import { Subagents } from "../tools/subagents.ts"

export type ToolTarget =
  | { readonly kind: "workflow"; readonly name: string; readonly path: string }
  /** `structured`: the agent has an `input_schema`, so the whole arguments object is its input. */
  | { readonly kind: "agent"; readonly name: string; readonly structured: boolean }

export interface ServedTool {
  /** The qualified MCP tool name. */
  readonly name: string
  readonly description: string
  readonly inputSchema: JsonObject
  readonly target: ToolTarget
}

const INPUT_DESCRIPTION = "The workflow's initial value (what `lait run <workflow> PROMPT` takes as PROMPT): " +
  "a plain-text string, or JSON text if the workflow's 'input_schema' expects structured input."

/** Any `ask:` step of the file, however deeply nested: it would read the stdin the protocol uses. */
const hasAsk = (steps: ReadonlyArray<Step>): boolean =>
  steps.some((step) => step.kind.type === "ask" || childStepLists(step).some((list) => hasAsk(list.steps)))

/**
 * `{input, inputs}`: `input` is the initial value (required unless the workflow declares `inputs:`;
 * the workflow's own `input_schema` when it has one, a string otherwise); `inputs` carries the
 * declared inputs, each with its own schema, required unless it has a default.
 */
export const workflowInputSchema = (workflow: Workflow, inputSchema: JsonObject | undefined): JsonObject => {
  const properties: Record<string, JsonObject> = {
    input: inputSchema === undefined
      ? { type: "string", description: INPUT_DESCRIPTION }
      : { description: INPUT_DESCRIPTION, ...inputSchema }
  }
  const required: Array<string> = []
  if (workflow.inputs.length > 0) {
    const inputProperties: Record<string, JsonObject> = {}
    const requiredInputs: Array<string> = []
    for (const definition of workflow.inputs) {
      inputProperties[definition.name] = definition.description === undefined || "description" in definition.schema
        ? definition.schema
        : { ...definition.schema, description: definition.description }
      if (definition.default === undefined) requiredInputs.push(definition.name)
    }
    properties["inputs"] = {
      type: "object",
      description: "Values for the workflow's declared 'inputs:'.",
      properties: inputProperties,
      required: requiredInputs
    }
    if (requiredInputs.length > 0) required.push("inputs")
  } else {
    required.push("input")
  }
  return { type: "object", properties, required }
}

const qualified = (prefix: "agent" | "workflow", name: string) =>
  Effect.suspend(() => {
    const result = qualifyToolName(`${prefix} tool`, prefix, name)
    return result instanceof ToolError ? Effect.fail(result) : Effect.succeed(result)
  })

const workflowTool = (name: string, path: string) =>
  Effect.gen(function*() {
    const workflow = yield* loadWorkflow(path, { waitForWriter: false })
    if (hasAsk(workflow.steps)) return "it has an 'ask:' step, which would read the stdin MCP uses" as const
    const inputSchema = yield* loadSchemaRef(workflow.inputSchema)
    return {
      name: yield* qualified("workflow", name),
      description: workflow.description ?? `Run the '${name}' workflow.`,
      inputSchema: workflowInputSchema(workflow, inputSchema),
      target: { kind: "workflow", name, path }
    } satisfies ServedTool
  })

const agentTool = (subagents: Subagents, name: string) =>
  Effect.gen(function*() {
    const agent = yield* subagents.load(name)
    return {
      name: yield* qualified("agent", name),
      description: agent.definition.description ?? `Run the '${name}' agent.`,
      inputSchema: agent.parameters,
      target: { kind: "agent", name, structured: agent.inputSchema !== undefined }
    } satisfies ServedTool
  })

/**
 * The warning about a workflow `lait lint` finds shell-injectable (a template inside a `sh -c` script,
 * filled from a tool call's arguments by whoever calls it); undefined when it finds none. Such a
 * workflow is still served on loopback and stdio, where the caller is the user's own client, but not
 * to the network.
 */
const shellWarning = (name: string, path: string, network: boolean, config: LaitConfig["Service"]) =>
  Effect.map(untrustedShellFindings(path, config.config), (issues) => {
    const first = issues[0]
    if (first === undefined) return undefined
    const where = `${display(path)}${first.line === undefined ? "" : `:${first.line}`}`
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""
    const finding = `'lait lint' finds it shell-injectable: ${where}: ${first.message}${more}`
    return network
      ? `warning: skipping workflow '${name}' as an MCP tool on a non-loopback address: ${finding}`
      : `warning: workflow '${name}' is served, but ${finding}`
  })

/**
 * Every servable entry, agents first (the order of upstream's listing). `network`: the server listens
 * on a non-loopback address.
 */
export const buildCatalog = (
  options: { readonly network: boolean }
): Effect.Effect<ReadonlyArray<ServedTool>, never, LaitConfig | FileLoader> =>
  Effect.gen(function*() {
    const config = yield* LaitConfig
    const tools: Array<ServedTool> = []
    const skip = (kind: string, name: string, why: string) =>
      Console.error(`note: skipping ${kind} '${name}' as an MCP tool: ${why}`)
    // Names that differ only in characters a tool name cannot hold qualify alike: the first one keeps it.
    const add = (tool: ServedTool) => {
      const owner = tools.find((t) => t.name === tool.name)
      if (owner === undefined) return Effect.sync(() => void tools.push(tool))
      const why = `its tool name '${tool.name}' is already taken by ${owner.target.kind} '${owner.target.name}'`
      return skip(tool.target.kind, tool.target.name, why)
    }
    const subagents = new Subagents(config)
    for (const name of Object.keys(config.config.agents ?? {})) {
      const built = yield* Effect.result(agentTool(subagents, name))
      if (built._tag === "Success") yield* add(built.success)
      else yield* skip("agent", name, renderChain(built.failure))
    }
    for (const [name, path] of Object.entries(config.config.workflows ?? {})) {
      const built = yield* Effect.result(workflowTool(name, path))
      if (built._tag === "Failure") yield* skip("workflow", name, renderChain(built.failure))
      else if (typeof built.success === "string") yield* skip("workflow", name, built.success)
      else {
        const warning = yield* shellWarning(name, path, options.network, config)
        if (warning !== undefined) yield* Console.error(warning)
        if (warning === undefined || !options.network) yield* add(built.success)
      }
    }
    return tools
  })
