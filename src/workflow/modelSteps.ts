// prompt and agent steps (docs/workflows.md#prompt, docs/workflows.md#model-settings,
// docs/workflows.md#agent-files): settings resolved step → agent → workflow `default:` → config
// `default:`, messages built from templates and attachments, requests through the tool loop
// (src/tools: one ModelClient call per round, so cache/record/replay/usage apply; skills are added
// there too), structured output parsed and validated. `runAgentFile` is the same agent code for
// `lait agent run` (docs/agents.md#lait-agent-run), outside any workflow.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { LaitConfig, modelRequired } from "../config/LaitConfig.ts"
import type { ModelMap } from "../config/schema.ts"
import { renderChain, withContext } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { FileError } from "../core/fileErrors.ts"
import { type Json, type JsonObject, stripFence, textForm } from "../core/json.ts"
import { JsonTooDeep, parseJsonText } from "../core/jsonDepth.ts"
import { StepError } from "./stepErrors.ts"
import { checkJson } from "../lang/jsonschema.ts"
import { parseSchemaFile } from "../lang/schemaRef.ts"
import { SchemaError } from "../lang/languageErrors.ts"
import { type AgentDefinition, type LlmSettings, pickSetting, pickToolNames, type SchemaRef } from "../lang/model.ts"
import { renderTemplate } from "../lang/template.ts"
import { cutOff, cutOffText } from "../model/completion.ts"
import type { ChatMessage, ChatRequest, ResponseFormat } from "../model/types.ts"
import { makeToolRuntime } from "../tools/ToolRuntime.ts"
import { loadAttachments, userMessage } from "./attachments.ts"
import { explainUnsetInput } from "./unsetInput.ts"
import { RunContext } from "./RunContext.ts"
import {
  type AgentFileRequest,
  type AgentStep,
  type LlmStepContext,
  type LlmStepsService,
  type PromptStep,
  stepModelPlaces,
  type TemplateScope
} from "./llmStep.ts"

export const DEFAULT_SCHEMA_NAME = "structured_output"

