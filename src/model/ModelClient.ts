// The single choke point for every model request. Layers:
//   layerLive    — HTTP to the OpenAI-compatible endpoints, retries, then fallbacks in order
//   layerCache   — `.lait/cache/<key>.json` in front of another ModelClient (hits skip usage)
//   layerRecord  — writes every answer of another ModelClient as `<dir>/<key>.json`
//   layerReplay  — answers only from `<dir>/<key>.json`; never touches the network
// Per-run accounting (RunUsage) is required per call, so one client serves concurrent runs; each call
// is one `chat` span (./chatSpan.ts, created by the layer that answered), which the run's Tracer records.
import { Console, Context, Duration, Effect, Layer, LogLevel, Redacted, Schema } from "effect"
import { type Headers, HttpClient, HttpClientRequest } from "effect/http"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { DUMMY_API_KEY } from "../config/endpoints.ts"
import { LaitError, ModelApiError } from "../core/errors.ts"
import { FileLoader } from "../core/FileLoader.ts"
import { describeNetworkFailure } from "../core/network.ts"
import { displayUrl, joinUrl } from "../core/urls.ts"
import { closestRecording } from "./cassetteDiff.ts"
import { recordChat, traceChat } from "./chatSpan.ts"
import { endpointRedactor, holdsEndpointSecret } from "./endpointSecrets.ts"
import { entryBody } from "./entryText.ts"
import { DEFAULT_RESPONSE_LIMIT, formatBytes, readCapped } from "./httpBody.ts"
import { type KeyInput, keyMaterial, requestKey } from "./requestKey.ts"
import { chatToResponsesBody, responsesFailure, responsesToChat, responsesUnsupported } from "./responsesApi.ts"
import { type Attempt, formatDuration, retryAfter, retrying } from "./retry.ts"
import { type Pricing, RunUsage } from "./RunUsage.ts"
import { ChatCompletion, type ChatRequest, type ToolCall } from "./types.ts"
import { readUsage, type Usage } from "./usage.ts"

export interface Endpoint {
  readonly baseUrl: string
  readonly modelId: string
  readonly api: "chat_completions" | "responses"
  /** Resolved lazily (api_key_cmd runs just before the first request). */
  readonly apiKey: Effect.Effect<Redacted.Redacted<string> | undefined, LaitError>
  readonly pricing?: Pricing | undefined
}

export interface ModelCall {
  /** Usage and trace label: the step's progress label, `llm_judge`, `eval target 'm'`, ... */
  readonly label: string
  /** Primary first, then fallbacks. */
  readonly endpoints: readonly [Endpoint, ...Array<Endpoint>]
  readonly request: ChatRequest
}

export type Source = "live" | "cache" | "replay"

export interface ModelResult {
  readonly content: string | null
  readonly reasoning: string | null
  readonly toolCalls: ReadonlyArray<ToolCall>
  readonly usage: Usage | undefined
  /** Reported usage values that were not token counts (see src/model/usage.ts), noted at -v. */
  readonly usageIgnored?: ReadonlyArray<string>
  readonly source: Source
  /** The endpoint that answered (a fallback, possibly). */
  readonly endpoint: Endpoint
  /** The response JSON exactly as received (what cassettes and the cache store). */
  readonly raw: unknown
}

export interface ModelClientService {
  readonly complete: (call: ModelCall) => Effect.Effect<ModelResult, ModelApiError | LaitError, RunUsage>
}

/** Per attempt: headers and the whole body. Reasoning models can think for minutes before answering. */
export const DEFAULT_REQUEST_TIMEOUT = Duration.seconds(300)

/** The key input of a call: always the primary endpoint's base URL and model id. */
export const keyInputOf = (call: ModelCall, endpoint: Endpoint = call.endpoints[0]): KeyInput => ({
  base_url: endpoint.baseUrl,
  model_id: endpoint.modelId,
  reasoning_effort: call.request.reasoning_effort,
  temperature: call.request.temperature,
  top_p: call.request.top_p,
  max_tokens: call.request.max_tokens,
  messages: call.request.messages,
  tools: call.request.tools,
  response_format: call.request.response_format
})

export const callKey = (call: ModelCall): string => requestKey(keyInputOf(call))

const decodeCompletion = Schema.decodeUnknownExit(ChatCompletion)

