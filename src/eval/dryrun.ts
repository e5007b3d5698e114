// `lait eval --dry-run`: how many requests the eval would send, and — for models with `pricing:` —
// what their prompts would cost, before anything is sent. Prompt tokens are estimated from prompt
// size (about 4 characters per token); completions are unknown in advance and not included. A model
// target's prompt is rendered per case, so its count is exact; a workflow's steps are counted once
// each per run, which loops, untaken branches, retries and tool rounds make approximate.
import type { ConfigError } from "../config/configErrors.ts"
import { Effect } from "effect"
import type { Endpoint } from "../config/endpoints.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import type { ModelMap } from "../config/schema.ts"
import type { LaitError, ValidationError } from "../core/errors.ts"
import { childStepLists, type Step, type Workflow } from "../lang/model.ts"
import { type Assertion, isNot } from "../testing/assertions.ts"
import { llmJudgePrompt } from "./judge.ts"
import { caseInputText, type EvalCase } from "./schema.ts"
import { type LoadedTarget, renderTargetPrompt } from "./target.ts"

export const CHARS_PER_TOKEN = 4

export const estimateTokens = (text: string): number => Math.ceil(text.length / CHARS_PER_TOKEN)

const judgeAssertions = (
  assertions: ReadonlyArray<Assertion>
): ReadonlyArray<Extract<Assertion, { type: "llm_judge" }>> =>
  assertions.flatMap((a) =>
    isNot(a)
      ? judgeAssertions([a.not])
      : a.type === "llm_judge"
      ? [a]
      : a.type === "step_output"
      ? judgeAssertions(a.assert)
      : []
  )

interface ModelStep {
  readonly model: string | undefined
  /** Prompt templates as written (rendering needs values only a run has). */
  readonly text: string
}

/** Model steps of a workflow, each once; `exact` is false when control flow may change the count. */
const modelSteps = (workflow: Workflow, defaultModel: string | undefined) => {
  const found: Array<ModelStep> = []
  let exact = true
  const visit = (steps: ReadonlyArray<Step>) => {
    for (const step of steps) {
      if (step.when !== undefined || step.retry !== undefined || step.onError !== undefined) exact = false
      const k = step.kind
      if (k.type === "prompt") {
        const system = k.system ?? workflow.defaults.system ?? ""
        found.push({ model: k.llm.model ?? workflow.defaults.model ?? defaultModel, text: system + k.prompt })
        if ((k.llm.tools ?? k.llm.mcp ?? k.llm.subagents ?? []).length > 0) exact = false
      } else if (k.type === "agent") {
        const inline = k.agent.kind === "inline" ? k.agent.definition : undefined
        found.push({
          model: k.llm.model ?? inline?.model ?? workflow.defaults.model ?? defaultModel,
          text: inline?.system ?? ""
        })
        exact = false
      } else if (["switch", "for_each", "while", "until", "workflow", "stop", "break"].includes(k.type)) {
        exact = false
      }
      for (const child of childStepLists(step)) if (child.kind !== "on_error") visit(child.steps)
    }
  }
  visit(workflow.steps)
  return { steps: found, exact }
}

export interface DryRunPlan {
  readonly runs: number
  readonly targetRequests: number
  readonly judgeRequests: number
  /** False when the target's control flow makes the request count an estimate. */
  readonly exact: boolean
  /** Undefined when no request would go to a model with pricing. */
  readonly costUsd: number | undefined
  readonly unpricedRequests: number
}

