// The `chat` event of one model call (inventory §8.2), recorded by whichever ModelClient layer
// answered it: Live (`lait.source=live`, a cache miss included), Cache on a hit, Replay. Attributes
// start with upstream's, in its order; the server and provider attributes and `error.type` (a call
// that failed, or was interrupted) follow, for OTLP backends that expect the GenAI conventions.
import { Effect, Exit } from "effect"
import type { Json } from "../core/json.ts"
import type { Endpoint, ModelCall, ModelResult, Source } from "../model/ModelClient.ts"
import { errorTypeOf, RunTracer } from "./RunTracer.ts"

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
      "server.address": url.hostname.replace(/^\[(.*)\]$/, "$1"),
      ...(port !== undefined ? { "server.port": port } : {})
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
      "gen_ai.request.model": primary.modelId,
      "lait.source": result.source,
      ...(result.usage !== undefined
        ? {
          "gen_ai.usage.input_tokens": result.usage.prompt_tokens,
          "gen_ai.usage.output_tokens": result.usage.completion_tokens
        }
        : {}),
      "gen_ai.provider.name": PROVIDER_NAME,
      ...serverOf(result.endpoint)
    }
  }
  return {
    "gen_ai.request.model": primary.modelId,
    "lait.source": outcome.source,
    "gen_ai.provider.name": PROVIDER_NAME,
    ...serverOf(primary),
    "error.type": outcome.errorType
  }
}

/** Records the call's `chat` event when `effect` (one whole model call) ends, however it ends. */
export const traceChat = <E, R>(
  call: ModelCall,
  source: Source,
  effect: Effect.Effect<ModelResult, E, R>
): Effect.Effect<ModelResult, E, R | RunTracer> =>
  Effect.flatMap(RunTracer, (tracer) => {
    const start = new Date()
    return Effect.onExit(effect, (exit) =>
      tracer.record({
        operation: "chat",
        label: call.label,
        start,
        end: new Date(),
        attributes: Exit.isSuccess(exit)
          ? chatAttributes(call, { result: exit.value })
          : chatAttributes(call, { source, errorType: errorTypeOf(exit.cause) })
      }))
  })

/** The `chat` event of an answer that did not come from the layer below (a cache hit). */
export const recordChat = (call: ModelCall, result: ModelResult, start: Date): Effect.Effect<void, never, RunTracer> =>
  Effect.flatMap(RunTracer, (tracer) =>
    tracer.record({
      operation: "chat",
      label: call.label,
      start,
      end: new Date(),
      attributes: chatAttributes(call, { result })
    }))
