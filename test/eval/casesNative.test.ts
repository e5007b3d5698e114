// The native decoder of an eval file's inline cases (src/eval/casesNative.ts) against EvalCaseSchema:
// whatever it accepts, the schema decodes to the same value with the same key order; whatever the
// schema rejects, it leaves to the schema. Hand-written cases, then random ones.
import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { nativeAssertList, nativeCases, nativeTarget } from "../../src/eval/casesNative.ts"
import {
  AssertListSchema,
  decodeAt,
  EvalCaseSchema,
  PromptTargetSchema,
  WorkflowTargetSchema
} from "../../src/eval/evalSchema.ts"
import { isIssue, loadEvalSchema, parseEvalDefinition } from "../../src/eval/schema.ts"
import { prng } from "../fixtures/prng.ts"
import { parseYaml, runStatic } from "../../src/lang/load/yaml.ts"

await Effect.runPromise(loadEvalSchema)

const bySchema = (cases: unknown) => decodeAt(Schema.Array(EvalCaseSchema), { cases }, ["cases"])

const agree = (cases: unknown): "native" | "schema" => {
  const native = nativeCases(cases)
  const schema = bySchema(cases)
  if (native === undefined) return "schema"
  expect(isIssue(schema)).toBe(false)
  expect(native).toEqual(schema as Array<unknown>)
  expect(JSON.stringify(native)).toBe(JSON.stringify(schema))
  return "native"
}

const fromYaml = (text: string): unknown => {
  const parsed = parseYaml(text)
  if (!parsed.ok) throw new Error(parsed.message)
  const converted = runStatic(() => parsed.source.json(parsed.source.top(), "test"))
  if (!converted.ok) throw new Error(converted.error.message)
  return converted.value
}

describe("nativeCases", () => {
  const accepted: ReadonlyArray<string> = [
    "- input: hello\n  assert: [{ type: contains, value: hi }]",
    "- { input: 1, name: one }\n- { input: [1, true, null, {a: b}] }",
    "- name: n\n  assert:\n    - value: x\n      type: equals\n    - expr: '. == 1'\n      type: jq\n  input: 'x'",
    "- input: { z: 1, a: [2] }\n  vars: { v: w }\n  inputs: { k: 3.5 }\n  assert: []",
    "[]"
  ]
  for (const text of accepted) {
    test(`decodes as the schema does: ${JSON.stringify(text)}`, () => {
      expect(agree(fromYaml(text))).toBe("native")
    })
  }
  const declined: ReadonlyArray<string> = [
    "- { name: x }",
    "- { input: a, bogus: 1 }",
    "- { input: a, name: 3 }",
    "- { input: a, assert: null }",
    "- { input: a, vars: null }",
    "- { input: a, inputs: [1] }",
    "- { input: a, assert: [{ type: contains }] }",
    "- { input: a, assert: [{ type: contains, value: 1 }] }",
    "- { input: a, assert: [{ type: contains, value: b, extra: 1 }] }",
    "- { input: a, assert: [{ type: llm_judge, criteria: c }] }",
    "- { input: a, assert: [{ type: usage, max_total_tokens: 3 }] }",
    "- { input: a, assert: [{ type: toString, value: b }] }",
    "- { input: a, assert: {type: contains, value: b} }",
    "- plain text",
    "{ input: a }"
  ]
  for (const text of declined) {
    test(`leaves to the schema: ${JSON.stringify(text)}`, () => {
      expect(agree(fromYaml(text))).toBe("schema")
    })
  }

  test("random cases: the same value whenever it decides", () => {
    let seed = 12345
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const pick = <A>(xs: ReadonlyArray<A>): A => xs[rand(xs.length)]!
    const json = (depth: number): unknown =>
      depth > 2 ? pick(["s", 1, 2.5, true, null]) : pick([
        () => "text",
        () => rand(100),
        () => null,
        () => [json(depth + 1), json(depth + 1)],
        () => ({ [pick(["a", "b", "c"])]: json(depth + 1), k: json(depth + 1) })
      ])()
    const assertion = (): unknown =>
      pick([
        () => ({ type: pick(["equals", "contains"]), value: pick(["v", "w", 1]) }),
        () => ({ value: "v", type: "contains" }),
        () => ({ type: "jq", expr: ". != null" }),
        () => ({ expr: ".", type: "jq" }),
        () => ({ type: "jq", value: "x" }),
        () => ({ type: "contains", value: "v", name: "n" }),
        () => ({ type: "llm_judge", criteria: "c" })
      ])()
    let native = 0
    for (let i = 0; i < 400; i++) {
      const cases = Array.from({ length: 1 + rand(3) }, () => {
        const c: Record<string, unknown> = {}
        for (const key of ["assert", "vars", "input", "name", "inputs", "other"]) {
          if (rand(key === "input" ? 20 : 3) === 0) continue
          if (key === "other" && rand(12) !== 0) continue
          c[key] = key === "assert"
            ? (rand(20) === 0 ? null : Array.from({ length: rand(3) }, assertion))
            : key === "name"
            ? pick(["n", "m", "o", 5])
            : key === "vars" || key === "inputs"
            ? pick([{ a: json(1) }, { a: json(1), c: 1 }, { b: 2 }, null, [1]])
            : json(0)
        }
        return c
      })
      if (agree(cases) === "native") native++
    }
    // Both outcomes are exercised.
    expect(native).toBeGreaterThan(20)
    expect(native).toBeLessThan(380)
  })

  test("an eval file's cases come out the same either way, defaults and default_assert included", () => {
    const text = "target: { model: m, prompt: '{{input}}' }\ndefault_assert: [{ type: equals, value: z }]\n" +
      "cases:\n  - input: a\n    assert: [{ value: b, type: contains }]\n  - { input: 2, name: two, vars: { x: 1 } }\n"
    const parsed = parseEvalDefinition(text, "e.yml")
    expect(JSON.stringify(parsed)).toBe(JSON.stringify({
      targets: [{ kind: "prompt", name: "m", model: "m", prompt: "{{input}}" }],
      compare: false,
      cases: [
        {
          name: "case 1",
          named: false,
          input: "a",
          vars: {},
          assert: [{ type: "contains", value: "b" }, { type: "equals", value: "z" }],
          ownAssert: [{ type: "contains", value: "b" }]
        },
        {
          name: "two",
          named: true,
          input: 2,
          vars: { x: 1 },
          assert: [{ type: "equals", value: "z" }],
          ownAssert: []
        }
      ],
      defaultAssert: [{ type: "equals", value: "z" }]
    }))
  })
})

