// The chat core: one conversation turn over a message list. Build a `Chat` once per conversation
// (`makeChat`, inside a scope: it owns the tool loop's MCP servers, stopped when the scope closes),
// then call `turn` for each user message. Every request goes through ModelClient (live, cache,
// record, replay, usage and trace spans apply) and, when the settings name tools, through the tool
// loop of src/tools, exactly as a workflow's `prompt:` step does.
import { Effect } from "effect"
import type { AnyLaitError } from "../core/errors.ts"
import type { ModelResult } from "../model/ModelClient.ts"
import type { ChatMessage, ChatRequest } from "../model/types.ts"
import type { ToolRuntimeContext } from "../tools/request.ts"
import { makeToolRuntime } from "../tools/ToolRuntime.ts"
import type { ChatSettings } from "./settings.ts"

export type { ChatOptions, ChatSettings, Sampling } from "./settings.ts"
export { resolveChatSettings } from "./settings.ts"

/** What one turn answered. */
export interface TurnResult {
  /** The final answer's text ("" when the model sent none). */
  readonly content: string
  /** The final answer's reasoning (`reasoning`, else `reasoning_content`), when it has some. */
  readonly reasoning: string | null
  /** The assistant message to append to the conversation for the next turn. */
  readonly message: ChatMessage
  /** The final ModelClient answer (its endpoint, source, raw JSON); usage is in the run's RunUsage. */
  readonly result: ModelResult
}

export interface Chat {
  /**
   * Sends `settings.system` (when set) followed by `messages` (earlier turns and this turn's user
   * message, oldest first; never a system message) and returns the answer. Multi-turn callers append
   * the user message and `TurnResult.message` to their list and pass it again. Tool calls of this
   * turn are resolved inside it and are not part of the returned conversation.
   */
  readonly turn: (
    settings: ChatSettings,
    messages: ReadonlyArray<ChatMessage>,
    options?: { readonly cancelled?: Effect.Effect<void> | undefined }
  ) => Effect.Effect<TurnResult, AnyLaitError>
}

const nonBlank = (text: unknown): string | undefined =>
  typeof text === "string" && text.trim() !== "" ? text : undefined

/** Servers name it `reasoning` (current) or `reasoning_content` (older); the current one wins. */
const reasoningOf = (result: ModelResult): string | null => {
  const raw = result.raw as { choices?: Array<{ message?: { reasoning?: unknown } }> } | null
  return nonBlank(raw?.choices?.[0]?.message?.reasoning) ?? nonBlank(result.reasoning) ?? null
}

/** The request a turn sends (before the tool loop adds its tools). */
export const chatRequest = (settings: ChatSettings, messages: ReadonlyArray<ChatMessage>): ChatRequest => ({
  messages: [
    ...(settings.system === undefined || settings.system === "" ? [] : [
      { role: "system", content: settings.system } as const
    ]),
    ...messages
  ],
  tools: [],
  response_format: settings.responseFormat,
  ...settings.sampling
})

/**
 * A conversation's chat core. Needs the run's services: LaitConfig, ModelClient, FileLoader,
 * RunUsage (usage of every request), RunTracer (its `chat`/`execute_tool` events) and a Scope.
 */
export const makeChat: Effect.Effect<Chat, never, ToolRuntimeContext> = Effect.gen(function*() {
  const tools = yield* makeToolRuntime()
  const turn: Chat["turn"] = (settings, messages, options) =>
    Effect.map(
      tools.complete({
        label: settings.label,
        endpoints: settings.endpoints,
        request: chatRequest(settings, messages),
        names: settings.tools,
        maxToolRounds: settings.maxToolRounds,
        cancelled: options?.cancelled
      }),
      (result) => {
        const content = result.content ?? ""
        return { content, reasoning: reasoningOf(result), message: { role: "assistant", content }, result }
      }
    )
  return { turn }
})
