// The differential check behind test/lang/jqNative*.test.ts: a filter run by the native evaluator and
// by jq-wasm (loaded directly, as jq.ts's worker runs it) on the same input must give the same values,
// in the same order, with the same object key order; where jq fails, the native evaluator must hand
// over (bail) or not accept the filter at all.
import { expect } from "bun:test"
import { type Jq, loadJq } from "jq-wasm/inline"
import type { Json } from "../../src/core/json.ts"
import { nativeFilter, runNative } from "../../src/lang/jq/index.ts"

export interface Globals {
  readonly steps: Json
  readonly inputs: Json
  readonly loop: Json
}

export type Verdict = "unsupported" | "bailed" | "same" | "jq-error"

const LIMIT = 1000
// jq-wasm leaks a file descriptor per call whose input holds a string: a fresh instance now and then.
const CALLS_PER_INSTANCE = 1000

let jq: Jq | undefined
let calls = 0

const instance = async (): Promise<Jq> => {
  if (jq === undefined || calls >= CALLS_PER_INSTANCE) {
    jq = await loadJq()
    calls = 0
  }
  calls++
  return jq
}

const GLOBAL_NAMES = ["steps", "inputs", "loop"] as const

/** Whether jq compiles `filter` (with the three globals bound), as checkJqSyntax asks it. */
export const jqCompiles = async (filter: string): Promise<boolean> => {
  const flags = GLOBAL_NAMES.flatMap((name) => ["--argjson", name, "null"])
  const result = (await instance()).raw("", filter, flags)
  return result.exitCode === 0
}

const viaJq = async (filter: string, input: Json, globals: Globals): Promise<ReadonlyArray<Json> | "error"> => {
  const flags = ["-c", ...GLOBAL_NAMES.flatMap((name) => ["--argjson", name, JSON.stringify(globals[name])])]
  let result: { readonly stdout: string; readonly exitCode: number }
  try {
    result = (await instance()).raw(JSON.stringify(input), `limit(${LIMIT}; (${filter}\n\n))`, flags)
  } catch {
    jq = undefined // the instance trapped
    return "error"
  }
  if (result.exitCode !== 0) return "error"
  return result.stdout === "" ? [] : result.stdout.split("\n").map((line) => JSON.parse(line) as Json)
}

const compiles = new Map<string, boolean>()

/** Runs `filter` both ways and asserts they agree; returns what happened, for the coverage counts. */
export const differential = async (filter: string, input: Json, globals: Globals): Promise<Verdict> => {
  const node = nativeFilter(filter)
  if (node === undefined) return "unsupported"
  // The parser must never accept what jq rejects, whatever happens at run time.
  if (!compiles.has(filter)) compiles.set(filter, await jqCompiles(filter))
  expect(compiles.get(filter), `jq rejects ${filter}, the native parser accepted it`).toBe(true)
  const used = GLOBAL_NAMES.filter((name) => filter.includes(`$${name}`))
  const native = runNative(node, input, globals, used, LIMIT)
  const wasm = await viaJq(filter, input, globals)
  const where = `${filter}  on  ${JSON.stringify(input)}`
  if (wasm === "error") {
    expect(native === undefined ? "bailed" : `native returned ${JSON.stringify(native)}`, where).toBe("bailed")
    return "jq-error"
  }
  if (native === undefined) return "bailed"
  expect(JSON.stringify(native), where).toBe(JSON.stringify(wasm))
  return "same"
}
