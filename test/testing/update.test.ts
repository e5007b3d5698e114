// `--update`: only the failing `value:` scalars change, everything else stays byte for byte.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { parse } from "yaml"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import { AssertionEvaluator, type EvaluationContext } from "../../src/testing/AssertionEvaluator.ts"
import type { Assertion } from "../../src/testing/assertions.ts"
import { runTestSuite } from "../../src/testing/runner.ts"
import { updateOutcome } from "../../src/testing/suite.ts"
import { parseTestDefinition, type TestDefinition } from "../../src/testing/testFile.ts"
import { applyUpdates, failingEquals, yamlDoubleQuoted, yamlLiteralBlock } from "../../src/testing/update.ts"
import { RunContext } from "../../src/workflow/RunContext.ts"

const checksFor = (assertions: ReadonlyArray<Assertion>, context: EvaluationContext) =>
  Effect.runPromise(AssertionEvaluator.use((e) => e.evaluate(assertions, context)).pipe(Effect.provide(Layer.mergeAll(AssertionEvaluator.layer, RunContext.layer({ env: {} })))))

const definition = (text: string): TestDefinition => {
  const parsed = parseTestDefinition(text, "t.yml")
  if (parsed instanceof Error) throw parsed
  return parsed
}

/** Evaluates the file's assertions against `output`/`steps` and applies the updates to its text. */
const update = async (text: string, output: string, steps: Record<string, string> = {}) => {
  const checks = await checksFor(definition(text).assert, {
    output,
    trajectory: { events: [], steps, usage: { prompt: 0, completion: 0, total: 0, requests: 0, costUsd: undefined } }
  })
  const result = applyUpdates(text, failingEquals(checks))
  if (typeof result !== "string") throw new Error(result.error)
  return result
}

describe("applyUpdates", () => {
  test("replaces only the failing values; comments, order, quoting elsewhere and passing values stay", async () => {
    const text = [
      "# A test file with comments",
      "workflow: ../wf.yml   # the workflow",
      "replay: ./cassettes",
      "assert:",
      "  - type: equals # first",
      "    value: old text  # trailing comment",
      "  - {type: equals, value: 'also old'}",
      "  - type: contains",
      "    value: new",
      "  - type: equals",
      "    value: \"brand new\"",
      ""
    ].join("\n")
    expect(await update(text, "brand new")).toBe(text
      .replace("value: old text  #", "value: \"brand new\"  #")
      .replace("value: 'also old'}", "value: \"brand new\"}"))
  })

  test("nested under step_output, with the step's own output", async () => {
    const text = [
      "workflow: w",
      "replay: r",
      "assert:",
      "  - type: step_output",
      "    id: summary",
      "    assert:",
      "      - type: contains",
      "        value: x",
      "      - type: equals",
      "        value: stale",
      "  - type: equals",
      "    value: final",
      ""
    ].join("\n")
    const out = await update(text, "final", { summary: "the summary" })
    expect(out).toBe(text.replace("value: stale", "value: \"the summary\""))
    expect(parse(out).assert[0].assert[1].value).toBe("the summary")
  })

  test("a block scalar stays a block scalar when the new text allows it", async () => {
    const text = "workflow: w\nreplay: r\nassert:\n  - type: equals\n    value: |\n      old line one\n      old line two\n  - type: jq\n    expr: 'true'\n"
    const out = await update(text, "new line one\n  indented\n\nlast")
    expect(out).toBe(
      "workflow: w\nreplay: r\nassert:\n  - type: equals\n    value: |-\n      new line one\n        indented\n\n      last\n  - type: jq\n    expr: 'true'\n"
    )
    expect(parse(out).assert[0].value).toBe("new line one\n  indented\n\nlast")
    // Text a literal block cannot hold falls back to a quoted scalar that keeps the line break after it.
    const quoted = await update(text, " leading space\n")
    expect(quoted).toContain("    value: \" leading space\\n\"\n  - type: jq")
    expect(parse(quoted).assert[0].value).toBe(" leading space\n")
  })

  test("a file that no longer matches is left alone with a reason", async () => {
    const text = "workflow: w\nreplay: r\nassert:\n  - type: equals\n    value: a\n"
    const checks = await checksFor(definition(text).assert, { output: "b" })
    expect(applyUpdates("workflow: w\nreplay: r\nassert: []\n", failingEquals(checks))).toEqual({
      error: "cannot find the 'value:' of assertion 1"
    })
  })

  test("a file that is no longer valid YAML says why, naming a repeated key", async () => {
    const text = "workflow: w\nreplay: r\nassert:\n  - type: equals\n    value: a\n"
    const checks = await checksFor(definition(text).assert, { output: "b" })
    expect(applyUpdates(`${text}replay: s\n`, failingEquals(checks))).toEqual({
      error: "the file is no longer valid YAML: duplicate entry with key \"replay\" at line 6, column 1"
    })
  })
})

