// The assertions that look at the output's text alone (docs/testing.md#assertions): regex, icontains,
// starts_with, contains_any, contains_all, is_json, levenshtein, length. Each answers undefined when it
// holds, what was expected when it does not (the evaluator adds the output it got), or `broken` when it
// could not be checked at all (a regex that does not compile): a `not:` around it must not turn that
// into a pass.
import { rustDebugString } from "../core/rustFormat.ts"
import { parseJsonText } from "../core/jsonDepth.ts"
import type { Json } from "../core/json.ts"
import type { Assertion } from "./assertions.ts"

export type TextVerdict =
  | undefined
  /** The start of the failure message: `expected output to …, got`. */
  | { readonly expected: string }
  /** The whole failure message, the output left out. */
  | { readonly message: string }
  | { readonly broken: string }

export type TextAssertion = Extract<
  Assertion,
  { readonly type: "regex" | "icontains" | "starts_with" | "contains_any" | "contains_all" | "is_json" }
    | { readonly type: "levenshtein" | "length" }
>

/** The RegExp of a `regex` assertion, or why it does not compile (lint reports the same words). */
export const compileRegex = (source: string): RegExp | { readonly problem: string } => {
  try {
    return new RegExp(source)
  } catch (e) {
    return { problem: `invalid regular expression ${rustDebugString(source)}: ${e instanceof Error ? e.message : e}` }
  }
}

const list = (values: ReadonlyArray<string>) => `[${values.map(rustDebugString).join(", ")}]`

/** The output parsed as JSON, or why it is not JSON. */
export const outputJson = (output: string): { readonly value: Json } | { readonly problem: string } => {
  try {
    return { value: parseJsonText(output) as Json }
  } catch (e) {
    return { problem: e instanceof Error ? e.message : String(e) }
  }
}

/**
 * Edit distance between `a` and `b` (by code point) when it is at most `max`, else `max + 1`: only the
 * cells within `max` of the diagonal can stay within `max`, so a long output costs `length × (2·max+1)`.
 */
export const boundedLevenshtein = (a: string, b: string, max: number): number => {
  const s = [...a], t = [...b]
  const over = max + 1
  if (Math.abs(s.length - t.length) > max) return over
  // Two rows, reused: each row writes its band and the cell right of it, all the next row reads.
  let previous = Array.from({ length: t.length + 1 }, (_, j) => (j <= max ? j : over))
  let current = Array.from({ length: t.length + 1 }, () => over)
  for (let i = 1; i <= s.length; i++) {
    const from = Math.max(1, i - max), to = Math.min(t.length, i + max)
    current[from - 1] = from === 1 && i <= max ? i : over
    let best = current[from - 1]!
    for (let j = from; j <= to; j++) {
      const substitution = previous[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1)
      current[j] = Math.min(over, substitution, previous[j]! + 1, current[j - 1]! + 1)
      best = Math.min(best, current[j]!)
    }
    if (to < t.length) current[to + 1] = over
    if (best > max) return over
    ;[previous, current] = [current, previous]
  }
  return Math.min(over, previous[t.length]!)
}

const countUnits = (output: string, unit: "characters" | "words"): number =>
  unit === "words" ? output.split(/\s+/u).filter((word) => word !== "").length : [...output].length

const checkLength = (assertion: Extract<TextAssertion, { readonly type: "length" }>, output: string): TextVerdict => {
  const unit = assertion.unit ?? "characters"
  const count = countUnits(output, unit)
  const min = assertion.min ?? undefined, max = assertion.max ?? undefined
  if (min === undefined && max === undefined) return { broken: "a length assertion needs 'min' or 'max'" }
  if (min !== undefined && count < min) return { message: `expected output of at least ${min} ${unit}, got ${count}` }
  if (max !== undefined && count > max) return { message: `expected output of at most ${max} ${unit}, got ${count}` }
  return undefined
}

export const checkText = (assertion: TextAssertion, output: string): TextVerdict => {
  switch (assertion.type) {
    case "regex": {
      const regex = compileRegex(assertion.value)
      if ("problem" in regex) return { broken: regex.problem }
      return regex.test(output) ? undefined : { expected: `expected output to match /${assertion.value}/, got` }
    }
    case "icontains":
      return output.toLowerCase().includes(assertion.value.toLowerCase())
        ? undefined
        : { expected: `expected output to contain ${rustDebugString(assertion.value)} (ignoring case), got` }
    case "starts_with":
      return output.startsWith(assertion.value)
        ? undefined
        : { expected: `expected output to start with ${rustDebugString(assertion.value)}, got` }
    case "contains_any":
      return assertion.value.some((text) => output.includes(text))
        ? undefined
        : { expected: `expected output to contain any of ${list(assertion.value)}, got` }
    case "contains_all": {
      const missing = assertion.value.filter((text) => !output.includes(text))
      return missing.length === 0
        ? undefined
        : { expected: `expected output to contain all of ${list(assertion.value)}, missing ${list(missing)}; got` }
    }
    case "is_json": {
      const parsed = outputJson(output)
      return "problem" in parsed ? { expected: `expected output to be JSON (${parsed.problem}), got` } : undefined
    }
    case "levenshtein": {
      const distance = boundedLevenshtein(output, assertion.value, assertion.max)
      if (distance <= assertion.max) return undefined
      return {
        expected: `expected output within edit distance ${assertion.max} of ${
          rustDebugString(assertion.value)
        } (it is more than ${assertion.max}), got`
      }
    }
    case "length":
      return checkLength(assertion, output)
  }
}
