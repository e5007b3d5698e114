// What one chat conversation sends, resolved once from flags, environment and config: the model's
// endpoints, sampling, system prompt, tools and structured output. One-shot chat, `--session`,
// `lait prompt run`, `lait compare` and the `lait chat` REPL all resolve through here.
//
// Precedence: a flag, else its environment variable (LLM_MODEL, LLM_TEMPERATURE, LLM_TOP_P,
// LLM_MAX_TOKENS, LLM_REASONING_EFFORT; read after `.env`), else config `default:`, else the model
// alias's `default_*`. The model name: --model/LLM_MODEL, else a named prompt's `model:`, else
// default.model. --base-url/--api-key pin one endpoint (no fallbacks); OPENAI_BASE_URL and
// OPENAI_API_KEY apply to the primary endpoint as they do for `lait run`. default.skills apply too.
import { Effect } from "effect"
import { type LaitConfigService } from "../config/LaitConfig.ts"
import type { Endpoints } from "../config/endpoints.ts"
import type { ConfigError } from "../config/configErrors.ts"
import { isJsonObject } from "../core/json.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import type { ReasoningEffort, ResponseFormat } from "../model/types.ts"
import type { FileLoaderService } from "../platform/FileLoader.ts"
import type { ToolNames } from "../tools/request.ts"
import { ChatError } from "./chatErrors.ts"

export const DEFAULT_SCHEMA_NAME = "structured_output"

/** The chat settings a command line (or a REPL command) gives; every field may be absent. */
export interface ChatOptions {
  readonly model?: string | undefined
  /** A named prompt's own `model:`, below --model/LLM_MODEL and above default.model. */
  readonly modelFallback?: string | undefined
  readonly baseUrl?: string | undefined
  readonly apiKey?: string | undefined
  readonly system?: string | undefined
  readonly systemFile?: string | undefined
  /** Raw flag text; checked (and the environment variable read) by resolveChatSettings. */
  readonly temperature?: string | undefined
  readonly topP?: string | undefined
  readonly maxTokens?: string | undefined
  readonly reasoningEffort?: string | undefined
  readonly mcp?: ReadonlyArray<string> | undefined
  readonly subagents?: ReadonlyArray<string> | undefined
  readonly tools?: ReadonlyArray<string> | undefined
  readonly jsonSchema?: string | undefined
  readonly schemaName?: string | undefined
  /** Usage and trace label of every request (default `chat`). */
  readonly label?: string | undefined
  /** Whether LLM_* environment variables stand in for absent flags (default true). */
  readonly fromEnv?: boolean | undefined
}

export interface Sampling {
  readonly reasoning_effort?: ReasoningEffort
  readonly temperature?: number
  readonly top_p?: number
  readonly max_tokens?: number
}

/** A resolved chat: everything a turn needs besides its messages. */
export interface ChatSettings {
  /** The model name as given (an alias or a raw model id). */
  readonly model: string
  /** Primary first; one endpoint when --base-url/--api-key pinned it. */
  readonly endpoints: Endpoints
  readonly label: string
  readonly sampling: Sampling
  /** Sent as the first message of every request; never stored in a session. */
  readonly system: string | undefined
  readonly tools: ToolNames
  readonly maxToolRounds: number | undefined
  /** `--json-schema`: the final answer is requested with this (strict) schema. */
  readonly responseFormat: ResponseFormat | null
}

const EFFORTS: ReadonlyArray<ReasoningEffort> = ["none", "minimal", "low", "medium", "high", "xhigh"]

interface NumberRule {
  readonly flag: string
  readonly env: string
  readonly min: number
  readonly max: number
  readonly integer: boolean
  readonly expected: string
}

const TEMPERATURE: NumberRule = {
  flag: "--temperature <TEMPERATURE>",
  env: "LLM_TEMPERATURE",
  min: 0,
  max: 2,
  integer: false,
  expected: "a number from 0 to 2"
}
const TOP_P: NumberRule = {
  flag: "--top-p <TOP_P>",
  env: "LLM_TOP_P",
  min: 0,
  max: 1,
  integer: false,
  expected: "a number from 0 to 1"
}
const MAX_TOKENS: NumberRule = {
  flag: "--max-tokens <MAX_TOKENS>",
  env: "LLM_MAX_TOKENS",
  min: 1,
  max: Number.MAX_SAFE_INTEGER,
  integer: true,
  expected: "an integer of at least 1"
}

/** The flag's value, else its environment variable's (empty counts as unset). */
const flagOrEnv = (flag: string | undefined, env: LaitConfigService["env"], name: string) => {
  if (flag !== undefined) return flag
  const value = env[name]
  return value === undefined || value === "" ? undefined : value
}

const numberSetting = (raw: string | undefined, rule: NumberRule) => {
  if (raw === undefined) return Effect.succeed(undefined)
  const text = raw.trim()
  const value = Number(text)
  const ok = text !== "" && Number.isFinite(value) && value >= rule.min && value <= rule.max &&
    (!rule.integer || Number.isInteger(value))
  return ok
    ? Effect.succeed(value)
    : Effect.fail(
      new ArgumentError({ reason: { _tag: "InvalidValue", flag: rule.flag, value: raw, expected: rule.expected } })
    )
}

