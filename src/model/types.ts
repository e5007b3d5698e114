// OpenAI chat-completions request/response shapes, as lait sends and stores them.
import { Schema } from "effect"

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh"

export type ContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string } }

export interface ToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string | ReadonlyArray<ContentPart> }
  | { readonly role: "assistant"; readonly content?: string | null; readonly tool_calls?: ReadonlyArray<ToolCall> }
  | { readonly role: "tool"; readonly content: string; readonly tool_call_id: string }

export interface ToolDefinition {
  readonly type: "function"
  readonly function: { readonly name: string; readonly description?: string; readonly parameters?: unknown }
}

export interface ResponseFormat {
  readonly type: "json_schema"
  readonly json_schema: { readonly name: string; readonly schema: unknown; readonly strict: true }
}

/** What one model request asks for, before endpoint resolution. */
export interface ChatRequest {
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly response_format: ResponseFormat | null
  readonly reasoning_effort?: ReasoningEffort
  readonly temperature?: number
  readonly top_p?: number
  readonly max_tokens?: number
}

const makeChatCompletion = () => {
  const ResponseToolCall = Schema.Struct({
    id: Schema.String,
    type: Schema.optionalKey(Schema.String),
    function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
  })
  return Schema.Struct({
    choices: Schema.Array(
      Schema.Struct({
        message: Schema.Struct({
          role: Schema.optionalKey(Schema.String),
          content: Schema.optionalKey(Schema.NullOr(Schema.String)),
          reasoning_content: Schema.optionalKey(Schema.NullOr(Schema.String)),
          tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(ResponseToolCall)))
        }),
        finish_reason: Schema.optionalKey(Schema.NullOr(Schema.String))
      })
    ),
    // Read by readUsage (src/model/usage.ts): a bad count must not make the whole answer unreadable.
    usage: Schema.optionalKey(Schema.Unknown)
  })
}

let chatCompletion: ReturnType<typeof makeChatCompletion> | undefined

/**
 * The parts of a chat completion lait reads; everything else is kept verbatim in `raw`. Built on
 * first use: most answers are read without it (src/model/completion.ts's isPlainCompletion).
 */
export const chatCompletionSchema = () => (chatCompletion ??= makeChatCompletion())
export type ChatCompletion = ReturnType<typeof makeChatCompletion>["Type"]
