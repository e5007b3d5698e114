// jq 1.8's own test corpus (tests/*.test of jqlang/jq at jq-1.8.2, test/fixtures/jq/) against the
// native evaluator (src/lang/jq/), differentially: every case runs through jq-wasm, the reference (which
// must itself give the corpus's expected outputs), and through the native evaluator; wherever the
// native evaluator answers, it must answer exactly as jq-wasm does: the same values in the same order,
// the same object key order, no answer where jq fails (the error is then jq's to word), and no program
// accepted that jq rejects. Where it declines, jq.ts hands the filter to jq-wasm.
import { describe, expect, test } from "bun:test"
import * as path from "node:path"
import { isDeepStrictEqual } from "node:util"
import { type Jq, loadJq } from "jq-wasm/inline"
import type { Json } from "../../src/core/json.ts"
import { nativeFilter, runNative } from "../../src/lang/jq/index.ts"
import { type Case, readCorpus } from "./jqCorpus.ts"

const CORPUS = path.join(import.meta.dir, "../fixtures/jq")
const LIMIT = 100_001 // as jq.ts asks for a stream
const NO_GLOBALS = { steps: null, inputs: null, loop: null }
// jq-wasm leaks a file descriptor per call whose input holds a string: a fresh instance now and then.
const CALLS_PER_INSTANCE = 500

let jq: Jq | undefined
let calls = 0
const raw = async (stdin: string, program: string, flags: Array<string>) => {
  if (jq === undefined || calls >= CALLS_PER_INSTANCE) {
    jq = await loadJq()
    calls = 0
  }
  calls++
  try {
    return jq.raw(stdin, program, flags)
  } catch {
    jq = undefined // the instance trapped
    return undefined
  }
}

// What jq printed, and its error when it failed (after printing `values`); undefined: it trapped.
interface Outcome {
  readonly values: ReadonlyArray<Json>
  readonly error?: string
}

const outcome = (result: { stdout: string; stderr: string; exitCode: number } | undefined): Outcome | undefined => {
  if (result === undefined) return undefined
  const lines = result.stdout === "" ? [] : result.stdout.split("\n")
  const values = lines.map((line) => JSON.parse(line) as Json)
  return result.exitCode === 0 ? { values } : { values, error: result.stderr }
}

// Exact: -0 is not 0, and object keys keep their order.
const exact = (value: Json): unknown =>
  typeof value === "number" && Object.is(value, -0)
    ? "-0"
    : Array.isArray(value)
    ? value.map(exact)
    : value !== null && typeof value === "object"
    ? Object.entries(value).map(([k, v]) => [k, exact(v)])
    : value

// jq.test compares as jv_equal does: object key order does not matter, nor does the sign of zero.
const jvEqual = (a: Json, b: Json): boolean => {
  if (a === null || typeof a !== "object" || b === null || typeof b !== "object") return a === b
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jvEqual(x, b[i]!))
  }
  const x = a as Readonly<Record<string, Json>>
  const y = b as Readonly<Record<string, Json>>
  const keys = Object.keys(x)
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && jvEqual(x[k]!, y[k]!))
}

// As jq's --run-tests judges a case: the expected values first, then nothing more; an error ends the
// stream, so one after the expected values passes, as it does there.
const sameAsExpected = (actual: Outcome, expected: ReadonlyArray<string>): boolean => {
  if (actual.values.length !== expected.length) return false
  return expected.every((line, i) => {
    try {
      return jvEqual(JSON.parse(line) as Json, actual.values[i]!)
    } catch {
      return false // jq reads `nan` and the like, JSON.parse does not
    }
  })
}

interface Counts {
  cases: number
  referenceRuns: number
  referenceSkipped: number // jq-wasm cannot run it: modules, the environment, or its 1 MiB stack gives out
  accepted: number
  declined: number
  agreeing: number
  disagreeing: number
}

// jq-wasm has no module directory (jq's tests run with `-L tests/modules`), nor the environment jq's
// test scripts set (PAGER).
const OUTSIDE = /\b(?:import|include|modulemeta|env)\b|\$ENV\b/

