// The native JSON Schema subset against Ajv (schemaNativeDiff.ts) over a manual table: which schemas
// it takes, and that it answers "valid" exactly where Ajv does. Random schemas and the repository's
// own schemas are in schemaNativeRandom.test.ts.
import { describe, expect, test } from "bun:test"
import Ajv07 from "ajv"
import Ajv2019 from "ajv/dist/2019.js"
import Ajv2020 from "ajv/dist/2020.js"
import type { Json, JsonObject } from "../../src/core/json.ts"
import { AJV_OPTIONS } from "../../src/lang/jsonschema.ts"
import { ajvKeywordsKnown } from "../../src/lang/schemaNative.ts"
import { differential } from "./schemaNativeDiff.ts"

// Edge values every schema of the table is tried on.
const VALUES: ReadonlyArray<Json> = [
  null, true, false, 0, -0, 1, 1.0, 2, 1.5, -1, -2.5, 1e308, -1e308, 5e-324, 2 ** 53, 2 ** 53 + 2, 1e21, 0.1 + 0.2,
  NaN as unknown as Json, Infinity as unknown as Json, -Infinity as unknown as Json,
  "", "a", "ab", "abc", "1", "é", "e\u0301", "😀", "😀😀", "a😀", "\ud83d", "\ud83d\ud83d", "\ude00\ud83d",
  [], [1], [1, 2], [1, 1], ["a"], [null], [{}], [[1]], [1, "a", null], ["a", "b", "c"],
  {}, { a: 1 }, { a: "x" }, { a: null }, { a: 1.5 }, { b: 1 }, { a: 1, b: 2 }, { b: 2, a: 1 }, { a: [1, 2] },
  { a: { b: 1 } }, { "a b": 1 }, { "": 0 }, { a: "x", b: "y", c: "z" },
  JSON.parse('{"__proto__": 1}') as Json, JSON.parse('{"__proto__": {"a": 1}, "a": 1}') as Json, { 'a"b': 1, "\u2028": "" },
  { kind: "fix", summary: "x", breaking: true }, { changes: [{ kind: "fix", summary: "x", breaking: false }] },
  { changes: [{ kind: "other", summary: "x", breaking: false }] }, { changes: [] }, { changes: [{}] }
]

interface Case {
  readonly schema: JsonObject
  readonly native: boolean
  readonly values?: ReadonlyArray<Json>
}

const DRAFT07 = "http://json-schema.org/draft-07/schema#"
const DRAFT2019 = "https://json-schema.org/draft/2019-09/schema"
const DRAFT2020 = "https://json-schema.org/draft/2020-12/schema"
const RELEASE_NOTES: JsonObject = {
  type: "object",
  additionalProperties: false,
  required: ["changes"],
  properties: {
    changes: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["kind", "summary", "breaking"],
        properties: {
          kind: { type: "string", enum: ["feature", "fix", "docs", "chore"] },
          summary: { type: "string" },
          breaking: { type: "boolean" }
        }
      }
    }
  }
}

