// src/lang/jq/: lait's native evaluator for a subset of jq 1.8, an owned part. jq.ts asks it first and
// hands the filter to jq-wasm (jq 1.8.2) whenever it declines; jq-wasm stays the definition of jq here.
//
// The contract: on every filter and input it accepts, it answers exactly as jq-wasm does (the same
// values in the same order, the same object key order); it declines (returns undefined) everything
// else: syntax outside the subset (`nativeFilter`), any jq error, number spellings and values jq would
// read or print differently, values nested past SAFE_DEPTH, too much work (`runNative`). Errors,
// messages and limits therefore stay jq's own, and the parser never accepts a filter jq rejects.
//
// What proves it: test/lang/jqCorpus.test.ts runs jq 1.8's own test corpus (test/fixtures/jq/, from
// jqlang/jq) through jq-wasm and this evaluator and requires them to agree wherever it answers;
// test/lang/jqNative*.test.ts do the same for the repository's own filters and hand-written cases.
// Extending the subset: add the construct to parse.ts (and builtins.ts or eval.ts), then run those
// tests; where jq's behaviour is in doubt, decline rather than guess.
//
// Why it exists (measured when it was kept): an evaluation through jq-wasm's worker costs
// 1.5-2.5 ms, a native one 10-25 us; a one-step `lait run` whose filters are all native never loads
// jq-wasm and takes about a quarter of the time it takes with jq-wasm alone (the bench start-up row).
//
// Files: lexer.ts and parse.ts (text to ast.ts's tree), eval.ts (jq's generator semantics),
// builtins.ts and formats.ts (the builtins it knows), values.ts (jq's value semantics and the bails).
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
