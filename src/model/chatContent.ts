// What `--trace-content` adds to a trace (docs/traces.md#content): the conversation of a `chat` span
// and the arguments and result of an `execute_tool` span, in the shapes of the OpenTelemetry GenAI
// semantic conventions (`gen_ai.input.messages`, `gen_ai.output.messages`: role + parts). Secrets are
// masked by whoever writes the trace, not here: the trace may learn a credential only later.
import type { Json } from "../core/json.ts"
import { Attr } from "../core/tracing.ts"
import type { ModelResult } from "./call.ts"
import type { ChatMessage, ContentPart, ToolCall } from "./types.ts"

/** Arguments as the conventions want them (an object) when they are JSON, else the text the model sent. */
export const argumentsValue = (text: string): Json => {
  try {
    return JSON.parse(text) as Json
  } catch {
    return text
  }
}

const text = (content: string): Json => ({ type: "text", content })

const toolCallPart = (call: ToolCall): Json => ({
  type: "tool_call",
  id: call.id,
  name: call.function.name,
  arguments: argumentsValue(call.function.arguments)
})

// An inline image would put megabytes of base64 into every line that repeats the conversation.
const imagePart = (url: string): Json =>
  url.startsWith("data:")
    ? {
      type: "blob",
      modality: "image",
      mime_type: url.slice(5, url.search(/[;,]/)),
      content: `(${url.length} characters omitted)`
    }
    : { type: "uri", modality: "image", uri: url }

const userPart = (part: ContentPart): Json =>
  part.type === "text"
    ? text(part.text)
    : part.type === "image_url"
    ? imagePart(part.image_url.url)
    : {
      type: "blob",
      modality: "document",
      mime_type: "application/pdf",
      content: `(${part.file.file_data.length} characters of '${part.file.filename}' omitted)`
    }

const messageParts = (message: ChatMessage): Array<Json> => {
  switch (message.role) {
    case "system":
      return [text(message.content)]
    case "user":
      return typeof message.content === "string" ? [text(message.content)] : message.content.map(userPart)
    case "assistant":
      return [
        ...(typeof message.content === "string" && message.content !== "" ? [text(message.content)] : []),
        ...(message.tool_calls ?? []).map(toolCallPart)
      ]
    case "tool":
      return [{ type: "tool_call_response", id: message.tool_call_id, response: message.content }]
  }
}

/** The request's messages as `gen_ai.input.messages`. */
export const inputMessages = (messages: ReadonlyArray<ChatMessage>): Json =>
  messages.map((m) => ({ role: m.role, parts: messageParts(m) }))

const finishReasonOf = (raw: unknown): string | undefined => {
  const choice = (raw as { choices?: ReadonlyArray<{ finish_reason?: unknown }> } | null)?.choices?.[0]
  return typeof choice?.finish_reason === "string" ? choice.finish_reason : undefined
}

/** The answer as `gen_ai.output.messages`: one assistant message with its finish reason. */
export const outputMessages = (result: ModelResult): Json => [{
  role: "assistant",
  parts: [
    ...(result.content !== null && result.content !== "" ? [text(result.content)] : []),
    ...result.toolCalls.map(toolCallPart)
  ],
  finish_reason: finishReasonOf(result.raw) ?? (result.toolCalls.length > 0 ? "tool_calls" : "stop")
}]

/** The content attributes of a `chat` span: the request, and the answer when there was one. */
export const chatContent = (messages: ReadonlyArray<ChatMessage>, result: ModelResult | undefined) => ({
  [Attr.inputMessages]: inputMessages(messages),
  ...(result === undefined ? {} : { [Attr.outputMessages]: outputMessages(result) })
})

/** The content attributes of an `execute_tool` span: the arguments, and what the model got back. */
export const toolContent = (args: string, result: string | undefined): Record<string, Json> => ({
  [Attr.toolCallArguments]: argumentsValue(args),
  ...(result === undefined ? {} : { [Attr.toolCallResult]: result })
})
