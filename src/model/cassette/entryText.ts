// The text of a cassette or cache entry: pretty JSON with the response last. Things a server's
// answer must not do to it: crash the writer (a response nested tens of thousands of levels deep
// overflows JSON.stringify's stack, though JSON.parse read it fine), eat the machine on the way (a
// pretty-printer indents each level further: its output, and the indentation strings a failing
// JSON.stringify builds, grow with the square of the depth — gigabytes at 50,000 levels), or make a
// file lait refuses to read back (pretty-printing can triple a 16 MiB answer).
import { Effect } from "effect"
import { deeperThan, stringifyDeep } from "../../core/jsonDepth.ts"
import { READ_LIMIT } from "../../platform/FileLoader.ts"
import { formatBytes } from "../../core/units.ts"
import { EntryRefused, ModelError } from "../ModelError.ts"

export { deeperThan, stringifyDeep }

/** Deeper than this, a response is written compact: pretty-printing it would grow quadratically. */
export const PRETTY_DEPTH = 128

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