// jq's harness keeps the last error its callback saw: a `%%FAIL` message is that one's beginning.
const lastError = (stderr: string): string => stderr.slice(Math.max(0, stderr.lastIndexOf("jq: error")))

const runCase = async (file: string, c: Case, counts: Counts, failures: Array<string>): Promise<void> => {
  const where = `${file} line ${c.line}: ${c.program}`
  const native = nativeFilter(c.program)
  if (c.kind === "fail") {
    const checked = await raw("", c.program, [])
    const rejected = checked !== undefined && checked.exitCode === 3 &&
      (c.message === undefined || lastError(checked.stderr).startsWith(c.message))
    if (rejected) counts.referenceRuns++
    else failures.push(`${where}: jq-wasm does not reject it as expected: ${JSON.stringify(checked)}`)
    if (native === undefined) counts.declined++
    else {
      counts.accepted++
      counts.disagreeing++
      failures.push(`${where}: the native parser accepts a program jq rejects`)
    }
    return
  }
  const reference = outcome(await raw(c.input, c.program, ["-c"]))
  if (reference !== undefined && sameAsExpected(reference, c.expected)) counts.referenceRuns++
  else if (reference === undefined || OUTSIDE.test(c.program)) counts.referenceSkipped++
  else failures.push(`${where}: jq-wasm gives ${JSON.stringify(reference)}, not ${JSON.stringify(c.expected)}`)
  if (native === undefined) {
    counts.declined++
    return
  }
  // lait hands jq values, not text: the input as JSON.stringify writes it, as jq.ts sends it.
  let input: Json
  try {
    input = JSON.parse(c.input) as Json
  } catch {
    counts.declined++ // text no workflow value can be (a byte order mark, `nan`)
    return
  }
  const text = JSON.stringify(input)
  const wasm = text === c.input ? reference : outcome(await raw(text, c.program, ["-c"]))
  const answer = runNative(native, input, NO_GLOBALS, [], LIMIT)
  if (answer === undefined) {
    counts.declined++
    return
  }
  counts.accepted++
  const agrees = wasm !== undefined && wasm.error === undefined && isDeepStrictEqual(exact(answer), exact(wasm.values))
  if (agrees) counts.agreeing++
  else {
    counts.disagreeing++
    failures.push(`${where} on ${text}: native ${JSON.stringify(answer)}, jq-wasm ${JSON.stringify(wasm)}`)
  }
}

const FILES = ["jq.test", "man.test", "onig.test", "manonig.test", "base64.test", "uri.test"]
const total: Counts = {
  cases: 0,
  referenceRuns: 0,
  referenceSkipped: 0,
  accepted: 0,
  declined: 0,
  agreeing: 0,
  disagreeing: 0
}

describe("jq 1.8's test corpus", () => {
  for (const file of FILES) {
    test(`the native evaluator answers as jq-wasm does on every case of ${file} it accepts`, async () => {
      const cases = readCorpus(path.join(CORPUS, file))
      const counts: Counts = { ...total, cases: cases.length }
      for (const key of Object.keys(counts) as Array<keyof Counts>) if (key !== "cases") counts[key] = 0
      const failures: Array<string> = []
      for (const c of cases) await runCase(file, c, counts, failures)
      for (const key of Object.keys(total) as Array<keyof Counts>) total[key] += counts[key]
      console.log(`${file}: ${JSON.stringify(counts)}`)
      expect(failures).toEqual([])
      expect(counts.agreeing).toBe(counts.accepted)
      expect(counts.referenceRuns + counts.referenceSkipped).toBe(counts.cases)
    }, 60_000)
  }

  test("the comparison is about something: jq-wasm runs nearly all cases, the native evaluator many", () => {
    console.log(`all files: ${JSON.stringify(total)}`)
    expect(total.referenceSkipped).toBeLessThan(total.cases * 0.06)
    expect(total.accepted).toBeGreaterThan(total.cases * 0.4)
  })
})
