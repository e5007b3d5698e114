// jq's value semantics on JSON values, for the native evaluator. Whatever could come out differently
// from jq (number formatting, object key order, lone surrogates, runaway sizes) throws Bail, and the
// evaluation goes to jq-wasm; jq's own runtime errors throw Fail, which `try` and `?` may catch.
import type { Json } from "../../core/json.ts"
import { SAFE_DEPTH } from "../jqText.ts"

/** The native evaluator cannot vouch for the result: jq-wasm evaluates the filter instead. */
export class Bail {
  constructor(readonly why: string) {}
}

/** One of jq's runtime errors. Its message is jq's business: uncaught, the evaluation bails. */
export class Fail {
  constructor(readonly why: string) {}
}

export const bail = (why: string): never => {
  throw new Bail(why)
}

export const fail = (why: string): never => {
  throw new Fail(why)
}

export type JsonObject = { readonly [key: string]: Json }

// Work budget of one evaluation: everything jq-wasm would run in its worker runs here on the main
// thread, so a filter that loops for long (or builds huge values) must hand over, not block.
const FUEL = 200_000
let fuel = FUEL

export const refuel = (): void => {
  fuel = FUEL
}

export const burn = (units: number): void => {
  fuel -= units
  if (fuel < 0) bail("work budget")
}

export const isObject = (v: Json): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v)

export const typeOf = (v: Json): string =>
  v === null
    ? "null"
    : typeof v === "boolean"
    ? "boolean"
    : typeof v === "number"
    ? "number"
    : typeof v === "string"
    ? "string"
    : Array.isArray(v)
    ? "array"
    : "object"

export const truthy = (v: Json): boolean => v !== null && v !== false

export const own = (o: JsonObject, key: string): Json =>
  Object.prototype.hasOwnProperty.call(o, key) ? o[key]! : null

// JavaScript orders integer-like keys first, jq keeps insertion order; `__proto__` is not a plain key.
const ODD_KEY = /^(?:0|[1-9][0-9]*)$/

/** A new object from entries in jq's insertion order (a repeated key keeps its first place). */
export const makeObject = (entries: Iterable<readonly [string, Json]>): JsonObject => {
  const out: Record<string, Json> = {}
  for (const [key, value] of entries) {
    if (key === "__proto__" || ODD_KEY.test(key)) bail("object key")
    out[key] = value
  }
  return built(out)
}

const RANK: Readonly<Record<string, number>> = { null: 0, boolean: 1, number: 3, string: 4, array: 5, object: 6 }
const rank = (v: Json): number => (v === true ? 2 : RANK[typeOf(v)]!)

// jq compares strings as UTF-8 bytes, i.e. by code point: UTF-16 units order supplementary characters
// (surrogates) below U+E000–U+FFFF, so those units are moved above them.
const unitKey = (c: number): number => (c >= 0xd800 && c <= 0xdfff ? c + 0x2000 : c >= 0xe000 ? c - 0x800 : c)

export const compareStrings = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return unitKey(x) - unitKey(y)
  }
  return a.length - b.length
}

export const sortedKeys = (o: JsonObject): Array<string> => Object.keys(o).sort(compareStrings)

export const compare = (a: Json, b: Json): number => {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra - rb
  if (typeof a === "number") return a < (b as number) ? -1 : a > (b as number) ? 1 : 0
  if (typeof a === "string") return compareStrings(a, b as string)
  if (Array.isArray(a)) {
    const bb = b as ReadonlyArray<Json>
    burn(1)
    for (let i = 0; i < a.length && i < bb.length; i++) {
      const c = compare(a[i]!, bb[i]!)
      if (c !== 0) return c
    }
    return a.length - bb.length
  }
  if (isObject(a)) {
    const bo = b as JsonObject
    const ka = sortedKeys(a)
    const kb = sortedKeys(bo)
    burn(ka.length + kb.length)
    const c = compare(ka, kb)
    if (c !== 0) return c
    for (const key of ka) {
      const d = compare(a[key]!, bo[key]!)
      if (d !== 0) return d
    }
    return 0
  }
  return 0
}

export const equal = (a: Json, b: Json): boolean => compare(a, b) === 0

export const codePoints = (s: string): number => {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) n--
  }
  return n
}

