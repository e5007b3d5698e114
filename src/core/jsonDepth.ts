// How deeply nested JSON lait accepts from outside (a model's answer, tool-call arguments, a shard of
// `lait eval merge`, a checkpoint), and walking values of any depth without recursion. JSON.parse
// reads 100,000 levels of `[` without complaint, but much of what lait then does with a value
// recurses over it (schema validation, canonical JSON for keys, redaction, printing, templates) and
// would end in `Maximum call stack size exceeded`. One check where the text is parsed keeps every
// later walk within bounds.

/** The deepest nesting of arrays and objects lait reads from JSON text it did not make. */
export const MAX_JSON_DEPTH = 1000

/** `nested deeper than 1000 levels (lait's limit for JSON it reads)`: the reason in messages. */
export const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels (lait's limit for JSON it reads)`

/** Container nesting depth (`1` for `[1]`, `0` for a scalar); stops counting once past `limit`. */
export const nestingDepth = (root: unknown, limit: number): number => {
  if (root === null || typeof root !== "object") return 0
  let max = 0
  const stack: Array<readonly [unknown, number]> = [[root, 1]]
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!
    if (depth > max) {
      max = depth
      if (max > limit) return max
    }
    const children: ReadonlyArray<unknown> = Array.isArray(value) ? value : Object.values(value as object)
    for (const child of children) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1])
    }
  }
  return max
}

/** Whether arrays and objects nest more than `limit` levels deep in `value`. */
export const deeperThan = (value: unknown, limit: number): boolean => nestingDepth(value, limit) > limit

/** What JSON.parse throws for text nested deeper than MAX_JSON_DEPTH. */
export class JsonTooDeep extends Error {
  constructor() {
    super(TOO_DEEP)
    this.name = "JsonTooDeep"
  }
}

/**
 * JSON.parse for text from outside: throws a SyntaxError for text that is not JSON (as JSON.parse
 * does) and a JsonTooDeep for a value nested deeper than `limit`.
 */
export const parseJsonText = (text: string, limit: number = MAX_JSON_DEPTH): unknown => {
  const value: unknown = JSON.parse(text)
  if (deeperThan(value, limit)) throw new JsonTooDeep()
  return value
}

/**
 * `parseJsonText` for a file lait reads whole: its value, or what is wrong with it — the depth limit's
 * words, or `<notJson>: <the parser's reason>`.
 */
export const readJsonText = (
  text: string,
  notJson: string
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string } => {
  try {
    return { ok: true, value: parseJsonText(text) }
  } catch (e) {
    if (e instanceof JsonTooDeep) return { ok: false, problem: e.message }
    return { ok: false, problem: `${notJson}: ${e instanceof Error ? e.message : String(e)}` }
  }
}

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
