// Workflow values are typed JSON. The text form is how a value becomes a user message, stdin, a
// written file or the final stdout: strings as-is, everything else compact JSON.

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type JsonObject = { readonly [key: string]: Json }

export const isJsonObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const textForm = (value: Json): string => (typeof value === "string" ? value : JSON.stringify(value))

const FENCE = /^\s*```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```\s*$/

/**
 * A structured answer without one surrounding Markdown fence (```json or ```), as a workflow's
 * `output_schema` and one-shot `--json-schema` read it; anything else is left alone.
 */
export const stripFence = (text: string): string => {
  const m = FENCE.exec(text)
  return m === null ? text : m[1]!
}

/** The JSON type name used in messages (`got a string`, `got an object`). */
export const jsonTypeName = (value: Json): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  return typeof value === "object" ? "object" : typeof value
}

/** `a string`, `an object`, `null` — for messages such as `must produce a JSON array, got a string`. */
export const describeJsonType = (value: Json): string => {
  const name = jsonTypeName(value)
  if (name === "null") return "null"
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`
}