describe("YAML scalars", () => {
  const samples = [
    "plain",
    "with \"quotes\" and \\ backslash",
    "tabs\tand\nnewlines\r\n",
    "control \u0000\u0007\u001b\u007f\u0085\u00a0 end",
    "unicode 結論 😀 \u2028\u2029 \ufeff",
    "# not a comment: {not: a map}",
    "",
    "'single'"
  ]
  test("double-quoted scalars read back as the same text", () => {
    for (const sample of samples) expect(parse(`v: ${yamlDoubleQuoted(sample)}`).v).toBe(sample)
  })
  test("literal blocks read back as the same text, or are refused", () => {
    for (const text of ["a\nb", "a\nb\n", "a\nb\n\n\n", "a\n\n  b\n\tc", "# x\n- y: z"]) {
      const block = yamlLiteralBlock(text, 2)
      expect(block).toBeDefined()
      expect(parse(`v: ${block}`).v).toBe(text)
    }
    for (const text of ["one line", " lead\nx", "a\n   \nb", "bell\u0007\nx", "cr\r\nx"]) {
      expect(yamlLiteralBlock(text, 2)).toBeUndefined()
    }
  })
})

describe("updateOutcome", () => {
  const setup = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-update-"))
    fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - id: up\n    jq: 'ascii_upcase'\n")
    fs.mkdirSync(path.join(dir, "tests"))
    const file = path.join(dir, "tests", "case.yml")
    fs.writeFileSync(
      file,
      "# keep me\nworkflow: ../wf.yml\ninput: hello\nreplay: none\nassert:\n  - type: equals\n    value: hello   # was lower case\n  - type: step_output\n    id: up\n    assert:\n      - {type: equals, value: x}\n      - {type: contains, value: ZZ}\n"
    )
    return { dir, file }
  }
  const run = (file: string) =>
    Effect.runPromise(
      runTestSuite([file]).pipe(
        Effect.flatMap((outcomes) => updateOutcome(outcomes[0]!)),
        Effect.provide(Layer.mergeAll(LaitConfig.layerTest({}), AssertionEvaluator.layer, FileLoader.layer))
      )
    )

  test("rewrites the file atomically and reports only what is left", async () => {
    const { dir, file } = setup()
    const result = await run(file)
    expect(result.notes).toEqual([
      `note: updated '${file}': assertion 1: value "hello" -> "HELLO"`,
      `note: updated '${file}': assertion 2 (step 'up'): assertion 1: value "x" -> "HELLO"`
    ])
    expect(result.outcome.status).toBe("fail")
    expect(result.outcome.failures).toEqual([
      "assertion 2: step 'up': assertion 2: expected output to contain \"ZZ\", got \"HELLO\""
    ])
    expect(fs.readFileSync(file, "utf8")).toBe(
      "# keep me\nworkflow: ../wf.yml\ninput: hello\nreplay: none\nassert:\n  - type: equals\n    value: \"HELLO\"   # was lower case\n  - type: step_output\n    id: up\n    assert:\n      - {type: equals, value: \"HELLO\"}\n      - {type: contains, value: ZZ}\n"
    )
    expect(fs.readdirSync(path.join(dir, "tests"))).toEqual(["case.yml"])
    // Run again: nothing left to update, and the updated values now hold.
    const again = await run(file)
    expect(again.notes).toEqual([])
    expect(again.outcome.failures).toEqual(result.outcome.failures)
  })

  test("a file whose only failures were updated passes", async () => {
    const { file } = setup()
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("{type: contains, value: ZZ}", "{type: contains, value: HE}"))
    const result = await run(file)
    expect(result.outcome.status).toBe("pass")
    expect(result.outcome.failures).toEqual([])
  })

  test("a file changed during the run is not touched", async () => {
    const { file } = setup()
    const outcomes = await Effect.runPromise(
      runTestSuite([file]).pipe(Effect.provide(Layer.mergeAll(LaitConfig.layerTest({}), AssertionEvaluator.layer, FileLoader.layer)))
    )
    fs.appendFileSync(file, "# edited meanwhile\n")
    const before = fs.readFileSync(file, "utf8")
    const result = await Effect.runPromise(updateOutcome(outcomes[0]!).pipe(Effect.provide(FileLoader.layer)))
    expect(result.notes).toEqual([`warning: not updating '${file}': it changed while the tests ran`])
    expect(result.outcome).toBe(outcomes[0]!)
    expect(fs.readFileSync(file, "utf8")).toBe(before)
  })
})
