// What an eval runs for each (target, case, repeat) (docs/evals.md#how-an-eval-runs). A workflow target is
// loaded, and its `inputs:` resolved, once for the whole eval; each run then reads the case input
// through the workflow's `input_schema` (text) or takes it as it is (any other value), with the
// case's own `inputs:` over the target's, and runs the workflow. A model target renders its prompt
// template with the case input and `vars`, and sends one user message — no system message, no
// response format — labelled `eval target '<model>'`. Its model resolves against lait.config.yml
// `models:` only.
import type { WorkflowLoadError } from "../lang/loadErrors.ts"
import type { ConfigError } from "../config/configErrors.ts"
import { Effect, Exit } from "effect"
import * as nodePath from "node:path"
import { LaitConfig } from "../config/LaitConfig.ts"
import { type AnyLaitError, type LaitError, type ValidationError, withContext } from "../core/errors.ts"
import { EvalError } from "./evalErrors.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import { textForm } from "../core/json.ts"
import { parseTextInput, resolveInitial, resolveInputs } from "../lang/inputs.ts"
import type { TemplateError } from "../lang/languageErrors.ts"
import { checkTemplateSyntax, loadTemplateEngineFor, renderTemplateWith } from "../lang/template.ts"
import { ModelClient } from "../model/ModelClient.ts"
import type { RunUsage } from "../model/RunUsage.ts"
import type { ChatRequest } from "../model/types.ts"
import type { RunTracer } from "../trace/RunTracer.ts"
import { Engine } from "../workflow/Engine.ts"
import type { LlmSteps } from "../workflow/LlmSteps.ts"
import type { Progress } from "../workflow/progress.ts"
import type { RunContext } from "../workflow/RunContext.ts"
import { samplingFields } from "./sampling.ts"
import { caseInitial, type EvalCase, type EvalTarget } from "./schema.ts"

export type { LoadedTarget, TargetRun } from "./targetTypes.ts"
import type { LoadedTarget, TargetRun } from "./targetTypes.ts"

export const targetLabel = (model: string) => `eval target '${model}'`

/** `target.workflow` relative to the eval file's directory (an absolute path stays as it is). */
export const targetWorkflowPath = (evalFile: string, workflow: string): string =>
  nodePath.isAbsolute(workflow) ? workflow : nodePath.join(nodePath.dirname(evalFile), workflow)

export const loadTarget = (
  target: EvalTarget,
  evalFile: string
): Effect.Effect<
  LoadedTarget,
  LaitError | ValidationError | ConfigError | WorkflowLoadError | EvalError,
  FileLoader | LaitConfig
> =>
  Effect.gen(function*() {
    const config = yield* LaitConfig
    if (target.kind === "workflow") {
      // The workflow loader (and the model schema its `models:` decode builds) only for a workflow
      // target: a model target's first request does not wait for it.
      const [{ loadWorkflow }, { loadSchemaRef }] = yield* Effect.promise(() =>
        Promise.all([import("../lang/load.ts"), import("../lang/schemaRef.ts")])
      )
      const path = targetWorkflowPath(evalFile, target.workflow)
      const workflow = yield* loadWorkflow(path, { waitForWriter: true })
      const inputs = yield* resolveInputs(
        workflow.inputs,
        Object.entries(target.inputs).map(([key, value]) => [key, { kind: "typed" as const, value }] as const)
      ).pipe(Effect.mapError((e) => withContext(`workflow '${path}'`)(e) as LaitError | ValidationError))
      const inputSchema = yield* loadSchemaRef(workflow.inputSchema)
      return {
        kind: "workflow",
        name: target.name,
        path,
        givenInputs: target.inputs,
        workflow,
        inputs,
        inputSchema,
        defaultModel: workflow.defaults.model ?? config.config.default?.model
      } as const
    }
    if (target.kind === "exec") {
      const dir = nodePath.dirname(evalFile)
      return { kind: "exec", name: target.name, exec: target.exec, dir, defaultModel: config.config.default?.model }
    }
    if (target.kind === "http") {
      const { checkHttpTarget } = yield* Effect.promise(() => import("./appTarget.ts"))
      yield* checkHttpTarget(target.http, evalFile)
      return { kind: "http", name: target.name, http: target.http, defaultModel: config.config.default?.model }
    }
    yield* loadTemplateEngineFor(target.prompt)
    const syntax = checkTemplateSyntax(target.prompt)
    if (syntax !== undefined) {
      return yield* new EvalError({ reason: { _tag: "PromptSyntax", file: evalFile, detail: syntax } })
    }
    const endpoints = yield* config.resolveEndpoints(target.model)
    return {
      kind: "prompt",
      name: target.name,
      model: target.model,
      template: target.prompt,
      endpoints,
      // Seed 001: a judge without `model:` uses `target.model` — as written, so an alias reaches
      // the same endpoint as the target (upstream passed the resolved model id, which an alias's
      // provider base_url does not follow).
      defaultModel: target.model
    } as const
  })

