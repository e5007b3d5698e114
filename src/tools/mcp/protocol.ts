// What lait reads from an MCP server's answers: the tool list (every page, within the documented
// limits), a call's result as the tool message's text, and the SDK's errors as one line.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"

/** An open MCP session (made by ./client.ts). */
export interface McpConnection {
  readonly client: Client
  /** Closes the session and, for stdio, stops the server's whole process group. Never rejects. */
  readonly close: () => Promise<void>
  /** Why the transport broke, when it did (e.g. an oversized frame). */
  readonly failure: () => string | undefined
  /** The server's process id (stdio). */
  readonly pid: number | undefined
}

export const MAX_TOOLS_PER_PAGE = 1024
export const MAX_TOTAL_TOOLS = 8192
export const MAX_TOOL_LIST_PAGES = 128
export const MAX_TOOL_METADATA_BYTES = 16 * 1024 * 1024

/** What lait keeps of a listed tool. */
export interface McpTool {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema: unknown
}

/**
 * The SDK's schema check of a message or result failed: a zod error (`$ZodError` when it comes from
 * zod/mini), whose own message is the whole issue list as indented JSON.
 */
export const isSchemaError = (error: unknown): error is Error & { readonly issues: ReadonlyArray<unknown> } =>
  error instanceof Error && /^\$?ZodError$/.test(error.name) && Array.isArray((error as { issues?: unknown }).issues)

/** The first problem of a schema error, on one line (its own message is dozens of lines of JSON). */
const schemaErrorText = (issues: ReadonlyArray<unknown>): string => {
  const first = (issues[0] ?? {}) as { path?: ReadonlyArray<unknown>; message?: unknown }
  const at = Array.isArray(first.path) && first.path.length > 0 ? ` at '${first.path.join(".")}'` : ""
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : ""
  return `the server's answer does not have the shape MCP requires${at}: ${String(first.message ?? "invalid")}${more}`
}

export const errorText = (error: unknown): string =>
  isSchemaError(error) ? schemaErrorText(error.issues) : error instanceof Error ? error.message : String(error)

/** The SDK's request-timeout error (JSON-RPC code -32001). */
export const isTimeout = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "code" in error && (error as { code: unknown }).code === -32001

const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8")

/** A `tools/call` result as the tool message's text (upstream's rendering). */
export const renderToolResult = (result: {
  readonly content?: ReadonlyArray<unknown> | undefined
  readonly structuredContent?: unknown
  readonly isError?: boolean | undefined
}): string => {
  const parts = (result.content ?? []).map((block) =>
    typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" &&
      typeof (block as { text?: unknown }).text === "string"
      ? (block as { text: string }).text
      : JSON.stringify(block)
  )
  if (result.structuredContent !== undefined) {
    parts.push(`structuredContent:\n${JSON.stringify(result.structuredContent)}`)
  }
  if (result.isError === true) parts.unshift("isError: true")
  return parts.join("\n\n")
}

/** Every page of `tools/list`, or why the list cannot be used (one line, not yet masked). */
export const listTools = (
  connection: McpConnection,
  timeoutMs: number
): Effect.Effect<ReadonlyArray<McpTool>, string> =>
  Effect.gen(function*() {
    const tools: Array<McpTool> = []
    const seenCursors = new Set<string>()
    let cursor: string | undefined
    let metadata = 0
    for (let pages = 1;; pages++) {
      if (pages > MAX_TOOL_LIST_PAGES) {
        return yield* Effect.fail(`MCP server returned more than ${MAX_TOOL_LIST_PAGES} pages from 'tools/list'`)
      }
      const page = pages
      const result = yield* Effect.tryPromise({
        try: () => connection.client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs }),
        catch: (error) => {
          if (isTimeout(error)) {
            return `MCP server timed out after ${timeoutMs / 1000}s while listing tools (page ${page})`
          }
          const failure = connection.failure()
          return failure === undefined ? errorText(error) : `${errorText(error)}: ${failure}`
        }
      })
      if (result.tools.length > MAX_TOOLS_PER_PAGE) {
        return yield* Effect.fail(
          `MCP server returned ${result.tools.length} tools in one 'tools/list' page; ` +
            `the maximum is ${MAX_TOOLS_PER_PAGE}`
        )
      }
      if (tools.length + result.tools.length > MAX_TOTAL_TOOLS) {
        return yield* Effect.fail(`MCP server returned more than ${MAX_TOTAL_TOOLS} tools across 'tools/list' pages`)
      }
      for (const tool of result.tools) {
        metadata += utf8Length(tool.description ?? "") + utf8Length(JSON.stringify(tool.inputSchema)) +
          (tool.outputSchema === undefined ? 0 : utf8Length(JSON.stringify(tool.outputSchema)))
        if (metadata > MAX_TOOL_METADATA_BYTES) {
          return yield* Effect.fail(
            `MCP tool descriptions and schemas exceed the cumulative limit of ${MAX_TOOL_METADATA_BYTES} bytes`
          )
        }
        tools.push({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })
      }
      const next = result.nextCursor
      if (next === undefined) return tools
      if (seenCursors.has(next)) {
        return yield* Effect.fail(`MCP server repeated a 'tools/list' pagination cursor '${next}'`)
      }
      seenCursors.add(next)
      cursor = next
    }
  })