// A target's shape is chosen by its keys (decodeTarget in src/eval/schema.ts), then the shape's schema
// decodes it: the native target must be what that decode gives, and never a value the schema rejects.
describe("nativeTarget", () => {
  const bySchema = (target: Record<string, unknown>) => {
    const workflow = "workflow" in target || ("inputs" in target && !("model" in target))
    const t = decodeAt(workflow ? WorkflowTargetSchema : PromptTargetSchema, { target }, ["target"])
    if (isIssue(t)) return t
    return "workflow" in t
      ? { kind: "workflow", name: t.name ?? t.workflow, workflow: t.workflow, inputs: t.inputs ?? {} }
      : { kind: "prompt", name: t.name ?? t.model, model: t.model, prompt: t.prompt }
  }
  const agreeTarget = (target: unknown): "native" | "schema" => {
    const native = nativeTarget(target)
    if (native === undefined) return "schema"
    const schema = bySchema(target as Record<string, unknown>)
    expect(isIssue(schema)).toBe(false)
    expect(native).toEqual(schema as typeof native)
    expect(JSON.stringify(native)).toBe(JSON.stringify(schema))
    return "native"
  }

  test("hand-written targets", () => {
    const native = [
      { model: "m", prompt: "{{input}}" },
      { prompt: "p", model: "m", name: "n" },
      { workflow: "w.yml" },
      { name: "x", workflow: "w.yml" }
    ]
    for (const t of native) expect(agreeTarget(t)).toBe("native")
    const schema = [
      { model: "m" },
      { model: "m", prompt: 1 },
      { model: "m", prompt: "p", name: null },
      { model: "m", prompt: "p", inputs: {} },
      { workflow: "w.yml", inputs: { a: 1 } },
      { workflow: "w.yml", model: "m" },
      { workflow: 3 },
      { model: "m", prompt: "p", bogus: 1 },
      null,
      "m",
      ["m"]
    ]
    for (const t of schema) expect(agreeTarget(t)).toBe("schema")
  })

  test("random targets: the same value whenever it decides", () => {
    const random = prng(24_8)
    const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(random() * xs.length)]!
    const outcomes = { native: 0, schema: 0 }
    for (let i = 0; i < 500; i++) {
      // A prompt or workflow shape (keys in random order), then a key or a value changed now and then.
      const keys = random() < 0.5 ? ["model", "prompt"] : ["workflow"]
      if (random() < 0.4) keys.push("name")
      if (random() < 0.3) keys.push(pick(["inputs", "model", "workflow", "prompt", "other"]))
      const target: Record<string, unknown> = {}
      for (const key of keys.sort(() => random() - 0.5)) {
        target[key] = random() < 0.85 ? pick(["s", "{{input}}", "", "w.yml"]) : pick([1, null, true, [], {}, { a: 1 }])
      }
      outcomes[agreeTarget(target)]++
    }
    expect(outcomes.native).toBeGreaterThan(20)
    expect(outcomes.schema).toBeGreaterThan(200)
  })
})

// `default_assert:` was decoded by the schema in every eval file that has one.
describe("nativeAssertList", () => {
  const agreeList = (value: unknown): "native" | "schema" => {
    const native = nativeAssertList(value)
    if (native === undefined) return "schema"
    const schema = decodeAt(AssertListSchema, { default_assert: value }, ["default_assert"])
    expect(isIssue(schema)).toBe(false)
    expect(native).toEqual(schema as typeof native)
    expect(JSON.stringify(native)).toBe(JSON.stringify(schema))
    return "native"
  }

  test("the same value whenever it decides", () => {
    const native: ReadonlyArray<unknown> = [
      null,
      [],
      [{ type: "contains", value: "x" }],
      [{ value: "x", type: "equals" }, { expr: ".a", type: "jq" }]
    ]
    for (const v of native) expect(agreeList(v)).toBe("native")
    const schema: ReadonlyArray<unknown> = [
      undefined,
      "x",
      {},
      [null],
      [{ type: "contains" }],
      [{ type: "contains", value: 1 }],
      [{ type: "contains", value: "x", extra: 1 }],
      [{ type: "llm_judge", criteria: "c" }],
      [{ type: "bogus", value: "x" }]
    ]
    for (const v of schema) expect(agreeList(v)).toBe("schema")
  })
})
