// Which server, model id and key a request for model NAME goes to (primary first, then fallbacks).
//
// base_url: --base-url > OPENAI_BASE_URL > alias provider.base_url > top-level base_url > default.
// API key:  --api-key > OPENAI_API_KEY > provider api_key > provider api_key_cmd > top-level api_key >
//           top-level api_key_cmd > none (the dummy `lm-studio` is sent).
// The two environment variables act exactly like their flags (upstream binds them as the flags' env
// fallback), so either one pins a single endpoint just as the flags do. `${VAR}` is expanded only in
// the value that wins, so an unset variable in a shadowed layer never fails a request.
import { Effect, Redacted } from "effect"
import { type Env, expandVars } from "../core/env.ts"
import { LaitError, ValidationError } from "../core/errors.ts"
import { type ApiKeyCmdOptions, resolveApiKeyCmd } from "./apiKeyCmd.ts"
import type {
  CommandSpec,
  ConfigFile,
  ModelApi,
  ModelDefinition,
  ModelMap,
  Pricing,
  ReasoningEffort
} from "./schema.ts"

export const DEFAULT_BASE_URL = "http://localhost:1234/v1"
/** Sent when no key is configured: local servers (LM Studio, Ollama) accept anything. */
export const DUMMY_API_KEY = "lm-studio"

export type ApiKeySource =
  | "flag" // --api-key
  | "env" // OPENAI_API_KEY
  | "provider" // models[].provider.api_key
  | "provider_cmd" // models[].provider.api_key_cmd
  | "config" // top-level api_key
  | "config_cmd" // top-level api_key_cmd
  | "none"

export interface SamplingDefaults {
  readonly reasoningEffort?: ReasoningEffort
  readonly temperature?: number
  readonly topP?: number
  readonly maxTokens?: number
}

export interface Endpoint {
  /** Normalised: no trailing `/`, never empty. */
  readonly baseUrl: string
  readonly modelId: string
  /** Resolved on demand (runs api_key_cmd, cached per process); the dummy key when `apiKeySource` is "none". */
  readonly apiKey: Effect.Effect<Redacted.Redacted<string>, LaitError>
  readonly apiKeySource: ApiKeySource
  readonly api: ModelApi
  readonly pricing?: Pricing
  /** The primary definition's defaults; fallbacks inherit them (their own are ignored, as upstream). */
  readonly sampling: SamplingDefaults
  /** The alias this came from, if the name was one. */
  readonly alias?: string
  /** 0 for the primary, n for the n-th fallback. */
  readonly index: number
}

/** Primary first, then fallbacks in file order. */
export type Endpoints = readonly [Endpoint, ...Array<Endpoint>]

export interface EndpointOverrides {
  /** `--base-url` */
  readonly baseUrl?: string | undefined
  /** `--api-key` */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
}

export interface ResolveOptions {
  /** A workflow's own `models:`; checked before the config's. */
  readonly workflowModels?: ModelMap | undefined
  readonly overrides?: EndpointOverrides | undefined
  /** For api_key_cmd (timeout, caps, cwd); the environment is the resolver's `env`. */
  readonly apiKeyCmd?: ApiKeyCmdOptions | undefined
}

const normalizeBaseUrl = (value: string) => {
  const trimmed = value.replace(/\/+$/, "")
  return trimmed.length === 0
    ? Effect.fail(new LaitError({ message: "base URL must not be empty" }))
    : Effect.succeed(trimmed)
}

/** An environment variable that is set to something; an empty one counts as unset. */
const envValue = (env: Env, name: string) => {
  const value = env[name]
  return value === undefined || value === "" ? undefined : value
}

const literalKey = (value: string, env: Env) =>
  Effect.map(expandVars(value, env, { secret: true }), (key) => Redacted.make(key))

interface KeyLayer {
  readonly api_key?: string
  readonly api_key_cmd?: CommandSpec
}

/** The key of one endpoint from its config layers (override handled by the caller). */
const keyFromLayers = (
  provider: KeyLayer | undefined,
  config: ConfigFile,
  env: Env,
  cmd: ApiKeyCmdOptions
): { readonly source: ApiKeySource; readonly apiKey: Effect.Effect<Redacted.Redacted<string>, LaitError> } => {
  const cmdOptions = { ...cmd, env }
  if (provider?.api_key !== undefined) return { source: "provider", apiKey: literalKey(provider.api_key, env) }
  if (provider?.api_key_cmd !== undefined) {
    return { source: "provider_cmd", apiKey: resolveApiKeyCmd(provider.api_key_cmd, cmdOptions) }
  }
  if (config.api_key !== undefined) return { source: "config", apiKey: literalKey(config.api_key, env) }
  if (config.api_key_cmd !== undefined) {
    return { source: "config_cmd", apiKey: resolveApiKeyCmd(config.api_key_cmd, cmdOptions) }
  }
  return { source: "none", apiKey: Effect.succeed(Redacted.make(DUMMY_API_KEY)) }
}

