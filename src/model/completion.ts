// What an answer means, wherever it came from (a server, the cache, a cassette): the chat
// completion lait reads out of it, or why there is none, and the usage it reports.
import { Console, Effect } from "effect"
import { displayUrl } from "../core/urls.ts"
import type { Endpoint, ModelCall, ModelResult, Source } from "./call.ts"
import { responsesFailure, responsesToChat } from "./responsesApi.ts"
import { BadResponse, ModelError } from "./ModelError.ts"
import { RunUsage } from "./RunUsage.ts"
import type { ChatCompletion } from "./types.ts"
import { readUsage } from "./usage.ts"

type DecodeCompletion = typeof import("./completionSchema.ts").decodeCompletion
let decoder: DecodeCompletion | undefined
// The answer's schema (and Effect Schema) is built on the first answer a run reads, then kept.
const completionDecoder: Effect.Effect<DecodeCompletion> = Effect.suspend(() =>
  decoder !== undefined
    ? Effect.succeed(decoder)
    : Effect.promise(() => import("./completionSchema.ts")).pipe(Effect.map((m) => (decoder = m.decodeCompletion)))
)

/** Why an answer (live, cached or recorded) is not a chat completion lait can use. */
export type CompletionProblem =
  | { readonly kind: "reported"; readonly detail: string }
  | { readonly kind: "unreadable" }
  | { readonly kind: "no-choices" }

/** What an answer gave: the result, or why there is none. */
export type ReadCompletion = { readonly result: ModelResult } | { readonly problem: CompletionProblem }

const fromCompletion = (
  completion: ChatCompletion,
  raw: unknown,
  endpoint: Endpoint,
  source: Source
): ReadCompletion => {
  const message = completion.choices[0]?.message
  if (message === undefined) return { problem: { kind: "no-choices" } }
  const finishReason = completion.choices[0]?.finish_reason ?? undefined
  const usage = readUsage(completion.usage)
  return {
    result: {
      content: message.content ?? null,
      reasoning: message.reasoning_content ?? null,
      toolCalls: (message.tool_calls ?? []).map((c) => ({
        id: c.id,
        type: "function" as const,
        function: { name: c.function.name, arguments: c.function.arguments }
      })),
      usage: usage.usage,
      ...(usage.ignored.length > 0 ? { usageIgnored: usage.ignored } : {}),
      source,
      endpoint,
      raw,
      ...(finishReason === undefined ? {} : { finishReason })
    }
  }
}

/** Reads what lait needs from a chat-completions JSON body, decoded by its schema (./completionSchema.ts). */
export const readCompletion = (raw: unknown, endpoint: Endpoint, source: Source): Effect.Effect<ReadCompletion> => {
  const failed = endpoint.api === "responses" ? responsesFailure(raw) : undefined
  if (failed !== undefined) return Effect.succeed({ problem: { kind: "reported", detail: failed } })
  const body = endpoint.api === "responses" ? responsesToChat(raw) : raw
  return Effect.map(completionDecoder, (decode): ReadCompletion => {
    const completion = decode(body)
    return completion === undefined
      ? { problem: { kind: "unreadable" } }
      : fromCompletion(completion, raw, endpoint, source)
  })
}

/** The same problems in a cassette: the file is at fault, no server was asked. */
export const recordedProblem = (problem: CompletionProblem): string => {
  switch (problem.kind) {
    case "reported":
      return `its 'response' records a failure: ${problem.detail}`
    case "unreadable":
      return "its 'response' is not a chat completion lait can read"
    case "no-choices":
      return "its 'response' has no choices"
  }
}

export const interpret = (
  raw: unknown,
  endpoint: Endpoint,
  source: Source
): Effect.Effect<ModelResult, ModelError> =>
  readCompletion(raw, endpoint, source).pipe(
    Effect.flatMap((read) => {
      if ("result" in read) return Effect.succeed(read.result)
      const problem = read.problem
      return Effect.fail(
        new ModelError({
          reason: new BadResponse({
            baseUrl: displayUrl(endpoint.baseUrl),
            problem: problem.kind,
            ...(problem.kind === "reported" ? { detail: problem.detail } : {})
          })
        })
      )
    })
  )

/** An answer the server stopped at its token limit (`finish_reason: "length"`): cut off, not finished. */
export const cutOff = (result: ModelResult): boolean => result.finishReason === "length"

/** Where an answer was cut off, naming the limit lait sent (`max_tokens`) when it sent one. */
export const cutOffText = (maxTokens: number | undefined): string =>
  maxTokens === undefined
    ? "cut off at the server's token limit (finish_reason \"length\")"
    : `cut off at max_tokens ${maxTokens} (finish_reason "length")`

/**
 * Notes how an answer (live, cached or replayed) finished: a `warning:` when it was cut off, and its
 * finish reason in the run's usage meter (what `--json` reports).
 */
export const noteFinish = (call: ModelCall, result: ModelResult): Effect.Effect<void, never, RunUsage> => {
  const reason = result.finishReason
  if (reason === undefined) return Effect.void
  const recorded = RunUsage.use((u) => u.recordFinish(reason))
  if (!cutOff(result)) return recorded
  const warning = `warning: ${call.label}: the answer was ${cutOffText(call.request.max_tokens)}`
  return Effect.andThen(recorded, Console.error(warning))
}

/** Adds an answer's tokens to the run's usage; cache hits are counted by the cache instead. */
export const recordUsage = (label: string, result: ModelResult): Effect.Effect<void, never, RunUsage> => {
  const usage = result.usage
  const recorded = usage === undefined ? Effect.void : RunUsage.use((u) =>
    u.record({
      label,
      prompt: usage.prompt_tokens,
      completion: usage.completion_tokens,
      total: usage.total_tokens,
      pricing: result.endpoint.pricing
    })
  )
  const ignored = result.usageIgnored ?? []
  return ignored.length === 0 ? recorded : Effect.andThen(
    Effect.forEach(ignored, (reason) => Effect.logDebug(`${label}: the reported ${reason}; treated as absent`), {
      discard: true
    }),
    recorded
  )
}
