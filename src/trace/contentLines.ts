// `lait trace show` for files written with `--trace-content`: the content attributes are left out of
// the event's `(k=v ...)` list, which would otherwise carry the whole conversation on every `chat`
// line, and follow it on lines of their own: `>` what went in, `<` what came out. By default one
// line per attribute, cut to an excerpt (of a request, its newest message: the earlier ones were
// shown with the requests before); with `--content`, every message whole.
import { Attr } from "../core/tracing.ts"
import type { FileEvent } from "./file.ts"
import { compactJson, TraceObject, type TraceValue } from "./json.ts"

export const CONTENT_ATTRIBUTES: ReadonlySet<string> = new Set([
  Attr.inputMessages,
  Attr.outputMessages,
  Attr.toolCallArguments,
  Attr.toolCallResult
])

/** Characters of an excerpt, before its `…`. */
export const EXCERPT_LENGTH = 100

const asText = (value: TraceValue | undefined): string =>
  value === undefined ? "" : typeof value === "string" ? value : compactJson(value)

const partText = (part: TraceValue): string => {
  if (!(part instanceof TraceObject)) return asText(part)
  switch (part.get("type")) {
    case "text":
      return asText(part.get("content"))
    case "tool_call":
      return `tool_call ${asText(part.get("name"))} ${asText(part.get("arguments"))}`
    case "tool_call_response":
      return `tool_call_response ${asText(part.get("id"))}: ${asText(part.get("response"))}`
    default:
      return `[${asText(part.get("modality") ?? part.get("type"))}]`
  }
}

/** `role: parts (finish_reason)`; anything not shaped like a message as its JSON. */
const messageText = (message: TraceValue): string => {
  if (!(message instanceof TraceObject)) return asText(message)
  const parts = message.get("parts")
  const body = Array.isArray(parts) ? parts.map(partText).join(" ") : asText(parts)
  const finish = message.get("finish_reason")
  return `${asText(message.get("role"))}: ${body}${typeof finish === "string" ? ` (${finish})` : ""}`
}

const excerpt = (text: string): string => {
  const flat = text.replace(/\s*\r?\n\s*/g, " \u23ce ")
  const chars = [...flat]
  return chars.length > EXCERPT_LENGTH ? `${chars.slice(0, EXCERPT_LENGTH).join("")}\u2026` : flat
}

/** Whole text: continuation lines indented under the first. */
const whole = (text: string): string => text.replace(/\r?\n/g, "\n    ")

const messagesOf = (value: TraceValue): ReadonlyArray<TraceValue> => (Array.isArray(value) ? value : [value])

/** The content lines of an event, without indentation; none when it has no content attributes. */
export const contentLines = (e: FileEvent, full: boolean): Array<string> => {
  const lines: Array<string> = []
  for (const [key, value] of e.attributes.entries) {
    if (!CONTENT_ATTRIBUTES.has(key)) continue
    const arrow = key === Attr.outputMessages || key === Attr.toolCallResult ? "<" : ">"
    if (key === Attr.toolCallArguments || key === Attr.toolCallResult) {
      const name = key === Attr.toolCallArguments ? "arguments" : "result"
      lines.push(`${arrow} ${name}: ${full ? whole(asText(value)) : excerpt(asText(value))}`)
      continue
    }
    const messages = messagesOf(value)
    if (full) {
      for (const message of messages) lines.push(`${arrow} ${whole(messageText(message))}`)
    } else if (messages.length > 0) {
      const count = key === Attr.inputMessages ? `(${messages.length} message${messages.length === 1 ? "" : "s"}) ` : ""
      lines.push(`${arrow} ${count}${excerpt(messageText(messages.at(-1)!))}`)
    }
  }
  return lines
}
