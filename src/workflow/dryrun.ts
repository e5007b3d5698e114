// `lait run --dry-run`: the execution plan of a workflow — step order and kinds, control structure,
// the model each model step would use, effective retry/timeout — without calling a model, spawning a
// process, writing a file or opening a child workflow. The only reads are agent files, needed to know
// an agent step's model. Templates are rendered where their data is known before the run: `inputs`
// always, `input` only for the very first step (the initial value); anything else is shown as is.
import { Effect } from "effect"
import { type LaitConfigService, modelRequired } from "../config/LaitConfig.ts"
import type { ModelMap } from "../config/schema.ts"
import type { AnyLaitError } from "../core/errors.ts"
import { StepError } from "./stepErrors.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import type { Json } from "../core/json.ts"
import { displayUrl } from "../core/urls.ts"
import { loadAgentFile } from "../lang/agentFile.ts"
import type { AgentDefinition, AgentRef, LlmSettings, SchemaRef, Step, Workflow, WorkflowRef } from "../lang/model.ts"
import { listAt, positionIn, stepName } from "../lang/positions.ts"
import { renderTemplateWith } from "../lang/template.ts"
import { effectiveRetry, effectiveTimeout } from "./engine/policy.ts"
import { stepModelPlaces } from "./llmStep.ts"
import { RunContext } from "./RunContext.ts"

const describeSchema = (ref: SchemaRef): string =>
  ref.name !== undefined
    ? `'${ref.name}'`
    : ref.source.kind === "inline"
    ? "inline schema"
    : `file '${ref.source.path}'`

const describeAgent = (ref: AgentRef): string =>
  ref.kind === "inline"
    ? `${ref.name} (inline)`
    : ref.kind === "path"
    ? ref.path
    : `${ref.name} (lait.config.yml agents)`

const describeWorkflow = (ref: WorkflowRef): string =>
  ref.kind === "path" ? ref.path : `${ref.name} (lait.config.yml workflows)`

interface Context {
  readonly workflow: Workflow
  readonly inputs: Readonly<Record<string, Json>>
  readonly config: LaitConfigService | undefined
  readonly out: Array<string>
}

/** Only what is known before the run; a reference to anything else fails strict rendering. */
const preview = (source: string, input: Json | undefined, ctx: Context): Effect.Effect<string> => {
  const data = input === undefined ? { inputs: ctx.inputs } : { input, inputs: ctx.inputs }
  return renderTemplateWith(source, data).pipe(
    Effect.catch(() => Effect.succeed(`${source}  [unrendered: depends on a value not known before the run]`))
  )
}

const TOOL_FIELDS = ["mcp", "skills", "subagents", "tools"] as const

const modelLines: (
  llm: LlmSettings,
  agent: AgentDefinition | undefined,
  ctx: Context,
  label: string,
  inner: string
) => Effect.Effect<void, AnyLaitError> = Effect.fnUntraced(function*(llm, agent, ctx, label, inner) {
  const configDefault = ctx.config?.config.default as LlmSettings | undefined
  const chain: ReadonlyArray<LlmSettings | undefined> = [llm, agent, ctx.workflow.defaults, configDefault]
  const model = chain.map((layer) => layer?.model).find((m) => m !== undefined)
  if (model === undefined) {
    return yield* modelRequired(`step '${label}'`, stepModelPlaces(agent !== undefined), ctx.config)
  }
  if (ctx.config === undefined) {
    ctx.out.push(`${inner}model: ${model}`)
  } else {
    const endpoints = yield* ctx.config.resolveEndpoints(model, {
      workflowModels: ctx.workflow.models as unknown as ModelMap
    })
    ctx.out.push(`${inner}model: ${endpoints[0].modelId} @ ${displayUrl(endpoints[0].baseUrl)}`)
  }
  for (const field of TOOL_FIELDS) {
    const values = chain.map((layer) => layer?.[field]).find((v) => v !== undefined)
    if (values !== undefined && values.length > 0) ctx.out.push(`${inner}${field}: ${values.join(", ")}`)
  }
})