/**
 * A number as jq prints it, when that is certainly JavaScript's spelling too: safe integers, and other
 * numbers that both print as their shortest round-trip digits without an exponent (jq switches to
 * exponents below 1e-4; a number read from JSON keeps its spelling, which JSON.stringify wrote).
 */
export const numberText = (n: number): string => {
  if (Object.is(n, -0) || !Number.isFinite(n)) return bail("number formatting")
  if (Number.isSafeInteger(n)) return String(n)
  const abs = Math.abs(n)
  if (abs < 0.001 || abs >= 2 ** 53) bail("number formatting")
  return String(n)
}

const escapeJson = (s: string): string => {
  if (s.includes("\u007f")) bail("DEL in a string") // jq escapes it, JSON.stringify does not
  return JSON.stringify(s)
}

/** `tojson` (jq's compact output), or Bail when a number's spelling could differ. */
export const toJson = (v: Json): string => {
  burn(1)
  if (v === null || typeof v === "boolean") return String(v)
  if (typeof v === "number") return numberText(v)
  if (typeof v === "string") {
    burn(v.length >> 6)
    return escapeJson(v)
  }
  if (Array.isArray(v)) return `[${v.map(toJson).join(",")}]`
  return `{${Object.keys(v).map((k) => `${escapeJson(k)}:${toJson((v as JsonObject)[k]!)}`).join(",")}}`
}

export const toText = (v: Json): string => (typeof v === "string" ? v : toJson(v))

const cannot = (a: Json, b: Json, what: string): never => fail(`${typeOf(a)} and ${typeOf(b)} cannot be ${what}`)

export const add = (a: Json, b: Json): Json => {
  if (a === null) return b
  if (b === null) return a
  if (typeof a === "number" && typeof b === "number") return a + b
  if (typeof a === "string" && typeof b === "string") {
    burn((a.length + b.length) >> 6)
    return a + b
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    burn(a.length + b.length)
    return [...a, ...b]
  }
  if (isObject(a) && isObject(b)) {
    burn(Object.keys(a).length + Object.keys(b).length)
    return makeObject([...Object.entries(a), ...Object.entries(b)])
  }
  return cannot(a, b, "added")
}

export const subtract = (a: Json, b: Json): Json => {
  if (typeof a === "number" && typeof b === "number") return a - b
  if (Array.isArray(a) && Array.isArray(b)) {
    burn(a.length * (b.length + 1))
    return a.filter((x) => !b.some((y) => equal(x, y)))
  }
  return cannot(a, b, "subtracted")
}

const deepMerge = (a: JsonObject, b: JsonObject): JsonObject => {
  burn(Object.keys(a).length + Object.keys(b).length)
  const merged = new Map<string, Json>(Object.entries(a))
  for (const [key, value] of Object.entries(b)) {
    const old = merged.get(key)
    merged.set(key, old !== undefined && isObject(old) && isObject(value) ? deepMerge(old, value) : value)
  }
  return makeObject(merged)
}

export const multiply = (a: Json, b: Json): Json => {
  if (typeof a === "number" && typeof b === "number") return a * b
  if (isObject(a) && isObject(b)) return deepMerge(a, b)
  if (typeof a === "string" || typeof b === "string") bail("string repetition")
  return cannot(a, b, "multiplied")
}

export const divide = (a: Json, b: Json): Json => {
  if (typeof a === "number" && typeof b === "number") {
    if (b === 0) fail("division by zero")
    return a / b
  }
  if (typeof a === "string" && typeof b === "string") return splitString(a, b)
  return cannot(a, b, "divided")
}

export const modulo = (a: Json, b: Json): Json => {
  if (typeof a === "number" && typeof b === "number") {
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || b === 0) bail("modulo")
    return a % b
  }
  return cannot(a, b, "divided")
}

export const splitString = (s: string, sep: string): Json => {
  if (sep.length === 0 || s.length === 0) bail("split edge")
  burn(s.length >> 6)
  return s.split(sep)
}

export const lengthOf = (v: Json): number => {
  if (v === null) return 0
  if (typeof v === "boolean") return fail("boolean has no length")
  if (typeof v === "number") return Math.abs(v)
  if (typeof v === "string") return codePoints(v)
  if (Array.isArray(v)) return v.length
  return Object.keys(v).length
}

