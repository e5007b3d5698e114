// A native validator for the JSON Schemas most workflows carry (type, properties, required,
// additionalProperties, items, enum, const, numeric and length bounds), so that a run whose schemas
// all stay in that subset never loads or compiles Ajv (≈ 17 ms of a replayed run).
//
// The contract is Ajv's, as src/lang/jsonschema.ts configures it: a schema is native only when every
// keyword in it is one this file decides exactly as Ajv does, with a value Ajv compiles; anything
// else (`$ref`, `$id`, combinators, `pattern`, tuple `items`, odd values) is left to Ajv. Each check
// below is the expression Ajv's generated code evaluates (e.g. `isNaN` in numeric bounds, code-point
// string lengths, fast-deep-equal for `enum` and `const`), since JSON from YAML may hold NaN or
// Infinity. Only "valid" is native's to answer: a failing value goes to Ajv for its message.
import type { Json, JsonObject } from "../core/json.ts"

export type NativeCheck = (value: Json) => boolean

// Every keyword an Ajv of any of the three dialects knows, and those it handles outside its rule
// tables (`nullable`, `discriminator`): one of them outside the subset sends the schema to Ajv. A
// keyword Ajv does not know is ignored by it (strict mode is off), and so here.
const AJV_KEYWORDS = new Set([
  "$async", "$anchor", "$comment", "$data", "$defs", "$dynamicAnchor", "$dynamicRef", "$id", "$recursiveAnchor",
  "$recursiveRef", "$ref", "$schema", "$vocabulary", "additionalItems", "additionalProperties", "allOf", "anyOf",
  "const", "contains", "contentEncoding", "contentMediaType", "contentSchema", "default", "definitions",
  "dependencies", "dependentRequired", "dependentSchemas", "deprecated", "description", "discriminator", "else",
  "enum", "examples", "exclusiveMaximum", "exclusiveMinimum", "format", "id", "if", "items", "maxContains",
  "maxItems", "maxLength", "maxProperties", "maximum", "minContains", "minItems", "minLength", "minProperties",
  "minimum", "multipleOf", "not", "nullable", "oneOf", "pattern", "patternProperties", "prefixItems",
  "properties", "propertyNames", "readOnly", "required", "then", "title", "type", "unevaluatedItems",
  "unevaluatedProperties", "uniqueItems", "writeOnly"
])

/** For the test that checks this list against the keywords of Ajv itself. */
export const ajvKeywordsKnown: ReadonlySet<string> = AJV_KEYWORDS

// Keywords with no effect on validity in Ajv as configured (formats are annotations, no defaults are
// applied, `$comment` is not logged). Their values are never compiled.
const ANNOTATIONS = new Set([
  "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly",
  "contentMediaType", "contentEncoding"
])

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// Ajv compiles schemas and walks values recursively, and a deep enough one overflows its stack: the
// schema is then invalid ("Maximum call stack size exceeded"). Where that happens depends on the stack
// in use, so native stays far below it and leaves deeper schemas and values to Ajv.
const MAX_DEPTH = 32

// Ajv's schema walk (resolving `$id`s and anchors) enters the values of unknown keywords and
// annotations too, and records what it finds in the instance: such a value must hold no `$` key.
const inert = (value: unknown, depth = 0): boolean => {
  if (depth > MAX_DEPTH) return false
  if (Array.isArray(value)) return value.every((v) => inert(v, depth + 1))
  if (!isObject(value)) return true
  for (const key of Object.keys(value)) {
    if (key.startsWith("$") || !inert(value[key], depth + 1)) return false
  }
  return true
}

// Compiled into literals by Ajv: only values whose literal means the same (no NaN, ±Infinity).
const literal = (value: unknown, depth = 0): boolean => {
  if (depth > MAX_DEPTH) return false
  if (typeof value === "number") return Number.isFinite(value)
  if (Array.isArray(value)) return value.every((v) => literal(v, depth + 1))
  if (isObject(value)) return Object.values(value).every((v) => literal(v, depth + 1))
  return true
}

// Ajv tests a property as `data[name] !== undefined` (ownProperties off): names an object inherits
// (`toString`, `__proto__`, …) behave in ways not worth copying.
const plainName = (name: unknown): name is string => typeof name === "string" && !(name in Object.prototype)

// Thrown where Ajv's comparison would read a value's own `constructor`, `valueOf` or `toString` (data
// can have such keys): the native answer is then false, which only means "ask Ajv".
class Undecided extends Error {}

const INHERITED_BY_EQUAL = ["constructor", "valueOf", "toString"]

