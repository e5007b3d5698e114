// Tool-round compaction (docs/workflows.md#compaction, `default.compaction` in lait.config.yml). Long tool loops
// overflow a local model's context, so before a round's request the conversation may be replaced by
// a model-written summary plus its last `keep_last_n` messages. The summary request goes through the
// same `send` as every round (ModelClient: cache, record and replay key it like any request, and it
// becomes a `chat` event); the surgery itself is a `compact` event of the run's trace.
//
// The pure parts (validation, trigger arithmetic, message surgery) are exported on their own so they
// can be tested without a model; `makeCompactor` holds the one piece of state a loop needs: the
// previous round's prompt_tokens.
import { Effect } from "effect"
import type { Endpoints } from "../config/endpoints.ts"
import type { Compaction } from "../config/schema.ts"
import { ConfigError } from "../config/configErrors.ts"
import type { AnyLaitError } from "../core/errors.ts"
import type { ModelResult } from "../model/ModelClient.ts"
import type { ChatMessage, ChatRequest } from "../model/types.ts"
import type { RunTracerService } from "../trace/RunTracer.ts"

export const DEFAULT_KEEP_LAST_N = 4

/** The user message appended to the conversation for the summary request. */
export const COMPACTION_INSTRUCTION =
  "Summarize the conversation so far so that the work can continue from your summary alone: " +
  "the goal, what was tried, what was learned, and what remains to be done. " +
  "Reply with the summary only."

export const summaryMessage = (text: string): ChatMessage => ({
  role: "assistant",
  content: `(summary of the conversation so far, produced by compaction: ${text})`
})

/**
 * The documented configuration errors, or undefined when the settings are usable. The config schema
 * already rejects zeros when a file is decoded; this check runs again in the loop (as upstream does)
 * so settings that reach the runtime by another route fail with the same words.
 */
export const validateCompaction = (settings: Compaction): ConfigError | undefined => {
  if (settings.trigger_rounds === undefined && settings.trigger_tokens === undefined) {
    return new ConfigError({ reason: { _tag: "CompactionTrigger" } })
  }
  for (const key of ["trigger_rounds", "trigger_tokens"] as const) {
    const value = settings[key]
    if (value !== undefined && value < 1) {
      return new ConfigError({ reason: { _tag: "CompactionTrigger", key } })
    }
  }
  return undefined
}

/**
 * Whether compaction is due before `round` (1-based): every `trigger_rounds`-th round, or when the
 * previous round's prompt reached `trigger_tokens`.
 */
export const isCompactionDue = (
  settings: Pick<Compaction, "trigger_rounds" | "trigger_tokens">,
  round: number,
  previousPromptTokens: number | undefined
): boolean =>
  (settings.trigger_rounds !== undefined && round % settings.trigger_rounds === 0) ||
  (settings.trigger_tokens !== undefined && previousPromptTokens !== undefined &&
    previousPromptTokens >= settings.trigger_tokens)

/** Whether there is anything to summarise: more than `keepLastN` messages besides the leading system one. */
export const canCompact = (messages: ReadonlyArray<ChatMessage>, keepLastN: number): boolean =>
  messages.filter((m) => m.role !== "system").length > keepLastN

/**
 * The leading system message (if any), then the summary, then the last `keepLastN` messages; the
 * messages in between are what the summary replaces. Undefined when `canCompact` says there is
 * nothing to replace.
 */
export const compactMessages = (
  messages: ReadonlyArray<ChatMessage>,
  summary: string,
  keepLastN: number
): ReadonlyArray<ChatMessage> | undefined => {
  if (!canCompact(messages, keepLastN)) return undefined
  const head = messages[0]?.role === "system" ? [messages[0]] : []
  const tail = keepLastN === 0 ? [] : messages.slice(-keepLastN)
  return [...head, summaryMessage(summary), ...tail]
}

