// The listener of `lait proxy` and of an `exec:` target's run (docs/apps.md): OpenAI's
// `POST /v1/chat/completions` and `GET /v1/models`, each request answered through the ModelClient
// the command built (live, cache, record, replay: the layers `lait run` uses), in the run context
// the listener was started in, or in one of its own per request (`perRequest`).
import { Cause, Console, Effect, FiberSet } from "effect"
import type { Endpoints } from "../config/endpoints.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { primaryError, renderChain } from "../core/errors.ts"
import { redact } from "../core/redaction.ts"
import { ModelClient, type ModelResult } from "../model/ModelClient.ts"
import { ModelError } from "../model/ModelError.ts"
import type { RunUsage } from "../model/RunUsage.ts"
import { type HttpListener, listenFetch } from "../platform/fetchServer.ts"
import { readJsonRequest } from "../platform/httpBody.ts"
import { type HttpAddress, hostAllowed, originAllowed } from "../platform/httpAccess.ts"
import { AppError } from "./appErrors.ts"
import { streamedAnswer, wholeAnswerText } from "./answer.ts"
import { readProxyRequest } from "./request.ts"

/** Images travel in the body as base64: generous, but a cap all the same. */
const MAX_BODY_BYTES = 32 * 1024 * 1024
const BODY_TIMEOUT_MS = 60_000

export interface ProxyOptions {
  readonly address: HttpAddress
  /** `--model`: the alias that answers a request whose `model` is not one (else `default.model`). */
  readonly model: string | undefined
  /** What starts each failure's line on stderr (`lait proxy`). */
  readonly label: string
  /** Told every answer the model gave (an exec target's trajectory reads its tool calls). */
  readonly onAnswer?: ((result: ModelResult) => void) | undefined
}

interface Answer {
  readonly status: number
  readonly type: string
  readonly body: string
}

const json = (status: number, value: unknown): Answer => ({
  status,
  type: "application/json",
  body: JSON.stringify(value)
})

const openAiError = (status: number, type: string, message: string): Answer =>
  json(status, { error: { message, type, param: null, code: type } })

/** What a failed request answers: a replay miss is a 404 the app can tell apart; a server's status passes through. */
const failure = (error: unknown): { readonly answer: Answer; readonly line: string } => {
  const message = redact(renderChain(error))
  if (error instanceof ModelError) {
    const reason = error.reason
    if (reason._tag === "CassetteMissing") {
      return { answer: openAiError(404, "lait_replay_miss", message), line: `replay miss: ${message}` }
    }
    const status = reason._tag === "HttpStatus" ? reason.status : 502
    return { answer: openAiError(status, "lait_model_error", message), line: message }
  }
  return { answer: openAiError(500, "lait_error", message), line: message }
}

/** The endpoints of a request's `model`: its alias, else the fallback alias's with the requested id. */
const resolveFor = (requested: string | undefined, fallbackModel: string | undefined) =>
  Effect.gen(function*() {
    const config = yield* LaitConfig
    if (requested !== undefined && Object.hasOwn(config.config.models ?? {}, requested)) {
      return { name: requested, endpoints: yield* config.resolveEndpoints(requested) }
    }
    const fallback = fallbackModel ?? config.config.default?.model
    if (fallback === undefined) {
      if (requested === undefined) return undefined
      return { name: requested, endpoints: yield* config.resolveEndpoints(requested) }
    }
    const [primary, ...rest] = yield* config.resolveEndpoints(fallback)
    const endpoints: Endpoints = requested === undefined
      ? [primary, ...rest]
      : [{ ...primary, modelId: requested }, ...rest]
    return { name: requested ?? fallback, endpoints }
  })

type Resolved = Effect.Success<ReturnType<typeof resolveFor>>

/**
 * `resolveFor`, remembered per requested model: the config does not change while the proxy runs, and
 * an endpoint's key is resolved on its first use anyway (src/config/endpoints.ts).
 */
const memoEndpoints = (fallbackModel: string | undefined) => {
  const known = new Map<string | undefined, Resolved>()
  return (requested: string | undefined) => {
    const hit = known.get(requested)
    return hit !== undefined
      ? Effect.succeed(hit)
      : Effect.tap(
        resolveFor(requested, fallbackModel),
        (resolved) => Effect.sync(() => known.set(requested, resolved))
      )
  }
}

export type ProxyRequirements = ModelClient | LaitConfig | RunUsage

