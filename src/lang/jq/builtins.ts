// jq's builtins that the native evaluator runs, by `name/arity`; the parser treats any other call as
// unsupported. Each follows jq 1.8's definition (jq's builtin.jq or its C implementation).
import { Buffer } from "node:buffer"
import type { Json } from "../../core/json.ts"
import type { Node } from "./ast.ts"
import { SAFE_DEPTH } from "../jqText.ts"
import {
  add,
  bail,
  built,
  burn,
  compare,
  equal,
  Fail,
  fail,
  index,
  isObject,
  iterate,
  lengthOf,
  makeObject,
  numberText,
  own,
  plain,
  sortedKeys,
  splitString,
  toJson,
  toText,
  truthy,
  typeOf
} from "./values.ts"

export type Env = { readonly name: string; readonly value: Json; readonly next: Env } | null
export type Run = (node: Node, input: Json, env: Env) => Generator<Json>
type Builtin = (args: ReadonlyArray<Node>, input: Json, env: Env, run: Run) => Iterable<Json>

const table = new Map<string, Builtin>()
export const BUILTINS: ReadonlyMap<string, Builtin> = table

export const hasBuiltin = (name: string, arity: number): boolean => table.has(`${name}/${arity}`)

/**
 * Every output of `node` under `run`, collected; an error bails (jq would interleave it with the
 * outputs, and its laziness could matter to a `try` around it).
 */
export const values = (run: Run, node: Node, input: Json, env: Env): Array<Json> => {
  const out: Array<Json> = []
  try {
    for (const v of run(node, input, env)) out.push(v)
  } catch (e) {
    if (e instanceof Fail) bail("error in an argument")
    throw e
  }
  return out
}

const def0 = (name: string, f: (input: Json) => Json): void => {
  table.set(`${name}/0`, (_args, input) => [f(input)])
}

const defGen0 = (name: string, f: (input: Json) => Iterable<Json>): void => {
  table.set(`${name}/0`, (_args, input) => f(input))
}

/** A builtin with one value argument (`$x`): one output per output of the argument. */
const def1 = (name: string, f: (input: Json, arg: Json) => Json): void => {
  table.set(`${name}/1`, (args, input, env, run) => values(run, args[0]!, input, env).map((a) => f(input, a)))
}

const strings = (what: string, ...vs: ReadonlyArray<Json>): ReadonlyArray<string> => {
  for (const v of vs) if (typeof v !== "string") fail(`${what} requires string inputs`)
  return vs as ReadonlyArray<string>
}

const arrayInput = (v: Json, what: string): ReadonlyArray<Json> =>
  Array.isArray(v) ? v : fail(`Cannot ${what} ${typeOf(v)}`)

const sortStable = <A>(items: ReadonlyArray<A>, cmp: (a: A, b: A) => number): Array<A> => {
  burn(items.length * Math.max(1, Math.ceil(Math.log2(items.length + 1))))
  return items.map((item, i) => [item, i] as const).sort((a, b) => cmp(a[0], b[0]) || a[1] - b[1]).map((p) => p[0])
}

// `sort_by(f)` and friends compare `[f]`, the array of all of f's outputs for an item.
const keyed = (args: ReadonlyArray<Node>, input: Json, env: Env, run: Run) => {
  const items = arrayInput(input, "sort")
  return items.map((item) => ({ item, key: values(run, args[0]!, item, env) as Json }))
}

// ----- types and selection -------------------------------------------------------------------------

def0("type", typeOf)
def0("not", (v) => !truthy(v))
def0("length", lengthOf)
def0("utf8bytelength", (v) => (typeof v === "string" ? Buffer.byteLength(v, "utf8") : fail("only strings")))
defGen0("empty", () => [])
table.set("error/0", () => fail("error"))
table.set("error/1", () => fail("error"))
table.set("select/1", function*(args, input, env, run) {
  for (const c of run(args[0]!, input, env)) if (truthy(c)) yield input
})
const kinds: ReadonlyArray<readonly [string, (v: Json) => boolean]> = [
  ["values", (v) => v !== null],
  ["nulls", (v) => v === null],
  ["booleans", (v) => typeof v === "boolean"],
  ["numbers", (v) => typeof v === "number"],
  ["strings", (v) => typeof v === "string"],
  ["arrays", (v) => Array.isArray(v)],
  ["objects", isObject],
  ["iterables", (v) => v !== null && typeof v === "object"],
  ["scalars", (v) => v === null || typeof v !== "object"]
]
for (const [name, test] of kinds) defGen0(name, (v) => (test(v) ? [v] : []))

// ----- objects and arrays --------------------------------------------------------------------------

