// The `chat` span of one model call (docs/traces.md#chat), created by whichever ModelClient layer
// answered it: Live (`lait.source=live`, a cache miss included), Cache on a hit, Replay. It is part
// of the run's trace through the run's Tracer (src/core/tracing.ts). Attributes start with
// upstream's, in its order; the server and provider attributes and `error.type` (a call that failed,
// or was interrupted) follow, for OTLP backends that expect the GenAI conventions.
import { type Effect, Exit } from "effect"
import type { Json } from "../core/json.ts"
import { Attr, errorTypeOf, recordSpan, traceSpan } from "../core/tracing.ts"
import type { Endpoint, ModelCall, ModelResult, Source } from "./ModelClient.ts"

/**
 * lait speaks the OpenAI API to every server it calls (OpenAI itself, LM Studio, vLLM, ...); the
 * GenAI conventions name the provider after the API, which is what a client can know.
 */
export const PROVIDER_NAME = "openai"

const serverOf = (endpoint: Endpoint): Record<string, Json> => {
  try {
    const url = new URL(endpoint.baseUrl)
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
  outcome: { readonly result: ModelResult } | { readonly source: Source; readonly errorType: string }
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
      ...serverOf(result.endpoint)
    }
  }
  return {
    [Attr.requestModel]: primary.modelId,
    [Attr.source]: outcome.source,
    [Attr.providerName]: PROVIDER_NAME,
    ...serverOf(primary),
    [Attr.errorType]: outcome.errorType
  }
}

/** `effect` (one whole model call) as its `chat` span, which ends however the call ends. */
export const traceChat = <E, R>(
  call: ModelCall,
  source: Source,
  effect: Effect.Effect<ModelResult, E, R>
): Effect.Effect<ModelResult, E, R> =>
  traceSpan({ operation: "chat", label: call.label }, effect, (exit) =>
    Exit.isSuccess(exit)
      ? chatAttributes(call, { result: exit.value })
      : chatAttributes(call, { source, errorType: errorTypeOf(exit.cause) }))

/** The `chat` span of an answer that did not come from the layer below (a cache hit). */
export const recordChat = (call: ModelCall, result: ModelResult, start: Date): Effect.Effect<void> =>
  recordSpan({ operation: "chat", label: call.label, attributes: chatAttributes(call, { result }) }, start, new Date())
