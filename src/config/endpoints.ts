// Which server, model id and key a request for model NAME goes to (primary first, then fallbacks).
//
// Primary endpoint (and a raw model id):
//   base_url: --base-url > OPENAI_BASE_URL > alias provider.base_url > top-level base_url > default.
//   API key:  --api-key > OPENAI_API_KEY > provider api_key > provider api_key_cmd > top-level api_key >
//             top-level api_key_cmd > none (the dummy `lm-studio` is sent).
// Fallback entries keep their own provider: base_url is always theirs, and their provider key beats
//   OPENAI_API_KEY, which beats the top-level key (a fallback on another server must not get the
//   primary's key when it names its own).
// The flags pin a single endpoint (an explicit choice of server). The environment variables do not:
// most users export OPENAI_API_KEY, and it must not silently switch every alias's fallbacks off.
// `${VAR}` is expanded only in the value that wins, so an unset variable in a shadowed layer never
// fails a request.
// Headers (docs/config.md#provider-headers): each entry sends its provider's `headers:`; `--header`
// adds to (and replaces by name) the primary's alone, as --api-key would: a fallback on another server
// must not get a gateway's credential meant for the primary's.
import { Effect, Redacted } from "effect"
import { type Env, expandVars } from "./env.ts"
import { ConfigError } from "./configErrors.ts"
import { displayUrl } from "../core/urls.ts"
import { type ApiKeyCmdOptions, resolveApiKeyCmd } from "./apiKeyCmd.ts"
import { headerProblem, type HeaderList, mergeHeaders } from "./headers.ts"
import type { ConfigOrigins } from "./load.ts"
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

export type BaseUrlSource =
  | "flag" // --base-url
  | "env" // OPENAI_BASE_URL
  | "provider" // models[].provider.base_url
  | "config" // top-level base_url
  | "default"

export interface SamplingDefaults {
  readonly reasoningEffort?: ReasoningEffort
  readonly temperature?: number
  readonly topP?: number
  readonly maxTokens?: number
}

export interface Endpoint {
  /** Normalised: no trailing `/`, never empty. */
  readonly baseUrl: string
  readonly baseUrlSource: BaseUrlSource
  readonly modelId: string
  /** Resolved on demand (runs api_key_cmd, cached per process); the dummy key when `apiKeySource` is "none". */
  readonly apiKey: Effect.Effect<Redacted.Redacted<string>, ConfigError>
  readonly apiKeySource: ApiKeySource
  /**
   * Where the key's setting is written, for `provider*` and `config*` sources: a config file as shown
   * to the user, or WORKFLOW_MODELS. Absent when unknown (library use).
   */
  readonly apiKeyIn?: string
  readonly api: ModelApi
  readonly pricing?: Pricing
  /** The primary definition's defaults; fallbacks inherit them (their own are ignored, as upstream). */
  readonly sampling: SamplingDefaults
  /** The alias this came from, if the name was one. */
  readonly alias?: string
  /** Extra request headers, names in lower case, values expanded: secrets of the run. Absent: none. */
  readonly headers?: Readonly<Record<string, string>>
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
  /** `--header`, in order (a later one replaces an earlier one of the same name): the primary's only. */
  readonly headers?: HeaderList | undefined
}

export interface ResolveOptions {
  /** A workflow's own `models:`; checked before the config's. */
  readonly workflowModels?: ModelMap | undefined
  readonly overrides?: EndpointOverrides | undefined
  /** For api_key_cmd (timeout, caps, cwd); the environment is the resolver's `env`. */
  readonly apiKeyCmd?: ApiKeyCmdOptions | undefined
  /** The config files that set each alias and the top-level key, as shown (src/config/load.ts). */
  readonly origins?: ConfigOrigins | undefined
}

/** `apiKeyIn` of a key from a workflow's own `models:`. */
export const WORKFLOW_MODELS = "the workflow's models:"

