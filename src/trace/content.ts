// Secrets in a trace file. A trace may hold what the model saw and said (`--trace-content`) and the
// text of errors, so everything `lait config show` masks, every API key lait knows, and every
// credential in a URL is masked in every string of every event before the file is written, in
// every spelling the logs mask (raw, JSON-escaped, percent- or base64-encoded: src/core/secrets.ts).
import { Result } from "effect"
import { DUMMY_API_KEY } from "../config/endpoints.ts"
import type { ConfigFile } from "../config/schema.ts"
import { type Env, expandVarsResult } from "../core/env.ts"
import type { Json } from "../core/json.ts"
import { headerSecrets, redactSecrets } from "../core/secrets.ts"
import { urlCredentials } from "../core/urls.ts"
import type { RecordedEvent } from "./RunTracer.ts"

const expanded = (value: string | undefined, env: Env): string | undefined => {
  if (value === undefined) return undefined
  const result = expandVarsResult(value, env)
  return Result.isSuccess(result) ? result.success : undefined
}

/**
 * The credentials the configuration and the environment hold: `OPENAI_API_KEY`, every `api_key`,
 * the credentials of every base and MCP URL, MCP header values, and MCP and tool `env` values.
 * Keys from `api_key_cmd` are added by the `chat` spans that used them.
 */
export const configSecrets = (config: ConfigFile, env: Env): ReadonlyArray<string> => {
  const keys: Array<string | undefined> = [
    env["OPENAI_API_KEY"],
    expanded(config.api_key, env),
    expanded(config.jev?.api_key, env)
  ]
  const urls: Array<string | undefined> = [env["OPENAI_BASE_URL"], expanded(config.base_url, env)]
  for (const definitions of Object.values(config.models ?? {})) {
    for (const { provider } of definitions) {
      keys.push(expanded(provider.api_key, env))
      urls.push(expanded(provider.base_url, env))
    }
  }
  const values: Array<string | undefined> = []
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
    ...urls.flatMap((url) => (url === undefined ? [] : urlCredentials(url))),
    ...values
  ].filter((s): s is string => s !== undefined && s !== "")
}

const redactValue = (value: Json, mask: (text: string) => string): Json => {
  if (typeof value === "string") return mask(value)
  if (Array.isArray(value)) return value.map((v) => redactValue(v, mask))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), redactValue(v, mask)]))
  }
  return value
}

/** The events with every secret masked in their labels and attribute strings. */
export const redactEvents = (
  events: ReadonlyArray<RecordedEvent>,
  secrets: Iterable<string>
): ReadonlyArray<RecordedEvent> => {
  const list = [...new Set(secrets)]
  if (list.length === 0) return events
  // The dummy key sent to local servers is no secret: masking it would hide model names and URLs.
  const mask = (text: string) => redactSecrets(text, list, [DUMMY_API_KEY])
  return events.map((e) => ({
    ...e,
    label: mask(e.label),
    attributes: redactValue(e.attributes as Json, mask) as Readonly<Record<string, Json>>
  }))
}
