// The live layer: HTTP to the OpenAI-compatible endpoints, each retried (src/model/retry.ts), then
// the fallbacks in order. Every body is read capped (src/model/httpBody.ts) and every attempt timed.
import { Console, Duration, Effect, LogLevel, Redacted } from "effect"
import { type Headers, HttpClient, HttpClientRequest } from "effect/http"
import { DUMMY_API_KEY } from "../config/endpoints.ts"
import { LaitError, ModelApiError } from "../core/errors.ts"
import { describeNetworkFailure } from "../core/network.ts"
import { displayUrl, joinUrl } from "../core/urls.ts"
import { traceChat } from "../trace/chat.ts"
import type { Endpoint, ModelCall, ModelClientService } from "./call.ts"
import { interpret, recordUsage } from "./completion.ts"
import { endpointRedactor } from "./endpointSecrets.ts"
import { DEFAULT_RESPONSE_LIMIT, formatBytes, readCapped } from "./httpBody.ts"
import { chatToResponsesBody, responsesUnsupported } from "./responsesApi.ts"
import { type Attempt, formatDuration, retryAfter, retrying } from "./retry.ts"
import type { ChatRequest } from "./types.ts"

/** Per attempt: headers and the whole body. Reasoning models can think for minutes before answering. */
export const DEFAULT_REQUEST_TIMEOUT = Duration.seconds(300)

/** The JSON body sent to `/chat/completions` (None fields omitted, as async-openai does). */
export const chatBody = (modelId: string, r: ChatRequest): Record<string, unknown> => ({
  model: modelId,
  messages: r.messages,
  ...(r.tools.length > 0 ? { tools: r.tools } : {}),
  ...(r.response_format !== null ? { response_format: r.response_format } : {}),
  ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
  ...(r.top_p !== undefined ? { top_p: r.top_p } : {}),
  ...(r.max_tokens !== undefined ? { max_completion_tokens: r.max_tokens } : {}),
  ...(r.reasoning_effort !== undefined ? { reasoning_effort: r.reasoning_effort } : {})
})

const describeStatus = (status: number, body: string, redact: (text: string) => string): string => {
  let detail = body.trim()
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    const fromError = typeof parsed.error === "string" ? parsed.error : parsed.error?.message
    const message = fromError ?? parsed.message
    if (typeof message === "string") detail = message
  } catch {
    // not JSON: keep the text
  }
  // The message was decoded from JSON, so an escaped key in the body is plain text now.
  detail = redact(detail)
  if (detail.length > 500) detail = `${detail.slice(0, 500)}…`
  return detail.length > 0 ? `HTTP ${status}: ${detail}` : `HTTP ${status}`
}

/**
 * A `-vv` dump of a whole request or response. Built only when trace logging is on: serialising and
 * redacting every body would otherwise cost a parse and a stringify per request for a discarded line.
 */
const traceDump = (message: () => string): Effect.Effect<void> =>
  Effect.flatMap(LogLevel.isEnabled("Trace"), (enabled) => (enabled ? Effect.logTrace(message()) : Effect.void))

const isRetryableStatus = (status: number) => status >= 500 || status === 429 || status === 408

const statusFailure = (endpoint: Endpoint, status: number, headers: Headers.Headers, described: string): Attempt => ({
  retryable: isRetryableStatus(status),
  retryAfter: retryAfter(status, headers),
  error: new ModelApiError({
    message: `the model server at '${displayUrl(endpoint.baseUrl)}' answered ${described}`,
    status
  })
})

export interface LiveOptions {
  /** Attempts per endpoint before falling back (the first try included). */
  readonly attempts?: number
  /** First backoff delay; doubled after each failed attempt. */
  readonly backoff?: Duration.Input
  /** Per attempt, from sending the request to the last byte of the answer. */
  readonly timeout?: Duration.Input
  /** Bytes of one response body (error bodies too) beyond which the request fails. */
  readonly maxResponseBytes?: number
}