const normalizeBaseUrl = (value: string) => {
  const trimmed = value.replace(/\/+$/, "")
  return trimmed.length === 0
    ? Effect.fail(new ConfigError({ reason: { _tag: "EmptyBaseUrl" } }))
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

type ResolvedKey = {
  readonly source: ApiKeySource
  readonly apiKey: Effect.Effect<Redacted.Redacted<string>, ConfigError>
}

/**
 * The key of one endpoint from its config layers (a primary's override is handled by the caller).
 * `envKey` is OPENAI_API_KEY for a fallback: below its own provider key, above the top-level one.
 */
const keyFromLayers = (
  provider: KeyLayer | undefined,
  config: ConfigFile,
  env: Env,
  cmd: ApiKeyCmdOptions,
  envKey?: string
): ResolvedKey => {
  const cmdOptions = { ...cmd, env }
  if (provider?.api_key !== undefined) return { source: "provider", apiKey: literalKey(provider.api_key, env) }
  if (provider?.api_key_cmd !== undefined) {
    return { source: "provider_cmd", apiKey: resolveApiKeyCmd(provider.api_key_cmd, cmdOptions) }
  }
  if (envKey !== undefined) return { source: "env", apiKey: Effect.succeed(Redacted.make(envKey)) }
  if (config.api_key !== undefined) return { source: "config", apiKey: literalKey(config.api_key, env) }
  if (config.api_key_cmd !== undefined) {
    return { source: "config_cmd", apiKey: resolveApiKeyCmd(config.api_key_cmd, cmdOptions) }
  }
  return { source: "none", apiKey: Effect.succeed(Redacted.make(DUMMY_API_KEY)) }
}

/** Where the setting behind a key of `source` is written: the alias's file, or the top-level key's. */
const keyWrittenIn = (source: ApiKeySource, aliasIn: string | undefined, origins: ConfigOrigins | undefined) =>
  source === "provider" || source === "provider_cmd"
    ? aliasIn
    : source === "config" || source === "config_cmd"
    ? origins?.apiKey
    : undefined

/**
 * The headers of one endpoint: its provider's, `${VAR}` expanded, then `extra` (the flags). Checked
 * here, where the values are known; `context` names the definition in the error.
 */
const endpointHeaders = (
  written: Readonly<Record<string, string>> | undefined,
  extra: HeaderList,
  env: Env,
  context: string
) =>
  Effect.gen(function*() {
    const expanded: Array<readonly [string, string]> = []
    for (const [name, value] of Object.entries(written ?? {})) {
      const header = [name, yield* expandVars(value, env, { secret: true })] as const
      const problem = headerProblem(...header)
      if (problem !== undefined) return yield* new ConfigError({ reason: { _tag: "ModelHeader", context, problem } })
      expanded.push(header)
    }
    const merged = mergeHeaders({}, [...expanded, ...extra])
    return Object.keys(merged).length === 0 ? {} : { headers: merged }
  })

const definitionContext = (alias: string, index: number) =>
  index === 0
    ? `model definition ${JSON.stringify(alias)}`
    : `model definition ${JSON.stringify(alias)}'s fallback entry #${index + 1}`

/** Workflow `models:` are not checked at config load, so the alias being used is checked here. */
const checkDefinition = (alias: string, definition: ModelDefinition, index: number) => {
  const context = definitionContext(alias, index)
  if (definition.model_id.trim().length === 0) {
    return Effect.fail(new ConfigError({ reason: { _tag: "EmptyModelId", context } }))
  }
  if (definition.provider.api_key !== undefined && definition.provider.api_key_cmd !== undefined) {
    return Effect.fail(new ConfigError({ reason: { _tag: "BothApiKeys", context } }))
  }
  return Effect.void
}

/**
 * The endpoints for model `name` (an alias from the workflow's or the config's `models:`, else a raw
 * model id), primary first. `--base-url`/`--api-key` pin the primary alone; OPENAI_BASE_URL and
 * OPENAI_API_KEY apply to the primary and leave the fallbacks in place.
 */
export const resolveEndpoints = Effect.fn("config.resolveEndpoints")(function*(
  name: string,
  config: ConfigFile,
  env: Env,
  options?: ResolveOptions
) {
  if (name.trim().length === 0) return yield* new ConfigError({ reason: { _tag: "EmptyModelName" } })
  const cmd = options?.apiKeyCmd ?? {}
  const flagBaseUrl = options?.overrides?.baseUrl
  const flagKey = options?.overrides?.apiKey
  const flagHeaders = options?.overrides?.headers ?? []
  const envBaseUrl = envValue(env, "OPENAI_BASE_URL")
  const envKey = envValue(env, "OPENAI_API_KEY")
  const baseUrlOverride: { readonly source: BaseUrlSource; readonly value: string } | undefined =
    flagBaseUrl !== undefined
      ? { source: "flag", value: flagBaseUrl }
      : envBaseUrl !== undefined
      ? { source: "env", value: envBaseUrl }
      : undefined
  const keyOverride: ResolvedKey | undefined = flagKey !== undefined
    ? { source: "flag", apiKey: Effect.succeed(Redacted.isRedacted(flagKey) ? flagKey : Redacted.make(flagKey)) }
    : envKey !== undefined
    ? { source: "env", apiKey: Effect.succeed(Redacted.make(envKey)) }
    : undefined
  const pinned = flagBaseUrl !== undefined || flagKey !== undefined

  const fromWorkflow = options?.workflowModels?.[name]
  const definitions = fromWorkflow ?? config.models?.[name]
  const aliasIn = fromWorkflow !== undefined ? WORKFLOW_MODELS : options?.origins?.models[name]
  if (definitions !== undefined && definitions.length === 0) {
    return yield* new ConfigError({ reason: { _tag: "EmptyDefinition", name } })
  }

  if (definitions === undefined) {
    const baseUrlSource: BaseUrlSource = baseUrlOverride?.source ??
      (config.base_url !== undefined ? "config" : "default")
    const baseUrl = yield* normalizeBaseUrl(
      baseUrlOverride?.value ??
        (config.base_url !== undefined ? yield* expandVars(config.base_url, env) : DEFAULT_BASE_URL)
    )
    const key = keyOverride ?? keyFromLayers(undefined, config, env, cmd)
    const keyIn = keyWrittenIn(key.source, undefined, options?.origins)
    const raw: Endpoint = {
      baseUrl,
      baseUrlSource,
      modelId: name,
      apiKey: key.apiKey,
      apiKeySource: key.source,
      ...(keyIn === undefined ? {} : { apiKeyIn: keyIn }),
      ...(yield* endpointHeaders(undefined, flagHeaders, env, "--header")),
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
    const primaryOverride = index === 0 ? baseUrlOverride : undefined
    const baseUrl = yield* normalizeBaseUrl(
      primaryOverride?.value ?? (yield* expandVars(definition.provider.base_url, env))
    )
    const key = index === 0
      ? keyOverride ?? keyFromLayers(definition.provider, config, env, cmd)
      : keyFromLayers(definition.provider, config, env, cmd, envKey)
    const keyIn = keyWrittenIn(key.source, aliasIn, options?.origins)
    endpoints.push({
      ...shared,
      baseUrl,
      baseUrlSource: primaryOverride?.source ?? "provider",
      modelId: definition.model_id,
      apiKey: key.apiKey,
      apiKeySource: key.source,
      ...(keyIn === undefined ? {} : { apiKeyIn: keyIn }),
      ...(yield* endpointHeaders(
        definition.provider.headers,
        index === 0 ? flagHeaders : [],
        env,
        definitionContext(name, index)
      )),
      index
    })
  }
  return endpoints as unknown as Endpoints
})

export const BASE_URL_SOURCES: Record<BaseUrlSource, string> = {
  flag: "--base-url",
  env: "OPENAI_BASE_URL",
  provider: "provider.base_url",
  config: "top-level base_url",
  default: "the default"
}

export const API_KEY_SOURCES: Record<ApiKeySource, string> = {
  flag: "--api-key",
  env: "OPENAI_API_KEY",
  provider: "provider.api_key",
  provider_cmd: "provider.api_key_cmd",
  config: "top-level api_key",
  config_cmd: "top-level api_key_cmd",
  none: "nowhere (the dummy key is sent)"
}

/** For `-v`: where endpoint `endpoint` of model `name` took its base URL and key from (never the key). */
export const describeEndpointSources = (name: string, endpoint: Endpoint): string => {
  const role = endpoint.index === 0 ? "primary" : `fallback #${endpoint.index}`
  const headers = Object.keys(endpoint.headers ?? {})
  return `model '${name}': ${role} '${endpoint.modelId}' at '${displayUrl(endpoint.baseUrl)}': base URL from ` +
    `${BASE_URL_SOURCES[endpoint.baseUrlSource]}, API key from ${API_KEY_SOURCES[endpoint.apiKeySource]}` +
    (headers.length === 0 ? "" : `, headers ${headers.join(", ")}`)
}

/**
 * Where an endpoint's key came from, for a 401/403 (src/model/Live.ts): the flag, the variable, or the
 * setting and the file it is in; never the key. Undefined when no key was configured at all.
 */
export const describeApiKeySource = (
  endpoint: Pick<Endpoint, "apiKeySource"> & {
    readonly apiKeyIn?: string | undefined
    readonly alias?: string | undefined
  }
): string | undefined => {
  const where = endpoint.apiKeyIn === undefined ? "" : ` in ${endpoint.apiKeyIn}`
  const alias = endpoint.alias === undefined ? "" : ` of model '${endpoint.alias}'`
  switch (endpoint.apiKeySource) {
    case "flag":
    case "env":
      return API_KEY_SOURCES[endpoint.apiKeySource]
    case "provider":
    case "provider_cmd":
      return `${API_KEY_SOURCES[endpoint.apiKeySource]}${alias}${where}`
    case "config":
      return `api_key${where}`
    case "config_cmd":
      return `api_key_cmd${where}`
    case "none":
      return undefined
  }
}
