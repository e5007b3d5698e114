// The checks of `lait doctor`, each an OK/WARN/FAIL line: the config files (found, parsed, lint
// clean), every api_key_cmd (runs and prints a key), every model alias's endpoints and the default
// model (the server answers GET /models, accepts the key, lists the model id), and every MCP server
// (starts, lists its tools). Everything after the config runs concurrently, and every wait is bounded
// by the timeout, so a hanging server or command costs at most that long, never the whole run. A
// fallback's problem is a WARN: requests still have the primary.
import { Effect, Redacted, Result } from "effect"
import { type Endpoint, resolveEndpoints } from "../config/endpoints.ts"
import { resolveApiKeyCmd } from "../config/apiKeyCmd.ts"
import type { CommandSpec, ConfigFile } from "../config/schema.ts"
import { renderChain } from "../core/errors.ts"
import { displayUrl } from "../core/urls.ts"
import type { ModelHttp } from "../model/ModelHttp.ts"
import { makeMcpRegistry } from "../tools/mcp/registry.ts"
import { keyCmdOptions, type ModelsContext, topLevelEndpoint } from "./models.ts"
import { type ListOutcome, listRemoteModels } from "./remote.ts"

export type Status = "ok" | "warn" | "fail"

export interface Check {
  readonly status: Status
  /** What kind of thing was checked. */
  readonly check: "config" | "api_key_cmd" | "model" | "endpoint" | "mcp" | "file"
  /** Which one: a file, a config place, an alias or model id, a server name, `agents.NAME`. */
  readonly name: string
  /** Printed before the colon (`model 'fast' fallback #1`). */
  readonly label: string
  readonly message: string
}

const seconds = (millis: number) => `${millis / 1000} s`

// ---------------------------------------------------------------------------------------------------
// api_key_cmd

interface KeyCmd {
  /** `api_key_cmd`, `models.fast.provider`, `models.fast[1].provider`. */
  readonly place: string
  readonly spec: CommandSpec
}

const keyCmds = (config: ConfigFile): ReadonlyArray<KeyCmd> => {
  const found: Array<KeyCmd> = []
  if (config.api_key_cmd !== undefined) found.push({ place: "top level", spec: config.api_key_cmd })
  for (const alias of Object.keys(config.models ?? {}).sort()) {
    config.models![alias]!.forEach((definition, index) => {
      const spec = definition.provider.api_key_cmd
      if (spec !== undefined) found.push({ place: index === 0 ? `models.${alias}` : `models.${alias}[${index}]`, spec })
    })
  }
  return found
}

/** Runs each distinct command once; what it printed stays in the process cache for the model checks. */
const runKeyCmds = (ctx: ModelsContext) =>
  Effect.gen(function*() {
    const cmds = keyCmds(ctx.config)
    const distinct = [...new Map(cmds.map((c) => [JSON.stringify(c.spec), c.spec])).entries()]
    const outcomes = new Map(
      yield* Effect.forEach(distinct, ([id, spec]) =>
        resolveApiKeyCmd(spec, { ...keyCmdOptions(ctx), env: ctx.env }).pipe(
          Effect.result,
          Effect.map((result) => [id, Result.isSuccess(result) ? undefined : renderChain(result.failure)] as const)
        ), { concurrency: 8 })
    )
    const checks = cmds.map(({ place, spec }): Check => {
      const problem = outcomes.get(JSON.stringify(spec))
      return {
        status: problem === undefined ? "ok" : "fail",
        check: "api_key_cmd",
        name: place,
        label: `api_key_cmd (${place})`,
        message: problem ?? "printed a key"
      }
    })
    const failedSpecs = new Set([...outcomes].flatMap(([id, problem]) => (problem === undefined ? [] : [id])))
    return { checks, failedSpecs }
  })

// ---------------------------------------------------------------------------------------------------
// Models and endpoints

interface Use {
  readonly check: "model" | "endpoint"
  readonly name: string
  readonly label: string
  readonly endpoint: Endpoint
  /** The model id to look for in the list; undefined for a bare endpoint. */
  readonly modelId: string | undefined
}

/** The api_key_cmd an endpoint's key comes from, as `runKeyCmds` keys them. */
const specOf = (config: ConfigFile, endpoint: Endpoint): string | undefined => {
  if (endpoint.apiKeySource === "config_cmd") return JSON.stringify(config.api_key_cmd)
  if (endpoint.apiKeySource !== "provider_cmd" || endpoint.alias === undefined) return undefined
  return JSON.stringify(config.models?.[endpoint.alias]?.[endpoint.index]?.provider.api_key_cmd)
}

const modelMessage = (use: Use, outcome: ListOutcome): { readonly status: Status; readonly message: string } => {
  const where = displayUrl(use.endpoint.baseUrl)
  const fallback = use.endpoint.index > 0
  if (outcome._tag === "Failed") {
    // A server without a model list may still serve completions: nothing is known to be wrong.
    const status: Status = outcome.kind === "no-list" || fallback ? "warn" : "fail"
    return { status, message: `${where}: ${outcome.problem}` }
  }
  const key = use.endpoint.apiKeySource === "none" ? "no key configured" : "key accepted"
  if (use.modelId === undefined) {
    return { status: "ok", message: `${where}: reachable, ${key} (${outcome.ids.length} models)` }
  }
  if (outcome.ids.includes(use.modelId)) return { status: "ok", message: `${where}: '${use.modelId}' listed, ${key}` }
  return {
    status: "warn",
    message: `${where}: '${use.modelId}' is not among the ${outcome.ids.length} models the server lists (${key})`
  }
}

