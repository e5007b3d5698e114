// The live layer: HTTP to the OpenAI-compatible endpoints, each retried (src/model/retry.ts), then
// the fallbacks in order. Every request goes through ModelHttp (src/model/ModelHttp.ts), which caps
// the body, times the attempt and aborts it on interruption. Where a StreamSink is provided, a
// chat-completions request is streamed (src/model/eventStream.ts);
// once text has reached the sink, a failure is neither retried nor a reason to fall back, since the
// text could not be taken back.
import { Console, Duration, Effect, LogLevel, Redacted } from "effect"
import { describeApiKeySource, DUMMY_API_KEY } from "../config/endpoints.ts"
import { renderChain } from "../core/errors.ts"
import { excerpt } from "../core/excerpt.ts"
import { describeNetworkFailure } from "../core/network.ts"
import { displayUrl, joinUrl, urlCredentials } from "../core/urls.ts"
import { traceChat } from "./chatSpan.ts"
import type { Endpoint, ModelCall, ModelClientService, ModelFailure } from "./call.ts"
import { interpret, noteFinish, recordUsage } from "./completion.ts"
import { endpointRedactor } from "./endpointSecrets.ts"
import { errorText } from "./errorBody.ts"
import { type Emitted, eventStreamReader, isEventStream } from "./eventStream.ts"
import { DEFAULT_RESPONSE_LIMIT, type ModelHttpService } from "./ModelHttp.ts"
import { chatToResponsesBody, responsesUnsupported } from "./responsesApi.ts"
import {
  BadResponse,
  HttpStatus,
  ModelError,
  ResponsesUnsupported,
  ResponseTooLarge,
  StreamBroken,
  Timeout,
  Unreachable
} from "./ModelError.ts"
import { retryAfter, type Retryable, retrying } from "./retry.ts"
import { type DeltaSink, emitWhole, StreamSink, UsageWanted } from "./streamSink.ts"
import { runTraced } from "./tracePropagation.ts"
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

/** Whether an assembled stream's first choice has neither text nor a tool call (or there is no choice). */
const streamSaidNothing = (raw: unknown): boolean => {
  const message = (raw as { choices?: ReadonlyArray<{ message?: { content?: unknown; tool_calls?: unknown } }> })
    .choices?.[0]?.message
  if (message === undefined) return false
  const content = message.content
  const calls = message.tool_calls
  return (typeof content !== "string" || content === "") && !(Array.isArray(calls) && calls.length > 0)
}

/** The server's own words in an error body (the most specific message when it sent JSON), or undefined. */
export const statusDetail = (body: string, redact: (text: string) => string): string | undefined => {
  let detail = body.trim()
  try {
    detail = errorText(JSON.parse(body)) ?? detail
  } catch {
    // not JSON: keep the text
  }
  // The message was decoded from JSON, so an escaped key in the body is plain text now.
  detail = redact(detail)
  detail = excerpt(detail, 500)
  return detail.length > 0 ? detail : undefined
}

/**
 * A `-vv` dump of a whole request or response. Built only when trace logging is on: serialising and
 * redacting every body would otherwise cost a parse and a stringify per request for a discarded line.
 */
const traceDump = (message: () => string): Effect.Effect<void> =>
  Effect.flatMap(LogLevel.isEnabled("Trace"), (enabled) => (enabled ? Effect.logTrace(message()) : Effect.void))

/** A `-v` line, likewise built only when debug logging is on. */
const debugLine = (message: () => string): Effect.Effect<void> =>
  Effect.flatMap(LogLevel.isEnabled("Debug"), (enabled) => (enabled ? Effect.logDebug(message()) : Effect.void))

/**
 * `f` remembered per argument: URLs are split and masked once per endpoint, not once per request (an
 * eval sends thousands to the same few).
 */
const remembered = (f: (url: string) => string): ((url: string) => string) => {
  const known = new Map<string, string>()
  return (url) => {
    let value = known.get(url)
    if (value === undefined) {
      // A config has a handful of endpoints; the bound only keeps a pathological caller from growing it.
      if (known.size >= 256) known.clear()
      known.set(url, value = f(url))
    }
    return value
  }
}
const shown = remembered(displayUrl)
const chatUrl = remembered((base) => joinUrl(base, "/chat/completions"))
const responsesUrl = remembered((base) => joinUrl(base, "/responses"))