const CASES: ReadonlyArray<Case> = [
  // Types, integer vs number as Ajv (1.0 is an integer; Infinity too, NaN not).
  { schema: {}, native: true },
  ...["integer", "number", "string", "boolean", "null", "object", "array"].map((type) => ({ schema: { type }, native: true })),
  { schema: { type: ["string", "null"] }, native: true },
  { schema: { type: ["integer", "boolean", "integer"] }, native: true },
  { schema: { type: "strin" }, native: false },
  { schema: { type: "" }, native: false },
  { schema: { type: [] }, native: false },
  { schema: { type: 5 }, native: false },
  { schema: { type: ["string", 1] }, native: false },
  // Numeric bounds (NaN fails them all), only for numbers.
  { schema: { minimum: 0, maximum: 10 }, native: true },
  { schema: { exclusiveMinimum: 0, exclusiveMaximum: 1.5 }, native: true },
  { schema: { type: "integer", minimum: -0, maximum: 1e308 }, native: true },
  { schema: { maximum: 2 ** 53 }, native: true },
  { schema: { exclusiveMinimum: true, minimum: 1 }, native: false },
  { schema: { maximum: "5" }, native: false },
  { schema: { type: "integer", minimum: 1, default: 0 }, native: true },
  // Lengths in code points; counts of items and properties.
  { schema: { minLength: 2 }, native: true },
  { schema: { maxLength: 1 }, native: true },
  { schema: { minLength: 1.5, maxLength: 2 }, native: true },
  { schema: { minItems: 1, maxItems: 2 }, native: true },
  { schema: { minProperties: 1, maxProperties: 1 }, native: true },
  { schema: { maxLength: "2" }, native: false },
  // enum and const: deep equality whatever the key order, === for scalars (-0 is 0).
  { schema: { enum: ["a", 1, null, { a: 1, b: [1, 2] }, [1, "a"]] }, native: true, values: [{ b: [1, 2], a: 1 }, [1, "a"], ["a", 1], { a: 1 }] },
  { schema: { enum: [0] }, native: true },
  { schema: { enum: [{}] }, native: true },
  { schema: { enum: [[]] }, native: true },
  { schema: { enum: [] }, native: false },
  { schema: { enum: "a" }, native: false },
  { schema: { const: { a: [1, { b: null }] } }, native: true, values: [{ a: [1, { b: null }] }, { a: [1, { b: 0 }] }, { a: [1, {}] }] },
  { schema: { const: 0 }, native: true },
  { schema: { const: null }, native: true },
  { schema: { const: "" }, native: true },
  { schema: { const: 1e308 }, native: true },
  { schema: { const: [] }, native: true },
  { schema: { const: false }, native: true },
  { schema: { const: Infinity as unknown as Json }, native: false },
  { schema: { enum: [NaN as unknown as Json] }, native: false },
  // Objects: required on non-objects is no constraint; additionalProperties with and without properties.
  { schema: { required: ["a", "b"] }, native: true },
  { schema: { required: [] }, native: true },
  { schema: { required: "a" }, native: false },
  { schema: { required: [1] }, native: false },
  { schema: { required: ["toString"] }, native: false },
  { schema: { properties: { constructor: {} } }, native: false },
  { schema: JSON.parse('{"properties": {"__proto__": {"type": "string"}}}'), native: false },
  { schema: { properties: { a: { type: "integer" } }, additionalProperties: false }, native: true },
  { schema: { properties: { a: {}, "a b": { type: "number" } }, additionalProperties: { type: "string" } }, native: true },
  { schema: { additionalProperties: { type: "integer" } }, native: true },
  { schema: { additionalProperties: false }, native: true },
  { schema: { additionalProperties: true, properties: { a: true, b: false } }, native: true },
  { schema: { properties: { a: { title: "only an annotation" } }, additionalProperties: {} }, native: true },
  { schema: { properties: { 'a"b': { type: "integer" }, "\u2028": { type: "string" }, "": {} } }, native: true },
  { schema: { required: ["a", ""] }, native: false },
  { schema: { additionalProperties: { type: "object", required: ["a"] } }, native: true },
  { schema: { properties: [] }, native: false },
  { schema: { properties: { a: 5 } }, native: false },
  { schema: { additionalProperties: "no" }, native: false },
  // Arrays: one schema for every item in every dialect; a list of schemas is Ajv's.
  { schema: { items: { type: "integer" } }, native: true },
  { schema: { items: false }, native: true },
  { schema: { items: true }, native: true },
  { schema: { type: "array", items: { type: "object", required: ["a"] }, minItems: 1 }, native: true },
  { schema: { items: [{ type: "integer" }] }, native: false },
  { schema: { $schema: DRAFT07, items: [{ type: "integer" }] }, native: false },
  // Dialects.
  { schema: { ...RELEASE_NOTES, $schema: DRAFT07 }, native: true },
  { schema: { ...RELEASE_NOTES, $schema: DRAFT2019 }, native: true },
  { schema: { ...RELEASE_NOTES, $schema: DRAFT2020 }, native: true },
  { schema: { $schema: "http://json-schema.org/draft-04/schema#", type: "integer" }, native: true },
  { schema: { $schema: 5 }, native: false },
  { schema: { properties: { a: { $schema: DRAFT07 } } }, native: false },
  // Annotations, formats (annotation only) and keywords Ajv does not know are ignored.
  { schema: { type: "string", format: "date-time" }, native: true, values: ["not a date", "2024-01-01T00:00:00Z"] },
  { schema: { format: "no-such-format" }, native: true },
  { schema: { format: 5 }, native: false },
  {
    schema: {
      title: "t", description: "d", examples: [1, { a: 1 }], $comment: "c", default: { a: 1 }, deprecated: true,
      readOnly: true, writeOnly: false, contentMediaType: "text/plain", contentEncoding: "base64"
    },
    native: true
  },
  { schema: { "x-order": ["a"], strict: true, type: "string", foo: { bar: [1] } }, native: true },
  { schema: { "x-meta": { $id: "http://example.com/x" } }, native: false },
  { schema: JSON.parse('{"type": "string", "__proto__": {"type": "integer"}}'), native: false },
  { schema: { type: "string", constructor: 1 }, native: false },
  { schema: { examples: { $anchor: "a b" } }, native: false },
  // Everything else is Ajv's.
  { schema: { $ref: "#/$defs/a", $defs: { a: {} } }, native: false },
  { schema: { $defs: { a: { type: "string" } } }, native: false },
  { schema: { definitions: {} }, native: false },
  { schema: { $id: "http://example.com/s" }, native: false },
  { schema: { anyOf: [{ type: "string" }] }, native: false },
  { schema: { allOf: [{}] }, native: false },
  { schema: { not: {} }, native: false },
  { schema: { pattern: "^a" }, native: false },
  { schema: { patternProperties: { a: {} } }, native: false },
  { schema: { nullable: true, type: "string" }, native: false },
  { schema: { uniqueItems: true }, native: false },
  { schema: { multipleOf: 2 }, native: false },
  { schema: { prefixItems: [{}] }, native: false },
  { schema: { unevaluatedProperties: false }, native: false },
  { schema: { dependentRequired: { a: ["b"] } }, native: false },
  { schema: { propertyNames: { maxLength: 1 } }, native: false },
  { schema: { contains: {} }, native: false },
  { schema: { if: {}, then: {} }, native: false },
  { schema: { properties: { a: { anyOf: [{}] } } }, native: false },
  { schema: { items: { $ref: "#" } }, native: false }
]