/** One chat-completions request, answered. `self`: the proxy's own origin, never a model server. */
const chat = (
  body: unknown,
  options: ProxyOptions,
  endpointsFor: ReturnType<typeof memoEndpoints>,
  self: string
): Effect.Effect<Answer, never, ProxyRequirements> =>
  Effect.gen(function*() {
    const read = readProxyRequest(body)
    if ("problem" in read) return openAiError(400, "invalid_request_error", read.problem)
    const resolved = yield* endpointsFor(read.model)
    if (resolved === undefined) {
      const problem = "the request names no model, and neither --model nor default.model is set"
      return openAiError(400, "invalid_request_error", problem)
    }
    // OPENAI_BASE_URL pointing at the proxy in lait's own environment would send lait to itself.
    const loop = resolved.endpoints.find((e) => e.baseUrl.startsWith(self))
    if (loop !== undefined) {
      const problem = `model '${resolved.name}' resolves to ${loop.baseUrl}, this proxy itself; ` +
        "unset OPENAI_BASE_URL in lait's environment or give the alias a provider.base_url"
      return openAiError(508, "lait_loop", problem)
    }
    const client = yield* ModelClient
    const result = yield* client.complete({
      label: `proxy '${resolved.name}'`,
      endpoints: resolved.endpoints,
      request: read.request
    })
    options.onAnswer?.(result)
    return read.stream
      ? { status: 200, type: "text/event-stream", body: streamedAnswer(result, resolved.name, read.includeUsage) }
      : { status: 200, type: "application/json", body: wholeAnswerText(result, resolved.name) }
  }).pipe(
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
      const { answer, line } = failure(primaryError(cause))
      return Effect.as(Console.error(`${options.label}: ${line}`), answer)
    })
  )

/** `GET /v1/models`: the config's aliases, so an app that lists models before asking finds them. */
const models = LaitConfig.use((config) =>
  Effect.succeed(json(200, {
    object: "list",
    data: Object.keys(config.config.models ?? {}).map((id) => ({ id, object: "model", created: 0, owned_by: "lait" }))
  }))
)

const respond = (answer: Answer, headers: Record<string, string> = {}) =>
  new Response(answer.body, {
    status: answer.status,
    headers: { "content-type": answer.type, "cache-control": "no-store", ...headers }
  })

/**
 * Listens until the enclosing scope closes. `perRequest` runs around each request's effect: the
 * identity for an exec target (its requests are its run's), a fresh run context for `lait proxy`.
 */
export const listenProxy = <R>(
  options: ProxyOptions,
  perRequest: (effect: Effect.Effect<Answer, never, ProxyRequirements>) => Effect.Effect<Answer, never, R>
) =>
  Effect.gen(function*() {
    const run = yield* FiberSet.makeRuntimePromise<R>()
    const endpointsFor = memoEndpoints(options.model)
    // Known once listening; no request is answered before.
    let self = "http://127.0.0.1:0/"
    const { host, port } = options.address
    const handle = async (request: Request): Promise<Response> => {
      const host = request.headers.get("host") ?? undefined
      const origin = request.headers.get("origin") ?? undefined
      if (!hostAllowed(host, []) || !originAllowed(origin, { loopback: true, allowed: [] })) {
        return respond(openAiError(403, "lait_forbidden", "only local clients may use lait proxy"))
      }
      const path = new URL(request.url).pathname.replace(/\/+$/, "")
      // An app that hangs up stops its request (and the model call it waits for).
      const answer = (effect: Effect.Effect<Answer, never, R>) =>
        run(effect, { signal: request.signal }).then((a) => respond(a), () => new Response(null, { status: 503 }))
      if (request.method === "GET" && path === "/v1/models") return answer(perRequest(models))
      if (path !== "/v1/chat/completions") {
        const served = "lait proxy serves POST /v1/chat/completions and GET /v1/models"
        return respond(openAiError(404, "not_found", served))
      }
      if (request.method !== "POST") {
        return respond(openAiError(405, "invalid_request_error", "use POST for /v1/chat/completions"))
      }
      const body = await readJsonRequest(request, BODY_TIMEOUT_MS, MAX_BODY_BYTES)
      if (body.ok) return answer(perRequest(chat(body.json, options, endpointsFor, self)))
      if (body.problem === "aborted") return new Response(null, { status: 400 })
      const [status, message] = body.problem === "not-json"
        ? [400, "the request body is not JSON"]
        : body.problem === "too-large"
        ? [413, `the request body exceeds ${MAX_BODY_BYTES} bytes`]
        : [408, `the request body did not arrive within ${BODY_TIMEOUT_MS / 1000} s`]
      // The rest of a body too large or too slow is not read: the connection goes with the answer.
      const close = status === 400 ? {} : { connection: "close" }
      return respond(openAiError(status, "invalid_request_error", message), close)
    }
    const listener: HttpListener = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => listenFetch(host, port, handle),
        catch: (detail) =>
          new AppError({ reason: { _tag: "ListenFailed", address: `${host}:${port}`, detail: String(detail) } })
      }),
      (bound) => Effect.promise(() => bound.close())
    )
    const shown = listener.host.includes(":") ? `[${listener.host}]` : listener.host
    self = `http://${shown}:${listener.port}/`
    return { url: `http://${shown}:${listener.port}/v1` }
  })