const loadAgent = (ref: AgentRef, ctx: Context, label: string, inner: string) =>
  Effect.gen(function*() {
    if (ref.kind === "inline") return ref.definition
    if (ref.kind === "path") {
      return yield* loadAgentFile(ref.path).pipe(
        Effect.mapError((cause) => new StepError({ reason: { _tag: "DryRunAgent", step: label, cause } }))
      )
    }
    const path = ctx.config?.config.agents?.[ref.name]
    if (path === undefined) {
      ctx.out.push(`${inner}(agent '${ref.name}' is not registered; the run would fail)`)
      return undefined
    }
    return yield* loadAgentFile(path).pipe(
      Effect.mapError((cause) => new StepError({ reason: { _tag: "DryRunAgent", step: label, name: ref.name, cause } }))
    )
  })

/** `list`: where these steps are in the file (see ./positions.ts); undefined for the top level. */
const planSteps: (
  steps: ReadonlyArray<Step>,
  ctx: Context,
  indent: string,
  firstInput: Json | undefined,
  list: string | undefined
) => Effect.Effect<void, AnyLaitError, FileLoader> = Effect.fnUntraced(function*(steps, ctx, indent, firstInput, list) {
  for (const [index, step] of steps.entries()) {
    const known = index === 0 && step.input === undefined ? firstInput : undefined
    yield* planStep(step, index + 1, positionIn(list, index), ctx, indent, known)
  }
})

const planStep: (
  step: Step,
  place: number,
  position: string,
  ctx: Context,
  indent: string,
  known: Json | undefined
) => Effect.Effect<void, AnyLaitError, FileLoader> = Effect.fnUntraced(function*(
  step, place, position, ctx, indent, known
) {
  const out = ctx.out
  const label = stepName(step, position)
  const kind = step.kind
  out.push(`${indent}[${place}] ${label}  (${kind.type})`)
  const inner = `${indent}    `
  const body = `${inner}    `
  if (step.when !== undefined) out.push(`${inner}when: ${step.when}`)
  if (step.input !== undefined) out.push(`${inner}input: ${step.input}`)

  switch (kind.type) {
    case "prompt": {
      out.push(`${inner}prompt: ${yield* preview(kind.prompt, known, ctx)}`)
      const system = kind.system ?? ctx.workflow.defaults.system
      if (system !== undefined) out.push(`${inner}system: ${yield* preview(system, known, ctx)}`)
      if (kind.inputSchema !== undefined) out.push(`${inner}input_schema: ${describeSchema(kind.inputSchema)}`)
      if (kind.outputSchema !== undefined) {
        const name = kind.schemaName ?? kind.outputSchema.name ?? "structured_output"
        out.push(`${inner}output_schema: ${describeSchema(kind.outputSchema)} (name: ${name})`)
      }
      yield* modelLines(kind.llm, undefined, ctx, label, inner)
      break
    }
    case "agent": {
      out.push(`${inner}agent: ${describeAgent(kind.agent)}`)
      const definition = yield* loadAgent(kind.agent, ctx, label, inner)
      if (definition !== undefined) yield* modelLines(kind.llm, definition, ctx, label, inner)
      break
    }
    case "run": {
      const rendered = yield* Effect.forEach(kind.argv, (arg) => preview(arg, known, ctx))
      out.push(`${inner}run: ${rendered.join(" ")}`)
      if (kind.cwd !== undefined) out.push(`${inner}cwd: ${kind.cwd}`)
      if (kind.env !== undefined) out.push(`${inner}env: ${Object.keys(kind.env).join(", ")} (nothing else is passed)`)
      break
    }
    case "workflow":
      out.push(
        `${inner}workflow: ${describeWorkflow(kind.workflow)} (not expanded; run 'lait run --dry-run' on it directly)`
      )
      if (kind.with !== undefined) out.push(`${inner}with: ${kind.with}`)
      break
    case "jq":
      out.push(`${inner}jq: ${kind.filter}`)
      break
    case "ask":
      out.push(`${inner}ask: ${yield* preview(kind.prompt, known, ctx)}`)
      if (kind.choices !== undefined) out.push(`${inner}choices: ${kind.choices.join(", ")}`)
      out.push(
        kind.default !== undefined
          ? `${inner}default: ${kind.default}  (used when stdin is not an interactive terminal)`
          : `${inner}default: none  (fails when stdin is not an interactive terminal)`
      )
      break
    case "write":
      out.push(`${inner}write: ${yield* preview(kind.path, known, ctx)}`)
      break
    case "group":
      yield* planSteps(kind.steps, ctx, inner, known, listAt(position))
      break
    case "switch":
      for (const [index, c] of kind.cases.entries()) {
        out.push(`${inner}case ${index + 1}: when ${c.when}`)
        yield* planSteps(c.steps, ctx, body, undefined, listAt(position, `case${index + 1}`))
      }
      if (kind.else !== undefined) {
        out.push(`${inner}else:`)
        yield* planSteps(kind.else, ctx, body, undefined, listAt(position, "else"))
      } else {
        out.push(`${inner}else: (none; no matching case is a runtime error)`)
      }
      break
    case "parallel":
      for (const branch of kind.branches) {
        out.push(`${inner}branch '${branch.name}':`)
        yield* planSteps(branch.steps, ctx, body, undefined, listAt(position, branch.name))
      }
      break
    case "for_each":
      out.push(`${inner}items: ${kind.items}`)
      if (kind.maxConcurrency > 1) out.push(`${inner}max_concurrency: ${kind.maxConcurrency}`)
      yield* planSteps(kind.steps, ctx, body, undefined, listAt(position))
      break
    case "while":
    case "until":
      out.push(`${inner}${kind.type} ${kind.condition}, max_iterations: ${kind.maxIterations}`)
      yield* planSteps(kind.steps, ctx, body, undefined, listAt(position))
      break
    case "stop":
      out.push(`${inner}-> ends the workflow with the current value`)
      break
    case "break":
      out.push(`${inner}-> ends the innermost loop with the current value`)
      break
  }

  if (step.output !== undefined) out.push(`${inner}output: ${step.output}`)
  const retry = effectiveRetry(step, ctx.workflow.defaults)
  if (retry !== undefined) {
    out.push(
      `${inner}retry: max_attempts=${retry.maxAttempts}, delay_seconds=${retry.delaySeconds}, backoff=${retry.backoff}`
    )
  }
  const timeout = effectiveTimeout(step, ctx.workflow.defaults)
  if (timeout !== undefined) out.push(`${inner}timeout: ${timeout}s`)
  if (step.onError !== undefined) {
    out.push(`${inner}on_error:`)
    yield* planSteps(step.onError, ctx, body, undefined, listAt(position, "on_error"))
  }
})

