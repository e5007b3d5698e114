// `lait models [--json]`: the configured aliases, each endpoint (primary, then fallbacks) as a request
// would resolve it (OPENAI_* and --base-url/--api-key included), keys masked, pricing. api_key_cmd is
// not run for this listing. `--remote` asks each distinct base URL's `GET /models` once per key
// (and headers) the aliases send it instead (./remote.ts); a server that cannot be listed is an error
// line of its own, naming the aliases, and the exit code, never the end of the others.
import { Console, Effect, Redacted } from "effect"
import {
  API_KEY_SOURCES,
  type Endpoint,
  type EndpointOverrides,
  resolveEndpoints
} from "../config/endpoints.ts"
import type { GlobalKeyCmds } from "../config/apiKeyCmd.ts"
import type { ConfigFile } from "../config/schema.ts"
import type { Env } from "../config/env.ts"
import { renderChain } from "../core/errors.ts"
import type { ConfigError } from "../config/configErrors.ts"
import { maskedKey } from "../core/secrets.ts"
import { displayUrl, joinUrl } from "../core/urls.ts"
import type { ModelHttp } from "../model/ModelHttp.ts"
import { DoctorError } from "./doctorErrors.ts"
import { listRemoteModels } from "./remote.ts"

export interface ModelsContext {
  readonly config: ConfigFile
  readonly env: Env
  readonly cwd: string
  readonly overrides: EndpointOverrides
  /** Per server (and per api_key_cmd run), in milliseconds. */
  readonly timeoutMillis: number
  /** The global file's api_key_cmds, which run without `.env`. */
  readonly globalKeyCmds?: GlobalKeyCmds | undefined
}

/** Options for api_key_cmd under `ctx`. */
export const keyCmdOptions = (ctx: ModelsContext) => ({
  cwd: ctx.cwd,
  timeoutMillis: ctx.timeoutMillis,
  ...(ctx.globalKeyCmds === undefined ? {} : { global: ctx.globalKeyCmds })
})

/** Every alias of the config, by name, resolved as a request for it would be; failures beside them. */
export const resolveAliases = (ctx: ModelsContext) =>
  Effect.forEach(
    Object.keys(ctx.config.models ?? {}).sort(),
    (alias) =>
      Effect.result(
        resolveEndpoints(alias, ctx.config, ctx.env, {
          overrides: ctx.overrides,
          apiKeyCmd: keyCmdOptions(ctx)
        })
      ).pipe(Effect.map((result) => ({ alias, result })))
  )

/** The endpoint a raw model id would use (the top-level one, or the flags'). */
export const topLevelEndpoint = (ctx: ModelsContext, modelId: string) =>
  Effect.map(
    resolveEndpoints(modelId, { ...ctx.config, models: {} }, ctx.env, {
      overrides: ctx.overrides,
      apiKeyCmd: keyCmdOptions(ctx)
    }),
    (endpoints) => endpoints[0]
  )

export const isKeyCmd = (endpoint: Endpoint) =>
  endpoint.apiKeySource === "provider_cmd" || endpoint.apiKeySource === "config_cmd"

/** `…wxyz`, `<redacted>`, or why there is no key to show; never the key. */
const keyColumn = (endpoint: Endpoint): Effect.Effect<string> => {
  if (endpoint.apiKeySource === "none") return Effect.succeed("none")
  if (isKeyCmd(endpoint)) return Effect.succeed("(not run)")
  return Effect.match(endpoint.apiKey, {
    onSuccess: (key) => maskedKey(Redacted.value(key)),
    // The table has no room for the whole sentence about an unset variable.
    onFailure: (error: ConfigError) =>
      error.reason._tag === "UnsetVariable" ? `(${error.reason.name} is not set)` : `(${renderChain(error)})`
  })
}

interface EndpointRow {
  readonly role: string
  readonly modelId: string
  readonly baseUrl: string
  readonly key: string
  readonly keySource: string
  readonly pricing: string
}