const effortSetting = (raw: string | undefined) => {
  if (raw === undefined) return Effect.succeed(undefined)
  return (EFFORTS as ReadonlyArray<string>).includes(raw)
    ? Effect.succeed(raw as ReasoningEffort)
    : Effect.fail(
      new ArgumentError({
        reason: {
          _tag: "InvalidValue",
          flag: "--reasoning-effort <REASONING_EFFORT>",
          value: raw,
          expected: `one of ${EFFORTS.join(", ")}`
        }
      })
    )
}

const nonEmpty = (names: ReadonlyArray<string> | undefined) =>
  names !== undefined && names.length > 0 ? names : undefined

/** The system prompt: --system, else --system-file (trailing whitespace dropped), else default.system. */
export const systemPrompt = (options: ChatOptions, config: LaitConfigService, files: FileLoaderService) => {
  if (options.system !== undefined) return Effect.succeed(options.system)
  if (options.systemFile !== undefined) {
    const path = options.systemFile
    return files.readText(path).pipe(
      Effect.map((text) => text.trimEnd()),
      Effect.mapError((e) => new ChatError({ reason: { _tag: "SystemFile", path, detail: e.detail } }))
    )
  }
  return Effect.succeed(config.config.default?.system)
}

const responseFormat = (options: ChatOptions, files: FileLoaderService) => {
  const path = options.jsonSchema
  if (path === undefined) return Effect.succeed(null)
  return Effect.gen(function*() {
    const text = yield* files.readText(path).pipe(
      Effect.mapError((e) => new ChatError({ reason: { _tag: "JsonSchemaRead", path, detail: e.detail } }))
    )
    let schema: unknown
    try {
      schema = JSON.parse(text)
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e)
      return yield* new ChatError({ reason: { _tag: "JsonSchemaFile", path, detail } })
    }
    if (!isJsonObject(schema as never)) {
      const detail = "the schema must be a JSON object"
      return yield* new ChatError({ reason: { _tag: "JsonSchemaFile", path, detail } })
    }
    const name = options.schemaName ?? DEFAULT_SCHEMA_NAME
    return { type: "json_schema", json_schema: { name, schema, strict: true } } satisfies ResponseFormat
  })
}

/**
 * Resolves a chat's settings. Fails with a ChatError (no model), an ArgumentError (a sampling value
 * out of range, from a flag or its environment variable), a ConfigError (endpoints) or the file
 * errors of --system-file/--json-schema.
 */
export const resolveChatSettings = (
  options: ChatOptions,
  config: LaitConfigService,
  files: FileLoaderService
): Effect.Effect<ChatSettings, ChatError | ArgumentError | ConfigError> =>
  Effect.gen(function*() {
    const env = options.fromEnv === false ? {} : config.env
    const defaults = config.config.default
    const temperature = yield* numberSetting(flagOrEnv(options.temperature, env, TEMPERATURE.env), TEMPERATURE)
    const topP = yield* numberSetting(flagOrEnv(options.topP, env, TOP_P.env), TOP_P)
    const maxTokens = yield* numberSetting(flagOrEnv(options.maxTokens, env, MAX_TOKENS.env), MAX_TOKENS)
    const effort = yield* effortSetting(flagOrEnv(options.reasoningEffort, env, "LLM_REASONING_EFFORT"))
    const model = [flagOrEnv(options.model, env, "LLM_MODEL"), options.modelFallback, defaults?.model]
      .find((m) => m !== undefined && m.trim() !== "")
    if (model === undefined) return yield* new ChatError({ reason: { _tag: "ModelRequired" } })
    const endpoints = yield* config.resolveEndpoints(model, {
      overrides: { baseUrl: options.baseUrl, apiKey: options.apiKey }
    })
    const own = endpoints[0].sampling
    const pick = <A>(flag: A | undefined, configured: A | undefined, alias: A | undefined) =>
      flag ?? configured ?? alias
    const sampling: Sampling = {
      ...optional("reasoning_effort", pick(effort, defaults?.reasoning_effort, own.reasoningEffort)),
      ...optional("temperature", pick(temperature, defaults?.temperature, own.temperature)),
      ...optional("top_p", pick(topP, defaults?.top_p, own.topP)),
      ...optional("max_tokens", pick(maxTokens, defaults?.max_tokens, own.maxTokens))
    }
    return {
      model,
      endpoints,
      label: options.label ?? "chat",
      sampling,
      system: yield* systemPrompt(options, config, files),
      tools: {
        mcp: nonEmpty(options.mcp) ?? defaults?.mcp,
        subagents: nonEmpty(options.subagents) ?? defaults?.subagents,
        tools: nonEmpty(options.tools) ?? defaults?.tools,
        // As in a workflow step (src/tools/skills.ts), progressive disclosure included.
        skills: defaults?.skills
      },
      maxToolRounds: defaults?.max_tool_rounds,
      responseFormat: yield* responseFormat(options, files)
    } satisfies ChatSettings
  })

const optional = <K extends string, A>(key: K, value: A | undefined): { [P in K]?: A } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: A }
