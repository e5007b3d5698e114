import { describe, expect, test } from "bun:test"
import { exitCodeOf, renderChain } from "../../src/core/errors.ts"
import { TestError } from "../../src/testing/testErrors.ts"
import { validateJson } from "../../src/lang/jsonschema.ts"
import { parseTestDefinition, testFileJsonSchema } from "../../src/testing/testFile.ts"

const parse = (text: string) => parseTestDefinition(text, "tests/case.yml")
const error = (text: string) => {
  const result = parse(text)
  if (!(result instanceof TestError)) throw new Error(`expected an error, got ${JSON.stringify(result)}`)
  expect(exitCodeOf(result)).toBe(3)
  return renderChain(result)
}
const prefix = "failed to parse test definition 'tests/case.yml': "

describe("parseTestDefinition", () => {
  test("a full definition keeps typed values", () => {
    expect(parse(`
workflow: ../summarize.yml
input: {ticket: 42, tags: [a, b]}
inputs:
  lang: ja
  limit: 3
replay: ./cassettes/case1
assert:
  - type: equals
    value: "exact"
  - type: contains
    value: 結論
  - type: jq
    expr: 'contains("x")'
  - type: llm_judge
    criteria: polite
    model: judge
    threshold: 0.5
  - type: tool_called
    name: tool__rg
    min: 0
    max: 3
    args_jq: '.pattern == "TODO"'
  - type: usage
    max_prompt_tokens: 10
    max_completion_tokens: 5
    max_total_tokens: 15
    max_cost_usd: 0.01
  - type: step_output
    id: summary
    assert:
      - type: step_output
        id: inner
        assert: [{type: contains, value: a}]
`)).toEqual({
      workflow: "../summarize.yml",
      input: { ticket: 42, tags: ["a", "b"] },
      inputs: { lang: "ja", limit: 3 },
      replay: "./cassettes/case1",
      assert: [
        { type: "equals", value: "exact" },
        { type: "contains", value: "結論" },
        { type: "jq", expr: "contains(\"x\")" },
        { type: "llm_judge", criteria: "polite", model: "judge", threshold: 0.5 },
        { type: "tool_called", name: "tool__rg", min: 0, max: 3, args_jq: ".pattern == \"TODO\"" },
        { type: "usage", max_prompt_tokens: 10, max_completion_tokens: 5, max_total_tokens: 15, max_cost_usd: 0.01 },
        {
          type: "step_output",
          id: "summary",
          assert: [{ type: "step_output", id: "inner", assert: [{ type: "contains", value: "a" }] }]
        }
      ]
    })
  })

  test("defaults: input null, no inputs, no assertions; explicit nulls are the same", () => {
    const expected = { workflow: "w.yml", input: null, inputs: {}, replay: "r", assert: [] }
    expect(parse("workflow: w.yml\nreplay: r\n")).toEqual(expected)
    expect(parse("workflow: w.yml\nreplay: r\ninput:\ninputs:\nassert:\n")).toEqual(expected)
  })

  test("optional assertion fields accept null", () => {
    const parsed = parse("workflow: w\nreplay: r\nassert:\n  - {type: tool_called, name: t, min: null, max: null}\n")
    expect(parsed).toMatchObject({ assert: [{ type: "tool_called", name: "t", min: null, max: null }] })
  })

  test("unknown keys are rejected at every level, with the accepted keys and the line", () => {
    expect(error("workflow: w\nreplay: r\nvars: {a: 1}\n")).toBe(
      `${prefix}unknown key 'vars'; test definitions accept: workflow, input, inputs, replay, assert (line 3)`
    )
    expect(error("workflow: w\nreplay: r\nassert:\n  - type: equals\n    value: x\n    expected: y\n")).toBe(
      `${prefix}assert[0]: unknown key 'expected'; 'equals' assertions accept: type, value (line 6)`
    )
    expect(error(
      "workflow: w\nreplay: r\nassert:\n  - type: step_output\n    id: s\n    assert:\n      - type: usage\n        max_tokens: 3\n"
    )).toBe(
      `${prefix}assert[0].assert[0]: unknown key 'max_tokens'; 'usage' assertions accept: type, max_prompt_tokens, max_completion_tokens, max_total_tokens, max_cost_usd (line 8)`
    )
  })

  test("missing required keys", () => {
    expect(error("workflow: w\n")).toBe(`${prefix}missing required key 'replay' (line 1)`)
    expect(error("workflow: w\nreplay: r\nassert:\n  - type: jq\n")).toBe(
      `${prefix}assert[0]: missing required key 'expr' (line 4)`
    )
  })

  test("an unknown or missing assertion type lists the known ones", () => {
    const known = "equals, contains, jq, llm_judge, tool_called, usage, step_output"
    expect(error("workflow: w\nreplay: r\nassert:\n  - type: matches\n    value: x\n")).toBe(
      `${prefix}assert[0].type: unknown assertion type 'matches'; expected one of: ${known} (line 4)`
    )
    expect(error("workflow: w\nreplay: r\nassert:\n  - value: x\n")).toBe(
      `${prefix}assert[0]: missing required key 'type' (one of: ${known}) (line 4)`
    )
    expect(error("workflow: w\nreplay: r\nassert:\n  - equals\n")).toBe(
      `${prefix}assert[0]: an assertion must be a mapping with a 'type', got a string (line 4)`
    )
  })

  test("wrong value types", () => {
    expect(error("workflow: w\nreplay: r\nassert:\n  - type: equals\n    value: 42\n")).toBe(
      `${prefix}assert[0].value: expected string (line 5)`
    )
    expect(error("workflow: w\nreplay: r\nassert:\n  - type: tool_called\n    name: t\n    min: -1\n")).toBe(
      `${prefix}assert[0].min: expected a value greater than or equal to 0 (line 6)`
    )
    expect(error("workflow: [a]\nreplay: r\n")).toBe(`${prefix}workflow: expected string (line 1)`)
    expect(error("workflow: w\nreplay: r\ninputs: [1]\n")).toMatch(/^failed to parse test definition 'tests\/case\.yml': inputs: .* \(line 3\)$/)
  })

  test("not a mapping, YAML syntax errors, values JSON cannot hold", () => {
    expect(error("- a\n- b\n")).toBe(`${prefix}a test definition must be a YAML mapping, got a list (line 1)`)
    expect(error("")).toBe(`${prefix}a test definition must be a YAML mapping, got null`)
    expect(error("workflow: w\nworkflow: x\nreplay: r\n")).toMatch(/^failed to parse test definition 'tests\/case\.yml': duplicate entry with key "workflow" \(line 2\)$/)
    expect(error("workflow: w\nreplay: r\ninput: .inf\n")).toBe(`${prefix}input: Infinity is not a JSON number (line 3)`)
  })

  test("the JSON Schema describes the same file and rejects unknown keys", () => {
    const schema = testFileJsonSchema()
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema")
    expect(schema).toMatchObject({ type: "object", required: ["workflow", "replay"], additionalProperties: false })
    const good = { workflow: "w", replay: "r", assert: [{ type: "step_output", id: "s", assert: [{ type: "equals", value: "x" }] }] }
    expect(validateJson(schema as never, good, "test")).toBeUndefined()
  })
})