/** fast-deep-equal, which Ajv's `enum` and `const` use for object and array values. */
const equal = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (a && b && typeof a == "object" && typeof b == "object") {
    if (INHERITED_BY_EQUAL.some((k) => Object.hasOwn(a, k) || Object.hasOwn(b, k))) throw new Undecided()
    const x = a as Record<string, unknown>
    const y = b as Record<string, unknown>
    if (x["constructor"] !== y["constructor"]) return false
    if (Array.isArray(a)) {
      const other = b as Array<unknown>
      if (a.length != other.length) return false
      for (let i = a.length; i-- !== 0;) if (!equal(a[i], other[i])) return false
      return true
    }
    if (x["valueOf"] !== Object.prototype.valueOf || x["toString"] !== Object.prototype.toString) throw new Undecided()
    const keys = Object.keys(x)
    if (keys.length !== Object.keys(y).length) return false
    for (let i = keys.length; i-- !== 0;) if (!Object.hasOwn(y, keys[i]!)) return false
    for (let i = keys.length; i-- !== 0;) if (!equal(x[keys[i]!], y[keys[i]!])) return false
    return true
  }
  return a !== a && b !== b
}

/** Ajv's string length: Unicode code points (a lone surrogate counts as one). */
const ucs2length = (text: string): number => {
  let length = 0
  let pos = 0
  while (pos < text.length) {
    length++
    const value = text.charCodeAt(pos++)
    if (value >= 0xd800 && value <= 0xdbff && pos < text.length && (text.charCodeAt(pos) & 0xfc00) === 0xdc00) pos++
  }
  return length
}

const TYPES: Readonly<Record<string, NativeCheck>> = {
  string: (v) => typeof v == "string",
  number: (v) => typeof v == "number",
  integer: (v) => typeof v == "number" && !((v as number) % 1) && !isNaN(v as number),
  boolean: (v) => typeof v == "boolean",
  null: (v) => v === null,
  object: (v) => typeof v == "object" && v !== null && !Array.isArray(v),
  array: (v) => Array.isArray(v)
}

const typeCheck = (type: Json): NativeCheck | undefined => {
  if (typeof type === "string") return Object.hasOwn(TYPES, type) ? TYPES[type] : undefined
  if (!Array.isArray(type) || type.length === 0) return undefined
  const checks: Array<NativeCheck> = []
  for (const t of type) {
    if (typeof t !== "string" || !Object.hasOwn(TYPES, t)) return undefined
    checks.push(TYPES[t]!)
  }
  return (v) => checks.some((c) => c(v))
}

type Applies = "any" | "object" | "array" | "string" | "number"

// Fails when Ajv's generated condition (`data > max || isNaN(data)`, …) holds.
interface Bound {
  readonly applies: Applies
  readonly fails: (v: number, n: number) => boolean
}

const BOUNDS: Readonly<Record<string, Bound>> = {
  maximum: { applies: "number", fails: (v, n) => v > n || isNaN(v) },
  minimum: { applies: "number", fails: (v, n) => v < n || isNaN(v) },
  exclusiveMaximum: { applies: "number", fails: (v, n) => v >= n || isNaN(v) },
  exclusiveMinimum: { applies: "number", fails: (v, n) => v <= n || isNaN(v) },
  maxLength: { applies: "string", fails: (v, n) => v > n },
  minLength: { applies: "string", fails: (v, n) => v < n },
  maxItems: { applies: "array", fails: (v, n) => v > n },
  minItems: { applies: "array", fails: (v, n) => v < n },
  maxProperties: { applies: "object", fails: (v, n) => v > n },
  minProperties: { applies: "object", fails: (v, n) => v < n }
}

const measure = (applies: Applies, v: Json): number =>
  applies === "number"
    ? (v as number)
    : applies === "string"
    ? ucs2length(v as string)
    : applies === "array"
    ? (v as ReadonlyArray<Json>).length
    : Object.keys(v as JsonObject).length

const applies = (kind: Applies, v: Json): boolean =>
  kind === "any"
    ? true
    : kind === "number"
    ? typeof v == "number"
    : kind === "string"
    ? typeof v == "string"
    : TYPES[kind]!(v)

interface Rule {
  readonly applies: Applies
  readonly check: NativeCheck
}

const alwaysValid = (schema: Json): boolean => schema === true || (isObject(schema) && Object.keys(schema).length === 0)

const properties = (value: Json, depth: number): Array<Rule> | undefined => {
  if (!isObject(value)) return undefined
  const checks: Array<readonly [string, NativeCheck]> = []
  for (const name of Object.keys(value)) {
    if (!plainName(name)) return undefined
    const check = subschema(value[name]!, depth)
    if (check === undefined) return undefined
    if (!alwaysValid(value[name]!)) checks.push([name, check])
  }
  return [{
    applies: "object",
    check: (v) => checks.every(([name, check]) => {
      const item = (v as JsonObject)[name]
      return item === undefined || check(item)
    })
  }]
}

