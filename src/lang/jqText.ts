// The text on both sides of jq (see jq.ts): the limits on what goes in and comes out, values encoded
// as the JSON text jq reads, and what jq prints on stderr turned into one-line reasons.
import { Buffer } from "node:buffer"
import { JqError } from "./languageErrors.ts"
import type { Json } from "../core/json.ts"
import { nestingDepth as coreNestingDepth } from "../core/jsonDepth.ts"

export const MAX_FILTER_BYTES = 64 * 1024
export const MAX_NESTING = 1024
export const MAX_INPUT_BYTES = 64 * 1024 * 1024
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024
/** `evalJqAll` stops a stream after this many values (an endless stream would otherwise never end). */
export const MAX_OUTPUTS = 100_000
/** Values nested deeper than this may have overflowed jq-wasm's C stack: the instance is replaced. */
export const SAFE_DEPTH = 128

export const quote = (text: string): string => JSON.stringify(text)

export const oneLine = (text: string): string => text.trim().replace(/\s*\n\s*/g, " ")

/** True when `text` is longer than `limit` bytes as UTF-8 (skips the count when it cannot be). */
export const exceedsBytes = (text: string, limit: number): boolean =>
  text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text, "utf8") > limit)

/** Container nesting depth (`1` for `[1]`, `0` for a scalar); stops counting once past `limit`. */
export const nestingDepth = (root: Json, limit: number): number => coreNestingDepth(root, limit)

/** Bracket nesting outside strings and comments: jq-wasm compiles nested expressions recursively. */
export const filterNesting = (filter: string): number => {
  let depth = 0
  let max = 0
  let inString = false
  let escaped = false
  let inComment = false
  for (const ch of filter) {
    if (inComment) {
      if (ch === "\n") inComment = false
      continue
    }
    if (inString) {
      if (escaped) escaped = false
      else if (ch === "\\") escaped = true
      else if (ch === "\"") inString = false
      continue
    }
    if (ch === "\"") inString = true
    else if (ch === "#") inComment = true
    else if (ch === "[" || ch === "{" || ch === "(") {
      depth++
      if (depth > max) max = depth
    } else if (ch === "]" || ch === "}" || ch === ")") depth = Math.max(0, depth - 1)
  }
  return max
}

/** `printed`: what jq-wasm printed, then the message of what it threw. */
export const abortReason = (printed: ReadonlyArray<string>): string => {
  const detail = printed.map(oneLine).filter((s) => s.length > 0)
  // A bare `Aborted()` is what a failed allocation looks like, and a stack overflow may look the same:
  // both causes are named, since the engine does not say which it was.
  return `the jq engine aborted (${detail.join("; ")}); it ran out of memory or stack: values of tens of ` +
    "megabytes or nested a few hundred levels deep can exhaust it"
}

/** `jq: error: <msg> at <top-level>, line 1, column 2:` lines → `<msg> at …, column 2`. */
export const compileReason = (stderr: string): string => {
  const reasons = stderr
    .split("\n")
    .filter((line) => line.startsWith("jq: error: "))
    .map((line) => line.slice("jq: error: ".length).replace(/:\s*$/, ""))
  return reasons.length > 0 ? reasons.join("; ") : oneLine(stderr)
}

// jq quotes whole inputs in some errors (`fromjson` repeats the text it failed to parse) and
// `error(.)` carries a whole value: a message must stay one readable line, not megabytes of stderr.
const MAX_REASON_CHARS = 500
const EXCERPT_CHARS = 40

const shorten = (reason: string): string => {
  const quoted = /^([\s\S]*?\(while parsing ')([\s\S]*)('\))$/.exec(reason)
  const text = quoted !== null && (quoted[2] ?? "").length > EXCERPT_CHARS
    ? `${quoted[1]}${(quoted[2] ?? "").slice(0, EXCERPT_CHARS)}…${quoted[3]}`
    : reason
  return text.length <= MAX_REASON_CHARS
    ? text
    : `${text.slice(0, MAX_REASON_CHARS)}… (${text.length - MAX_REASON_CHARS} more characters)`
}

export const runtimeReason = (stderr: string, exitCode: number): string => shorten(fullRuntimeReason(stderr, exitCode))

/** `jq: error (at /dev/stdin:0): boom` → `boom`; `error({})` → `{} (not a string)`. */
const fullRuntimeReason = (stderr: string, exitCode: number): string => {
  const lines = stderr.split("\n")
  const first = lines.findIndex((line) => line.startsWith("jq: error"))
  if (first < 0) {
    const text = oneLine(stderr) // `halt_error` prints its message bare
    return text.length > 0 ? text : `jq exited with status ${exitCode}`
  }
  const text = lines.slice(first).join("\n")
  const runtime = /^jq: error \(at [^)]*\)( \(not a string\))?: ([\s\S]*)$/.exec(text)
  if (runtime !== null) return oneLine(runtime[2] ?? "") + (runtime[1] !== undefined ? " (not a string)" : "")
  return compileReason(text)
}

// ---------------------------------------------------------------------------------------------------
// Values in

export interface Encoded {
  readonly text: string
  readonly depth: number
}

// Workflow values are immutable, and the same objects (recorded step outputs, the loop item) are fed to
// jq again and again: their JSON text and depth are computed once per object.
const encodedObjects = new WeakMap<object, Encoded>()

export const encodeValue = (value: Json, what: string): Encoded | JqError => {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value) ?? "null"
    return exceedsBytes(text, MAX_INPUT_BYTES) ? tooLarge(what) : { text, depth: 0 }
  }
  const hit = encodedObjects.get(value)
  if (hit !== undefined) return hit
  const depth = nestingDepth(value, MAX_NESTING)
  if (depth > MAX_NESTING) return tooDeep(what)
  const text = JSON.stringify(value)
  if (exceedsBytes(text, MAX_INPUT_BYTES)) return tooLarge(what)
  const encoded = { text, depth }
  encodedObjects.set(value, encoded)
  return encoded
}

// `$steps`/`$inputs` records are rebuilt by the engine as steps complete, but their entries are not:
// encode entry by entry so each recorded value is serialised once.
export const encodeRecord = (record: Readonly<Record<string, Json>>, what: string): Encoded | JqError => {
  const parts: Array<string> = []
  let depth = 1
  let size = 2
  for (const [key, value] of Object.entries(record)) {
    const encoded = encodeValue(value, what)
    if (encoded instanceof JqError) return encoded
    if (encoded.depth + 1 > MAX_NESTING) return tooDeep(what)
    depth = Math.max(depth, encoded.depth + 1)
    const part = `${JSON.stringify(key)}:${encoded.text}`
    size += part.length + 1
    if (size > MAX_INPUT_BYTES) return tooLarge(what)
    parts.push(part)
  }
  const text = `{${parts.join(",")}}`
  return exceedsBytes(text, MAX_INPUT_BYTES) ? tooLarge(what) : { text, depth }
}

export const tooDeep = (what: string) => new JqError({ reason: { _tag: "TooDeep", subject: what, limit: MAX_NESTING } })

const tooLarge = (what: string) => new JqError({ reason: { _tag: "TooLarge", subject: what, limit: MAX_INPUT_BYTES } })
