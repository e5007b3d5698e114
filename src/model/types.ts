// OpenAI chat-completions request/response shapes, as lait sends and stores them. Types only: every
// model request loads this module, and the answer's schema is in ./completionSchema.ts.

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh"

export type ContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string } }
  /** A PDF attachment: `file_data` is a `data:application/pdf;base64,...` URL. */
  | { readonly type: "file"; readonly file: { readonly file_data: string; readonly filename: string } }

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

/**
 * The parts of a chat completion lait reads; everything else is kept verbatim in `raw`. Decoded by
 * the schema of ./completionSchema.ts, which checks that its type is this one.
 */
export interface ChatCompletion {
  readonly choices: ReadonlyArray<{
    readonly message: {
      readonly role?: string
      readonly content?: string | null
      readonly reasoning_content?: string | null
      readonly tool_calls?: ReadonlyArray<ResponseToolCall> | null
    }
    readonly finish_reason?: string | null
  }>
  /** Read by readUsage (src/model/usage.ts): a bad count must not make the whole answer unreadable. */
  readonly usage?: unknown
}

/** A tool call as an answer gives it: `type` may be absent or another word. */
export interface ResponseToolCall {
  readonly id: string
  readonly type?: string
  readonly function: { readonly name: string; readonly arguments: string }
}