const keysOf = (v: Json, sorted: boolean): Json => {
  if (isObject(v)) return sorted ? sortedKeys(v) : Object.keys(v)
  if (Array.isArray(v)) return v.map((_, i) => i)
  return fail(`${typeOf(v)} has no keys`)
}
def0("keys", (v) => keysOf(v, true))
def0("keys_unsorted", (v) => keysOf(v, false))
const has = (v: Json, k: Json): boolean => {
  if (v === null) return false
  if (isObject(v) && typeof k === "string") return Object.prototype.hasOwnProperty.call(v, k)
  if (Array.isArray(v) && typeof k === "number") return Number.isSafeInteger(k) ? k >= 0 && k < v.length : bail("has")
  return fail("Cannot check whether it has a key")
}
def1("has", has)
def1("in", (k, v) => has(v, k))
def0("to_entries", (v) =>
  isObject(v) ? built(Object.keys(v).map((key) => ({ key, value: v[key]! }))) : bail("to_entries input"))
const fromEntries = (v: Json): Json => {
  const entries = Array.isArray(v) ? v : bail("from_entries input")
  return makeObject(entries.map((e) => {
    if (!isObject(e) || typeof own(e, "key") !== "string" || !Object.prototype.hasOwnProperty.call(e, "value")) {
      return bail("from_entries entry")
    }
    return [own(e, "key") as string, own(e, "value")] as const
  }))
}
def0("from_entries", fromEntries)
table.set("with_entries/1", (args, input, env, run) => {
  if (!isObject(input)) return bail("with_entries input")
  const mapped = Object.keys(input).map((key) => {
    const out = values(run, args[0]!, { key, value: input[key]! }, env)
    return out
  })
  return [fromEntries(mapped.flat())]
})
table.set("map/1", (args, input, env, run) => {
  const out: Array<Json> = []
  for (const item of iterate(input)) for (const v of run(args[0]!, item, env)) out.push(v)
  return [built(out)]
})
table.set("map_values/1", (args, input, env, run) => {
  const one = (v: Json): Json => {
    const out = values(run, args[0]!, v, env)
    return out.length === 1 ? out[0]! : bail("map_values with other than one output")
  }
  if (Array.isArray(input)) return [built(input.map(one))]
  if (isObject(input)) return [makeObject(Object.keys(input).map((k) => [k, one(input[k]!)] as const))]
  return bail("map_values input")
})
def0("add", (v) => iterate(v).reduce<Json>((acc, x) => add(acc, x), null))
table.set("add/1", (args, input, env, run) => {
  let acc: Json = null
  for (const v of run(args[0]!, input, env)) acc = add(acc, v)
  return [acc]
})
const anyAll = (name: string, want: boolean, gen: Builtin) =>
  table.set(name, (args, input, env, run) => {
    for (const v of gen(args, input, env, run)) if (truthy(v) === want) return [want]
    return [!want]
  })