const encoder = new TextEncoder()

/** How a failure is retried: only a ModelError that may go away (src/model/ModelError.ts) is. */
const retryable = (e: ModelFailure): Retryable | undefined =>
  e instanceof ModelError && e.transient
    ? {
      reason: renderChain(e),
      saysHowLong: e.reason._tag === "Timeout",
      retryAfter: e.reason._tag === "HttpStatus" ? e.reason.retryAfter : undefined
    }
    : undefined

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

export const makeLive = (options: LiveOptions, http: ModelHttpService): Effect.Effect<ModelClientService> =>
  Effect.sync(() => {
    const attempts = Math.max(1, options.attempts ?? 3)
    const backoff = Duration.fromInputUnsafe(options.backoff ?? "250 millis")
    const timeout = Duration.fromInputUnsafe(options.timeout ?? DEFAULT_REQUEST_TIMEOUT)
    const maxBytes = options.maxResponseBytes ?? DEFAULT_RESPONSE_LIMIT

    const sendOnce = (
      endpoint: Endpoint,
      request: ChatRequest,
      sink: DeltaSink | undefined,
      emitted: Emitted
    ): Effect.Effect<unknown, ModelFailure> =>
      Effect.gen(function*() {
        const baseUrl = shown(endpoint.baseUrl)
        const key = yield* endpoint.apiKey
        // Some servers echo the bearer token in error bodies; nothing they send may print it.
        const redact = endpointRedactor(
          key === undefined ? undefined : Redacted.value(key),
          endpoint.baseUrl,
          endpoint.headers
        )
        const unsupported = endpoint.api === "responses" ? responsesUnsupported(request) : undefined
        if (unsupported !== undefined) {
          const reason = new ResponsesUnsupported({ modelId: endpoint.modelId, feature: unsupported })
          return yield* new ModelError({ reason })
        }
        const url = endpoint.api === "responses" ? responsesUrl(endpoint.baseUrl) : chatUrl(endpoint.baseUrl)
        // The Responses API is never streamed: its whole answer goes to the sink when it arrives.
        const streamTo = endpoint.api === "chat_completions" ? sink : undefined
        const streamed = streamTo !== undefined
        const body = endpoint.api === "responses"
          ? chatToResponsesBody(endpoint.modelId, request)
          : streamed
          ? {
            ...chatBody(endpoint.modelId, request),
            stream: true,
            // Not part of the cassette key (src/model/cassette/key.ts): the request, not the body, is.
            ...((yield* UsageWanted) || endpoint.pricing !== undefined || (yield* runTraced)
              ? { stream_options: { include_usage: true } }
              : {})
          }
          // Said outright: some servers stream unless told otherwise (docs/repl.md#streaming).
          : { ...chatBody(endpoint.modelId, request), stream: false }
        yield* debugLine(() => `POST ${shown(url)} model=${endpoint.modelId}`)
        // A tool's output (say, a printed environment) can put the key into the conversation itself.
        yield* traceDump(() => `request body: ${redact(JSON.stringify(body))}`)
        const authorization = `Bearer ${key === undefined ? DUMMY_API_KEY : Redacted.value(key)}`
        const millis = Duration.toMillis(timeout)
        const response = yield* http.send({
          method: "POST",
          url,
          // A provider's own headers may replace the bearer token (a gateway's `authorization`).
          headers: { authorization, ...endpoint.headers, "content-type": "application/json" },
          body: encoder.encode(JSON.stringify(body))
        }, {
          limit: maxBytes,
          timeoutMillis: millis,
          // An event stream is read event by event into the sink; an error answer whole.
          pieces: streamTo === undefined ? undefined : (head) =>
            head.status >= 200 && head.status < 300 && isEventStream(head)
              ? eventStreamReader(streamTo, emitted)
              : undefined
        }).pipe(Effect.mapError((e) =>
          new ModelError({
            reason: e._tag === "TimedOut"
              ? new Timeout({ baseUrl, timeoutMillis: millis })
              : e._tag === "BrokenOff"
              ? new StreamBroken({ baseUrl, bytes: e.bytes, detail: redact(describeNetworkFailure(e.cause)) })
              : new Unreachable({ baseUrl, detail: redact(describeNetworkFailure(e.cause)) })
          })
        ))
        const status = response.status
        const ok = status >= 200 && status < 300
        // Only a failure waits; reading the headers of every answer would copy them (ModelHttp).
        const wait = ok ? undefined : retryAfter(status, response.headers)
        // A rejected key says where it came from (never what it is): the first thing to check.
        const keyFrom = endpoint.apiKeySource
        // With no key configured, credentials written into the base URL are what the server judged.
        const inUrl = urlCredentials(endpoint.baseUrl).length > 0 ? "the credentials in the base URL" : null
        const keySource = (status === 401 || status === 403) && keyFrom !== undefined
          ? { keySource: describeApiKeySource({ ...endpoint, apiKeySource: keyFrom }) ?? inUrl }
          : {}
        const statusFailure = (fields: { readonly detail?: string; readonly bodyLimit?: number }) =>
          new ModelError({
            reason: new HttpStatus({
              baseUrl,
              status,
              ...fields,
              ...keySource,
              ...(wait === undefined ? {} : { retryAfter: wait })
            })
          })
        if (response.body._tag === "TooLarge") {
          yield* traceDump(() => `response ${status}: ${new ResponseTooLarge({ baseUrl, limit: maxBytes }).message}`)
          // An ok flood is a ResponseTooLarge: the same request would get the same flood, so it is
          // neither retried nor a reason to fall back.
          return yield* ok
            ? new ModelError({ reason: new ResponseTooLarge({ baseUrl, limit: maxBytes }) })
            : statusFailure({ bodyLimit: maxBytes })
        }
        const badResponse = (problem: "invalid-json" | "reported" | "empty-stream", detail?: string, status?: number) =>
          new ModelError({
            reason: new BadResponse({
              baseUrl,
              problem,
              ...(detail === undefined ? {} : { detail }),
              ...(status === undefined ? {} : { status })
            })
          })
        switch (response.body._tag) {
          case "Assembled": {
            const raw = response.body.raw
            yield* traceDump(() => `response ${status} (streamed): ${redact(JSON.stringify(raw))}`)
            // A stream that said nothing is a failed answer, not an empty one (docs/repl.md#streaming).
            if (streamSaidNothing(raw)) return yield* badResponse("empty-stream")
            return raw
          }
          case "Reported":
            // Before any text it is retried and falls back as the HTTP error it stands for would.
            return yield* badResponse("reported", redact(response.body.detail), response.body.status)
          case "InvalidJson":
            return yield* badResponse("invalid-json")
        }
        const text = response.body.text
        yield* traceDump(() => `response ${status}: ${redact(text)}`)
        if (!ok) {
          const detail = statusDetail(text, redact)
          return yield* statusFailure(detail === undefined ? {} : { detail })
        }
        return yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => badResponse("invalid-json") })
      })

    const withRetries = (endpoint: Endpoint, request: ChatRequest, sink: DeltaSink | undefined, emitted: Emitted) =>
      retrying(sendOnce(endpoint, request, sink, emitted), {
        attempts,
        backoff,
        retryable: (e) => (emitted.value ? undefined : retryable(e))
      })

    const complete = Effect.fnUntraced(function*(call: ModelCall) {
      const sink = yield* StreamSink
      const emitted: Emitted = { value: false }
      for (let i = 0;; i++) {
        const endpoint = call.endpoints[i]!
        const outcome = yield* Effect.result(withRetries(endpoint, call.request, sink, emitted))
        if (outcome._tag === "Success") {
          const result = yield* interpret(outcome.success, endpoint, "live")
          yield* recordUsage(call.label, result)
          yield* noteFinish(call, result)
          if (!emitted.value) yield* emitWhole(result)
          return result
        }
        const failure = outcome.failure
        const next = call.endpoints[i + 1]
        // What is not the server's doing, or would fail the same anywhere, is not a reason to fall back.
        if (!(failure instanceof ModelError) || !failure.transient || next === undefined || emitted.value) {
          return yield* Effect.fail(failure)
        }
        yield* Console.error(
          `warning: model '${endpoint.modelId}' at '${
            displayUrl(endpoint.baseUrl)
          }' failed (${failure.message}); ` +
            `falling back to '${next.modelId}' at '${displayUrl(next.baseUrl)}'`
        )
      }
    }, (effect, call) => traceChat(call, "live", effect))
    return { complete }
  })
