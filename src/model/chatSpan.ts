// The `chat` span of one model call (docs/traces.md#chat), created by whichever ModelClient layer
// answered it: Live (`lait.source=live`, a cache miss included), Cache on a hit, Replay. It is part
// of the run's trace through the run's Tracer (src/core/tracing.ts). Attributes start with
// upstream's, in its order; the server and provider attributes and `error.type` (a call that failed,
// or was interrupted) follow, for OTLP backends that expect the GenAI conventions.
import { Effect, Exit, Redacted } from "effect"
import type { Json } from "../core/json.ts"
import {
  Attr,
  errorAttributesOf,
  recordSpan,
  TraceContent,
  type TraceContentCapture,
  traceSpan,
  whenTraced
} from "../core/tracing.ts"
import { urlCredentials } from "../core/urls.ts"
import { chatContent } from "./chatContent.ts"
import type { Endpoint, ModelCall, ModelResult, Source } from "./call.ts"

/**
 * lait speaks the OpenAI API to every server it calls (OpenAI itself, LM Studio, vLLM, ...); the
 * GenAI conventions name the provider after the API, which is what a client can know.
 */
export const PROVIDER_NAME = "openai"

// A span attribute per answer, from the few base URLs a config has: parsed once each.
const servers = new Map<string, Readonly<Record<string, Json>>>()

const serverOf = (endpoint: Endpoint): Readonly<Record<string, Json>> => {
  let known = servers.get(endpoint.baseUrl)
  if (known === undefined) {
    if (servers.size >= 256) servers.clear()
    servers.set(endpoint.baseUrl, known = parseServer(endpoint.baseUrl))
  }
  return known
}

const parseServer = (baseUrl: string): Record<string, Json> => {
  try {
    const url = new URL(baseUrl)
    const port = url.port !== ""
      ? Number(url.port)
      : url.protocol === "https:"
      ? 443
      : url.protocol === "http:"
      ? 80
      : undefined
    return {
      [Attr.serverAddress]: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      ...(port !== undefined ? { [Attr.serverPort]: port } : {})
    }
  } catch {
    return {}
  }
}

export const chatAttributes = (
  call: ModelCall,
  outcome:
    | { readonly result: ModelResult }
    | { readonly source: Source; readonly error: Readonly<Record<string, Json>> }
): Record<string, Json> => {
  const primary = call.endpoints[0]
  if ("result" in outcome) {
    const { result } = outcome
    return {
      [Attr.requestModel]: primary.modelId,
      [Attr.source]: result.source,
      ...(result.usage !== undefined
        ? {
          [Attr.inputTokens]: result.usage.prompt_tokens,
          [Attr.outputTokens]: result.usage.completion_tokens
        }
        : {}),
      [Attr.providerName]: PROVIDER_NAME,
      ...serverOf(result.endpoint),
      ...(result.finishReason !== undefined ? { [Attr.finishReasons]: [result.finishReason] } : {}),
      ...call.traceAttributes
    }
  }
  return {
    [Attr.requestModel]: primary.modelId,
    [Attr.source]: outcome.source,
    [Attr.providerName]: PROVIDER_NAME,
    ...serverOf(primary),
    ...call.traceAttributes,
    ...outcome.error
  }
}

/**
 * The credentials of the call's endpoints, for the trace writer to mask: every URL's, and the key of
 * a live answer's endpoint (resolved by then, so no api_key_cmd runs for it). Keys written in the
 * config or the environment are collected from there (src/trace/content.ts).
 */
const collectSecrets = (capture: TraceContentCapture, call: ModelCall, result: ModelResult | undefined) =>
  Effect.gen(function*() {
    for (const endpoint of call.endpoints) {
      for (const secret of urlCredentials(endpoint.baseUrl)) capture.secrets.add(secret)
    }
    if (result?.source !== "live") return
    const key = yield* Effect.option(result.endpoint.apiKey)
    if (key._tag === "Some" && key.value !== undefined) capture.secrets.add(Redacted.value(key.value))
  })

/** `effect` (one whole model call) as its `chat` span, which ends however the call ends. */
export const traceChat = <E, R>(
  call: ModelCall,
  source: Source,
  effect: Effect.Effect<ModelResult, E, R>
): Effect.Effect<ModelResult, E, R> =>
  whenTraced(effect, () => TraceContent.use((capture) =>
    traceSpan(
      { operation: "chat", label: call.label },
      capture === undefined ? effect : effect.pipe(
        Effect.onExit((exit) => collectSecrets(capture, call, Exit.isSuccess(exit) ? exit.value : undefined))
      ),
      (exit) => {
        const attributes = Exit.isSuccess(exit)
          ? chatAttributes(call, { result: exit.value })
          : chatAttributes(call, { source, error: errorAttributesOf(exit.cause) })
        if (capture === undefined) return attributes
        return { ...attributes, ...chatContent(call.request.messages, Exit.isSuccess(exit) ? exit.value : undefined) }
      }
    )))

/** The `chat` span of an answer that did not come from the layer below (a cache hit). */
export const recordChat = (call: ModelCall, result: ModelResult, start: Date): Effect.Effect<void> =>
  TraceContent.use((capture) =>
    recordSpan({
      operation: "chat",
      label: call.label,
      attributes: {
        ...chatAttributes(call, { result }),
        ...(capture === undefined ? {} : chatContent(call.request.messages, result))
      }
    }, start, new Date()).pipe(
      Effect.tap(() => capture === undefined ? Effect.void : collectSecrets(capture, call, result))
    ))