const modelUses = (ctx: ModelsContext) =>
  Effect.gen(function*() {
    // In alias order; an endpoint that cannot be resolved is its check already.
    const uses: Array<Use | Check> = []
    const aliases = Object.keys(ctx.config.models ?? {}).sort()
    for (const alias of aliases) {
      const resolved = yield* Effect.result(
        resolveEndpoints(alias, ctx.config, ctx.env, { apiKeyCmd: keyCmdOptions(ctx) })
      )
      if (resolved._tag === "Failure") {
        const label = `model '${alias}'`
        uses.push({ status: "fail", check: "model", name: alias, label, message: renderChain(resolved.failure) })
        continue
      }
      for (const endpoint of resolved.success) {
        const label = `model '${alias}'${endpoint.index === 0 ? "" : ` fallback #${endpoint.index}`}`
        uses.push({ check: "model", name: alias, label, endpoint, modelId: endpoint.modelId })
      }
    }
    const defaultModel = ctx.config.default?.model
    const raw = defaultModel !== undefined && ctx.config.models?.[defaultModel] === undefined
    // The server a raw model id goes to is checked when something would use it: default.model, or a
    // base URL set on purpose. An unset one would only probe the localhost default.
    if (raw || (aliases.length === 0 && (ctx.config.base_url !== undefined || ctx.env["OPENAI_BASE_URL"]))) {
      const name = raw ? defaultModel : "top level"
      const label = raw ? `model '${defaultModel}' (default.model)` : "endpoint (top level)"
      const check = raw ? "model" as const : "endpoint" as const
      const endpoint = yield* Effect.result(topLevelEndpoint(ctx, defaultModel ?? "default"))
      if (endpoint._tag === "Failure") {
        uses.push({ status: "fail", check, name, label, message: renderChain(endpoint.failure) })
      } else {
        uses.push({ check, name, label, endpoint: endpoint.success, modelId: raw ? defaultModel : undefined })
      }
    }
    return uses
  })

const modelChecks = (ctx: ModelsContext, failedSpecs: ReadonlySet<string>) =>
  Effect.gen(function*() {
    const uses = yield* modelUses(ctx)
    // Each distinct server, key and headers is asked once, however many aliases use it.
    const lists = new Map<string, Effect.Effect<ListOutcome, never, ModelHttp>>()
    const checkOne = (use: Use) =>
      Effect.gen(function*() {
        const spec = specOf(ctx.config, use.endpoint)
        const bad = spec !== undefined && failedSpecs.has(spec)
        const key = bad ? undefined : yield* Effect.result(use.endpoint.apiKey)
        if (key === undefined || key._tag === "Failure") {
          const why = key === undefined ? "its api_key_cmd failed" : renderChain(key.failure)
          const message = `${displayUrl(use.endpoint.baseUrl)}: no key (${why})`
          return { status: "fail", check: use.check, name: use.name, label: use.label, message } satisfies Check
        }
        const { baseUrl, headers } = use.endpoint
        const id = JSON.stringify([baseUrl, Redacted.value(key.success), headers ?? {}])
        let list = lists.get(id)
        if (list === undefined) {
          const made = yield* Effect.cached(listRemoteModels(baseUrl, key.success, ctx.timeoutMillis, headers))
          // Another check may have made one meanwhile (making yields): the first one made is the one asked.
          list = lists.get(id) ?? made
          lists.set(id, list)
        }
        return { check: use.check, name: use.name, label: use.label, ...modelMessage(use, yield* list) } satisfies Check
      })
    return yield* Effect.forEach(
      uses,
      (use) => ("status" in use ? Effect.succeed(use) : checkOne(use)),
      { concurrency: 8 }
    )
  })

// ---------------------------------------------------------------------------------------------------
// MCP servers

const mcpChecks = (ctx: ModelsContext) =>
  Effect.forEach(
    Object.keys(ctx.config.mcp_servers ?? {}).sort(),
    (name) =>
      Effect.scoped(
        Effect.gen(function*() {
          const registry = yield* makeMcpRegistry({
            servers: ctx.config.mcp_servers,
            env: ctx.env,
            cwd: ctx.cwd,
            timeoutMs: ctx.timeoutMillis
          })
          return yield* registry.tools(name)
        })
      ).pipe(
        // The registry's own I/O timeout bounds each step; this bounds them together.
        Effect.timeout(ctx.timeoutMillis + 1000),
        Effect.result,
        Effect.map((result): Check => {
          const base = { check: "mcp", name, label: `mcp '${name}'` } as const
          if (result._tag === "Success") {
            return { ...base, status: "ok", message: `started, ${result.success.length} tools` }
          }
          const failure = result.failure
          const message = failure._tag === "TimeoutError"
            ? `no answer within ${seconds(ctx.timeoutMillis)}`
            : renderChain(failure)
          return { ...base, status: "fail", message }
        })
      ),
    { concurrency: 8 }
  )

/** Every check but the config's, in a stable order: api_key_cmd, models, MCP servers. */
export const runtimeChecks = (ctx: ModelsContext) =>
  Effect.gen(function*() {
    const [models, mcp] = yield* Effect.all([
      Effect.flatMap(runKeyCmds(ctx), ({ checks, failedSpecs }) =>
        Effect.map(modelChecks(ctx, failedSpecs), (m) => [...checks, ...m])),
      mcpChecks(ctx)
    ], { concurrency: 2 })
    return [...models, ...mcp]
  })
