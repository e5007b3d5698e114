import { beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { exitCodeOf, renderChain } from "../../src/core/errors.ts"
import { TestError } from "../../src/testing/testErrors.ts"
import { loadSchemaValidator, validateJson } from "../../src/lang/jsonschema.ts"
import { parseTestDefinition, testFileJsonSchema } from "../../src/testing/testFile.ts"

beforeAll(() => Effect.runPromise(loadSchemaValidator))

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
      replayTools: false,
      workdir: undefined,
      fixtures: [],
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
    const expected = { workflow: "w.yml", input: null, inputs: {}, replay: "r", replayTools: false, assert: [], workdir: undefined, fixtures: [] }
    expect(parse("workflow: w.yml\nreplay: r\n")).toEqual(expected)
    expect(parse("workflow: w.yml\nreplay: r\ninput:\ninputs:\nassert:\nworkdir:\nfixtures:\n")).toEqual(expected)
  })

  test("workdir and fixtures: temp with fixtures, a directory, and what is refused", () => {
    expect(parse("workflow: w\nreplay: r\nworkdir: temp\nfixtures: [data/pr.diff, repo]\n")).toMatchObject({
      workdir: "temp",
      fixtures: ["data/pr.diff", "repo"]
    })
    expect(parse("workflow: w\nreplay: r\nworkdir: ../sandbox\n")).toMatchObject({ workdir: "../sandbox", fixtures: [] })
    // Fixtures are copied only into a directory lait made for the run.
    expect(error("workflow: w\nreplay: r\nfixtures: [a.txt]\n")).toBe(`${prefix}'fixtures' needs 'workdir: temp' (line 3)`)
    expect(error("workflow: w\nreplay: r\nworkdir: sandbox\nfixtures: [a.txt]\n")).toBe(
      `${prefix}'fixtures' needs 'workdir: temp' (line 4)`
    )
    expect(error("workflow: w\nreplay: r\nworkdir: ''\n")).toStartWith(`${prefix}workdir: `)
    expect(error("workflow: w\nreplay: r\nworkdir: temp\nfixtures: a.txt\n")).toStartWith(`${prefix}fixtures: `)
  })

  test("replay_tools: a boolean, false when absent", () => {
    expect(parse("workflow: w\nreplay: r\nreplay_tools: true\n")).toMatchObject({ replayTools: true })
    expect(parse("workflow: w\nreplay: r\nreplay_tools: false\n")).toMatchObject({ replayTools: false })
    expect(error("workflow: w\nreplay: r\nreplay_tools: yes please\n")).toBe(
      `${prefix}replay_tools: expected boolean (line 3)`
    )
  })

  test("optional assertion fields accept null", () => {
    const parsed = parse("workflow: w\nreplay: r\nassert:\n  - {type: tool_called, name: t, min: null, max: null}\n")
    expect(parsed).toMatchObject({ assert: [{ type: "tool_called", name: "t", min: null, max: null }] })
  })

  test("unknown keys are rejected at every level, with the accepted keys and the line", () => {
    expect(error("workflow: w\nreplay: r\nvars: {a: 1}\n")).toBe(
      `${prefix}unknown key 'vars'; test definitions accept: workflow, exec, input_mode, env, timeout, http, output_jq, input, inputs, replay, replay_tools, assert, workdir, fixtures (line 3)`
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
    const known = "equals, contains, jq, llm_judge, tool_called, usage, step_output, regex, icontains, starts_with, contains_any, contains_all, is_json, json_schema, levenshtein, length, cost, latency, script"
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
    // `workflow` or `exec` (docs/apps.md): the loader requires exactly one of them.
    expect(schema).toMatchObject({ type: "object", required: ["replay"], additionalProperties: false })
    const good = { workflow: "w", replay: "r", assert: [{ type: "step_output", id: "s", assert: [{ type: "equals", value: "x" }] }] }
    expect(validateJson(schema as never, good, "test")).toBeUndefined()
    expect(validateJson(schema as never, { ...good, replay_tools: true }, "test")).toBeUndefined()
    expect(validateJson(schema as never, { ...good, replay_tools: "yes" }, "test")).toBeDefined()
    const app = { exec: ["node", "app.mjs"], input_mode: "arg", env: { A: "1" }, timeout: 30, replay: "r" }
    expect(validateJson(schema as never, app, "test")).toBeUndefined()
    expect(validateJson(schema as never, { ...app, input_mode: "file" }, "test")).toBeDefined()
  })
})