const required = (value: Json): Array<Rule> | undefined => {
  // Ajv's test for a missing property is `data[name] === undefined && (missing = name)`, which never
  // holds for the name "" (a falsy string) unless the list is long enough for its loop: Ajv's.
  if (!Array.isArray(value) || !value.every((name) => plainName(name) && name !== "")) return undefined
  const names = value as ReadonlyArray<string>
  return [{ applies: "object", check: (v) => names.every((name) => (v as JsonObject)[name] !== undefined) }]
}

const additionalProperties = (value: Json, schema: JsonObject, depth: number): Array<Rule> | undefined => {
  const check = subschema(value, depth)
  if (check === undefined) return undefined
  if (alwaysValid(value)) return []
  // `properties` was checked (or sent the schema to Ajv) on its own.
  const declared = isObject(schema["properties"]) ? new Set(Object.keys(schema["properties"])) : new Set<string>()
  return [{
    applies: "object",
    check: (v) => {
      for (const key in v as JsonObject) {
        if (!declared.has(key) && !check((v as JsonObject)[key]!)) return false
      }
      return true
    }
  }]
}

const items = (value: Json, depth: number): Array<Rule> | undefined => {
  // An array of schemas is a tuple in draft-07 and 2019-09, an error in 2020-12: Ajv's.
  if (Array.isArray(value)) return undefined
  const check = subschema(value, depth)
  if (check === undefined) return undefined
  return alwaysValid(value) ? [] : [{ applies: "array", check: (v) => (v as ReadonlyArray<Json>).every(check) }]
}

const keywordRules = (key: string, value: Json, schema: JsonObject, depth: number): Array<Rule> | undefined => {
  switch (key) {
    case "type": {
      const check = typeCheck(value)
      return check === undefined ? undefined : [{ applies: "any", check }]
    }
    case "properties":
      return properties(value, depth)
    case "required":
      return required(value)
    case "additionalProperties":
      return additionalProperties(value, schema, depth)
    case "items":
      return items(value, depth)
    case "enum": {
      if (!Array.isArray(value) || value.length === 0 || !literal(value)) return undefined
      const options = value as ReadonlyArray<Json>
      const matches = (v: Json, o: Json) => typeof o === "object" && o !== null ? equal(v, o) : v === o
      return [{ applies: "any", check: (v) => options.some((o) => matches(v, o)) }]
    }
    case "const": {
      if (!literal(value)) return undefined
      const expected = value
      return [{
        applies: "any",
        check: expected !== null && typeof expected === "object" ? (v) => equal(v, expected) : (v) => v === expected
      }]
    }
    case "format":
      return typeof value === "string" ? [] : undefined
  }
  const bound = Object.hasOwn(BOUNDS, key) ? BOUNDS[key]! : undefined
  if (bound !== undefined) {
    if (typeof value !== "number" || !Number.isFinite(value)) return undefined
    const kind = bound.applies
    return [{ applies: kind, check: (v) => !bound.fails(measure(kind, v), value) }]
  }
  // Ajv looks keywords up in plain objects, where `constructor` or `__proto__` would be found.
  if (key in Object.prototype) return undefined
  if (ANNOTATIONS.has(key) || !AJV_KEYWORDS.has(key)) return inert(value) ? [] : undefined
  return undefined
}

const schemaObject = (schema: JsonObject, root: boolean, depth: number): NativeCheck | undefined => {
  if (depth > MAX_DEPTH) return undefined
  const rules: Array<Rule> = []
  for (const key of Object.keys(schema)) {
    const value = schema[key]!
    if (key === "$schema") {
      if (!root || typeof value !== "string") return undefined
      continue
    }
    const more = keywordRules(key, value, schema, depth)
    if (more === undefined) return undefined
    rules.push(...more)
  }
  if (rules.length === 0) return () => true
  return (v) => rules.every((rule) => !applies(rule.applies, v) || rule.check(v))
}

const subschema = (schema: Json, depth: number): NativeCheck | undefined => {
  if (schema === true) return () => true
  if (schema === false) return () => false
  return isObject(schema) ? schemaObject(schema, false, depth + 1) : undefined
}

/**
 * A validator for `schema` when it is entirely in the native subset, else undefined (Ajv's). It
 * answers true only when Ajv would; false means "ask Ajv" (for the message, or for a value it cannot
 * decide).
 */
export const compileNative = (schema: JsonObject): NativeCheck | undefined => {
  const decided = schemaObject(schema, true, 0)
  if (decided === undefined) return undefined
  return (value) => {
    try {
      return decided(value)
    } catch {
      return false
    }
  }
}
