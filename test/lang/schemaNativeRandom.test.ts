// Seeded random schemas (mostly from the native subset, with keywords and values outside it mixed in)
// on random values and on values built to match them, through the native validator and Ajv
// (schemaNativeDiff.ts); and every schema the repository's examples, docs and fixtures carry.
// Deterministic: a failure names its schema and value.
import { expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseAllDocuments } from "yaml"
import type { Json, JsonObject } from "../../src/core/json.ts"
import { differential } from "./schemaNativeDiff.ts"
import { prng as random } from "../fixtures/prng.ts"

const SEED = Number(process.env.SCHEMA_NATIVE_SEED ?? 24)
const SCHEMAS = 1500

const rnd = random(SEED)
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(rnd() * items.length)]!
const chance = (p: number): boolean => rnd() < p

const NUMBERS = [0, -0, 1, -1, 2, 3, 0.5, 1.0, -2.5, 10, 1e308, 2 ** 53, 0.1, 1e21]
const STRINGS = ["", "a", "b", "ab", "é", "😀", "😀x", "\ud83d", "A b", "1"]
const KEYS = ["a", "b", "c", "x y", "1", ""]
const TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"]

const value = (depth: number): Json => {
  const r = rnd()
  if (depth <= 0 || r < 0.45) return pick<Json>([null, true, false, pick(NUMBERS), pick(STRINGS), pick(NUMBERS)])
  if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth - 1))
  const out: Record<string, Json> = {}
  for (let i = Math.floor(rnd() * 4); i > 0; i--) out[pick(KEYS)] = value(depth - 1)
  return out
}

const someKeys = (): Array<string> => KEYS.filter(() => chance(0.4))

const schema = (depth: number, root: boolean): Json => {
  if (!root && chance(0.08)) return chance(0.5)
  const s: Record<string, Json> = {}
  if (root && chance(0.3)) {
    s["$schema"] = pick([
      "http://json-schema.org/draft-07/schema#",
      "https://json-schema.org/draft/2019-09/schema",
      "https://json-schema.org/draft/2020-12/schema"
    ])
  }
  if (chance(0.6)) s["type"] = chance(0.75) ? pick(TYPES) : chance(0.9) ? TYPES.filter(() => chance(0.35)) : "strin"
  if (depth > 0 && chance(0.35)) {
    const props: Record<string, Json> = {}
    for (const key of someKeys()) props[key] = schema(depth - 1, false)
    s["properties"] = props
  }
  if (chance(0.3)) s["required"] = chance(0.95) ? someKeys() : "a"
  if (depth > 0 && chance(0.25)) s["additionalProperties"] = chance(0.5) ? chance(0.7) ? false : true : schema(depth - 1, false)
  if (depth > 0 && chance(0.3)) s["items"] = chance(0.93) ? schema(depth - 1, false) : [schema(depth - 1, false)]
  if (chance(0.12)) s["enum"] = Array.from({ length: Math.floor(rnd() * 4) }, () => value(2))
  if (chance(0.08)) s["const"] = value(2)
  for (const bound of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
    if (chance(0.08)) s[bound] = chance(0.95) ? pick(NUMBERS) : "1"
  }
  for (const bound of ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]) {
    if (chance(0.07)) s[bound] = pick([0, 1, 2, 3, 1.5])
  }
  if (chance(0.08)) s["format"] = chance(0.9) ? pick(["date-time", "email", "nope"]) : 1
  if (chance(0.1)) s["description"] = "d"
  if (chance(0.05)) s["default"] = value(2)
  if (chance(0.05)) s["x-extra"] = chance(0.8) ? value(2) : { $id: "http://example.com/x" }
  if (chance(0.05)) s[pick(["pattern", "anyOf", "$ref", "nullable", "uniqueItems", "$defs", "not", "multipleOf"])] =
    pick<Json>(["^a", [{}], "#", true, true, {}, {}, 2])
  return s
}

