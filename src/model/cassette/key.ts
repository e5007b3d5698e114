// The cache/cassette key: SHA-256 over serde_json's compact rendering of a fixed struct, so a
// cassette recorded by the original Rust lait is found by this one and vice versa
// (docs/record-replay.md#the-request-key).
import { sha256Hex } from "../../core/sha256.ts"
import type { Endpoint, ModelCall } from "../call.ts"
import { RustFloat, rustJson, RustJsonText, rustJsonOfData } from "../rustJson.ts"
import type { ChatMessage, ContentPart, ResponseFormat, ToolCall, ToolDefinition } from "../types.ts"

export interface KeyInput {
  /** The primary endpoint's values, even when a fallback answered. */
  readonly base_url: string
  readonly model_id: string
  readonly reasoning_effort?: string | undefined
  readonly temperature?: number | undefined
  readonly top_p?: number | undefined
  readonly max_tokens?: number | undefined
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly response_format: ResponseFormat | null
}

// A file part's fields in async-openai's order (`file_data`, then `filename`).
const part = (p: ContentPart) =>
  p.type === "text"
    ? { type: "text", text: p.text }
    : p.type === "image_url"
    ? { type: "image_url", image_url: { url: p.image_url.url } }
    : { type: "file", file: { file_data: p.file.file_data, filename: p.file.filename } }

const toolCall = (c: ToolCall) => ({
  id: c.id,
  type: "function",
  function: { name: c.function.name, arguments: c.function.arguments }
})

/** Field order as async-openai serialises each message variant (role first, None omitted). */
export const canonicalMessage = (m: ChatMessage): Record<string, unknown> => {
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content }
    case "user":
      return { role: "user", content: typeof m.content === "string" ? m.content : m.content.map(part) }
    case "assistant":
      return {
        role: "assistant",
        content: m.content ?? undefined,
        tool_calls: m.tool_calls !== undefined && m.tool_calls.length > 0 ? m.tool_calls.map(toolCall) : undefined
      }
    case "tool":
      return { role: "tool", content: m.content, tool_call_id: m.tool_call_id }
  }
}

export const canonicalTool = (t: ToolDefinition): Record<string, unknown> => ({
  type: "function",
  function: { name: t.function.name, description: t.function.description, parameters: t.function.parameters }
})

export const canonicalResponseFormat = (f: ResponseFormat | null): unknown =>
  f === null
    ? null
    : { type: "json_schema", json_schema: { name: f.json_schema.name, schema: f.json_schema.schema, strict: true } }

const float = (x: number | undefined) => (x === undefined ? null : new RustFloat(x))

/** The exact bytes that are hashed. */
export const keyMaterial = (k: KeyInput): string =>
  rustJson({
    base_url: k.base_url,
    model_id: k.model_id,
    reasoning_effort: k.reasoning_effort ?? null,
    temperature: float(k.temperature),
    top_p: float(k.top_p),
    max_tokens: k.max_tokens ?? null,
    // Data all through: the fast rendering (../rustJson.ts).
    messages: new RustJsonText(rustJsonOfData(k.messages.map(canonicalMessage))),
    tools: new RustJsonText(rustJsonOfData(k.tools.map(canonicalTool))),
    response_format: new RustJsonText(rustJsonOfData(canonicalResponseFormat(k.response_format)))
  })

export const requestKey = (k: KeyInput): string => sha256Hex(keyMaterial(k))

/** The key input of a call: always the primary endpoint's base URL and model id. */
export const keyInputOf = (call: ModelCall, endpoint: Endpoint = call.endpoints[0]): KeyInput => ({
  base_url: endpoint.baseUrl,
  model_id: endpoint.modelId,
  reasoning_effort: call.request.reasoning_effort,
  temperature: call.request.temperature,
  top_p: call.request.top_p,
  max_tokens: call.request.max_tokens,
  messages: call.request.messages,
  tools: call.request.tools,
  response_format: call.request.response_format
})

/** The file name (without `.json`) of a call's cassette or cache entry. */
export const callKey = (call: ModelCall): string => requestKey(keyInputOf(call))
