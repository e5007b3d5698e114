// The one place that collects the secrets of a run (docs/environment.md#secrets): what the loaded
// configuration and the environment hold, registered when they are loaded (src/config/LaitConfig.ts),
// and what the run learns later (`api_key_cmd` keys, a workflow's own `models:`, the key and URL of
// every endpoint a request goes to), registered by whoever learns it. All of it goes to the process's
// redaction point (src/core/redaction.ts), which every sink masks through.
import { Result } from "effect"
import { type Env, expandVarsResult } from "./env.ts"
import { addSecrets } from "../core/redaction.ts"
import { headerSecrets } from "../core/secrets.ts"
import { urlCredentials } from "../core/urls.ts"
import { DUMMY_API_KEY } from "./endpoints.ts"
import type { ConfigFile, ModelMap } from "./schema.ts"

const expanded = (value: string | undefined, env: Env): string | undefined => {
  if (value === undefined) return undefined
  const result = expandVarsResult(value, env)
  return Result.isSuccess(result) ? result.success : undefined
}

/** The keys, header values and URL credentials of a `models:` map (the configuration's or a workflow's). */
export const modelMapSecrets = (models: ModelMap | undefined, env: Env): ReadonlyArray<string> =>
  Object.values(models ?? {}).flatMap((definitions) =>
    definitions.flatMap(({ provider }) => [
      ...[expanded(provider.api_key, env)].filter((k): k is string => k !== undefined),
      ...headerSecrets(Object.values(provider.headers ?? {}).map((v) => expanded(v, env) ?? v)),
      ...((url) => (url === undefined ? [] : urlCredentials(url)))(expanded(provider.base_url, env))
    ])
  )

/** The values of OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS (`k=v,k2=v2`). */
const otlpHeaderValues = (env: Env): ReadonlyArray<string> =>
  ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"].flatMap((name) =>
    (env[name] ?? "").split(",").flatMap((entry) => {
      const eq = entry.indexOf("=")
      if (eq === -1) return []
      const raw = entry.slice(eq + 1).trim()
      try {
        return [raw, decodeURIComponent(raw)]
      } catch {
        return [raw]
      }
    })
  )

/**
 * The credentials the configuration and the environment hold: `OPENAI_API_KEY`, every `api_key`
 * and model `headers:` value, the credentials of every base, MCP and OTLP URL, MCP and OTLP header
 * values, and MCP and tool `env` values. Keys from `api_key_cmd` are added when the command has run
 * (src/config/apiKeyCmd.ts).
 */
export const configSecrets = (config: ConfigFile, env: Env): ReadonlyArray<string> => {
  const keys: Array<string | undefined> = [
    env["OPENAI_API_KEY"],
    expanded(config.api_key, env),
    expanded(config.jev?.api_key, env)
  ]
  const urls: Array<string | undefined> = [
    env["OPENAI_BASE_URL"],
    expanded(config.base_url, env),
    env["OTEL_EXPORTER_OTLP_ENDPOINT"],
    env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
  ]
  const values: Array<string | undefined> = [...headerSecrets(otlpHeaderValues(env))]
  for (const server of Object.values(config.mcp_servers ?? {})) {
    urls.push(expanded(server.url, env))
    values.push(...headerSecrets(Object.values(server.headers ?? {}).map((v) => expanded(v, env) ?? v)))
    values.push(...Object.values(server.env ?? {}).map((v) => expanded(v, env)))
  }
  for (const tool of Object.values(config.tools ?? {})) {
    values.push(...Object.values(tool.env ?? {}).map((v) => expanded(v, env)))
  }
  return [
    ...keys,
    ...modelMapSecrets(config.models, env),
    ...urls.flatMap((url) => (url === undefined ? [] : urlCredentials(url))),
    ...values
  ].filter((s): s is string => s !== undefined && s !== "")
}

/** Adds secrets to the process's redaction point; the dummy key sent to local servers is none. */
export const registerSecrets = (values: Iterable<string | undefined>): void =>
  addSecrets([...values].filter((v) => v !== DUMMY_API_KEY))
