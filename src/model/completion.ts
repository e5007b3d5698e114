// What an answer means, wherever it came from (a server, the cache, a cassette): the chat
// completion lait reads out of it, or why there is none, and the usage it reports.
import { Effect } from "effect"
import { displayUrl } from "../core/urls.ts"
import type { Endpoint, ModelResult, Source } from "./call.ts"
import { responsesFailure, responsesToChat } from "./responsesApi.ts"
import { BadResponse, ModelError } from "./ModelError.ts"
import { RunUsage } from "./RunUsage.ts"
import type { ChatCompletion } from "./types.ts"
import { readUsage } from "./usage.ts"

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype
const isOptional = (o: Record<string, unknown>, key: string, ok: (v: unknown) => boolean) =>
  !Object.hasOwn(o, key) || ok(o[key])
const isString = (v: unknown) => typeof v === "string"
const isNullOrString = (v: unknown) => v === null || typeof v === "string"
const isToolCall = (v: unknown) =>
  isObject(v) && isString(v["id"]) && isOptional(v, "type", isString) && isObject(v["function"]) &&
  isString(v["function"]["name"]) && isString(v["function"]["arguments"])
const isChoice = (v: unknown) => {
  if (!isObject(v) || !isOptional(v, "finish_reason", isNullOrString)) return false
  const m = v["message"]
  return isObject(m) && isOptional(m, "role", isString) && isOptional(m, "content", isNullOrString) &&
    isOptional(m, "reasoning_content", isNullOrString) &&
    isOptional(m, "tool_calls", (t) => t === null || (Array.isArray(t) && t.every(isToolCall)))
}

/**
 * Whether `raw` (parsed JSON) is plainly a ChatCompletion: then its fields are read as they are, the
 * same values the decoder would give, without running Effect Schema's decoder on every answer. It
 * says no to anything unusual (another prototype, an undefined value), which the decoder then judges.
 */
export const isPlainCompletion = (raw: unknown): raw is ChatCompletion =>
  isObject(raw) && Array.isArray(raw["choices"]) && raw["choices"].every(isChoice) &&
  isOptional(raw, "usage", (u) => u !== undefined)

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
      raw
    }
  }
}

/**
 * Reads what lait needs from a chat-completions JSON body. Only an answer isPlainCompletion declines
 * loads the schema decoder (and Effect Schema) to judge it.
 */
export const readCompletion = (raw: unknown, endpoint: Endpoint, source: Source): Effect.Effect<ReadCompletion> => {
  const failed = endpoint.api === "responses" ? responsesFailure(raw) : undefined
  if (failed !== undefined) return Effect.succeed({ problem: { kind: "reported", detail: failed } })
  const body = endpoint.api === "responses" ? responsesToChat(raw) : raw
  if (isPlainCompletion(body)) return Effect.succeed(fromCompletion(body, raw, endpoint, source))
  return Effect.promise(() => import("./completionSchema.ts")).pipe(
    Effect.map(({ decodeCompletion }): ReadCompletion => {
      const completion = decodeCompletion(body)
      return completion === undefined
        ? { problem: { kind: "unreadable" } }
        : fromCompletion(completion, raw, endpoint, source)
    })
  )
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

/** Adds an answer's tokens to the run's usage; cache hits are counted by the cache instead. */
export const recordUsage = (label: string, result: ModelResult) =>
  Effect.gen(function*() {
    for (const reason of result.usageIgnored ?? []) {
      yield* Effect.logDebug(`${label}: the reported ${reason}; treated as absent`)
    }
    if (result.usage === undefined) return
    const usage = result.usage
    yield* RunUsage.use((u) =>
      u.record({
        label,
        prompt: usage.prompt_tokens,
        completion: usage.completion_tokens,
        total: usage.total_tokens,
        pricing: result.endpoint.pricing
      })
    )
  })
