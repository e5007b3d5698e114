// `api: responses` models speak OpenAI's Responses API. lait builds chat requests everywhere and
// converts at the edge, so keys, cassettes and the rest of the pipeline stay in one shape.
import type { ChatMessage, ChatRequest } from "./types.ts"

const textOf = (m: ChatMessage): string => {
  const content = m.content
  if (typeof content === "string") return content
  if (content === null || content === undefined) return ""
  return content.map((p) => (p.type === "text" ? p.text : "")).join("")
}

/**
 * What a Responses API request cannot carry, named by what asks for it (the original lait's refusals
 * do too), or undefined when the request converts losslessly.
 */
export const responsesUnsupported = (r: ChatRequest): string | undefined => {
  if (r.tools.length > 0) return "tools ('mcp:', 'subagents:', 'tools:')"
  for (const m of r.messages) {
    if (m.role === "tool" || (m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0)) return "tool calls"
    const part = m.role === "user" && typeof m.content !== "string"
      ? m.content.find((p) => p.type !== "text")
      : undefined
    if (part !== undefined) {
      return part.type === "image_url" ? "image attachments (--image, 'images:')" : `'${part.type}' content parts`
    }
  }
  return undefined
}

/** The error text of a `failed`/`cancelled` response, else undefined. */
export const responsesFailure = (raw: unknown): string | undefined => {
  if (typeof raw !== "object" || raw === null) return undefined
  const r = raw as { readonly status?: unknown; readonly error?: { readonly message?: unknown } | null }
  if (r.status !== "failed" && r.status !== "cancelled") return undefined
  return typeof r.error?.message === "string"
    ? r.error.message
    : `Responses API request ended with status '${r.status}'`
}

export const chatToResponsesBody = (modelId: string, r: ChatRequest): Record<string, unknown> => {
  const system = r.messages.filter((m) => m.role === "system").map(textOf)
  const input = r.messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => ({ role: m.role, content: textOf(m) }))
  return {
    model: modelId,
    input,
    ...(system.length > 0 ? { instructions: system.join("\n\n") } : {}),
    ...(r.response_format !== null
      ? {
        text: {
          format: {
            type: "json_schema",
            name: r.response_format.json_schema.name,
            schema: r.response_format.json_schema.schema,
            strict: true
          }
        }
      }
      : {}),
    ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
    ...(r.top_p !== undefined ? { top_p: r.top_p } : {}),
    ...(r.max_tokens !== undefined ? { max_output_tokens: r.max_tokens } : {}),
    ...(r.reasoning_effort !== undefined ? { reasoning: { effort: r.reasoning_effort } } : {}),
    // Every request resends the whole history (keys stay per request), so nothing is kept server-side.
    store: false
  }
}

interface ResponsesOutput {
  readonly output?: ReadonlyArray<
    { readonly type?: string; readonly content?: ReadonlyArray<{ readonly type?: string; readonly text?: string }> }
  >
  readonly output_text?: string
  readonly usage?: {
    readonly input_tokens?: unknown
    readonly output_tokens?: unknown
    readonly total_tokens?: unknown
  } | null
}

/** A Responses API body in chat-completions shape (what `interpret` reads). */
export const responsesToChat = (raw: unknown): unknown => {
  if (typeof raw !== "object" || raw === null) return raw
  const r = raw as ResponsesOutput
  const text = r.output_text ??
    (r.output ?? [])
      .filter((o) => o.type === "message")
      .flatMap((o) => o.content ?? [])
      .filter((c) => c.type === "output_text" && typeof c.text === "string")
      .map((c) => c.text)
      .join("")
  // Renamed only: readUsage checks the values and fills in what is absent.
  const usage = typeof r.usage !== "object" || r.usage === null
    ? r.usage
    : {
      prompt_tokens: r.usage.input_tokens,
      completion_tokens: r.usage.output_tokens,
      total_tokens: r.usage.total_tokens
    }
  return {
    choices: [{ message: { role: "assistant", content: text } }],
    ...(usage !== undefined ? { usage } : {})
  }
}
