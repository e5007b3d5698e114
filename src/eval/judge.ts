// The `llm_judge` grader of `lait eval` (docs/evals.md#llm_judge): one request to a judge model asking for a
// score from 0.0 to 1.0 as strict Structured Output `llm_judge_score` {score, reasoning}. It goes
// through ModelClient like every other request, under the label `llm_judge`, into the run's own
// usage, so --record/--replay capture judges and --max-cost counts them. The AssertionEvaluator turns
// the score (or the error) into the assertion's verdict and message.
import { type Context, Effect } from "effect"
import type { LaitConfigService } from "../config/LaitConfig.ts"
import type { AnyLaitError } from "../core/errors.ts"
import { EvalError, LLM_JUDGE_NO_MODEL } from "./evalErrors.ts"
import { rustDebugString } from "../core/rustFormat.ts"
import { Attr } from "../core/tracing.ts"
import type { ModelClientService } from "../model/ModelClient.ts"
import type { RunUsage } from "../model/RunUsage.ts"
import type { ChatRequest, ResponseFormat } from "../model/types.ts"
import type { RunTracer } from "../trace/RunTracer.ts"
import type { JudgeRequest, JudgeService, JudgeVerdict } from "../workflow/RunContext.ts"
import { samplingFields } from "./sampling.ts"
import { JsonTooDeep, parseJsonText } from "../core/jsonDepth.ts"

export const LLM_JUDGE_LABEL = "llm_judge"
export const LLM_JUDGE_SCHEMA_NAME = "llm_judge_score"

export { LLM_JUDGE_NO_MODEL }

// Keys in alphabetical order: serde_json's default map (a BTreeMap) serialises them so, and the
// request key of a judge call then matches the Rust lait's.
export const LLM_JUDGE_SCHEMA = {
  additionalProperties: false,
  properties: {
    reasoning: { type: "string" },
    score: {
      description: "0.0 (does not satisfy the criteria at all) to 1.0 (fully satisfies it)",
      type: "number"
    }
  },
  required: ["score", "reasoning"],
  type: "object"
} as const

export const llmJudgeResponseFormat: ResponseFormat = {
  type: "json_schema",
  json_schema: { name: LLM_JUDGE_SCHEMA_NAME, schema: LLM_JUDGE_SCHEMA, strict: true }
}

/** The single user message sent to the judge. */
export const llmJudgePrompt = (criteria: string, input: string | undefined, output: string): string =>
  "You are grading a language model's output against a criterion.\n\n" +
  `Criteria: ${criteria}\n\n` +
  (input === undefined ? "" : `Original input:\n${input}\n\n`) +
  `Output to grade:\n${output}\n\n` +
  "Rate how well the output satisfies the criteria, from 0.0 (not at all) to 1.0 (fully)."

const FENCE = /^\s*```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```\s*$/

/** One Markdown fence around the whole answer is removed (as prompt steps do for structured output). */
const stripFence = (text: string): string => FENCE.exec(text)?.[1] ?? text

/** The score in a judge's answer. Extra fields are ignored; `reasoning` is not needed to pass. */
export const parseJudgeScore = (content: string): number | EvalError => {
  const verdict = parseJudgeVerdict(content)
  return verdict instanceof EvalError ? verdict : verdict.score
}

/** The score and, when it is a string, the reasoning of a judge's answer. */
export const parseJudgeVerdict = (content: string): JudgeVerdict | EvalError => {
  const failure = (detail?: string) =>
    new EvalError({
      reason: { _tag: "JudgeNotJson", quoted: rustDebugString(content), ...(detail === undefined ? {} : { detail }) }
    })
  let value: unknown
  try {
    // A fence around the JSON is the one liberty some servers take even with strict json_schema.
    value = parseJsonText(stripFence(content))
  } catch (e) {
    return e instanceof JsonTooDeep ? failure(e.message) : failure()
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return failure("expected a JSON object")
  if (!("score" in value)) return failure("missing field `score`")
  const { score, reasoning } = value as { readonly score: unknown; readonly reasoning?: unknown }
  if (typeof score !== "number") return failure("invalid type for `score`: expected a number")
  return { score, reasoning: typeof reasoning === "string" ? reasoning : undefined }
}

/** What a judge needs from the eval: the shared config and client, and the target's default model. */
export interface JudgeOptions {
  readonly config: LaitConfigService
  readonly client: ModelClientService
  /** `target.model`'s id for a prompt target; the workflow's (else config's) default.model otherwise. */
  readonly defaultModel: string | undefined
}

/**
 * A Judge bound to the run context it is created in: its requests are metered in that run's usage
 * (and trace), alongside the target's own requests.
 */
export const makeLlmJudge = (options: JudgeOptions): Effect.Effect<JudgeService, never, RunUsage | RunTracer> =>
  Effect.map(Effect.context<RunUsage | RunTracer>(), (runContext) => llmJudgeIn(options, runContext))

/** The same judge, bound to the given run context (a run that builds its context itself). */
export const llmJudgeIn = (options: JudgeOptions, runContext: Context.Context<RunUsage | RunTracer>): JudgeService => {
  const { config, client } = options
  const score = (request: JudgeRequest): Effect.Effect<JudgeVerdict, AnyLaitError> =>
    Effect.gen(function*() {
      const model = request.model ?? options.defaultModel
      if (model === undefined) return yield* new EvalError({ reason: { _tag: "JudgeNoModel" } })
      // Only config `models:` resolve a judge (a workflow's own aliases belong to its steps).
      const endpoints = yield* config.resolveEndpoints(model)
      const chat: ChatRequest = {
        messages: [{ role: "user", content: llmJudgePrompt(request.criteria, request.input, request.output) }],
        tools: [],
        response_format: llmJudgeResponseFormat,
        ...samplingFields(endpoints[0], config.config.default)
      }
      const result = yield* client.complete({
        label: LLM_JUDGE_LABEL,
        endpoints,
        request: chat,
        traceAttributes: { [Attr.judge]: true }
      })
      const parsed = parseJudgeVerdict(result.content ?? "")
      return parsed instanceof EvalError ? yield* parsed : parsed
    }).pipe(Effect.provideContext(runContext))
  return { score }
}
