import { describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { exitCodeOf, renderChain } from "../../src/core/errors.ts"
import { EvalError } from "../../src/eval/evalErrors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { loadEvalDefinition } from "../../src/eval/cases.ts"
import { evalFileJsonSchema } from "../../src/eval/evalSchema.ts"
import { loadEvalSchema, parseEvalDefinition } from "../../src/eval/schema.ts"

/** A case as parsed, with the defaults of an unnamed case without inputs or vars. */
const plain = (index: number, input: unknown, assert: ReadonlyArray<unknown> = []): any => ({
  name: `case ${index}`,
  named: false,
  input,
  inputs: undefined,
  vars: {},
  assert,
  ownAssert: assert
})

const single = (target: unknown, cases: ReadonlyArray<unknown>): any => ({
  targets: [target],
  compare: false,
  cases,
  casesFile: undefined,
  defaultAssert: []
})

// Loaded once: parseEvalDefinition then never needs to load it (readEvalDefinition does when it must).
await Effect.runPromise(loadEvalSchema)
const parse = (text: string) => parseEvalDefinition(text, "evals/e.yml")

const error = (text: string): { message: string; line: number | undefined } => {
  const result = parse(text)
  if (!(result instanceof EvalError)) throw new Error(`expected a failure, got ${JSON.stringify(result)}`)
  expect(exitCodeOf(result)).toBe(3)
  return { message: renderChain(result), line: result.line }
}

describe("parseEvalDefinition", () => {
  test("a workflow target with inputs, cases with the whole assertion vocabulary", () => {
    const result = parse(`
target:
  workflow: ./summarize.yml
  inputs: { lang: ja, n: 3 }
cases:
  - input: "text one"
    assert:
      - type: contains
        value: "結論"
      - type: jq
        expr: '.title | length > 0'
      - type: llm_judge
        criteria: "keeps the gist"
        model: gemma-4-12b
        threshold: 0.7
      - type: step_output
        id: draft
        assert: [{ type: equals, value: x }]
  - input: "text two"
`)
    expect(result).toEqual(single(
      { kind: "workflow", name: "./summarize.yml", workflow: "./summarize.yml", inputs: { lang: "ja", n: 3 } },
      [
        plain(1, "text one", [
          { type: "contains", value: "結論" },
          { type: "jq", expr: ".title | length > 0" },
          { type: "llm_judge", criteria: "keeps the gist", model: "gemma-4-12b", threshold: 0.7 },
          { type: "step_output", id: "draft", assert: [{ type: "equals", value: "x" }] }
        ]),
        plain(2, "text two")
      ]
    ))
  })

  test("a model + prompt target; inputs and assert may be null", () => {
    expect(parse("target: { model: m, prompt: 'Q: {{input}}' }\ncases:\n  - input: a\n    assert: null\n")).toEqual(
      single({ kind: "prompt", name: "m", model: "m", prompt: "Q: {{input}}" }, [plain(1, "a")])
    )
    expect(parse("target: { workflow: w.yml, inputs: null }\ncases: []\n")).toEqual(
      single({ kind: "workflow", name: "w.yml", workflow: "w.yml", inputs: {} }, [])
    )
  })

  test.each([
    [
      "target: { workflow: w.yml }\ncases: []\nrepeat: 3\n",
      "failed to parse eval definition 'evals/e.yml': unknown key 'repeat'; eval definitions accept: target, targets, cases, default_assert (line 3)",
      3
    ],
    [
      "target:\n  workflow: w.yml\n  model: m\ncases: []\n",
      "failed to parse eval definition 'evals/e.yml': target: unknown key 'model'; a workflow target accepts: name, workflow, inputs (line 3)",
      3
    ],
    [
      "target:\n  model: m\n  promt: hi\ncases: []\n",
      "failed to parse eval definition 'evals/e.yml': target: unknown key 'promt'; a model target accepts: name, model, prompt (line 3)",
      3
    ],
    [
      "target:\n  model: m\ncases: []\n",
      "failed to parse eval definition 'evals/e.yml': target: missing required key 'prompt' (line 1)",
      1
    ],
    [
      "target:\n  name: x\ncases: []\n",
      "failed to parse eval definition 'evals/e.yml': target: expected either 'workflow' (with optional 'inputs'), 'model' and 'prompt', 'exec' or 'http' (line 1)",
      1
    ],
    [
      "target: ./w.yml\ncases: []\n",
      "failed to parse eval definition 'evals/e.yml': target: expected a mapping, either {workflow, inputs?} or {model, prompt}, got a string (line 1)",
      1
    ],
    [
      "cases: []\n",
      "failed to parse eval definition 'evals/e.yml': missing required key 'target' (line 1)",
      1
    ],
    [
      "target: { workflow: w.yml }\n",
      "failed to parse eval definition 'evals/e.yml': missing required key 'cases' (line 1)",
      1
    ],
    [
      "target: { workflow: w.yml }\ncases:\n  - input: a\n    expect: b\n",
      "failed to parse eval definition 'evals/e.yml': cases[0]: unknown key 'expect'; cases accept: name, input, inputs, vars, assert (line 4)",
      4
    ],
    [
      "target: { workflow: w.yml }\ncases:\n  - assert: []\n",
      "failed to parse eval definition 'evals/e.yml': cases[0]: missing required key 'input' (line 3)",
      3
    ],
    [
      "target: { workflow: w.yml }\ncases:\n  - input: a\n    assert:\n      - type: llm_judge\n        criteria: c\n        treshold: 0.5\n",
      "failed to parse eval definition 'evals/e.yml': cases[0].assert[0]: unknown key 'treshold'; 'llm_judge' assertions accept: type, criteria, model, threshold (line 7)",
      7
    ],
    [
      "target: { workflow: w.yml }\ncases:\n  - input: a\n    assert:\n      - type: similar\n        value: x\n",
      "failed to parse eval definition 'evals/e.yml': cases[0].assert[0].type: unknown assertion type 'similar'; expected one of: equals, contains, jq, llm_judge, tool_called, usage, step_output, regex, icontains, starts_with, contains_any, contains_all, is_json, json_schema, levenshtein, length, cost, latency, script (line 5)",
      5
    ],
    [
      "target: [\n",
      "failed to parse eval definition 'evals/e.yml': ",
      undefined
    ],
    [
      "- a\n- b\n",
      "failed to parse eval definition 'evals/e.yml': an eval definition must be a YAML mapping, got a list (line 1)",
      1
    ]
  ])("%j", (text, message, line) => {
    const e = error(text)
    if (text === "target: [\n") {
      // YAML syntax errors carry the parser's own wording; the prefix and the class are ours.
      expect(e.message.startsWith(message)).toBe(true)
    } else {
      expect(e.message).toBe(message)
      expect(e.line).toBe(line)
    }
  })
})

describe("loadEvalDefinition", () => {
  test("a missing file is a read error naming the eval definition", async () => {
    const exit = await Effect.runPromiseExit(loadEvalDefinition("/nonexistent/e.yml").pipe(Effect.provide(FileLoader.layer)))
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const failure = exit.cause.reasons[0]
      expect(failure?._tag).toBe("Fail")
      expect(renderChain((failure as { error: unknown }).error)).toBe(
        "failed to read eval definition '/nonexistent/e.yml': no such file or directory"
      )
    }
  })

  test("reads and parses a file", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-eval-schema-"))
    const file = path.join(dir, "e.yml")
    fs.writeFileSync(file, "target: { model: m, prompt: p }\ncases: [{ input: x }]\n")
    const result = await Effect.runPromise(loadEvalDefinition(file).pipe(Effect.provide(FileLoader.layer)))
    expect(result.cases).toEqual([plain(1, "x")])
    fs.rmSync(dir, { recursive: true })
  })
})