/** `.[k]` on one value. */
export const index = (v: Json, k: Json): Json => {
  if (typeof k === "string") {
    if (v === null) return null
    if (isObject(v)) return own(v, k)
    return fail("Cannot index with string")
  }
  if (typeof k === "number") {
    if (v === null) return null
    if (!Array.isArray(v)) return fail("Cannot index with number")
    if (!Number.isSafeInteger(k)) bail("index")
    const at = k < 0 ? v.length + k : k
    return at >= 0 && at < v.length ? v[at]! : null
  }
  if (v === null && (k === null || isObject(k))) bail("index with null/object")
  return bail("unusual index")
}

// Slice bounds as jq computes them (fractional bounds floor at the start and ceil at the end).
const bounds = (len: number, from: Json, to: Json): readonly [number, number] => {
  const clamp = (x: Json, dflt: number, round: (n: number) => number): number => {
    if (x === null) return dflt
    if (typeof x !== "number") return fail("slice bound")
    if (!Number.isFinite(x)) bail("slice bound")
    const n = round(x < 0 ? len + x : x)
    return Math.min(Math.max(n, 0), len)
  }
  const start = clamp(from, 0, Math.floor)
  const end = clamp(to, len, Math.ceil)
  return [start, Math.max(start, end)]
}

export const slice = (v: Json, from: Json, to: Json): Json => {
  if (v === null) return null
  if (Array.isArray(v)) {
    if (from !== null && typeof from === "number" && !Number.isInteger(from)) bail("fractional slice")
    if (to !== null && typeof to === "number" && !Number.isInteger(to)) bail("fractional slice")
    const [s, e] = bounds(v.length, from, to)
    burn(e - s)
    return v.slice(s, e)
  }
  if (typeof v === "string") {
    if (!(from === null || Number.isSafeInteger(from)) || !(to === null || Number.isSafeInteger(to))) bail("slice")
    const chars = Array.from(v)
    burn(chars.length >> 4)
    const [s, e] = bounds(chars.length, from, to)
    return chars.slice(s, e).join("")
  }
  return fail("Cannot index with object")
}

export const iterate = (v: Json): ReadonlyArray<Json> => {
  if (Array.isArray(v)) return v
  if (isObject(v)) return Object.values(v)
  return fail("Cannot iterate")
}

// ---------------------------------------------------------------------------------------------------
// Values in and out

const heights = new WeakMap<object, number>()
const builtHeights = new WeakMap<object, number>()

/**
 * A container built here, returned as is, or Bail when it is nested past SAFE_DEPTH: jq-wasm's stack
 * gives out a few hundred levels down (jq 1.8's own limits, "too deep" errors, start at 10,000), so
 * past SAFE_DEPTH only jq-wasm may answer, even for a value that never leaves the filter.
 */
export const built = <A extends Json>(v: A): A => {
  height(v)
  return v
}

const height = (v: Json): number => {
  if (v === null || typeof v !== "object") return 0
  const hit = heights.get(v) ?? builtHeights.get(v)
  if (hit !== undefined) return hit
  let h = 0
  for (const item of Array.isArray(v) ? v : Object.values(v)) h = Math.max(h, height(item))
  h++
  if (h > SAFE_DEPTH) bail("deep")
  builtHeights.set(v, h)
  return h
}

const LONE = /[\ud800-\udfff]/

const plainString = (s: string): void => {
  if (!LONE.test(s)) return
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xdc00 && c <= 0xdfff) bail("lone surrogate")
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (!(d >= 0xdc00 && d <= 0xdfff)) bail("lone surrogate")
      i++
    }
  }
}

/**
 * Values jq would read or print differently from JavaScript: non-finite numbers and -0 (JSON text has
 * neither), lone surrogates (jq replaces them), nesting past SAFE_DEPTH (jq-wasm's stack). Bails;
 * returns the nesting depth.
 */
export const plain = (v: Json): number => {
  if (typeof v === "number") {
    if (!Number.isFinite(v) || Object.is(v, -0)) bail("number")
    return 0
  }
  if (typeof v === "string") {
    plainString(v)
    return 0
  }
  if (v === null || typeof v !== "object") return 0
  const hit = heights.get(v)
  if (hit !== undefined) return hit
  let height = 0
  if (Array.isArray(v)) {
    for (const x of v) height = Math.max(height, plain(x))
  } else {
    for (const key of Object.keys(v)) {
      plainString(key)
      height = Math.max(height, plain((v as JsonObject)[key]!))
    }
  }
  height++
  if (height > SAFE_DEPTH) bail("deep")
  heights.set(v, height)
  return height
}