for (const [name, want] of [["any", true], ["all", false]] as const) {
  anyAll(`${name}/0`, want, (_a, input) => iterate(input))
  anyAll(`${name}/1`, want, function*(args, input, env, run) {
    for (const item of iterate(input)) yield* run(args[0]!, item, env)
  })
  anyAll(`${name}/2`, want, function*(args, input, env, run) {
    for (const item of run(args[0]!, input, env)) yield* run(args[1]!, item, env)
  })
}
def0("sort", (v) => sortStable(arrayInput(v, "sort"), compare))
const byKey = (a: { readonly key: Json }, b: { readonly key: Json }) => compare(a.key, b.key)
table.set("sort_by/1", (args, input, env, run) => [sortStable(keyed(args, input, env, run), byKey).map((p) => p.item)])
const groups = (args: ReadonlyArray<Node>, input: Json, env: Env, run: Run) => {
  const sorted = sortStable(keyed(args, input, env, run), (a, b) => compare(a.key, b.key))
  const out: Array<Array<Json>> = []
  let last: Json | undefined
  for (const { item, key } of sorted) {
    if (last !== undefined && equal(last, key)) out[out.length - 1]!.push(item)
    else out.push([item])
    last = key
  }
  return out
}
table.set("group_by/1", (args, input, env, run) => [built(groups(args, input, env, run))])
table.set("unique_by/1", (args, input, env, run) => [groups(args, input, env, run).map((g) => g[0]!)])
def0("unique", (v) => {
  const sorted = sortStable(arrayInput(v, "sort"), compare)
  return sorted.filter((x, i) => i === 0 || !equal(sorted[i - 1]!, x))
})
// jq keeps the first of equal minima and the last of equal maxima.
const extreme = (items: ReadonlyArray<{ item: Json; key: Json }>, min: boolean): Json => {
  let best: { item: Json; key: Json } | undefined
  for (const p of items) {
    if (best === undefined) best = p
    else if ((compare(p.key, best.key) < 0) === min) best = p
  }
  return best === undefined ? null : best.item
}
def0("min", (v) => extreme(arrayInput(v, "min").map((item) => ({ item, key: item })), true))
def0("max", (v) => extreme(arrayInput(v, "max").map((item) => ({ item, key: item })), false))
table.set("min_by/1", (args, input, env, run) => [extreme(keyed(args, input, env, run), true)])
table.set("max_by/1", (args, input, env, run) => [extreme(keyed(args, input, env, run), false)])
def0("reverse", (v) => (Array.isArray(v) ? [...v].reverse() : bail("reverse of a non-array")))
const flatten = (v: Json, depth: number): Json => {
  if (depth < 0) fail("flatten depth must not be negative")
  const out: Array<Json> = []
  const walk = (items: ReadonlyArray<Json>, d: number): void => {
    burn(items.length)
    for (const x of items) if (Array.isArray(x) && d > 0) walk(x, d - 1)
    else out.push(x)
  }
  walk(Array.isArray(v) ? v : bail("flatten input"), depth)
  return out
}
def0("flatten", (v) => flatten(v, 1e9))
def1("flatten", (v, d) => (typeof d === "number" ? flatten(v, d) : fail("flatten depth must be a number")))
const contains = (a: Json, b: Json): boolean => {
  burn(1)
  if (isObject(a) && isObject(b)) {
    return Object.keys(b).every((k) => Object.prototype.hasOwnProperty.call(a, k) && contains(a[k]!, b[k]!))
  }
  if (Array.isArray(a) && Array.isArray(b)) return b.every((y) => a.some((x) => contains(x, y)))
  if (typeof a === "string" && typeof b === "string") return a.includes(b)
  if (typeOf(a) === typeOf(b)) return equal(a, b)
  return fail("cannot have their containment checked")
}
def1("contains", contains)
def1("inside", (a, b) => contains(b, a))
def1("getpath", (v, path) => {
  if (!Array.isArray(path)) return fail("Path must be specified as an array")
  if (path.length > SAFE_DEPTH) bail("long path") // jq-wasm walks a path recursively
  let cur = v
  for (const key of path) {
    if (cur === null) return null
    cur = index(cur, key)
  }
  return cur
})

// `def recurse(f): def r: ., (f | r); r;` and `def recurse: recurse(.[]?);`
// Each value passes up through one generator per level: the work grows with the square of the depth.
function* recurse(input: Json, step: (v: Json) => Iterable<Json>, depth = 1): Generator<Json> {
  burn(depth)
  yield input
  for (const next of step(input)) yield* recurse(next, step, depth + 1)
}
defGen0("recurse", (input) => recurse(input, (v) => (v !== null && typeof v === "object" ? iterate(v) : [])))
table.set("recurse/1", (args, input, env, run) => recurse(input, (v) => run(args[0]!, v, env)))

// ----- generators ----------------------------------------------------------------------------------

const number = (v: Json): number => (typeof v === "number" ? v : fail("Range bounds must be numeric"))
function* count(from: number, upto: number): Generator<Json> {
  for (let i = from; i < upto; i++) {
    burn(1)
    yield i
  }
}
table.set("range/1", (args, input, env, run) =>
  values(run, args[0]!, input, env).flatMap((n) => [...count(0, number(n))]))
table.set("range/2", (args, input, env, run) => {
  const froms = values(run, args[0]!, input, env)
  const uptos = values(run, args[1]!, input, env)
  if (froms.length > 1 && uptos.length > 1) bail("range bounds")
  return froms.flatMap((f) => uptos.flatMap((u) => [...count(number(f), number(u))]))
})
const onlyNumber = (run: Run, node: Node, input: Json, env: Env): number => {
  const ns = values(run, node, input, env)
  const n = ns[0]
  return ns.length === 1 && typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : bail("count")
}
table.set("limit/2", function*(args, input, env, run) {
  const n = onlyNumber(run, args[0]!, input, env)
  if (n === 0) return
  let seen = 0
  for (const v of run(args[1]!, input, env)) {
    yield v
    if (++seen >= n) return
  }
})
table.set("first/1", function*(args, input, env, run) {
  for (const v of run(args[0]!, input, env)) {
    yield v
    return
  }
})
table.set("last/1", function*(args, input, env, run) {
  let last: { v: Json } | undefined
  for (const v of run(args[0]!, input, env)) last = { v }
  if (last !== undefined) yield last.v
})
table.set("nth/2", function*(args, input, env, run) {
  let n = onlyNumber(run, args[0]!, input, env)
  for (const v of run(args[1]!, input, env)) {
    if (n-- === 0) {
      yield v
      return
    }
  }
})
def0("first", (v) => index(v, 0))
def0("last", (v) => index(v, -1))
def1("nth", (v, n) => index(v, n))

// ----- numbers -------------------------------------------------------------------------------------

