// A streamed chat completion put back together: the `chat.completion.chunk` objects' deltas become
// the one `chat.completion` a non-streamed request would have answered, so everything after the
// request (the tool loop, cassettes, the cache, traces) sees the same shape either way.
import { errorText } from "./errorBody.ts"

export type StreamDelta =
  | { readonly _tag: "Content"; readonly text: string }
  | { readonly _tag: "Reasoning"; readonly text: string }

interface ToolCallParts {
  id: string
  type: string
  name: string
  arguments: string
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const text = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined)

/** What a chunk that reports a failure (`{"error": ...}`) says, or undefined for an ordinary chunk. */
export const chunkError = (chunk: unknown): string | undefined => {
  if (!isRecord(chunk) || chunk["error"] === undefined || chunk["error"] === null) return undefined
  return errorText(chunk) ?? JSON.stringify(chunk["error"])
}

export class CompletionAssembler {
  private id: unknown = undefined
  private model: unknown = undefined
  private created: unknown = undefined
  private content: string | null = null
  private reasoning: string | null = null
  private readonly toolCalls = new Map<number, ToolCallParts>()
  private finishReason: unknown = null
  private usage: unknown = undefined
  /** Whether any chunk had a choice: a stream of nothing but usage is no answer. */
  private sawChoice = false
  /**
   * A high surrogate that ended a delta, held for the next one: servers that cut text every few
   * UTF-16 units split an emoji's pair across chunks, and each half printed alone is a U+FFFD.
   */
  private readonly held: Record<StreamDelta["_tag"], string> = { Content: "", Reasoning: "" }

  private release(tag: StreamDelta["_tag"], text: string, deltas: Array<StreamDelta>): void {
    let whole = this.held[tag] + text
    const last = whole.charCodeAt(whole.length - 1)
    this.held[tag] = last >= 0xd800 && last <= 0xdbff ? whole.slice(-1) : ""
    if (this.held[tag] !== "") whole = whole.slice(0, -1)
    if (whole !== "") deltas.push({ _tag: tag, text: whole })
  }

  /** What is still held when the stream ends (a lone half of a pair, printed as it is). */
  flush(): Array<StreamDelta> {
    const deltas: Array<StreamDelta> = []
    for (const tag of ["Reasoning", "Content"] as const) {
      if (this.held[tag] !== "") deltas.push({ _tag: tag, text: this.held[tag] })
      this.held[tag] = ""
    }
    return deltas
  }

  /** Folds one chunk in and returns the text it adds, in order, for whoever prints as it arrives. */
  add(chunk: unknown): Array<StreamDelta> {
    if (!isRecord(chunk)) return []
    this.id ??= chunk["id"]
    this.model ??= chunk["model"]
    this.created ??= chunk["created"]
    if (chunk["usage"] !== undefined && chunk["usage"] !== null) this.usage = chunk["usage"]
    const choices = Array.isArray(chunk["choices"]) ? chunk["choices"] : []
    const deltas: Array<StreamDelta> = []
    for (const choice of choices) {
      if (!isRecord(choice) || (choice["index"] !== undefined && choice["index"] !== 0)) continue
      this.sawChoice = true
      if (choice["finish_reason"] !== undefined && choice["finish_reason"] !== null) {
        this.finishReason = choice["finish_reason"]
      }
      const delta = isRecord(choice["delta"]) ? choice["delta"] : isRecord(choice["message"]) ? choice["message"] : {}
      // Servers name the thinking `reasoning_content` (DeepSeek, LM Studio) or `reasoning` (vLLM, OpenRouter).
      const reasoning = text(delta["reasoning_content"]) ?? text(delta["reasoning"])
      if (reasoning !== undefined) {
        this.reasoning = (this.reasoning ?? "") + reasoning
        this.release("Reasoning", reasoning, deltas)
      }
      const content = text(delta["content"])
      if (content !== undefined) {
        this.content = (this.content ?? "") + content
        this.release("Content", content, deltas)
      } else if (delta["content"] === "" && this.content === null) {
        this.content = ""
      }
      if (Array.isArray(delta["tool_calls"])) this.addToolCalls(delta["tool_calls"])
    }
    return deltas
  }

  private addToolCalls(parts: ReadonlyArray<unknown>): void {
    for (const [position, part] of parts.entries()) {
      if (!isRecord(part)) continue
      // `index` says which call a fragment continues; a server that omits it sends whole calls.
      const index = typeof part["index"] === "number" ? part["index"] : this.toolCalls.size + position
      const call = this.toolCalls.get(index) ?? { id: "", type: "function", name: "", arguments: "" }
      const fn = isRecord(part["function"]) ? part["function"] : {}
      if (typeof part["id"] === "string" && part["id"] !== "") call.id = part["id"]
      if (typeof part["type"] === "string" && part["type"] !== "") call.type = part["type"]
      if (typeof fn["name"] === "string") call.name += fn["name"]
      if (typeof fn["arguments"] === "string") call.arguments += fn["arguments"]
      this.toolCalls.set(index, call)
    }
  }

  /** The assembled `chat.completion` (no choices when the stream carried none). */
  completion(): Record<string, unknown> {
    const toolCalls = [...this.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, c]) => ({
      id: c.id,
      type: c.type,
      function: { name: c.name, arguments: c.arguments }
    }))
    const message = {
      role: "assistant",
      content: this.content,
      ...(this.reasoning !== null ? { reasoning_content: this.reasoning } : {}),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {})
    }
    return {
      ...(this.id !== undefined ? { id: this.id } : {}),
      object: "chat.completion",
      ...(this.created !== undefined ? { created: this.created } : {}),
      ...(this.model !== undefined ? { model: this.model } : {}),
      choices: this.sawChoice ? [{ index: 0, message, finish_reason: this.finishReason }] : [],
      ...(this.usage !== undefined ? { usage: this.usage } : {})
    }
  }
}
