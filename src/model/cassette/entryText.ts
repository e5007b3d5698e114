// The text of a cassette or cache entry: pretty JSON with the response last. Things a server's
// answer must not do to it: crash the writer (a response nested tens of thousands of levels deep
// overflows JSON.stringify's stack, though JSON.parse read it fine), eat the machine on the way (a
// pretty-printer indents each level further: its output, and the indentation strings a failing
// JSON.stringify builds, grow with the square of the depth — gigabytes at 50,000 levels), or make a
// file lait refuses to read back (pretty-printing can triple a 16 MiB answer).
import { Effect } from "effect"
import { READ_LIMIT } from "../../platform/FileLoader.ts"
import { formatBytes } from "../../core/units.ts"
import { EntryRefused, ModelError } from "../ModelError.ts"

type Frame =
  | { readonly kind: "array"; readonly items: ReadonlyArray<unknown>; index: number }
  | { readonly kind: "object"; readonly record: Record<string, unknown>; readonly keys: Array<string>; index: number }

/**
 * Compact JSON of a parsed JSON value, as JSON.stringify gives it, with an explicit stack instead of
 * recursion, so any depth JSON.parse accepted can be written back.
 */
export const stringifyDeep = (value: unknown): string => {
  const out: Array<string> = []
  const stack: Array<Frame> = []
  const open = (v: unknown): void => {
    if (Array.isArray(v)) {
      out.push("[")
      stack.push({ kind: "array", items: v, index: 0 })
    } else if (typeof v === "object" && v !== null) {
      const record = v as Record<string, unknown>
      out.push("{")
      stack.push({ kind: "object", record, keys: Object.keys(record).filter((k) => record[k] !== undefined), index: 0 })
    } else {
      out.push(JSON.stringify(v) ?? "null")
    }
  }
  open(value)
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    if (top.kind === "array") {
      if (top.index === top.items.length) {
        out.push("]")
        stack.pop()
        continue
      }
      if (top.index > 0) out.push(",")
      open(top.items[top.index++])
    } else {
      if (top.index === top.keys.length) {
        out.push("}")
        stack.pop()
        continue
      }
      const key = top.keys[top.index++]!
      out.push(`${top.index > 1 ? "," : ""}${JSON.stringify(key)}:`)
      open(top.record[key])
    }
  }
  return out.join("")
}

/** Deeper than this, a response is written compact: pretty-printing it would grow quadratically. */
export const PRETTY_DEPTH = 128

/** Whether arrays and objects nest more than `limit` levels deep in `value` (no recursion). */
export const deeperThan = (value: unknown, limit: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v !== "object" || v === null) continue
    if (depth + 1 > limit) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}

const reasonOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/\.$/, "")

/**
 * `{...head, response}` as pretty JSON plus a newline. A response nested deeper than PRETTY_DEPTH
 * is written compact after a pretty head (still one JSON document that replays the same).
 */
export const entryText = (
  head: Readonly<Record<string, unknown>>,
  response: unknown
): { readonly text: string } | { readonly problem: string } => {
  if (!deeperThan(response, PRETTY_DEPTH)) {
    try {
      return { text: `${JSON.stringify({ ...head, response }, null, 2)}\n` }
    } catch {
      // Not for want of stack (the depth is bounded): fall through and report it.
    }
  }
  try {
    const pretty = JSON.stringify(head, null, 2)
    return { text: `${pretty.slice(0, -2)},\n  "response": ${stringifyDeep(response)}\n}\n` }
  } catch (e) {
    return { problem: `the response cannot be written as JSON (${reasonOf(e)})` }
  }
}

/** Why `text` must not be written as an entry lait would read back, or undefined. */
export const unreadableSize = (text: string): string | undefined => {
  // Every UTF-16 unit is at most 3 UTF-8 bytes: most entries need no exact count.
  if (text.length * 3 <= READ_LIMIT) return undefined
  const size = Buffer.byteLength(text, "utf8")
  return size <= READ_LIMIT
    ? undefined
    : `it would be ${formatBytes(size)} (${size} bytes), over the ${
      formatBytes(READ_LIMIT)
    } read limit, so it could never be read back`
}

/**
 * The text of a cassette or cache entry (`what`, for the message), or why it must not be written:
 * the answer defeats the JSON writer, or the file would be larger than lait reads back.
 */
export const entryBody = (
  head: Readonly<Record<string, unknown>>,
  response: unknown,
  what: string
): Effect.Effect<string, ModelError> =>
  Effect.suspend(() => {
    const entry = entryText(head, response)
    const problem = "problem" in entry ? entry.problem : unreadableSize(entry.text)
    return problem === undefined && "text" in entry
      ? Effect.succeed(entry.text)
      : Effect.fail(new ModelError({ reason: new EntryRefused({ what, problem: problem ?? "" }) }))
  })
