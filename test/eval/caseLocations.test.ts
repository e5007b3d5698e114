// Where `lait eval --format github` points a case's annotation (src/eval/caseLocations.ts): its own
// assertion's item, else `default_assert:`'s, else the case, in the eval file or in each kind of cases
// file. The lines are found by searching the texts themselves, not restated.
import { describe, expect, test } from "bun:test"
import { caseLocator, casesFileOf } from "../../src/eval/caseLocations.ts"

/** The 1-based line of the first line of `text` that contains `needle` (after `from`). */
const lineOf = (text: string, needle: string, from = 0): number => {
  const index = text.split("\n").findIndex((line, i) => i >= from && line.includes(needle))
  if (index < 0) throw new Error(`no line with ${needle}`)
  return index + 1
}

const EVAL_HEAD = "target: { model: m, prompt: '{{input}}' }\ndefault_assert:\n  - type: contains\n    value: A\n" +
  "  - type: contains\n    value: B\n"

describe("caseLocator", () => {
  test("inline cases: own assertions, then default_assert, then the case", () => {
    const text = EVAL_HEAD +
      "cases:\n  - input: one\n  - name: two\n    input: two\n    assert:\n      - type: equals\n        value: X\n"
    const locate = caseLocator("e.yml", text, undefined)
    expect(locate(1, undefined)).toEqual({ file: "e.yml", line: lineOf(text, "- input: one") })
    // Case 1 has no assertion of its own: its assertion 2 is default_assert's second item.
    expect(locate(1, 2)).toEqual({ file: "e.yml", line: lineOf(text, "value: B") - 1 })
    expect(locate(2, 1)).toEqual({ file: "e.yml", line: lineOf(text, "type: equals") })
    expect(locate(2, 2)).toEqual({ file: "e.yml", line: lineOf(text, "value: A") - 1 })
    // Beyond every assertion: the case.
    expect(locate(2, 9)).toEqual({ file: "e.yml", line: lineOf(text, "- name: two") })
  })

  test("a YAML, JSON or CSV cases file: each case's line there; default_assert stays in the eval file", () => {
    const text = `${EVAL_HEAD}cases: { file: data/cases.yaml }\n`
    expect(casesFileOf("evals/e.yml", text)).toBe("evals/data/cases.yaml")
    const yaml = "- input: a\n- input: b\n  assert:\n    - type: jq\n      expr: 'false'\n"
    const fromYaml = caseLocator("evals/e.yml", text, yaml)
    expect(fromYaml(2, 1)).toEqual({ file: "evals/data/cases.yaml", line: lineOf(yaml, "type: jq") })
    expect(fromYaml(2, 2)).toEqual({ file: "evals/e.yml", line: lineOf(text, "value: A") - 1 })
    expect(fromYaml(1, undefined)).toEqual({ file: "evals/data/cases.yaml", line: 1 })

    const jsonText = `${EVAL_HEAD}cases: { file: cases.json }\n`
    const json = '[\n  {"input": "a"},\n  {\n    "input": "b",\n    "assert": [{"type": "jq", "expr": "false"}]\n  }\n]\n'
    const fromJson = caseLocator("e.yml", jsonText, json)
    expect(fromJson(2, undefined)).toEqual({ file: "cases.json", line: lineOf(json, "{", 2) })
    expect(fromJson(2, 1)).toEqual({ file: "cases.json", line: lineOf(json, '"type": "jq"') })

    const csvText = `${EVAL_HEAD}cases: { file: cases.csv }\n`
    // A quoted field may hold a line break: the second case's row starts on line 3.
    const csv = 'input,assert\n"a\nstill a",\nb,"[{""type"": ""jq"", ""expr"": ""false""}]"\n'
    const fromCsv = caseLocator("e.yml", csvText, csv)
    expect(fromCsv(2, 1)).toEqual({ file: "cases.csv", line: 4 })
    expect(fromCsv(2, 2)).toEqual({ file: "e.yml", line: lineOf(csvText, "value: A") - 1 })
  })

  test("an eval file that cannot be read or parsed: the file, without a line", () => {
    expect(caseLocator("e.yml", undefined, undefined)(1, 1)).toEqual({ file: "e.yml", line: undefined })
    expect(caseLocator("e.yml", "cases: [", undefined)(1, 1)).toEqual({ file: "e.yml", line: undefined })
  })
})
