// YAML access for the workflow loader: one parsed document whose nodes keep their source ranges, so
// every static-check message can point at a 1-based line. The checks themselves are synchronous and
// stop at the first problem; they report it by throwing a `StaticError`, which `runStatic` turns
// into a value at the loader's boundary (nothing outside src/lang/load* ever sees the throw).
import { describeJsonType, type Json } from "../../core/json.ts"
import { yamlPackage } from "../../core/yamlDocument.ts"
import { offsetAtPath, parseYamlTree, type YamlTree, type YNode } from "../../core/yamlTree.ts"

export class StaticError {
  constructor(
    readonly message: string,
    readonly line: number | undefined,
    readonly cause?: unknown
  ) {}
}

export const fail = (message: string, line: number | undefined, cause?: unknown): never => {
  throw new StaticError(message, line, cause)
}

/** Runs a synchronous check, returning its StaticError instead of throwing it. */
export const runStatic = <A>(f: () => A): { readonly ok: true; readonly value: A } | {
  readonly ok: false
  readonly error: StaticError
} => {
  try {
    return { ok: true, value: f() }
  } catch (e) {
    if (e instanceof StaticError) return { ok: false, error: e }
    throw e
  }
}

// Each dereferenced alias counts; a document whose step tree expands aliases more than this is
// treated like the yaml package treats one in toJS (a "billion laughs" guard).
const MAX_ALIAS_EXPANSIONS = 10_000
const MAX_ALIAS_COUNT = 100

/** A node together with where it was written. `node === null` is an explicit or implicit null. */
export interface Y {
  readonly node: YNode | null
  readonly line: number | undefined
}

export class Source {
  private expansions = 0

  constructor(
    readonly tree: YamlTree,
    readonly text: string
  ) {}

  lineAt(offset: number | undefined): number | undefined {
    return offset === undefined ? undefined : this.tree.line(offset)
  }

  /** The document's top node; `fallbackLine` is the line of an empty document. */
  top(fallbackLine?: number): Y {
    return this.wrap(this.tree.root, fallbackLine)
  }

  /** Wraps a child node; aliases resolve to their anchor but keep the line where they are used. */
  wrap(node: unknown, fallbackLine?: number): Y {
    if (node === null || node === undefined) return { node: null, line: fallbackLine }
    const { isAlias, isScalar } = yamlPackage()
    const n = node as YNode
    const line = this.lineAt(n.range?.[0]) ?? fallbackLine
    if (isAlias(n)) {
      if (++this.expansions > MAX_ALIAS_EXPANSIONS) {
        fail("Excessive alias count indicates a resource exhaustion attack", line)
      }
      const target = n.resolve(this.tree.doc)
      if (target === undefined) return fail(`unresolved alias '*${n.source}'`, line)
      return { node: isScalar(target) && target.value === null ? null : target, line }
    }
    if (isScalar(n) && n.value === null) return { node: null, line }
    return { node: n, line }
  }

  /** The source text of a node, as written (for messages that quote a value). */
  sourceOf(y: Y): string {
    const range = y.node?.range
    if (range === undefined || range === null) return "null"
    return this.text.slice(range[0], range[1]).trim()
  }

  /** The plain JSON value of a node. Fails for values JSON cannot hold (.inf, .nan). */
  json(y: Y, where: string): Json {
    if (y.node === null) return null
    let value: unknown
    try {
      value = this.tree.toJS(y.node, MAX_ALIAS_COUNT)
    } catch (e) {
      return fail(`${where}: ${e instanceof Error ? e.message : String(e)}`, y.line)
    }
    return toJson(value, where, y.line)
  }
}

const toJson = (value: unknown, where: string, line: number | undefined): Json => {
  if (value === null || value === undefined) return null
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return fail(`${where}: ${value} is not a JSON number`, line)
    return value
  }
  if (typeof value === "bigint") return fail(`${where}: ${value} is too large for a JSON number`, line)
  if (typeof value === "string" || typeof value === "boolean") return value
  if (Array.isArray(value)) return value.map((v) => toJson(v, where, line))
  if (value instanceof Map) {
    const out: Record<string, Json> = {}
    for (const [k, v] of value) out[String(k)] = toJson(v, where, line)
    return out
  }
  if (typeof value === "object") {
    const out: Record<string, Json> = {}
    for (const [k, v] of Object.entries(value)) out[k] = toJson(v, where, line)
    return out
  }
  return fail(`${where}: unsupported YAML value`, line)
}

export type Parsed = { readonly ok: true; readonly source: Source } | {
  readonly ok: false
  readonly message: string
  readonly line: number | undefined
}

/** Parses one YAML document; a syntax error becomes the yaml package's one-line message and line. */
export const parseYaml = (text: string): Parsed => {
  const parsed = parseYamlTree(text)
  return parsed.ok ? { ok: true, source: new Source(parsed.tree, text) } : parsed
}

/**
 * The same for a file whose messages append `(line L)` themselves (test, eval and cases files): a
 * syntax error's message without the parser's ` at line L, column C`, which would say it twice.
 */
export const parseYamlLined = (text: string): Parsed => {
  const parsed = parseYaml(text)
  return parsed.ok ? parsed : { ...parsed, message: parsed.message.replace(/ at line \d+, column \d+$/, "") }
}

