// The native evaluator's core: jq's generator semantics (every expression yields zero or more values,
// in jq's order, lazily, so `limit` and `first` stop early exactly where jq does).
import type { Json } from "../../core/json.ts"
import { BUILTINS, type Env, type Run, values } from "./builtins.ts"
import type { Node } from "./ast.ts"
import {
  add,
  Bail,
  bail,
  built,
  burn,
  compare,
  divide,
  equal,
  Fail,
  fail,
  index,
  isObject,
  iterate,
  makeObject,
  modulo,
  multiply,
  slice,
  subtract,
  toJson,
  toText,
  truthy
} from "./values.ts"
import { format } from "./formats.ts"

const lookup = (env: Env, name: string): Json => {
  for (let e = env; e !== null; e = e.next) if (e.name === name) return e.value
  return bail(`unbound $${name}`) // the parser binds every variable it accepts
}

const BINARY: Readonly<Record<string, (a: Json, b: Json) => Json>> = {
  "+": add,
  "-": subtract,
  "*": multiply,
  "/": divide,
  "%": modulo,
  "==": (a, b) => equal(a, b),
  "!=": (a, b) => !equal(a, b),
  "<": (a, b) => compare(a, b) < 0,
  "<=": (a, b) => compare(a, b) <= 0,
  ">": (a, b) => compare(a, b) > 0,
  ">=": (a, b) => compare(a, b) >= 0
}

/** Every output of `node`, collected; any error bails. */
export const collect = (node: Node, input: Json, env: Env): Array<Json> => values(run, node, input, env)

/** Runs `f`; false when it failed with a jq error (an optional index skips that value). */
const skipFail = (f: () => unknown): boolean => {
  try {
    f()
    return true
  } catch (e) {
    if (e instanceof Fail) return false
    throw e
  }
}

export const run: Run = function*(node, input, env) {
  burn(1)
  let found: Json = null
  switch (node.k) {
    case "id":
      yield input
      return
    case "lit":
      yield node.v
      return
    case "var":
      yield lookup(env, node.name)
      return
    case "interp":
      for (const v of run(node.body, input, env)) yield toText(v)
      return
    case "fmt":
      yield format(node.name, input)
      return
    case "index":
      // jq evaluates the key first (outer loop), then the target
      for (const key of run(node.key, input, env)) {
        for (const target of run(node.target, input, env)) {
          if (node.opt !== true) yield index(target, key)
          else if (skipFail(() => (found = index(target, key)))) yield found
        }
      }
      return
    case "slice": {
      const froms = node.from === null ? [null] : collect(node.from, input, env)
      const tos = node.to === null ? [null] : collect(node.to, input, env)
      if (froms.length > 1 && tos.length > 1) bail("slice bounds")
      for (const to of tos) {
        for (const from of froms) {
          for (const target of run(node.target, input, env)) {
            if (node.opt !== true) yield slice(target, from, to)
            else if (skipFail(() => (found = slice(target, from, to)))) yield found
          }
        }
      }
      return
    }
    case "each":
      for (const target of run(node.target, input, env)) {
        let items: ReadonlyArray<Json> = []
        if (node.opt !== true) items = iterate(target)
        else skipFail(() => (items = iterate(target)))
        burn(items.length)
        yield* items
      }
      return
    case "try":
      if (node.handler !== null) {
        // The handler sees jq's error message, which only jq knows.
        yield* caught(run(node.body, input, env), () => bail("try with catch"))
        return
      }
      yield* caught(run(node.body, input, env), () => undefined)
      return
    case "array":
      yield node.body === null ? [] : arrayOf(node.body, input, env)
      return
    case "object":
      yield* objects(node.entries, 0, input, env, [])
      return
    case "neg":
      for (const v of run(node.body, input, env)) {
        if (typeof v !== "number") fail("cannot be negated")
        yield -(v as number)
      }
      return
    case "pipe":
      for (const v of run(node.left, input, env)) yield* run(node.right, v, env)
      return
    case "comma":
      yield* run(node.left, input, env)
      yield* run(node.right, input, env)
      return
    case "alt": {
      let any = false
      for (const v of run(node.left, input, env)) {
        if (truthy(v)) {
          any = true
          yield v
        }
      }
      if (!any) yield* run(node.right, input, env)
      return
    }
    case "and":
    case "or":
      for (const a of run(node.left, input, env)) {
        if (truthy(a) === (node.k === "or")) {
          yield node.k === "or"
          continue
        }
        for (const b of run(node.right, input, env)) yield truthy(b)
      }
      return
    case "bin": {
      const op = BINARY[node.op]!
      // jq's binary operators loop over the right operand's outputs outermost
      for (const b of run(node.right, input, env)) {
        for (const a of run(node.left, input, env)) yield op(a, b)
      }
      return
    }
    case "if":
      for (const c of run(node.cond, input, env)) yield* run(truthy(c) ? node.yes : node.no, input, env)
      return
    case "as":
      for (const v of run(node.source, input, env)) {
        yield* run(node.body, input, { name: node.name, value: v, next: env })
      }
      return
    case "reduce":
    case "foreach": {
      const inits = collect(node.init, input, env)
      if (inits.length !== 1) bail("reduce/foreach start")
      let state = inits[0]!
      for (const item of run(node.source, input, env)) {
        const scope: Env = { name: node.name, value: item, next: env }
        const next = collect(node.update, state, scope)
        if (next.length !== 1) bail("reduce/foreach update")
        state = next[0]!
        if (node.k === "foreach") yield* node.extract === null ? [state] : run(node.extract, state, scope)
      }
      if (node.k === "reduce") yield state
      return
    }
    case "call": {
      const builtin = BUILTINS.get(`${node.name}/${node.args.length}`)
      if (builtin === undefined) return bail("unknown builtin")
      yield* builtin(node.args, input, env, run)
      return
    }
  }
}

function* caught(values: Iterable<Json>, onError: () => undefined): Generator<Json> {
  const it = values[Symbol.iterator]()
  for (;;) {
    let next: IteratorResult<Json>
    try {
      next = it.next()
    } catch (e) {
      if (e instanceof Fail) return onError()
      throw e
    }
    if (next.done === true) return
    yield next.value
  }
}

const arrayOf = (body: Node, input: Json, env: Env): Array<Json> => {
  const out: Array<Json> = []
  for (const v of run(body, input, env)) out.push(v)
  return built(out)
}

function* objects(
  entries: ReadonlyArray<{ readonly key: Node; readonly value: Node }>,
  at: number,
  input: Json,
  env: Env,
  pairs: ReadonlyArray<readonly [string, Json]>
): Generator<Json> {
  if (at === entries.length) {
    yield makeObject(pairs)
    return
  }
  const entry = entries[at]!
  for (const key of run(entry.key, input, env)) {
    if (typeof key !== "string") fail("Object keys must be strings")
    for (const value of run(entry.value, input, env)) {
      yield* objects(entries, at + 1, input, env, [...pairs, [key as string, value]])
    }
  }
}

export { Bail, isObject, toJson }