export const makeModelSteps = Effect.gen(function*() {
  const config = yield* LaitConfig
  const files = yield* FileLoader
  // Attachments are relative to the run's working directory (a test file's own, say), else the config's.
  const runCwd = (yield* RunContext).cwd
  const baseDir = runCwd ?? config.cwd
  // This run's tool loop: its MCP servers stop when the run's scope closes.
  const tools = yield* makeToolRuntime({ cwd: runCwd })
  const schemaCache = new Map<string, JsonObject>()
  const agentCache = new Map<string, AgentDefinition>()

  const loadSchema = (
    ref: SchemaRef,
    label: string
  ): Effect.Effect<JsonObject, FileError | SchemaError> => {
    const source = ref.source
    if (source.kind === "inline") return Effect.succeed(source.schema)
    const cached = schemaCache.get(source.path)
    if (cached !== undefined) return Effect.succeed(cached)
    return files.readText(source.path).pipe(
      Effect.flatMap((text) => parseSchemaFile(text, source.path, label)),
      Effect.tap((parsed) => Effect.sync(() => schemaCache.set(source.path, parsed)))
    )
  }

  const resolveAgent = (step: AgentStep, ctx: LlmStepContext) =>
    Effect.gen(function*() {
      const ref = step.kind.agent
      if (ref.kind === "inline") return { name: ref.name, definition: ref.definition }
      const path = ref.kind === "path" ? ref.path : config.config.agents?.[ref.name]
      if (path === undefined) {
        return yield* new StepError({ reason: { _tag: "UnknownAgent", name: ref.kind === "registry" ? ref.name : "" } })
      }
      const absolute = nodePath.resolve(ctx.workflow.dir, path)
      const cached = agentCache.get(absolute)
      if (cached !== undefined) return { name: cached.name ?? nodePath.basename(absolute, ".md"), definition: cached }
      // Agent files bring the Effect Schema of their frontmatter: loaded by the first agent step only.
      const { loadAgentFile } = yield* Effect.promise(() => import("../lang/agentFile.ts"))
      const definition = yield* loadAgentFile(absolute)
      agentCache.set(absolute, definition)
      return { name: definition.name ?? nodePath.basename(absolute, ".md"), definition }
    })

  const data = (input: Json, ctx: TemplateScope) => ({
    input: ctx.unsetInput === undefined ? input : undefined,
    steps: ctx.steps,
    inputs: ctx.inputs,
    loop: ctx.loop
  })

  /** `field` names the template in the error about an unset `input` (src/workflow/unsetInput.ts). */
  const render = (field: string, template: string, input: Json, ctx: TemplateScope, label: string) =>
    renderTemplate(template, data(input, ctx)).pipe(
      Effect.mapError(explainUnsetInput(field, template, ctx.unsetInput, label))
    )

  /** The step's `files:`/`images:` rendered, then read relative to the run's directory. */
  const attachments = (
    fileTemplates: ReadonlyArray<string>,
    imageTemplates: ReadonlyArray<string>,
    input: Json,
    ctx: TemplateScope,
    label: string
  ) =>
    Effect.gen(function*() {
      const files = yield* Effect.forEach(fileTemplates, (t) => render("'files'", t, input, ctx, label))
      const images = yield* Effect.forEach(imageTemplates, (t) => render("'images'", t, input, ctx, label))
      return yield* loadAttachments(files, images, baseDir)
    })

  const call = (options: {
    readonly label: string
    readonly chain: ReadonlyArray<LlmSettings | undefined>
    /** Where the model could have been set, for `model is required for <subject>; set ...`. */
    readonly modelPlaces: { readonly subject: string; readonly places: ReadonlyArray<string> }
    readonly ctx: TemplateScope
    readonly messages: ReadonlyArray<ChatMessage>
    readonly outputSchema: { readonly schema: JsonObject; readonly name: string } | undefined
  }) =>
    Effect.gen(function*() {
      const { label, chain } = options
      const model = pickSetting("model", chain)
      if (model === undefined) {
        return yield* modelRequired(options.modelPlaces.subject, options.modelPlaces.places, config)
      }
      const endpoints = yield* config.resolveEndpoints(model, { workflowModels: options.ctx.models as ModelMap })
      const sampling = endpoints[0].sampling
      const reasoning = pickSetting("reasoning_effort", chain) ?? sampling.reasoningEffort
      const temperature = pickSetting("temperature", chain) ?? sampling.temperature
      const topP = pickSetting("top_p", chain) ?? sampling.topP
      const maxTokens = pickSetting("max_tokens", chain) ?? sampling.maxTokens
      const responseFormat: ResponseFormat | null = options.outputSchema === undefined
        ? null
        : {
          type: "json_schema",
          json_schema: { name: options.outputSchema.name, schema: options.outputSchema.schema, strict: true }
        }
      const request: ChatRequest = {
        messages: options.messages,
        tools: [],
        response_format: responseFormat,
        ...(reasoning !== undefined ? { reasoning_effort: reasoning } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
        ...(topP !== undefined ? { top_p: topP } : {}),
        ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {})
      }
      const result = yield* tools.complete({
        label,
        endpoints,
        request,
        names: pickToolNames(chain),
        maxToolRounds: pickSetting("max_tool_rounds", chain),
        cancelled: options.ctx.cancelled
      })
      const content = result.content ?? ""
      if (options.outputSchema === undefined) return content as Json
      // A cut answer is the likely reason it fails its schema: the error says so.
      const cut = cutOff(result) ? { cut: cutOffText(maxTokens) } : {}
      const parsed = yield* Effect.try({
        try: () => parseJsonText(stripFence(content)) as Json,
        catch: (e) =>
          e instanceof JsonTooDeep
            ? new StepError({ reason: { _tag: "OutputTooDeep", step: label, reason: e.message } })
            : new StepError({
              reason: {
                _tag: "OutputNotJson",
                step: label,
                schema: options.outputSchema!.name,
                answer: content,
                ...cut
              }
            })
      })
      const invalid = yield* checkJson(options.outputSchema.schema, parsed, "output")
      if (invalid !== undefined) {
        return yield* new StepError({
          reason: { _tag: "OutputMismatch", step: label, detail: renderChain(invalid), answer: content, ...cut }
        })
      }
      return parsed
    })

  const systemMessages = (text: string | undefined): Array<ChatMessage> =>
    text === undefined || text.length === 0 ? [] : [{ role: "system", content: text }]

  const runPrompt = (step: PromptStep, input: Json, ctx: LlmStepContext) =>
    Effect.gen(function*() {
      const kind = step.kind
      if (kind.inputSchema !== undefined) {
        const schema = yield* loadSchema(kind.inputSchema, "input_schema")
        const invalid = yield* checkJson(schema, input, "input")
        if (invalid !== undefined) {
          return yield* new StepError({ reason: { _tag: "InputMismatch", step: ctx.label, cause: invalid } })
        }
      }
      const systemTemplate = kind.system ?? ctx.defaults.system
      const system = systemTemplate === undefined
        ? undefined
        : yield* render("'system'", systemTemplate, input, ctx, ctx.label)
      const prompt = yield* render("'prompt'", kind.prompt, input, ctx, ctx.label)
      const attached = yield* attachments(kind.files, kind.images, input, ctx, ctx.label)
      const outputSchema = kind.outputSchema === undefined ? undefined : {
        schema: yield* loadSchema(kind.outputSchema, "output_schema"),
        name: kind.schemaName ?? kind.outputSchema.name ?? DEFAULT_SCHEMA_NAME
      }
      return yield* call({
        label: ctx.label,
        chain: [kind.llm, ctx.defaults, config.config.default],
        modelPlaces: { subject: `step '${ctx.label}'`, places: stepModelPlaces(false) },
        ctx,
        messages: [...systemMessages(system), userMessage(prompt, attached)],
        outputSchema
      })
    })

  /** An agent's request: its input validated, its system prompt rendered, its output parsed. */
  const runDefinition = (
    definition: AgentDefinition,
    input: Json,
    options: {
      readonly label: string
      /** The user message's text. */
      readonly userText: string
      /** The settings above the agent's own (a step's), and below them (`default:`s). */
      readonly above: ReadonlyArray<LlmSettings | undefined>
      readonly below: ReadonlyArray<LlmSettings | undefined>
      readonly files: ReadonlyArray<string>
      readonly images: ReadonlyArray<string>
      readonly modelPlaces: { readonly subject: string; readonly places: ReadonlyArray<string> }
      readonly ctx: TemplateScope
      /** `lait agent run`: no step to name in messages. */
      readonly standalone?: boolean
    }
  ) =>
    Effect.gen(function*() {
      const { ctx, label } = options
      if (definition.inputSchema !== undefined) {
        const schema = yield* loadSchema(definition.inputSchema, "input_schema")
        const invalid = yield* checkJson(schema, input, "input")
        if (invalid !== undefined) {
          return yield* options.standalone
            ? withContext(`agent '${label}'`)(invalid)
            : new StepError({ reason: { _tag: "InputMismatch", step: label, cause: invalid } })
        }
      }
      const system = yield* render("the agent's system prompt", definition.system, input, ctx, label)
      const attached = yield* attachments(options.files, options.images, input, ctx, label)
      const outputSchema = definition.outputSchema === undefined ? undefined : {
        schema: yield* loadSchema(definition.outputSchema, "output_schema"),
        name: definition.schemaName ?? definition.outputSchema.name ?? DEFAULT_SCHEMA_NAME
      }
      return yield* call({
        label,
        chain: [...options.above, definition, ...options.below],
        modelPlaces: options.modelPlaces,
        ctx,
        messages: [...systemMessages(system), userMessage(options.userText, attached)],
        outputSchema
      })
    })

  const runAgent = (step: AgentStep, input: Json, ctx: LlmStepContext) =>
    Effect.gen(function*() {
      if (ctx.unsetInput !== undefined) {
        return yield* new StepError({
          reason: { _tag: "InputUnset", step: ctx.label, field: "'agent'", hint: ctx.unsetInput }
        })
      }
      const { definition } = yield* resolveAgent(step, ctx)
      return yield* runDefinition(definition, input, {
        label: ctx.label,
        userText: textForm(input),
        above: [step.kind.llm],
        below: [ctx.defaults, config.config.default],
        files: step.kind.files,
        images: step.kind.images,
        modelPlaces: { subject: `step '${ctx.label}'`, places: stepModelPlaces(true) },
        ctx
      })
    })

  const runAgentFile = (definition: AgentDefinition, input: Json, request: AgentFileRequest) =>
    runDefinition(definition, input, {
      label: request.label,
      userText: request.userText,
      above: [],
      below: [config.config.default],
      files: [],
      images: [],
      modelPlaces: { subject: `agent '${request.label}'`, places: ["'model' in its frontmatter"] },
      standalone: true,
      ctx: { steps: {}, inputs: {}, loop: null, models: {}, cancelled: Effect.never }
    })

  const service: LlmStepsService = { runPrompt, runAgent }
  return { ...service, runAgentFile }
})