/** Reads what lait needs from a chat-completions JSON body. */
/** Why an answer (live, cached or recorded) is not a chat completion lait can use. */
type CompletionProblem =
  | { readonly kind: "reported"; readonly detail: string }
  | { readonly kind: "unreadable" }
  | { readonly kind: "no-choices" }

const readCompletion = (
  raw: unknown,
  endpoint: Endpoint,
  source: Source
): { readonly result: ModelResult } | { readonly problem: CompletionProblem } => {
  const failed = endpoint.api === "responses" ? responsesFailure(raw) : undefined
  if (failed !== undefined) return { problem: { kind: "reported", detail: failed } }
  const exit = decodeCompletion(endpoint.api === "responses" ? responsesToChat(raw) : raw)
  if (exit._tag === "Failure") return { problem: { kind: "unreadable" } }
  const completion = exit.value
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

const serverProblem = (baseUrl: string, problem: CompletionProblem): string => {
  switch (problem.kind) {
    case "reported":
      return `the model server at '${baseUrl}' reported: ${problem.detail}`
    case "unreadable":
      return `the model server at '${baseUrl}' returned a response lait cannot read`
    case "no-choices":
      return `the model server at '${baseUrl}' returned no choices`
  }
}

/** The same problems in a cassette: the file is at fault, no server was asked. */
const recordedProblem = (problem: CompletionProblem): string => {
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
): Effect.Effect<ModelResult, ModelApiError> => {
  const read = readCompletion(raw, endpoint, source)
  return "result" in read
    ? Effect.succeed(read.result)
    : Effect.fail(new ModelApiError({ message: serverProblem(displayUrl(endpoint.baseUrl), read.problem) }))
}

const recordUsage = (label: string, result: ModelResult) =>
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

const makeLive = (options: LiveOptions) =>
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
    return ModelClient.of({ complete })
  })

const nowRfc3339 = () => new Date().toISOString()

/** Fails if `text` contains the API key in use: a cassette or cache entry must never hold a secret. */
const assertNoSecret = (text: string, endpoint: Endpoint, what: string) =>
  Effect.gen(function*() {
    const key = yield* endpoint.apiKey
    const secret = key === undefined ? undefined : Redacted.value(key)
    // `text` is JSON: a key holding a quote or a backslash appears escaped there; this finds that too.
    if (holdsEndpointSecret(text, secret, endpoint.baseUrl)) {
      return yield* new LaitError({
        message: `refusing to write ${what}: the response contains the API key in use`
      })
    }
  })

export const cassetteBody = (
  call: ModelCall,
  result: ModelResult,
  what = "a cassette"
): Effect.Effect<string, LaitError> =>
  entryBody(
    {
      recorded_at: nowRfc3339(),
      request: {
        ...JSON.parse(keyMaterial(keyInputOf(call, result.endpoint))),
        // Masked for the file only: the request key above still hashes the URL as written.
        base_url: displayUrl(result.endpoint.baseUrl),
        model_id: result.endpoint.modelId
      }
    },
    result.raw,
    what
  )

const CachedEntry = Schema.Struct({ created_at: Schema.String, response: Schema.Unknown })
const Cassette = Schema.Struct({ response: Schema.Unknown })

/** Why a cassette's text did not decode as a `Cassette`, in one clause. */
export const cassetteProblem = (text: string): string => {
  if (text.trim() === "") return "the file is empty"
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return `not valid JSON (${e instanceof Error ? e.message : String(e)})`
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "expected a JSON object"
  return "missing field 'response'"
}

export interface CacheOptions {
  readonly dir: string
  /** Seconds; undefined = never expires. */
  readonly ttl?: number | undefined
}

export class ModelClient extends Context.Service<ModelClient, ModelClientService>()("lait/model/ModelClient") {
  static readonly layerLive = (options: LiveOptions = {}): Layer.Layer<ModelClient, never, HttpClient.HttpClient> =>
    Layer.effect(ModelClient, makeLive(options))