// ---------------------------------------------------------------------------------------------
// Shapes

/** A YAML value's type in messages: `got a string`, `got a list`. */
export const describeY = (src: Source, y: Y): string => {
  if (y.node === null) return "null"
  if (yamlPackage().isMap(y.node)) return "a mapping"
  if (yamlPackage().isSeq(y.node)) return "a list"
  return describeJsonType(src.json(y, "value"))
}

export const scalarValue = (y: Y): unknown =>
  y.node !== null && yamlPackage().isScalar(y.node) ? y.node.value : undefined

export const stringOf = (y: Y): string | undefined => {
  const v = scalarValue(y)
  return typeof v === "string" ? v : undefined
}

export const items = (src: Source, y: Y): ReadonlyArray<Y> | undefined => {
  if (y.node === null || !yamlPackage().isSeq(y.node)) return undefined
  return y.node.items.map((item) => src.wrap(item, y.line))
}

export interface Entry {
  /** The key as text (`String(value)` for a non-string scalar key). */
  readonly key: string
  readonly keyIsString: boolean
  readonly keyLine: number | undefined
  readonly value: Y
}

/** The entries of a mapping in document order, or undefined when the value is not a mapping. */
export const entries = (src: Source, y: Y): ReadonlyArray<Entry> | undefined => {
  if (y.node === null || !yamlPackage().isMap(y.node)) return undefined
  return y.node.items.map((pair) => {
    const keyY = src.wrap(pair.key, y.line)
    const raw = scalarValue(keyY)
    const keyIsString = typeof raw === "string"
    const key = keyIsString ? (raw as string) : keyY.node === null ? "null" : src.sourceOf(keyY)
    return { key, keyIsString, keyLine: keyY.line, value: src.wrap(pair.value, keyY.line) }
  })
}

/**
 * The fields of one mapping while a parser takes the ones it knows; whatever is left when
 * `finish` runs is an unknown field.
 */
export class Fields {
  private readonly map = new Map<string, Entry>()

  constructor(
    readonly src: Source,
    readonly at: string,
    readonly line: number | undefined,
    list: ReadonlyArray<Entry>
  ) {
    for (const entry of list) this.map.set(entry.key, entry)
  }

  has(key: string): boolean {
    return this.map.has(key)
  }

  /** Removes and returns a field. */
  take(key: string): Entry | undefined {
    const entry = this.map.get(key)
    if (entry !== undefined) this.map.delete(key)
    return entry
  }

  private prefix(): string {
    return this.at === "" ? "" : `${this.at}: `
  }

  /** `got` defaults to the value's type (`got a number`). */
  invalid(entry: Entry, expected: string, got: string = describeY(this.src, entry.value)): never {
    return fail(`${this.prefix()}invalid '${entry.key}': expected ${expected}, got ${got}`, entry.keyLine)
  }

  string(key: string): { readonly value: string; readonly line: number | undefined } | undefined {
    const entry = this.take(key)
    if (entry === undefined) return undefined
    const value = stringOf(entry.value)
    if (value === undefined) return this.invalid(entry, "a string")
    return { value, line: entry.keyLine }
  }

  boolean(key: string): { readonly value: boolean; readonly line: number | undefined } | undefined {
    const entry = this.take(key)
    if (entry === undefined) return undefined
    const value = scalarValue(entry.value)
    if (typeof value !== "boolean") return this.invalid(entry, "a boolean")
    return { value, line: entry.keyLine }
  }

  number(key: string): { readonly value: number; readonly line: number | undefined } | undefined {
    const entry = this.take(key)
    if (entry === undefined) return undefined
    const value = scalarValue(entry.value)
    if (typeof value !== "number" || !Number.isFinite(value)) return this.invalid(entry, "a number")
    return { value, line: entry.keyLine }
  }

  /** A non-negative integer (the Rust side's u64/usize fields). */
  count(key: string): { readonly value: number; readonly line: number | undefined } | undefined {
    const entry = this.take(key)
    if (entry === undefined) return undefined
    const value = scalarValue(entry.value)
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      return this.invalid(entry, "a non-negative whole number")
    }
    return { value, line: entry.keyLine }
  }

  strings(key: string): { readonly value: ReadonlyArray<string>; readonly line: number | undefined } | undefined {
    const entry = this.take(key)
    if (entry === undefined) return undefined
    const list = items(this.src, entry.value)
    const values = list?.map(stringOf)
    if (values === undefined || values.some((v) => v === undefined)) return this.invalid(entry, "a list of strings")
    return { value: values as ReadonlyArray<string>, line: entry.keyLine }
  }

  /** Rejects the first field (in document order) that is not one of `allowed`, naming what is. */
  finish(what: string, allowed: ReadonlyArray<string>): void {
    for (const entry of this.map.values()) {
      if (entry.keyIsString && allowed.includes(entry.key)) continue
      fail(`${this.prefix()}unknown field '${entry.key}'; ${what} accept: ${allowed.join(", ")}`, entry.keyLine)
    }
  }
}

/** 1-based line of the deepest node on `path`: a mapping key's own line, a sequence item's line. */
export const lineAtPath = (src: Source, path: ReadonlyArray<PropertyKey>): number | undefined =>
  src.lineAt(offsetAtPath(src.tree.root, path))
