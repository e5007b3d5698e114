import { beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { SchemaError } from "../../src/lang/languageErrors.ts"
import type { Json, JsonObject } from "../../src/core/json.ts"
import {
  checkJson,
  checkSchemaDocument,
  loadSchemaValidator,
  validateJson,
  validateSchemaDocument
} from "../../src/lang/jsonschema.ts"

beforeAll(() => Effect.runPromise(loadSchemaValidator))

const check = (schema: JsonObject, value: Json, label = "inputs.cfg"): string | undefined => {
  const error = validateJson(schema, value, label)
  if (error !== undefined) expect(error).toBeInstanceOf(SchemaError)
  return error?.message
}

describe("validateJson", () => {
  test("matching values pass", () => {
    expect(check({ type: "integer" }, 3)).toBeUndefined()
    expect(check({ type: ["string", "null"] }, null)).toBeUndefined()
    expect(check({ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { a: "x", extra: 1 }))
      .toBeUndefined()
    expect(check({}, { anything: [1, "goes"] })).toBeUndefined()
  })

  test("a type mismatch names the label and the type found", () => {
    expect(check({ type: "integer" }, "3", "inputs.count")).toBe("inputs.count must be of type integer (got string)")
    expect(check({ type: "integer" }, 1.5, "inputs.count")).toBe("inputs.count must be of type integer (got number)")
    expect(check({ type: ["string", "null"] }, 3)).toBe("inputs.cfg must be of type string or null (got number)")
  })

  test("the failing path is spelled out: keys, indexes, quoted odd keys", () => {
    const schema: JsonObject = {
      type: "object",
      properties: { items: { type: "array", items: { type: "object", properties: { n: { type: "integer" } } } } }
    }
    expect(check(schema, { items: [{ n: 1 }, { n: "two" }] }, "output")).toBe(
      "output.items[1].n must be of type integer (got string)"
    )
    expect(check({ properties: { "a b": { type: "string" } } }, { "a b": 1 })).toBe(
      "inputs.cfg[\"a b\"] must be of type string (got number)"
    )
    expect(check({ properties: { "0": { type: "string" } } }, { "0": 1 })).toBe(
      "inputs.cfg[\"0\"] must be of type string (got number)"
    )
  })

  test("required lists every missing field", () => {
    expect(check({ type: "object", required: ["a", "b", "c"] }, { b: 1 }, "input")).toBe(
      "input is missing required field(s): a, c"
    )
  })

  test("enum, const and additionalProperties show what was wrong", () => {
    expect(check({ enum: ["a", "b"] }, "c")).toBe("inputs.cfg must be one of [\"a\",\"b\"] (got \"c\")")
    expect(check({ const: 1 }, 2)).toBe("inputs.cfg must be 1 (got 2)")
    expect(check({ properties: { a: {} }, additionalProperties: false }, { a: 1, zz: 2 })).toBe(
      "inputs.cfg must not have additional property 'zz'"
    )
  })

  test("a real validator: ranges, lengths, patterns, combinators and $ref are enforced", () => {
    expect(check({ type: "integer", minimum: 1 }, 0)).toBe("inputs.cfg must be >= 1")
    expect(check({ type: "string", minLength: 3 }, "ab")).toBe("inputs.cfg must NOT have fewer than 3 characters")
    expect(check({ type: "string", pattern: "^[a-z]+$" }, "A1")).toBe("inputs.cfg must match pattern \"^[a-z]+$\"")
    expect(check({ anyOf: [{ type: "string" }, { type: "number" }] }, true)).toBe("inputs.cfg must match a schema in anyOf")
    expect(check({ $defs: { pos: { type: "number", exclusiveMinimum: 0 } }, items: { $ref: "#/$defs/pos" } }, [1, -1]))
      .toBe("inputs.cfg[1] must be > 0")
  })

  test("draft 2020-12 by default; draft-07 tuples when the schema says so", () => {
    expect(check({ prefixItems: [{ type: "string" }] }, [1])).toBe("inputs.cfg[0] must be of type string (got number)")
    expect(check({ $schema: "http://json-schema.org/draft-07/schema#", items: [{ type: "string" }] }, [1])).toBe(
      "inputs.cfg[0] must be of type string (got number)"
    )
  })

  test("unknown keywords and formats are tolerated", () => {
    expect(check({ type: "string", format: "email", "x-ui": { widget: "text" } }, "not an email")).toBeUndefined()
  })

  test("two different schemas with the same $id do not collide", () => {
    expect(check({ $id: "https://example.com/s", type: "string" }, "x")).toBeUndefined()
    expect(check({ $id: "https://example.com/s", type: "number" }, "x")).toBe(
      "inputs.cfg must be of type number (got string)"
    )
  })

  // Only schemas that could reach the dialect's meta-schemas get an Ajv instance that has them.
  test("a $ref to the dialect's meta-schema resolves, beside schemas without one", () => {
    const meta2020 = "https://json-schema.org/draft/2020-12/schema"
    expect(check({ $ref: meta2020 }, { type: "object" })).toBeUndefined()
    expect(check({ $ref: meta2020 }, { type: 12 })).toBe("inputs.cfg.type must match a schema in anyOf")
    const draft07 = "http://json-schema.org/draft-07/schema#"
    const nested = { $schema: draft07, properties: { s: { $ref: draft07 } } }
    expect(check(nested, { s: { type: 3 } })).toBe("inputs.cfg.s.type must match a schema in anyOf")
    expect(check({ $schema: draft07, type: "integer" }, "a")).toBe("inputs.cfg must be of type integer (got string)")
    expect(check({ type: "object", required: ["a"] }, {})).toBe("inputs.cfg is missing required field(s): a")
  })

  test("an invalid schema is reported as such", () => {
    expect(check({ type: "strin" }, "x")).toBe("inputs.cfg: invalid JSON Schema: type must be JSONType or JSONType[]: strin")
  })

  test("the same schema validates many values (cached compilation)", () => {
    const schema: JsonObject = { type: "object", properties: { n: { type: "integer" } } }
    for (let n = 0; n < 50; n++) expect(check(schema, { n })).toBeUndefined()
    expect(check(schema, { n: "x" })).toBe("inputs.cfg.n must be of type integer (got string)")
    // An equal schema in a different object behaves the same.
    expect(check(JSON.parse(JSON.stringify(schema)) as JsonObject, { n: 0.5 })).toBe(
      "inputs.cfg.n must be of type integer (got number)"
    )
  })
})

describe("validateSchemaDocument", () => {
  test("a schema that compiles passes", () => {
    expect(validateSchemaDocument({ type: "object", properties: { a: { type: "string" } } }, "schemas.a")).toBeUndefined()
  })

  test("malformed keywords, unresolvable refs and bad patterns are reported with the label", () => {
    expect(validateSchemaDocument({ required: "a" }, "schemas.person")?.message).toBe(
      "schemas.person: invalid JSON Schema: required value must be [\"array\"]"
    )
    expect(validateSchemaDocument({ $ref: "#/$defs/missing" }, "schemas.x")?.message).toBe(
      "schemas.x: invalid JSON Schema: can't resolve reference #/$defs/missing from id #"
    )
    expect(validateSchemaDocument({ type: "string", pattern: "(" }, "input_schema")?.message).toStartWith(
      "input_schema: invalid JSON Schema: Invalid regular expression"
    )
    expect(validateSchemaDocument({ enum: "a" }, "schemas.x")).toBeInstanceOf(SchemaError)
  })
})

describe("checkJson and checkSchemaDocument", () => {
  // Native schemas (the first five) and Ajv's: matching values, failing ones (whose message comes from
  // Ajv), schemas that do not compile.
  const cases: ReadonlyArray<readonly [JsonObject, Json]> = [
    [{ type: "integer", minimum: 1 }, 3],
    [{ type: "integer", minimum: 1 }, 0],
    [{ type: "object", required: ["a"], additionalProperties: false, properties: { a: { enum: ["x"] } } }, { a: "y" }],
    [{ type: "object", required: ["a"], additionalProperties: false, properties: { a: { enum: ["x"] } } }, { a: "x", b: 1 }],
    [{ items: { const: { a: [1] } } }, [{ a: [1] }, { a: [2] }]],
    [{ type: "string", pattern: "^a" }, "b"],
    [{ anyOf: [{ type: "string" }, { type: "null" }] }, null],
    [{ type: "strin" }, 1],
    [{ required: "a" }, {}]
  ]

  test("answer exactly as validateJson and validateSchemaDocument", () => {
    for (const [schema, value] of cases) {
      const fresh = JSON.parse(JSON.stringify(schema)) as JsonObject
      expect(Effect.runSync(checkJson(fresh, value, "inputs.x"))?.message).toBe(validateJson(schema, value, "inputs.x")?.message)
      expect(Effect.runSync(checkSchemaDocument(fresh, "schemas.x"))?.message).toBe(
        validateSchemaDocument(schema, "schemas.x")?.message
      )
    }
    expect(Effect.runSync(checkJson(cases[1]![0], 0, "inputs.n"))?.message).toBe("inputs.n must be >= 1")
  })
})