describe("the native JSON Schema subset, against Ajv", () => {
  test("every keyword an Ajv of the three dialects knows is in the list of keywords native defers on", () => {
    for (const Ajv of [Ajv07, Ajv2019, Ajv2020]) {
      const rules = (new Ajv(AJV_OPTIONS) as unknown as { RULES: { all: object; keywords: object } }).RULES
      for (const keyword of [...Object.keys(rules.all), ...Object.keys(rules.keywords)]) {
        expect({ keyword, known: ajvKeywordsKnown.has(keyword) }).toEqual({ keyword, known: true })
      }
    }
  })

  for (const c of CASES) {
    test(`${JSON.stringify(c.schema)} is ${c.native ? "native" : "Ajv's"}`, () => {
      const verdict = differential(c.schema, [...VALUES, ...(c.values ?? [])])
      expect({ native: verdict.native, problems: verdict.problems }).toEqual({ native: c.native, problems: [] })
    })
  }

  test("schemas and values nested deeper than Ajv reliably compiles are Ajv's (it may overflow its stack)", () => {
    const nested = (levels: number): JsonObject => {
      let schema: JsonObject = { type: "integer" }
      for (let i = 0; i < levels; i++) schema = { items: schema }
      return schema
    }
    const deepValue = (levels: number): Json => {
      let value: Json = 1
      for (let i = 0; i < levels; i++) value = [value]
      return value
    }
    expect(differential(nested(20), [deepValue(20), deepValue(21)])).toEqual({ native: true, problems: [], valid: 1 })
    expect(differential(nested(40), [])).toEqual({ native: false, problems: [], valid: 0 })
    // Ajv fails to compile this one on Bun's default stack: native must not take it.
    expect(differential(nested(3000), [])).toEqual({ native: false, problems: [], valid: 0 })
    expect(differential({ const: deepValue(40) }, []).native).toBe(false)
    expect(differential({ "x-note": JSON.parse("[".repeat(40) + "]".repeat(40)) as Json }, []).native).toBe(false)
  })

  test("a value whose own `constructor`, `valueOf` or `toString` Ajv's comparison would read is left to Ajv", () => {
    const odd: ReadonlyArray<Json> = [{ constructor: 1, a: 1 }, { a: 1, toString: "x" }]
    const verdict = differential({ enum: [{ a: 1 }, 2] }, [...VALUES, ...odd], odd)
    expect({ native: verdict.native, problems: verdict.problems }).toEqual({ native: true, problems: [] })
  })
})