describe("evalFileJsonSchema", () => {
  const schema = evalFileJsonSchema() as Record<string, any>
  test("draft 2020-12, closed objects, both target shapes, the assertion vocabulary", () => {
    expect(schema["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema")
    expect(schema["required"]).toEqual(["cases"])
    expect(Object.keys(schema["properties"])).toEqual(["target", "targets", "cases", "default_assert"])
    expect(schema["additionalProperties"]).toBe(false)
    const target = schema["properties"]["target"]
    expect(target["anyOf"].map((s: any) => s["required"])).toEqual([["workflow"], ["model", "prompt"], ["exec"], ["http"]])
    expect(target["anyOf"].every((s: any) => s["additionalProperties"] === false)).toBe(true)
    const text = JSON.stringify(schema)
    for (const type of ["equals", "contains", "jq", "llm_judge", "tool_called", "usage", "step_output"]) {
      expect(text).toContain(`"${type}"`)
    }
  })
})

describe("YAML syntax errors name the line once (issue 12)", () => {
  test("the parser's position is not repeated after the message", () => {
    expect(error("target: {workflow: w.yml}\ncases: []\n---\ncases: []\n").message).toBe(
      "failed to parse eval definition 'evals/e.yml': deserializing from YAML containing more than one document is not supported (line 3)"
    )
    expect(error("target:\n\tworkflow: w.yml\n").message).toBe(
      "failed to parse eval definition 'evals/e.yml': Tabs are not allowed as indentation (line 2)"
    )
  })
})

describe("issue 21: names, inputs, vars, default_assert, targets, cases files", () => {
  test("a case's name, any-value input, inputs and vars; default_assert after the case's own assertions", () => {
    const result = parse(`
target: { model: m, prompt: "{{vars.tone}} {{input.who}}" }
default_assert: [{ type: contains, value: "!" }]
cases:
  - name: structured
    input: { who: Ada, n: [1, 2] }
    inputs: { lang: en }
    vars: { tone: warm }
    assert: [{ type: contains, value: Ada }]
  - input: 42
`) as any
    expect(result.cases).toEqual([
      {
        name: "structured",
        named: true,
        input: { who: "Ada", n: [1, 2] },
        inputs: { lang: "en" },
        vars: { tone: "warm" },
        assert: [{ type: "contains", value: "Ada" }, { type: "contains", value: "!" }],
        ownAssert: [{ type: "contains", value: "Ada" }]
      },
      { ...plain(2, 42, [{ type: "contains", value: "!" }]), ownAssert: [] }
    ])
    expect(result.defaultAssert).toEqual([{ type: "contains", value: "!" }])
  })

  test("targets: both shapes, names defaulting to the workflow or model, a repeated default named by position", () => {
    const result = parse(`
targets:
  - { workflow: w.yml }
  - { model: m, prompt: a }
  - { model: m, prompt: b }
  - { name: big, model: m, prompt: c }
cases: []
`) as any
    expect(result.compare).toBe(true)
    expect(result.targets.map((t: { name: string; kind: string }) => [t.kind, t.name])).toEqual([
      ["workflow", "w.yml"],
      ["prompt", "m (2)"],
      ["prompt", "m (3)"],
      ["prompt", "big"]
    ])
  })

  test("cases: {file} is kept for the loader with the line of `cases:`", () => {
    const result = parse("target: { model: m, prompt: x }\ncases:\n  file: data/c.csv\n") as any
    expect([result.cases, result.casesFile]).toEqual([[], { file: "data/c.csv", line: 2 }])
  })

  test.each([
    [
      "targets:\n  - { model: m, prompt: x, modle: y }\ncases: []\n",
      "targets[0]: unknown key 'modle'; a model target accepts: name, model, prompt (line 2)"
    ],
    ["targets: { model: m }\ncases: []\n", "targets: expected a non-empty list of targets, got a mapping (line 1)"],
    ["target: { model: m, prompt: x }\ncases: { path: c.jsonl }\n", "cases: unknown key 'path'; a cases file reference accepts: file (line 2)"],
    [
      "target: { model: m, prompt: x }\ndefault_assert: [{ type: nope }]\ncases: []\n",
      "default_assert[0].type: unknown assertion type 'nope'; expected one of: equals, contains, jq, llm_judge, tool_called, usage, step_output, regex, icontains, starts_with, contains_any, contains_all, is_json, json_schema, levenshtein, length, cost, latency, script (line 2)"
    ],
    ["target: { model: m, prompt: x }\ncases:\n  - { input: a, vars: [1] }\n", "cases[0].vars: expected "]
  ])("%j", (text, message) => {
    expect(error(text).message).toStartWith(`failed to parse eval definition 'evals/e.yml': ${message}`)
  })
})