export const makeLive = (options: LiveOptions): Effect.Effect<ModelClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const attempts = Math.max(1, options.attempts ?? 3)
    const backoff = Duration.fromInputUnsafe(options.backoff ?? "250 millis")
    const timeout = Duration.fromInputUnsafe(options.timeout ?? DEFAULT_REQUEST_TIMEOUT)
    const maxBytes = options.maxResponseBytes ?? DEFAULT_RESPONSE_LIMIT

    const sendOnce = (endpoint: Endpoint, request: ChatRequest): Effect.Effect<unknown, Attempt | LaitError> =>
      Effect.gen(function*() {
        const key = yield* endpoint.apiKey
        // Some servers echo the bearer token in error bodies; nothing they send may print it.
        const redact = endpointRedactor(key === undefined ? undefined : Redacted.value(key), endpoint.baseUrl)
        const unsupported = endpoint.api === "responses" ? responsesUnsupported(request) : undefined
        if (unsupported !== undefined) {
          return yield* new LaitError({
            message: `model '${endpoint.modelId}' uses 'api: responses', which does not support ${unsupported}; ` +
              `use a chat_completions model for this step`
          })
        }
        const path = endpoint.api === "responses" ? "/responses" : "/chat/completions"
        const body = endpoint.api === "responses"
          ? chatToResponsesBody(endpoint.modelId, request)
          : chatBody(endpoint.modelId, request)
        yield* Effect.logDebug(`POST ${displayUrl(joinUrl(endpoint.baseUrl, path))} model=${endpoint.modelId}`)
        // A tool's output (say, a printed environment) can put the key into the conversation itself.
        yield* traceDump(() => `request body: ${redact(JSON.stringify(body))}`)
        const req = HttpClientRequest.post(joinUrl(endpoint.baseUrl, path)).pipe(
          HttpClientRequest.setHeader(
            "authorization",
            `Bearer ${key === undefined ? DUMMY_API_KEY : Redacted.value(key)}`
          ),
          HttpClientRequest.bodyJsonUnsafe(body)
        )
        const response = yield* http.execute(req).pipe(
          Effect.flatMap((res) =>
            Effect.map(readCapped(res, maxBytes), (body) => ({ status: res.status, headers: res.headers, body }))
          ),
          Effect.timeout(timeout),
          Effect.mapError((e): Attempt => ({
            retryable: true,
            timedOut: e._tag === "TimeoutError",
            error: new ModelApiError({
              message: `failed to reach '${displayUrl(endpoint.baseUrl)}': ${
                e._tag === "TimeoutError"
                  ? `timed out after ${formatDuration(timeout)}`
                  : redact(describeNetworkFailure(e))
              }`
            })
          }))
        )
        const ok = response.status >= 200 && response.status < 300
        if (response.body._tag === "TooLarge") {
          const exceeds = `response from '${displayUrl(endpoint.baseUrl)}' exceeds ${formatBytes(maxBytes)}`
          yield* traceDump(() => `response ${response.status}: ${exceeds}`)
          return yield* Effect.fail<Attempt>(
            ok
              // The same request would get the same flood: neither retried nor a reason to fall back.
              ? { retryable: false, error: new ModelApiError({ message: exceeds }) }
              : statusFailure(endpoint, response.status, response.headers, `HTTP ${response.status} (${exceeds})`)
          )
        }
        const text = response.body.text
        yield* traceDump(() => `response ${response.status}: ${redact(text)}`)
        if (!ok) {
          return yield* Effect.fail(
            statusFailure(endpoint, response.status, response.headers, describeStatus(response.status, text, redact))
          )
        }
        return yield* Effect.try({
          try: () => JSON.parse(text) as unknown,
          catch: (): Attempt => ({
            retryable: false,
            error: new ModelApiError({
              message: `the model server at '${displayUrl(endpoint.baseUrl)}' returned invalid JSON`
            })
          })
        })
      })

    const withRetries = (endpoint: Endpoint, request: ChatRequest) =>
      retrying(sendOnce(endpoint, request), { attempts, backoff })

    const complete = Effect.fn("ModelClient.live")(function*(call: ModelCall) {
      for (let i = 0;; i++) {
        const endpoint = call.endpoints[i]!
        const outcome = yield* Effect.result(withRetries(endpoint, call.request))
        if (outcome._tag === "Success") {
          const result = yield* interpret(outcome.success, endpoint, "live")
          yield* recordUsage(call.label, result)
          return result
        }
        const failure = outcome.failure
        if (failure instanceof LaitError) return yield* Effect.fail(failure)
        const next = call.endpoints[i + 1]
        if (!failure.retryable || next === undefined) return yield* Effect.fail(failure.error)
        yield* Console.error(
          `warning: model '${endpoint.modelId}' at '${
            displayUrl(endpoint.baseUrl)
          }' failed (${failure.error.message}); ` +
            `falling back to '${next.modelId}' at '${displayUrl(next.baseUrl)}'`
        )
      }
    }, (effect, call) => traceChat(call, "live", effect))
    return { complete }
  })