const pricingText = (endpoint: Endpoint) =>
  endpoint.index !== 0 || endpoint.pricing === undefined
    ? "-"
    : `in ${endpoint.pricing.input_per_1m}, out ${endpoint.pricing.output_per_1m}`

/** Columns padded to their widest cell, two spaces apart, no trailing blanks. */
const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n")
}

/** `lait models`: the text table or the JSON document; broken aliases are warned about on stderr. */
export const listLocal = (ctx: ModelsContext, json: boolean) =>
  Effect.gen(function*() {
    const resolved = yield* resolveAliases(ctx)
    const defaultModel = ctx.config.default?.model
    const aliases: Array<{ readonly alias: string; readonly endpoints: ReadonlyArray<Endpoint & { key: string }> }> = []
    for (const { alias, result } of resolved) {
      if (result._tag === "Failure") {
        yield* Console.error(`warning: skipping model alias '${alias}': ${renderChain(result.failure)}`)
        continue
      }
      const endpoints = yield* Effect.forEach(result.success, (e) => Effect.map(keyColumn(e), (key) => ({ ...e, key })))
      aliases.push({ alias, endpoints })
    }
    if (json) {
      return JSON.stringify({
        default_model: defaultModel ?? null,
        models: aliases.map(({ alias, endpoints }) => ({
          name: alias,
          default: alias === defaultModel,
          endpoints: endpoints.map((e) => ({
            role: e.index === 0 ? "primary" : "fallback",
            model_id: e.modelId,
            base_url: displayUrl(e.baseUrl),
            base_url_source: e.baseUrlSource,
            api_key: e.key,
            api_key_source: e.apiKeySource,
            api: e.api,
            pricing: e.index === 0 && e.pricing !== undefined ? e.pricing : null
          }))
        }))
      })
    }
    if (aliases.length === 0) {
      yield* Console.error("note: no model aliases are configured; `lait models --remote` lists the server's models")
      return defaultModel === undefined ? undefined : `default model: ${defaultModel} (a raw model id)`
    }
    const rows: Array<EndpointRow> = aliases.flatMap(({ alias, endpoints }) =>
      endpoints.map((e) => ({
        role: e.index === 0 ? `${alias}${alias === defaultModel ? " *" : ""}` : `  fallback #${e.index}`,
        modelId: e.modelId,
        baseUrl: displayUrl(e.baseUrl),
        key: e.key,
        keySource: e.apiKeySource === "none" ? "-" : API_KEY_SOURCES[e.apiKeySource],
        pricing: pricingText(e)
      }))
    )
    const lines = [
      table([
        ["ALIAS", "MODEL_ID", "BASE_URL", "API_KEY", "KEY_FROM", "PRICING (USD/1M tokens)"],
        ...rows.map((r) => [r.role, r.modelId, r.baseUrl, r.key, r.keySource, r.pricing])
      ])
    ]
    if (defaultModel !== undefined) {
      lines.push(
        aliases.some((a) => a.alias === defaultModel)
          ? "(* = default.model)"
          : `default model: ${defaultModel} (a raw model id)`
      )
    }
    return lines.join("\n")
  })

/**
 * One question to ask: a server's URL as requested, with one key and the same headers, and the aliases
 * that send it so. Two aliases with different keys on one server are two targets: a bad key must not
 * make a shared server look down, and its line names whose key it was.
 */
interface Target {
  readonly baseUrl: string
  readonly aliases: Array<string>
  readonly endpoint: Endpoint
  /** The key, or why there is none (the endpoint's api_key_cmd failed or took too long). */
  readonly key: { readonly _tag: "Key"; readonly key: Redacted.Redacted<string> } | {
    readonly _tag: "NoKey"
    readonly problem: string
  }
}

const targetKey = (endpoint: Endpoint, timeoutMillis: number): Effect.Effect<Target["key"]> =>
  Effect.match(endpoint.apiKey.pipe(Effect.timeout(timeoutMillis)), {
    onSuccess: (key) => ({ _tag: "Key", key }) as const,
    onFailure: (e) => ({
      _tag: "NoKey",
      problem: e._tag === "TimeoutError" ? `api_key_cmd gave no key within ${timeoutMillis / 1000} s` : renderChain(e)
    }) as const
  })