export const planEval = (
  target: LoadedTarget,
  cases: ReadonlyArray<EvalCase>,
  repeat: number
): Effect.Effect<DryRunPlan, LaitError | ValidationError | ConfigError, LaitConfig> =>
  Effect.gen(function*() {
    const config = yield* LaitConfig
    const pricingCache = new Map<string, Endpoint["pricing"] | null>()
    const pricingOf = (model: string, workflowModels?: ModelMap) =>
      Effect.gen(function*() {
        const key = `${workflowModels === undefined ? "config" : "workflow"}:${model}`
        if (!pricingCache.has(key)) {
          const endpoints = yield* config.resolveEndpoints(model, { workflowModels })
          pricingCache.set(key, endpoints[0].pricing ?? null)
        }
        return pricingCache.get(key) ?? undefined
      })
    let cost = 0
    let priced = false
    let unpriced = 0
    const add = (pricing: Endpoint["pricing"], promptText: string, times: number) => {
      if (pricing === undefined) {
        unpriced += times
        return
      }
      priced = true
      cost += times * (estimateTokens(promptText) / 1e6) * pricing.input_per_1m
    }

    let targetRequests = 0
    let judgeRequests = 0
    let exact = true
    const steps = target.kind === "workflow" ? modelSteps(target.workflow, target.defaultModel) : undefined
    if (steps !== undefined) exact = steps.exact
    // What an app asks for is not known before it runs.
    if (target.kind === "exec" || target.kind === "http") exact = false
    for (const c of cases) {
      if (target.kind === "prompt") {
        targetRequests += repeat
        const prompt = yield* renderTargetPrompt(target.template, c).pipe(Effect.orElseSucceed(() => caseInputText(c)))
        add(target.endpoints[0].pricing, prompt, repeat)
      } else if (target.kind === "workflow" && steps !== undefined) {
        for (const step of steps.steps) {
          targetRequests += repeat
          const pricing = step.model === undefined
            ? undefined
            : yield* pricingOf(step.model, target.workflow.models as ModelMap)
          add(pricing, step.text + caseInputText(c), repeat)
        }
      }
      for (const judge of judgeAssertions(c.assert)) {
        const model = judge.model ?? target.defaultModel
        // Without a model the assertion fails before any request is made.
        if (model === undefined) continue
        judgeRequests += repeat
        // The output is unknown before the run; only the fixed part of the prompt is counted.
        add(yield* pricingOf(model), llmJudgePrompt(judge.criteria, caseInputText(c), ""), repeat)
      }
    }
    return {
      runs: cases.length * repeat,
      targetRequests,
      judgeRequests,
      exact,
      costUsd: priced ? cost : undefined,
      unpricedRequests: unpriced
    }
  })

/** The plans of several targets run over the same cases, added up. */
export const planEvalTargets = (
  targets: ReadonlyArray<LoadedTarget>,
  cases: ReadonlyArray<EvalCase>,
  repeat: number
): Effect.Effect<DryRunPlan, LaitError | ValidationError | ConfigError, LaitConfig> =>
  Effect.map(Effect.forEach(targets, (t) => planEval(t, cases, repeat)), (plans) =>
    plans.reduce((a, b) => ({
      runs: a.runs + b.runs,
      targetRequests: a.targetRequests + b.targetRequests,
      judgeRequests: a.judgeRequests + b.judgeRequests,
      exact: a.exact && b.exact,
      costUsd: a.costUsd === undefined && b.costUsd === undefined ? undefined : (a.costUsd ?? 0) + (b.costUsd ?? 0),
      unpricedRequests: a.unpricedRequests + b.unpricedRequests
    })))

export const formatDryRun = (plan: DryRunPlan, cases: number, repeat: number, targets = 1): string => {
  const total = plan.targetRequests + plan.judgeRequests
  const lines = [
    "dry run: nothing is sent",
    `runs: ${cases} case(s) x ${targets > 1 ? `${targets} target(s) x ` : ""}${repeat} repeat(s) = ${plan.runs}`,
    `requests: ${
      plan.exact ? "" : "about "
    }${total} = ${plan.targetRequests} to the target + ${plan.judgeRequests} llm_judge`
  ]
  if (!plan.exact) {
    lines.push(
      "note: the target's conditions, loops, retries, agents and child workflows " +
        "can change how many requests a run makes"
    )
  }
  if (plan.costUsd === undefined) {
    lines.push("estimated cost: unknown (no model involved has 'pricing:')")
  } else {
    lines.push(
      `estimated cost: $${plan.costUsd.toFixed(4)} for prompt tokens (about ${CHARS_PER_TOKEN} characters per token; ` +
        `completion tokens are not included)` +
        (plan.unpricedRequests > 0 ? `; ${plan.unpricedRequests} request(s) go to models without 'pricing:'` : "")
    )
  }
  return lines.join("\n")
}
