// A native evaluator for the common subset of jq (jq.ts uses it before jq-wasm). `nativeFilter` parses
// a filter, or says it is outside the subset; `runNative` evaluates it, or bails (returns undefined)
// whenever its result could differ in any way from jq-wasm's: then jq-wasm evaluates the filter as
// before, and errors, messages and limits stay jq's own.
import type { Json } from "../../core/json.ts"
import { MAX_OUTPUT_BYTES } from "../jqText.ts"
import type { Env } from "./builtins.ts"
import { run } from "./eval.ts"
import { type Node, parseFilter, Unsupported } from "./parse.ts"
import { Bail, Fail, plain, refuel } from "./values.ts"

export type NativeFilter = Node

const GLOBALS = ["steps", "inputs", "loop"]
const parsed = new Map<string, Node | undefined>()
const PARSED_CACHE_SIZE = 512

/** The filter's native form, or undefined when it is outside the subset (then jq-wasm handles it). */
export const nativeFilter = (filter: string): NativeFilter | undefined => {
  const hit = parsed.get(filter)
  if (hit !== undefined || parsed.has(filter)) return hit
  const result = parseFilter(filter, GLOBALS)
  const node = result instanceof Unsupported ? undefined : result
  if (parsed.size >= PARSED_CACHE_SIZE) parsed.delete(parsed.keys().next().value!)
  parsed.set(filter, node)
  return node
}

// An upper bound of the bytes jq prints for `value` (every character escaped as `\uXXXX`), so the
// output-size limit is only ever decided by jq itself.
const boundBytes = (value: Json, budget: number): number => {
  if (budget < 0) return budget
  if (typeof value === "string") return budget - value.length * 6 - 2
  if (value === null || typeof value !== "object") return budget - 24
  let left = budget - 2
  if (Array.isArray(value)) {
    for (const item of value) left = boundBytes(item, left - 1)
  } else {
    for (const [key, item] of Object.entries(value)) left = boundBytes(item, left - key.length * 6 - 4)
  }
  return left
}

/**
 * Up to `limit` outputs of `filter` on `input` with `$steps`/`$inputs`/`$loop` bound, or undefined
 * when jq-wasm must decide (a runtime error, a value jq would read or print differently, too much work).
 */
export const runNative = (
  filter: NativeFilter,
  input: Json,
  globals: { readonly steps: Json; readonly inputs: Json; readonly loop: Json },
  used: ReadonlyArray<string>,
  limit: number
): ReadonlyArray<Json> | undefined => {
  try {
    let env: Env = null
    for (const name of used) {
      const value = globals[name as keyof typeof globals]
      plain(value)
      env = { name, value, next: env }
    }
    plain(input)
    refuel()
    const out: Array<Json> = []
    let budget = MAX_OUTPUT_BYTES
    for (const value of run(filter, input, env)) {
      plain(value)
      budget = boundBytes(value, budget - 1)
      if (budget < 0) return undefined
      out.push(value)
      if (out.length >= limit) break
    }
    return out
  } catch (e) {
    // RangeError: the call stack, on an absurdly nested filter or value
    if (e instanceof Bail || e instanceof Fail || e instanceof RangeError) return undefined
    throw e
  }
}