/** The summary request: the conversation as it stands plus the instruction; no tools, no format. */
export const summaryRequest = (base: ChatRequest, messages: ReadonlyArray<ChatMessage>): ChatRequest => ({
  ...base,
  messages: [...messages, { role: "user", content: COMPACTION_INSTRUCTION }],
  tools: [],
  response_format: null
})

export interface CompactorOptions {
  readonly settings: Compaction
  /** The tool request's label: the `compact` event's label, and the summary request's unless a model is set. */
  readonly label: string
  /** The step's endpoints and request: used for the summary when `settings.model` is unset. */
  readonly endpoints: Endpoints
  readonly request: ChatRequest
  /** `settings.model` (a config alias or raw id) to endpoints; workflow `models:` do not apply. */
  readonly resolveEndpoints: (model: string) => Effect.Effect<Endpoints, AnyLaitError>
  readonly send: (label: string, endpoints: Endpoints, request: ChatRequest) => Effect.Effect<ModelResult, AnyLaitError>
  readonly tracer: RunTracerService
}

export interface Compactor {
  /** Runs before each round's request; replaces `messages` in place when a compaction happens. */
  readonly beforeRound: (round: number, messages: Array<ChatMessage>) => Effect.Effect<void, AnyLaitError>
  /** Remembers the round's prompt_tokens (when reported) for the token trigger. */
  readonly afterRound: (reply: ModelResult) => void
}

export const makeCompactor = (options: CompactorOptions): Compactor => {
  const { settings } = options
  const keepLastN = settings.keep_last_n ?? DEFAULT_KEEP_LAST_N
  let previousPromptTokens: number | undefined
  let compactionEndpoints: Endpoints | undefined

  // A compaction model brings its own sampling defaults; otherwise the step's request is reused so
  // the summary is asked for exactly as the rounds are.
  const target = Effect.gen(function*() {
    const model = settings.model
    if (model === undefined) return { label: options.label, endpoints: options.endpoints, base: options.request }
    compactionEndpoints ??= yield* options.resolveEndpoints(model)
    const sampling = compactionEndpoints[0].sampling
    const base: ChatRequest = {
      messages: [],
      tools: [],
      response_format: null,
      ...(sampling.reasoningEffort !== undefined ? { reasoning_effort: sampling.reasoningEffort } : {}),
      ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
      ...(sampling.topP !== undefined ? { top_p: sampling.topP } : {}),
      ...(sampling.maxTokens !== undefined ? { max_tokens: sampling.maxTokens } : {})
    }
    return { label: `${options.label} (compaction)`, endpoints: compactionEndpoints, base }
  })

  const beforeRound = (round: number, messages: Array<ChatMessage>): Effect.Effect<void, AnyLaitError> =>
    Effect.gen(function*() {
      const invalid = validateCompaction(settings)
      if (invalid !== undefined) return yield* invalid
      if (!isCompactionDue(settings, round, previousPromptTokens)) return
      if (!canCompact(messages, keepLastN)) return
      const start = new Date()
      const { base, endpoints, label } = yield* target
      const reply = yield* options.send(label, endpoints, summaryRequest(base, messages))
      const compacted = compactMessages(messages, reply.content ?? "", keepLastN)!
      const before = messages.length
      messages.splice(0, messages.length, ...compacted)
      previousPromptTokens = undefined
      yield* Effect.logDebug(
        `compacted the conversation before round ${round}: ${before} -> ${messages.length} messages`
      )
      yield* options.tracer.record({
        operation: "compact",
        label: options.label,
        start,
        end: new Date(),
        attributes: {
          "lait.compaction.round": round,
          "lait.compaction.messages_before": before,
          "lait.compaction.messages_after": messages.length
        }
      })
    })

  // A round whose server reported no usage leaves the remembered count as it was.
  const afterRound = (reply: ModelResult) => {
    if (reply.usage !== undefined) previousPromptTokens = reply.usage.prompt_tokens
  }

  return { beforeRound, afterRound }
}
