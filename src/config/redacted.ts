// The configuration as `lait config show` prints it: values are shown as written (a `${VAR}` stays a
// placeholder, so what it expands to is never printed), and every value that is or may hold a
// credential is masked: api keys, model and MCP header values, MCP and tool `env` values, and the credentials
// of every URL (`user:password@`, `?api-key=…`).
import { REDACTED } from "../core/secrets.ts"
import { displayUrl } from "../core/urls.ts"
import type { ConfigFile, McpServer, ShellTool } from "./schema.ts"

const maskValues = (map: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.keys(map).map((k) => [k, REDACTED]))

const redactProvider = <T extends {
  readonly api_key?: string
  readonly base_url?: string
  readonly headers?: Readonly<Record<string, string>>
}>(layer: T): T => ({
  ...layer,
  ...(layer.api_key === undefined ? {} : { api_key: REDACTED }),
  ...(layer.headers === undefined ? {} : { headers: maskValues(layer.headers) }),
  ...(layer.base_url === undefined ? {} : { base_url: displayUrl(layer.base_url) })
})

const redactMcp = (server: McpServer): McpServer => ({
  ...server,
  ...(server.url === undefined ? {} : { url: displayUrl(server.url) }),
  ...(server.headers === undefined ? {} : { headers: maskValues(server.headers) }),
  ...(server.env === undefined ? {} : { env: maskValues(server.env) })
})

const redactTool = (
  tool: ShellTool
): ShellTool => (tool.env === undefined ? tool : { ...tool, env: maskValues(tool.env) })

const mapValues = <V>(map: Readonly<Record<string, V>>, f: (v: V) => V): Record<string, V> =>
  Object.fromEntries(Object.entries(map).map(([k, v]) => [k, f(v)]))

/** `config` with every secret masked (see above); everything else unchanged. */
export const redactedConfig = (config: ConfigFile): ConfigFile => {
  const out: { -readonly [K in keyof ConfigFile]: ConfigFile[K] } = redactProvider({ ...config })
  if (config.models !== undefined) {
    out.models = mapValues(
      config.models,
      (definitions) => definitions.map((d) => ({ ...d, provider: redactProvider(d.provider) }))
    )
  }
  if (config.mcp_servers !== undefined) out.mcp_servers = mapValues(config.mcp_servers, redactMcp)
  if (config.tools !== undefined) out.tools = mapValues(config.tools, redactTool)
  if (config.jev !== undefined) out.jev = redactProvider(config.jev)
  return out
}