/** The user message a model target sends for a case: `{{input}}` (text parsed as JSON when it is JSON), `{{vars}}`. */
export const renderTargetPrompt = (
  template: string,
  evalCase: Pick<EvalCase, "input" | "vars">
): Effect.Effect<string, TemplateError> =>
  renderTemplateWith(template, {
    input: typeof evalCase.input === "string" ? parseTextInput(evalCase.input) : evalCase.input,
    steps: {},
    vars: evalCase.vars
  })

/** The workflow's `inputs:` for a case: its own over the target's, resolved and checked again. */
export const caseInputs = (
  target: Extract<LoadedTarget, { readonly kind: "workflow" }>,
  evalCase: Pick<EvalCase, "inputs">
) =>
  evalCase.inputs === undefined ? Effect.succeed(target.inputs) : resolveInputs(
    target.workflow.inputs,
    Object.entries({ ...target.givenInputs, ...evalCase.inputs }).map(([key, value]) =>
      [key, { kind: "typed" as const, value }] as const
    )
  ).pipe(Effect.mapError((e) => withContext(`workflow '${target.path}'`)(e)))


/** One run of a workflow target against a case input, in the run context provided around it. */
export const runWorkflowTarget = (
  target: Extract<LoadedTarget, { readonly kind: "workflow" }>,
  evalCase: EvalCase
): Effect.Effect<TargetRun, AnyLaitError, Engine | FileLoader | LlmSteps | Progress | RunContext> =>
  Effect.gen(function*() {
    const inputs = yield* caseInputs(target, evalCase)
    const initial = yield* resolveInitial(target.inputSchema, caseInitial(evalCase))
    const engine = yield* Engine
    const result = yield* engine.run(target.workflow, initial, inputs)
    return { output: textForm(result.output), steps: result.steps }
  })

// Rendering is a pure function of the template and the case (the helpers are pure), so a case's
// prompt is rendered once for all its repeats (and targets with the same template), as are its failures.
const renderedPrompts = new WeakMap<EvalCase, Map<string, Exit.Exit<string, TemplateError>>>()

const casePrompt = (template: string, evalCase: EvalCase): Effect.Effect<string, TemplateError> =>
  Effect.suspend(() => {
    let byTemplate = renderedPrompts.get(evalCase)
    if (byTemplate === undefined) renderedPrompts.set(evalCase, byTemplate = new Map())
    const known = byTemplate.get(template)
    if (known !== undefined) return known
    return Effect.onExit(renderTargetPrompt(template, evalCase), (exit) =>
      Effect.sync(() => void (Exit.hasInterrupts(exit) || byTemplate.set(template, exit))))
  })

/** One run of a model target: its single request, metered in the run's own usage and trace. */
export const runPromptTarget = (
  target: Extract<LoadedTarget, { readonly kind: "prompt" }>,
  evalCase: EvalCase
): Effect.Effect<TargetRun, AnyLaitError, RunUsage | RunTracer | ModelClient | LaitConfig> =>
  Effect.gen(function*() {
    const config = yield* LaitConfig
    const prompt = yield* casePrompt(target.template, evalCase)
    const request: ChatRequest = {
      messages: [{ role: "user", content: prompt }],
      tools: [],
      response_format: null,
      ...samplingFields(target.endpoints[0], config.config.default)
    }
    const client = yield* ModelClient
    const result = yield* client.complete({ label: targetLabel(target.model), endpoints: target.endpoints, request })
    return { output: result.content ?? "", steps: {} }
  })
