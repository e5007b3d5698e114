// What one model request is and what it answers: the shapes every ModelClient layer shares.
import type { Effect, Redacted } from "effect"
import type { ApiKeySource } from "../config/endpoints.ts"
import type { ConfigError } from "../config/configErrors.ts"
import type { LaitError } from "../core/errors.ts"
import type { Json } from "../core/json.ts"
import type { FileError } from "../core/fileErrors.ts"
import type { ModelError } from "./ModelError.ts"
import type { Pricing, RunUsage } from "./RunUsage.ts"
import type { ChatRequest, ToolCall } from "./types.ts"
import type { Usage } from "./usage.ts"

export interface Endpoint {
  readonly baseUrl: string
  readonly modelId: string
  readonly api: "chat_completions" | "responses"
  /** Resolved lazily (api_key_cmd runs just before the first request). */
  readonly apiKey: Effect.Effect<Redacted.Redacted<string> | undefined, LaitError | ConfigError>
  readonly pricing?: Pricing | undefined
  /** Where the key came from (src/config/endpoints.ts), named when a server rejects it; absent: unknown. */
  readonly apiKeySource?: ApiKeySource | undefined
  readonly apiKeyIn?: string | undefined
  /** The alias the endpoint belongs to, if the model name was one. */
  readonly alias?: string | undefined
  /** Extra request headers (src/config/endpoints.ts), names in lower case: secrets, never in a cassette key. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

export interface ModelCall {
  /** Usage and trace label: the step's progress label, `llm_judge`, `eval target 'm'`, ... */
  readonly label: string
  /** Primary first, then fallbacks. */
  readonly endpoints: readonly [Endpoint, ...Array<Endpoint>]
  readonly request: ChatRequest
  /** Added to the call's `chat` trace event (`lait.judge` for an llm_judge's call). */
  readonly traceAttributes?: Readonly<Record<string, Json>> | undefined
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
  /** The answer's `finish_reason` (`stop`, `length`, `tool_calls`, ...), when the server gave one. */
  readonly finishReason?: string | undefined
}

/** How a model request fails: the server's answer, or a key, cassette or cache that cannot be used. */
export type ModelFailure = ModelError | ConfigError | FileError | LaitError

export interface ModelClientService {
  readonly complete: (call: ModelCall) => Effect.Effect<ModelResult, ModelFailure, RunUsage>
}
