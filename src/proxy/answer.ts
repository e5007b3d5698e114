// How `lait proxy` answers (docs/apps.md#streams): the answer's JSON as the server sent it (or as the
// cassette or cache holds it), whole; or, for `stream: true`, the same answer as chat-completion chunks
// in server-sent events. lait asks the model for the whole answer either way, so a recording made by a
// streaming app replays for a non-streaming one and for `lait run`, and the reverse.
import type { ModelResult } from "../model/call.ts"

type Json = Record<string, unknown>

const objectOr = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Json : {}

/** The whole answer's body; `model` is what the app asked for when the answer names none. */
const wholeAnswer = (result: ModelResult, model: string): Json => {
  const raw = objectOr(result.raw)
  return { ...raw, model: raw["model"] ?? model, object: raw["object"] ?? "chat.completion" }
}

// A replayed answer is the same object each time it is asked for (src/model/cassette/memo.ts): its
// text is made once per model name.
const wholeTexts = new WeakMap<ModelResult, { readonly model: string; readonly text: string }>()

/** `wholeAnswer` as JSON text. */
export const wholeAnswerText = (result: ModelResult, model: string): string => {
  const known = wholeTexts.get(result)
  if (known?.model === model) return known.text
  const text = JSON.stringify(wholeAnswer(result, model))
  wholeTexts.set(result, { model, text })
  return text
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`

/**
 * The answer as the events of a stream: per choice one chunk with the role, text and tool calls (each
 * with its `index`, as streamed tool calls have), then one with its `finish_reason`; the usage chunk
 * when the app asked for it; then `[DONE]`.
 */
export const streamedAnswer = (result: ModelResult, model: string, includeUsage: boolean): string => {
  const raw = objectOr(result.raw)
  const head = {
    id: raw["id"] ?? "chatcmpl-lait",
    object: "chat.completion.chunk",
    created: raw["created"] ?? Math.floor(Date.now() / 1000),
    model: raw["model"] ?? model
  }
  const choices = Array.isArray(raw["choices"]) ? raw["choices"] as ReadonlyArray<unknown> : []
  let text = ""
  choices.forEach((value, i) => {
    const choice = objectOr(value)
    const index = typeof choice["index"] === "number" ? choice["index"] : i
    const message = objectOr(choice["message"])
    const calls = Array.isArray(message["tool_calls"]) ? message["tool_calls"] as ReadonlyArray<unknown> : []
    const delta: Json = { role: message["role"] ?? "assistant", content: message["content"] ?? null }
    if (typeof message["reasoning_content"] === "string") delta["reasoning_content"] = message["reasoning_content"]
    if (calls.length > 0) delta["tool_calls"] = calls.map((call, n) => ({ index: n, ...objectOr(call) }))
    text += sse({ ...head, choices: [{ index, delta, finish_reason: null }] })
    text += sse({ ...head, choices: [{ index, delta: {}, finish_reason: choice["finish_reason"] ?? "stop" }] })
  })
  if (includeUsage) text += sse({ ...head, choices: [], usage: raw["usage"] ?? null })
  return text + "data: [DONE]\n\n"
}
