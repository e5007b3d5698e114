// Seeded random filters from the native subset's grammar, on random JSON values, through the native
// evaluator and jq-wasm (jqNativeDiff.ts): they must agree wherever the native evaluator answers, and
// its parser must never accept a filter jq rejects. Deterministic: a failure names its filter and input.
import { expect, test } from "bun:test"
import type { Json } from "../../src/core/json.ts"
import { differential, type Globals, type Verdict } from "./jqNativeDiff.ts"
import { prng as random } from "../fixtures/prng.ts"

const SEED = Number(process.env.JQ_NATIVE_SEED ?? 24)
const FILTERS = 1500

const rnd = random(SEED)
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(rnd() * items.length)]!

const NUMBERS = [0, 1, -1, 2, 3, 0.5, -2.5, 10, 100, 1e17, 0.1, 1 / 3, 0.0011, 123.456]
const STRINGS = ["", "a", "b", "ab", "a,b", "é", "😀x", "A b", "1", "\u007f"]
const KEYS = ["a", "b", "c", "x", "1"]

const value = (depth: number): Json => {
  const r = rnd()
  if (depth <= 0 || r < 0.45) {
    return pick<Json>([null, true, false, pick(NUMBERS), pick(STRINGS), pick(STRINGS), pick(NUMBERS)])
  }
  if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth - 1))
  const out: Record<string, Json> = {}
  for (let i = Math.floor(rnd() * 4); i > 0; i--) out[pick(KEYS)] = value(depth - 1)
  return out
}

const literal = (): string => pick(["0", "1", "2", "-1", "0.5", "\"a\"", "\"b\"", "\"a,b\"", "null", "true", "false", "[]", "{}"])

const FUNCS0 = [
  "length", "keys", "keys_unsorted", "not", "type", "tostring", "tojson", "add", "any", "all", "sort", "unique",
  "min", "max", "reverse", "first", "last", "to_entries", "floor", "sqrt", "ascii_downcase", "explode", "values",
  "scalars", "iterables", "numbers", "strings", "empty", "recurse", "flatten", "utf8bytelength", "tonumber", "fromjson",
  "@json", "@text", "@base64", "@uri", "@html", "@csv", "@tsv", "@sh", "from_entries", "error", "round", "ceil", "fabs"
]
const FUNCS1 = [
  "map", "select", "has", "contains", "inside", "startswith", "endswith", "split", "join", "sort_by", "group_by",
  "unique_by", "min_by", "max_by", "first", "last", "range", "ltrimstr", "rtrimstr", "getpath", "any", "all", "add",
  "with_entries", "map_values", "error", "in", "nth", "flatten"
]
const FUNCS2 = ["limit", "range", "nth", "any", "all", "sub", "gsub"]

const filter = (depth: number, vars: ReadonlyArray<string>): string => {
  const f = (d = depth - 1) => filter(d, vars)
  if (depth <= 0) {
    return pick([".", "..", ".a", ".b", ".[0]", ".[-1]", ".[]", ".[]?", ".a?", literal(), literal(), ...vars.map((v) => `$${v}`)])
  }
  const r = Math.floor(rnd() * 30)
  switch (r) {
    case 0:
      return `${f()} | ${f()}`
    case 1:
      return `${f()}, ${f()}`
    case 2:
      return `${f()} // ${f()}`
    case 3:
      return `${f()} ${pick(["and", "or"])} ${f()}`
    case 4:
      return `${f()} ${pick(["==", "!=", "<", "<=", ">", ">="])} ${f()}`
    case 5:
    case 6:
      return `${f()} ${pick(["+", "-", "*", "/", "%"])} ${f()}`
    case 7:
      return `-${f(0)}`
    case 8:
      return `[${f()}]`
    case 9:
      return `{a: ${f()}, ${pick(["b", "\"c d\"", "(\"x\", \"y\")", "a", "$__loc__"])}: ${f()}}`
    case 10:
      return `(${f()})`
    case 11:
      return `"s\\(${f()})t\\(${f()})"`
    case 12:
      return `if ${f()} then ${f()} ${rnd() < 0.3 ? "" : `elif ${f()} then ${f()} `}else ${f()} end`
    case 13:
      return rnd() < 0.5 ? `try ${f(0)}` : `(${f()})?`
    case 14: {
      const name = pick(["x", "y"])
      return `reduce ${pick([".[]?", "range(3)", "(.[]?, 1)"])} as $${name} (${f(0)}; ${filter(depth - 1, [...vars, name])})`
    }
    case 15: {
      const name = pick(["x", "y"])
      return `${f(0)} as $${name} | ${filter(depth - 1, [...vars, name])}`
    }
    case 16:
    case 17:
    case 18:
      return pick(FUNCS0)
    case 19:
    case 20:
    case 21:
      return `${pick(FUNCS1)}(${f()})`
    case 22:
      return `${pick(FUNCS2)}(${f()}; ${f()})`
    case 23:
      return `${f(0)}[${f()}]${pick(["", "?"])}`
    case 24:
      return `${f(0)}[${pick(["", "1", "-2", f()])}:${pick(["", "2", "-1", f()])}]`
    case 25:
      return `${f(0)}.${pick(["a", "b", "\"a\""])}${pick(["", "?"])}`
    case 26:
      return `[foreach .[]? as $x (0; . + 1; [$x, .])]`
    case 27:
      return `${f()} | ${pick(FUNCS0)}`
    case 28:
      return pick([`.[] | ${f()}`, `[.[]?${pick(["", "[]?", ".a?", "[0]?", "[1:]?"])}]`])
    default:
      return `{${pick(["a", "b", "$steps"])}}`
  }
}

test(`${FILTERS} random filters agree with jq-wasm`, async () => {
  const verdicts: Record<Verdict, number> = { unsupported: 0, bailed: 0, same: 0, "jq-error": 0 }
  const failures: Array<string> = []
  for (let i = 0; i < FILTERS; i++) {
    const text = filter(1 + Math.floor(rnd() * 3), [])
    const globals: Globals = { steps: value(2), inputs: {}, loop: null }
    for (let j = 0; j < 2; j++) {
      try {
        verdicts[await differential(text, value(3), globals)]++
      } catch (e) {
        failures.push(e instanceof Error ? e.message.split("\n").slice(0, 3).join(" / ") : String(e))
      }
    }
  }
  console.log(`random filters (seed ${SEED}): ${JSON.stringify(verdicts)}`)
  expect(failures.slice(0, 30)).toEqual([])
  // The comparison must be about something: most runs are answered natively.
  expect(verdicts.same).toBeGreaterThan(FILTERS * 0.5)
}, 120_000)