const math = (name: string, f: (n: number) => number) =>
  def0(name, (v) => (typeof v === "number" ? f(v) : fail(`${typeOf(v)} number required`)))
math("floor", Math.floor)
math("ceil", Math.ceil)
math("sqrt", Math.sqrt)
math("fabs", Math.abs)
math("round", (n) => Math.sign(n) * Math.round(Math.abs(n)))
def0("tostring", toText)
def0("tojson", toJson)
def0("tonumber", (v) => {
  if (typeof v === "number") return v
  if (typeof v !== "string") return fail("Cannot parse as a number")
  const n = Number(v)
  return String(n) === v && Number.isFinite(n) ? n : bail("tonumber spelling")
})
def0("fromjson", (v) => {
  if (typeof v !== "string") return fail("only strings can be parsed")
  let parsed: Json
  try {
    parsed = JSON.parse(v) as Json
  } catch {
    return bail("fromjson")
  }
  if (JSON.stringify(parsed) !== v) return bail("fromjson spelling")
  plain(parsed) // jq rejects a lone surrogate's escape, JSON.parse keeps it
  return parsed
})

// ----- strings -------------------------------------------------------------------------------------

def1("startswith", (s, p) => strings("startswith()", s, p) && (s as string).startsWith(p as string))
def1("endswith", (s, p) => strings("endswith()", s, p) && (s as string).endsWith(p as string))
// jq 1.8 checks both are strings (as startswith does)
def1("ltrimstr", (s, p) => {
  const [text, prefix] = strings("startswith()", s, p) as [string, string]
  return text.startsWith(prefix) ? text.slice(prefix.length) : text
})
def1("rtrimstr", (s, p) => {
  const [text, suffix] = strings("endswith()", s, p) as [string, string]
  if (!text.endsWith(suffix)) return text
  return suffix.length > 0 ? text.slice(0, text.length - suffix.length) : bail("rtrimstr")
})
const ascii = (v: Json, upper: boolean): Json => {
  if (typeof v !== "string") return fail("cannot be case-converted")
  return v.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()))
}
def0("ascii_downcase", (v) => ascii(v, false))
def0("ascii_upcase", (v) => ascii(v, true))
def1("split", (s, sep) =>
  typeof s === "string" && typeof sep === "string" ? splitString(s, sep) : fail("split needs strings"))
def1("join", (v, sep) => {
  if (!Array.isArray(v) || typeof sep !== "string") return bail("join input")
  burn(v.length)
  return v.map((x) =>
    x === null
      ? ""
      : typeof x === "string"
      ? x
      : typeof x === "number"
      ? numberText(x)
      : typeof x === "boolean"
      ? String(x)
      : bail("join item")
  ).join(sep)
})
// jq's regular expressions are Oniguruma's; only patterns that are plain text (optionally anchored at
// the start, which in jq means the start of the string) are matched here, as substrings.
const LITERAL_PATTERN = /^\^?(?:[A-Za-z0-9 _\-,:;'"!@%&=<>/~`]|[^\x00-\x7f])*$/
def1("test", (s, re) => {
  if (typeof s !== "string") return fail("cannot be matched, as it is not a string")
  if (typeof re !== "string" || !LITERAL_PATTERN.test(re)) return bail("regular expression")
  return re.startsWith("^") ? s.startsWith(re.slice(1)) : s.includes(re)
})
// `sub`/`gsub` with plain-text patterns; the replacement sees the (empty) object of named captures.
const substitute = (global: boolean): Builtin => (args, input, env, run) => {
  const patterns = values(run, args[0]!, input, env)
  const re = patterns[0]
  if (patterns.length !== 1 || typeof re !== "string" || re.length === 0 || re.startsWith("^")) return bail("pattern")
  if (!LITERAL_PATTERN.test(re)) return bail("regular expression")
  if (typeof input !== "string") return fail("cannot be matched, as it is not a string")
  const replacements = values(run, args[1]!, {}, env)
  const by = replacements[0]
  if (replacements.length !== 1 || typeof by !== "string") return bail("replacement")
  burn(input.length >> 4)
  return [global ? input.split(re).join(by) : input.replace(re, () => by)]
}
table.set("sub/2", substitute(false))
table.set("gsub/2", substitute(true))
def0("explode", (v) => {
  if (typeof v !== "string") return fail("explode input")
  burn(v.length)
  return Array.from(v, (c) => c.codePointAt(0)!)
})
def0("implode", (v) => {
  if (!Array.isArray(v)) return bail("implode input")
  return v.map((c) =>
    typeof c === "number" && Number.isInteger(c) && c >= 0 && c <= 0x10ffff && !(c >= 0xd800 && c <= 0xdfff)
      ? String.fromCodePoint(c)
      : bail("implode item")
  ).join("")
})
