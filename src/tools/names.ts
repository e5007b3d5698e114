// Qualified tool names (docs/workflows.md#tool-names). The model sees one flat namespace, so every source prefixes
// its names: `<server>__<tool>` for MCP, `agent__<name>` for subagents, `tool__<name>` for shell tools,
// `skill__<name>` for skills offered as tools (`skill_progressive_disclosure`).
// OpenAI function names must match ^[A-Za-z0-9_-]{1,64}$: other characters become `_`, and a name that
// is still too long is an error rather than a truncation, which could silently create a collision.
import { ToolError } from "./toolErrors.ts"

export const MAX_TOOL_NAME_LENGTH = 64

/** `prefix__name` sanitised, or a ToolError naming what was being qualified (`MCP tool`, `shell tool`, ...). */
export const qualifyToolName = (kind: string, prefix: string, name: string): string | ToolError => {
  const qualified = `${prefix}__${name}`.replace(/[^A-Za-z0-9_-]/gu, "_")
  if (qualified.length === 0 || qualified.length > MAX_TOOL_NAME_LENGTH) {
    const limit = MAX_TOOL_NAME_LENGTH
    return new ToolError({ reason: { _tag: "NameTooLong", kind, qualified, prefix, name, limit } })
  }
  return qualified
}

export type ToolSource = "mcp" | "subagent" | "shell" | "skill"

/**
 * The first name two sources both claim, as upstream words it
 * (`tool name collision: an MCP tool and a shell tool both qualify to 'x'`). Sources are given in the
 * order tools are sent (MCP, subagents, shell tools, skills); the earlier source is named first.
 */
export const findCollision = (
  sets: ReadonlyArray<{ readonly source: ToolSource; readonly names: ReadonlyArray<string> }>
): ToolError | undefined => {
  const owner = new Map<string, ToolSource>()
  for (const { source, names } of sets) {
    for (const name of names) {
      const earlier = owner.get(name)
      if (earlier !== undefined && earlier !== source) {
        return new ToolError({ reason: { _tag: "NameCollision", name, first: earlier, second: source } })
      }
      owner.set(name, source)
    }
  }
  return undefined
}