/** A value built to match `s` where it can, so that "valid" is answered often. */
const matching = (s: Json, depth: number): Json => {
  if (typeof s !== "object" || s === null || Array.isArray(s)) return value(1)
  const o = s as JsonObject
  if (Array.isArray(o["enum"]) && o["enum"].length > 0) return pick(o["enum"])
  if ("const" in o) return o["const"]!
  const types = typeof o["type"] === "string" ? [o["type"]] : Array.isArray(o["type"]) ? o["type"] : TYPES
  const type = types.length > 0 ? pick(types) : "null"
  switch (type) {
    case "object": {
      const out: Record<string, Json> = {}
      const props = (typeof o["properties"] === "object" && o["properties"]) as JsonObject | false
      for (const key of Array.isArray(o["required"]) ? o["required"] : []) {
        out[String(key)] = props && key in props ? matching(props[String(key)]!, depth - 1) : value(1)
      }
      if (props) for (const key of Object.keys(props)) if (chance(0.5)) out[key] = matching(props[key]!, depth - 1)
      return out
    }
    case "array":
      return Array.from({ length: Math.floor(rnd() * 3) }, () => depth > 0 ? matching(o["items"] ?? {}, depth - 1) : value(1))
    case "string":
      return pick(STRINGS)
    case "integer":
      return pick([0, 1, 2, 3, 10, -1, 2 ** 53])
    case "number":
      return pick(NUMBERS)
    case "boolean":
      return chance(0.5)
    default:
      return null
  }
}

test("random schemas: native takes only what Ajv compiles and answers valid exactly where Ajv does", () => {
  let native = 0
  let valid = 0
  let problems: Array<string> = []
  for (let i = 0; i < SCHEMAS; i++) {
    const s = schema(3, true) as JsonObject
    const values = [...Array.from({ length: 8 }, () => value(3)), ...Array.from({ length: 8 }, () => matching(s, 3))]
    const verdict = differential(s, values)
    if (verdict.native) native++
    valid += verdict.valid
    problems = [...problems, ...verdict.problems]
  }
  expect(problems).toEqual([])
  // Most generated schemas are in the subset, and many values match them: the comparison is not vacuous.
  expect(native).toBeGreaterThan(SCHEMAS / 3)
  expect(valid).toBeGreaterThan(native * 3)
}, 60_000)

// ---------------------------------------------------------------------------------------------------
// The repository's schemas: workflows' `schemas:`, `input_schema`, `output_schema`, `inputs:`, tools'
// `parameters`, in YAML files and in the YAML blocks of the Markdown files.

const repo = path.resolve(import.meta.dir, "../..")
const SCHEMA_KEYS = new Set(["input_schema", "output_schema", "parameters"])

const yamlTexts = (dir: string): Array<string> => {
  const out: Array<string> = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    if (/\.ya?ml$/.test(entry.name)) out.push(fs.readFileSync(file, "utf8"))
    else if (/\.md$/.test(entry.name)) {
      for (const block of fs.readFileSync(file, "utf8").matchAll(/```ya?ml\n([\s\S]*?)```/g)) out.push(block[1]!)
    }
  }
  return out
}

const schemasIn = (node: unknown, found: Array<JsonObject>): void => {
  if (Array.isArray(node)) return node.forEach((n) => schemasIn(n, found))
  if (typeof node !== "object" || node === null) return
  for (const [key, child] of Object.entries(node)) {
    const isObject = typeof child === "object" && child !== null && !Array.isArray(child)
    if (isObject && SCHEMA_KEYS.has(key)) found.push(child as JsonObject)
    if (isObject && (key === "schemas" || key === "inputs")) {
      for (const s of Object.values(child)) {
        if (typeof s === "object" && s !== null && !Array.isArray(s) && !("file" in s)) found.push(s as JsonObject)
      }
    }
    schemasIn(child, found)
  }
}

test("every schema in the examples, docs and fixtures: native agrees with Ajv, and takes the common ones", () => {
  const found: Array<JsonObject> = []
  for (const dir of ["examples", "docs", "test/fixtures"]) {
    for (const text of yamlTexts(path.join(repo, dir))) {
      for (const doc of parseAllDocuments(text)) {
        if (!("errors" in doc) || doc.errors.length > 0) continue
        schemasIn(doc.toJS(), found)
      }
    }
  }
  let native = 0
  let valid = 0
  let problems: Array<string> = []
  for (const s of found) {
    const own = [s["default"], ...(Array.isArray(s["examples"]) ? s["examples"] : [])].filter((v) => v !== undefined)
    const values = [...own, ...Array.from({ length: 12 }, () => matching(s, 3)), ...Array.from({ length: 6 }, () => value(3))]
    const verdict = differential(s, values as Array<Json>)
    if (verdict.native) native++
    valid += verdict.valid
    problems = [...problems, ...verdict.problems]
  }
  expect(problems).toEqual([])
  expect(found.length).toBeGreaterThan(40)
  expect(native).toBeGreaterThan(found.length / 2)
  expect(valid).toBeGreaterThan(native * 3)
}, 60_000)