  /** Decorates the ModelClient it is provided with. */
  static readonly layerCache = (options: CacheOptions): Layer.Layer<ModelClient, never, ModelClient | FileLoader> =>
    Layer.effect(
      ModelClient,
      Effect.gen(function*() {
        const inner = yield* ModelClient
        const files = yield* FileLoader
        const decode = Schema.decodeUnknownExit(Schema.fromJsonString(CachedEntry))
        const lookup = (path: string, endpoint: Endpoint) =>
          files.readText(path).pipe(
            Effect.flatMap((text) => {
              const exit = decode(text)
              if (exit._tag === "Failure") return Effect.succeed(undefined)
              const created = Date.parse(exit.value.created_at)
              if (Number.isNaN(created)) return Effect.succeed(undefined)
              const age = (Date.now() - created) / 1000
              if (age < 0 || (options.ttl !== undefined && Math.floor(age) > options.ttl)) {
                return Effect.succeed(undefined)
              }
              return interpret(exit.value.response, endpoint, "cache").pipe(Effect.orElseSucceed(() => undefined))
            }),
            // Any read problem is a miss: the cache is an optimisation, never a reason to fail.
            Effect.orElseSucceed(() => undefined)
          )
        return ModelClient.of({
          complete: Effect.fn("ModelClient.cache")(function*(call: ModelCall) {
            const path = nodePath.join(options.dir, `${callKey(call)}.json`)
            const started = new Date()
            const hit = yield* lookup(path, call.endpoints[0])
            if (hit !== undefined) {
              yield* recordChat(call, hit, started)
              yield* RunUsage.use((u) => u.recordCacheHit)
              yield* Console.error(`note: cache hit for ${call.label}`)
              return hit
            }
            const result = yield* inner.complete(call)
            yield* entryBody({ created_at: nowRfc3339() }, result.raw, "a cache entry").pipe(
              Effect.tap((body) => assertNoSecret(body, result.endpoint, "a cache entry")),
              Effect.flatMap((body) => files.writeAtomic(path, body)),
              Effect.catch((e) => Effect.logDebug(`cache write skipped: ${e.message}`))
            )
            return result
          })
        })
      })
    )

  static readonly layerRecord = (dir: string): Layer.Layer<ModelClient, never, ModelClient | FileLoader> =>
    Layer.effect(
      ModelClient,
      Effect.gen(function*() {
        const inner = yield* ModelClient
        const files = yield* FileLoader
        return ModelClient.of({
          complete: Effect.fn("ModelClient.record")(function*(call: ModelCall) {
            const result = yield* inner.complete(call)
            const path = nodePath.join(dir, `${callKey(call)}.json`)
            const body = yield* cassetteBody(call, result, `cassette '${path}'`)
            yield* assertNoSecret(body, result.endpoint, `cassette '${path}'`)
            yield* files.writeAtomic(path, body)
            return result
          })
        })
      })
    )

  static readonly layerReplay = (dir: string): Layer.Layer<ModelClient, never, FileLoader> =>
    Layer.effect(
      ModelClient,
      Effect.gen(function*() {
        const files = yield* FileLoader
        const decode = Schema.decodeUnknownExit(Schema.fromJsonString(Cassette))
        return ModelClient.of({
          complete: Effect.fn("ModelClient.replay")(function*(call: ModelCall) {
            const key = callKey(call)
            const path = nodePath.join(dir, `${key}.json`)
            if (!fs.existsSync(path)) {
              const primary = call.endpoints[0]
              const hint = closestRecording(dir, keyInputOf(call))
              return yield* new LaitError({
                message: `no recorded cassette for this request (model '${primary.modelId}') at '${path}'; ` +
                  `run \`lait run --record ${dir}\` first against the same workflow/input/vars, ` +
                  `or check that they still match this recording` + (hint === undefined ? "" : `; ${hint}`)
              })
            }
            const text = yield* files.readText(path).pipe(
              Effect.mapError((e) =>
                new LaitError({ message: `failed to read cassette '${path}'`, cause: e.cause ?? e.message })
              )
            )
            const exit = decode(text)
            if (exit._tag === "Failure") {
              return yield* new LaitError({
                message: `failed to parse cassette entry '${path}'`,
                cause: cassetteProblem(text)
              })
            }
            // Nothing was asked of a server here: the file is at fault (exit 1, not a model API error's 4).
            const read = readCompletion(exit.value.response, call.endpoints[0], "replay")
            if ("problem" in read) {
              return yield* new LaitError({
                message: `failed to parse cassette entry '${path}'`,
                cause: recordedProblem(read.problem)
              })
            }
            yield* recordUsage(call.label, read.result)
            return read.result
          }, (effect, call) => traceChat(call, "replay", effect))
        })
      })
    )
}
