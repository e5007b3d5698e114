// Names a step, an agent or `default:` takes from lait.config.yml: `mcp` (mcp_servers), `skills`,
// `subagents` (agents) and `tools`. Without a config they are not checked; the file then gets one
// warning saying so instead of an error per name.
import type { Y } from "../lang/load/yaml.ts"
import type { LlmSettings } from "../lang/model.ts"
import { type FileState, itemOf, keyLine, lineOfY, noteSkipped, valueOf, type Where } from "./context.ts"
import type { Emitter } from "./findings.ts"

const CAPABILITIES = [
  { key: "mcp", kind: "MCP server", section: "mcp_servers" },
  { key: "skills", kind: "skill", section: "skills" },
  { key: "subagents", kind: "subagent", section: "agents" },
  { key: "tools", kind: "tool", section: "tools" }
] as const

/**
 * `mcp`/`skills`/`subagents`/`tools` of a step, an agent or `default:` (`holder` is its YAML mapping,
 * for the line of each name).
 */
export const checkCapabilities = (
  context: string,
  llm: LlmSettings,
  holder: Y | undefined,
  where: Where,
  state: FileState,
  emitter: Emitter
): void => {
  const config = state.env.config
  for (const { key, kind, section } of CAPABILITIES) {
    const names = llm[key]
    if (names === undefined || names.length === 0) continue
    const list = valueOf(where, holder, key)
    const lineOfItem = (index: number) => lineOfY(where, itemOf(where, list, index), keyLine(where, holder, key))
    if (config === undefined) {
      noteSkipped(state, lineOfItem(0))
      continue
    }
    const registry: Readonly<Record<string, unknown>> = config[section] ?? {}
    names.forEach((name, index) => {
      if (!Object.hasOwn(registry, name)) {
        emitter.emit(
          "error",
          `${context} references unknown ${kind} '${name}'; define it under '${section}:' in lait.config.yml`,
          lineOfItem(index)
        )
        return
      }
      if (key === "mcp" && config.mcp_servers?.[name]?.allowed_tools?.length === 0) {
        emitter.emit(
          "warning",
          `${context} references MCP server '${name}', whose 'allowed_tools' in lait.config.yml is an empty list; ` +
            `every tool call to it will be rejected at runtime`,
          lineOfItem(index)
        )
      }
    })
  }
}