const remoteTargets = (ctx: ModelsContext) =>
  Effect.gen(function*() {
    // The flags name one server: that one alone, as upstream.
    if (ctx.overrides.baseUrl === undefined) {
      const targets = new Map<string, Target>()
      for (const { alias, result } of yield* resolveAliases(ctx)) {
        if (result._tag === "Failure") {
          yield* Console.error(`warning: skipping model alias '${alias}': ${renderChain(result.failure)}`)
          continue
        }
        for (const endpoint of result.success) {
          // One at a time: an api_key_cmd shared by aliases runs once (its key is cached per process).
          const key = yield* targetKey(endpoint, ctx.timeoutMillis)
          const id = key._tag === "Key"
            ? JSON.stringify([endpoint.baseUrl, Redacted.value(key.key), endpoint.headers ?? {}])
            : JSON.stringify([endpoint.baseUrl, alias, endpoint.index])
          const target = targets.get(id)
          if (target === undefined) targets.set(id, { baseUrl: endpoint.baseUrl, aliases: [alias], endpoint, key })
          else if (!target.aliases.includes(alias)) target.aliases.push(alias)
        }
      }
      if (targets.size > 0) return [...targets.values()]
    }
    const endpoint = yield* topLevelEndpoint(ctx, ctx.config.default?.model ?? "default")
    return [{ baseUrl: endpoint.baseUrl, aliases: [], endpoint, key: yield* targetKey(endpoint, ctx.timeoutMillis) }]
  })

export interface RemoteListing {
  readonly stdout: string
  readonly failure: DoctorError | undefined
}

/** ` (a, b)`: the aliases that sent a request, as each line about it names them; empty for none. */
const aliasesOf = (target: Target) => (target.aliases.length > 0 ? ` (${target.aliases.join(", ")})` : "")

/** `lait models --remote`: what each server lists; the failures on stderr and in the exit code. */
export const listRemote = (
  ctx: ModelsContext,
  json: boolean
): Effect.Effect<RemoteListing, ConfigError, ModelHttp> =>
  Effect.gen(function*() {
    const targets = yield* remoteTargets(ctx)
    const outcomes = yield* Effect.forEach(targets, (target) =>
      Effect.gen(function*() {
        if (target.key._tag === "NoKey") {
          return { target, outcome: { _tag: "Failed", kind: "key", problem: target.key.problem } as const }
        }
        const { baseUrl, headers } = target.endpoint
        return { target, outcome: yield* listRemoteModels(baseUrl, target.key.key, ctx.timeoutMillis, headers) }
      }), { concurrency: 8 })
    const failed = outcomes.filter((o) => o.outcome._tag === "Failed")
    for (const { target, outcome } of failed) {
      if (outcome._tag === "Failed") {
        const url = displayUrl(joinUrl(target.baseUrl, "/models"))
        yield* Console.error(`error: GET ${url}${aliasesOf(target)}: ${outcome.problem}`)
      }
    }
    const stdout = json
      ? JSON.stringify(outcomes.map(({ target, outcome }) => ({
        base_url: displayUrl(target.baseUrl),
        aliases: target.aliases,
        ...(outcome._tag === "Listed" ? { models: outcome.ids } : { error: outcome.problem })
      })))
      : outcomes.filter((o) => o.outcome._tag === "Listed").map(({ target, outcome }) => {
        const ids = outcome._tag === "Listed" ? outcome.ids : []
        const listed = ids.length === 0 ? ["  (the server lists no models)"] : ids.map((id) => `  ${id}`)
        return [`${displayUrl(target.baseUrl)}${aliasesOf(target)}`, ...listed].join("\n")
      }).join("\n")
    const failure = failed.length === 0
      ? undefined
      : new DoctorError({ reason: { _tag: "ListFailed", failed: failed.length, total: outcomes.length } })
    return { stdout, failure }
  })