/**
 * The plan as stdout lines. `initial` is the resolved initial value (undefined when the workflow runs
 * on `inputs:` alone: a template that prints it is shown unrendered); `inputs` are already resolved
 * and validated. Uses the RunContext's config, when there is one, to show which endpoint a model
 * name resolves to.
 */
export const dryRunPlan: (
  workflow: Workflow,
  inputs: Readonly<Record<string, Json>>,
  initial: Json | undefined
) => Effect.Effect<ReadonlyArray<string>, AnyLaitError, FileLoader | RunContext> = Effect.fnUntraced(function*(
  workflow, inputs, initial
) {
  const { config } = yield* RunContext
  const ctx: Context = {
    workflow,
    inputs,
    config,
    out: [
      "dry run: showing the execution plan only; no model, MCP server, or command process will be invoked"
    ]
  }
  if (workflow.inputSchema !== undefined) ctx.out.push(`input_schema: ${describeSchema(workflow.inputSchema)}`)
  if (Object.keys(inputs).length > 0) ctx.out.push(`inputs: ${JSON.stringify(inputs)}`)
  yield* planSteps(workflow.steps, ctx, "", initial, undefined)
  if (workflow.output !== undefined) ctx.out.push(`output: ${workflow.output}`)
  if (workflow.timeout !== undefined) ctx.out.push(`timeout: ${workflow.timeout}s (whole workflow)`)
  return ctx.out
})