/** Workflow `models:` are not checked at config load, so the alias being used is checked here. */
const checkDefinition = (alias: string, definition: ModelDefinition, index: number) => {
  const context = index === 0
    ? `model definition ${JSON.stringify(alias)}`
    : `model definition ${JSON.stringify(alias)}'s fallback entry #${index + 1}`
  if (definition.model_id.trim().length === 0) {
    return Effect.fail(new ValidationError({ message: `model_id in ${context} must not be empty` }))
  }
  if (definition.provider.api_key !== undefined && definition.provider.api_key_cmd !== undefined) {
    return Effect.fail(
      new ValidationError({ message: `${context} sets both 'api_key' and 'api_key_cmd'; set exactly one` })
    )
  }
  return Effect.void
}

/**
 * The endpoints for model `name` (an alias from the workflow's or the config's `models:`, else a raw
 * model id), primary first. Overrides (flags or OPENAI_BASE_URL/OPENAI_API_KEY) pin the primary alone.
 */
export const resolveEndpoints = Effect.fn("config.resolveEndpoints")(function*(
  name: string,
  config: ConfigFile,
  env: Env,
  options?: ResolveOptions
) {
  if (name.trim().length === 0) return yield* new LaitError({ message: "model name must not be empty" })
  const cmd = options?.apiKeyCmd ?? {}
  const flagBaseUrl = options?.overrides?.baseUrl
  const flagKey = options?.overrides?.apiKey
  const envBaseUrl = envValue(env, "OPENAI_BASE_URL")
  const envKey = envValue(env, "OPENAI_API_KEY")
  const baseUrlOverride = flagBaseUrl ?? envBaseUrl
  const keyOverride: { readonly source: ApiKeySource; readonly value: Redacted.Redacted<string> } | undefined =
    flagKey !== undefined
      ? { source: "flag", value: Redacted.isRedacted(flagKey) ? flagKey : Redacted.make(flagKey) }
      : envKey !== undefined
      ? { source: "env", value: Redacted.make(envKey) }
      : undefined
  const pinned = baseUrlOverride !== undefined || keyOverride !== undefined

  const definitions = options?.workflowModels?.[name] ?? config.models?.[name]
  if (definitions !== undefined && definitions.length === 0) {
    return yield* new ValidationError({
      message: `model definition ${JSON.stringify(name)} must contain at least one entry`
    })
  }

  if (definitions === undefined) {
    const baseUrl = yield* normalizeBaseUrl(
      baseUrlOverride ?? (config.base_url !== undefined ? yield* expandVars(config.base_url, env) : DEFAULT_BASE_URL)
    )
    const key = keyOverride !== undefined
      ? { source: keyOverride.source, apiKey: Effect.succeed(keyOverride.value) }
      : keyFromLayers(undefined, config, env, cmd)
    const raw: Endpoint = {
      baseUrl,
      modelId: name,
      apiKey: key.apiKey,
      apiKeySource: key.source,
      api: "chat_completions",
      sampling: {},
      index: 0
    }
    return [raw] as Endpoints
  }

  const primary = definitions[0]!
  const sampling: SamplingDefaults = {
    ...(primary.default_reasoning_effort === undefined ? {} : { reasoningEffort: primary.default_reasoning_effort }),
    ...(primary.default_temperature === undefined ? {} : { temperature: primary.default_temperature }),
    ...(primary.default_top_p === undefined ? {} : { topP: primary.default_top_p }),
    ...(primary.default_max_tokens === undefined ? {} : { maxTokens: primary.default_max_tokens })
  }
  const shared = {
    api: primary.api ?? "chat_completions",
    ...(primary.pricing === undefined ? {} : { pricing: primary.pricing }),
    sampling,
    alias: name
  } as const

  const used = pinned ? definitions.slice(0, 1) : definitions
  const endpoints: Array<Endpoint> = []
  for (const [index, definition] of used.entries()) {
    yield* checkDefinition(name, definition, index)
    const baseUrl = yield* normalizeBaseUrl(
      index === 0 && baseUrlOverride !== undefined
        ? baseUrlOverride
        : yield* expandVars(definition.provider.base_url, env)
    )
    const key = index === 0 && keyOverride !== undefined
      ? { source: keyOverride.source, apiKey: Effect.succeed(keyOverride.value) }
      : keyFromLayers(definition.provider, config, env, cmd)
    endpoints.push({
      ...shared,
      baseUrl,
      modelId: definition.model_id,
      apiKey: key.apiKey,
      apiKeySource: key.source,
      index
    })
  }
  return endpoints as unknown as Endpoints
})
