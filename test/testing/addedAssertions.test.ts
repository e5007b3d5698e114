// The added assertion forms as the loaders read them (docs/testing.md#assertions): decoded as written,
// `not:` nesting any of them; a mistake inside a `not:` worded as at the top, for test and eval files.
import { describe, expect, test } from "bun:test"
import { renderChain } from "../../src/core/errors.ts"
import { parseEvalDefinition, withEvalSchema } from "../../src/eval/schema.ts"
import { Effect } from "effect"
import { TestError } from "../../src/testing/testErrors.ts"
import { parseTestDefinition } from "../../src/testing/testFile.ts"

const testError = (assert: string) => {
  const result = parseTestDefinition(`workflow: w\nreplay: r\nassert:\n  - ${assert}\n`, "t.yml")
  if (!(result instanceof TestError)) throw new Error(`expected an error, got ${JSON.stringify(result)}`)
  return renderChain(result).replace("failed to parse test definition 't.yml': ", "")
}

describe("added assertions", () => {
  test("decode as written, not: around any of them", () => {
    const parsed = parseTestDefinition(
      [
        "workflow: w",
        "replay: r",
        "assert:",
        "  - { type: length, min: 1, unit: words }",
        "  - { type: script, command: 'python3 judge.py --strict' }",
        "  - not: { not: { type: json_schema, file: s.json } }",
        ""
      ].join("\n"),
      "t.yml"
    )
    if (parsed instanceof TestError) throw parsed
    expect(parsed.assert).toEqual([
      { type: "length", min: 1, unit: "words" },
      { type: "script", command: "python3 judge.py --strict" },
      { not: { not: { type: "json_schema", file: "s.json" } } }
    ])
  })

  test("a mistake inside not: is worded as at the top", () => {
    expect(testError("{ not: [1] }")).toBe("assert[0].not: an assertion must be a mapping with a 'type', got a list (line 4)")
    expect(testError("{ not: { value: x } }")).toStartWith("assert[0].not: missing required key 'type' (one of: equals,")
    expect(testError("{ not: { type: contains, value: x, max: 1 } }")).toBe(
      "assert[0].not: unknown key 'max'; 'contains' assertions accept: type, value (line 4)"
    )
    // A JSON Schema's own `not` is not an assertion.
    expect(parseTestDefinition(
      "workflow: w\nreplay: r\nassert:\n  - { type: json_schema, value: { not: { type: string } } }\n",
      "t.yml"
    )).not.toBeInstanceOf(TestError)
  })

  test("eval files: in a case and in default_assert", async () => {
    const parse = (text: string) => Effect.runPromise(withEvalSchema(() => parseEvalDefinition(text, "e.yml")))
    const bad = await parse(
      "target: { model: m, prompt: x }\ndefault_assert: [{ not: { type: regexp, value: x } }]\ncases: []\n"
    )
    expect(bad instanceof Error ? renderChain(bad) : "").toContain(
      "default_assert[0].not.type: unknown assertion type 'regexp'; expected one of: equals,"
    )
    const good = await parse(
      "target: { model: m, prompt: x }\ncases:\n  - input: a\n    assert: [{ type: cost, max: 0.01 }, { not: { type: is_json } }]\n"
    )
    if (good instanceof Error) throw good
    expect(good.cases[0]!.assert).toEqual([{ type: "cost", max: 0.01 }, { not: { type: "is_json" } }])
  })
})
