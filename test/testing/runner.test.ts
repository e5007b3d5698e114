// The runner in-process: the recorded fixture suite (test/fixtures/testing) with the real model steps
// and replay, and the run-context isolation of concurrently running files with instrumented steps.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { LaitError } from "../../src/core/errors.ts"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { AssertionEvaluator } from "../../src/testing/AssertionEvaluator.ts"
import { discoverTestFiles } from "../../src/testing/discovery.ts"
import { runTestSuite, sharedBuilds, type SuiteOptions, type TestOutcome } from "../../src/testing/runner.ts"
import { RunTracer } from "../../src/trace/RunTracer.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { LlmSteps } from "../../src/workflow/LlmSteps.ts"

const fixtures = path.resolve(import.meta.dir, "../fixtures/testing")

const env = Object.fromEntries(
  Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(OPENAI_|LAIT_)/.test(e[0]))
)
const configLayer = LaitConfig.layer({
  cwd: fixtures,
  configPath: path.join(fixtures, "lait.config.yml"),
  noConfig: false,
  noEnv: true,
  env
})

const runSuite = async (paths: ReadonlyArray<string>, options: SuiteOptions = {}) =>
  Effect.runPromise(
    Effect.flatMap(discoverTestFiles(paths), (files) => runTestSuite(files, options)).pipe(
      Effect.provide(Layer.mergeAll(configLayer, AssertionEvaluator.layer).pipe(Layer.provideMerge(FileLoader.layer)))
    )
  )

const summary = (outcomes: ReadonlyArray<TestOutcome>) =>
  outcomes.map((o) => ({ file: path.relative(fixtures, o.file), status: o.status, failures: o.failures }))

describe("the recorded fixture suite", () => {
  test("every passing file passes, with real replayed model calls and shell tool calls", async () => {
    const outcomes = await runSuite([path.join(fixtures, "suite/pass")])
    expect(summary(outcomes)).toEqual([
      "count-one.yml",
      "count-three.yml",
      "summarize-en.yml",
      "summarize-ja.yml",
      "ticket-billing.yml"
    ].map((f) => ({ file: `suite/pass/${f}`, status: "pass", failures: [] })))
    expect(outcomes.every((o) => o.durationMs > 0)).toBe(true)
  }, 30_000)

  test("a passing outcome keeps its evaluation unless told not to; a failing one always does", async () => {
    const passing = path.join(fixtures, "suite/pass/summarize-en.yml")
    const failing = path.join(fixtures, "suite/fail/messages.yml")
    const [kept] = await runSuite([passing])
    expect(kept!.evaluated?.definition.replay).toBe("../../cassettes/summarize-en")
    const [failed, dropped] = await runSuite([passing, failing], { keepPassed: false })
    expect(dropped!.status).toBe("pass")
    expect(dropped!.evaluated).toBeUndefined()
    expect(failed!.status).toBe("fail")
    expect(failed!.evaluated?.checks.length).toBe(10)
  }, 30_000)

  test("every failure message, and errors that fail only their own file", async () => {
    const dir = path.join(fixtures, "suite/fail")
    const outcomes = await runSuite([dir])
    const out = "\"Summary: lait tests workflows offline by replaying recorded answers.\""
    const wf = (name: string) => `${dir}/../../workflows/${name}`
    expect(summary(outcomes)).toEqual([
      {
        file: "suite/fail/bad-definition.yml",
        status: "error",
        failures: [
          `failed to parse test definition '${dir}/bad-definition.yml': unknown key 'vars'; test definitions accept: workflow, exec, input_mode, env, timeout, http, output_jq, input, inputs, replay, replay_tools, assert, workdir, fixtures (line 3)`
        ]
      },
      { file: "suite/fail/cost.yml", status: "fail", failures: ["assertion 1: cost $0.0004 exceeded max_cost_usd $0.0001"] },
      { file: "suite/fail/invalid-input.yml", status: "error", failures: ["input is missing required field(s): body"] },
      {
        file: "suite/fail/messages.yml",
        status: "fail",
        failures: [
          `assertion 1: expected output to equal "Summary", got ${out}`,
          `assertion 2: expected output to contain "結論", got ${out}`,
          `assertion 3: jq expression \`contains("never")\` was false for output ${out}`,
          `assertion 4: jq expression \`.[]\` failed: jq condition ".[]" failed: Cannot iterate over string ("Summary: lait tests work...")`,
          "assertion 5: llm_judge assertions are not supported here (no judge model available in this context; use `lait eval`)",
          "assertion 6: expected tool 'tool__word_count' to be called at least 1 time(s), was called 0 time(s)",
          "assertion 7: completion_tokens 11 exceeded max_completion_tokens 10",
          "assertion 8: step 'summary': assertion 1: expected output to equal \"say \\\"hi\\\"\", got \"lait tests workflows offline by replaying recorded answers.\"; assertion 3: prompt_tokens 31 exceeded max_prompt_tokens 30",
          "assertion 9: step 'step-3' produced no output (it may not have run, or the id doesn't exist)"
        ]
      },
      {
        file: "suite/fail/missing-workflow.yml",
        status: "error",
        failures: [
          `failed to load workflow '${wf("no-such-workflow.yml")}': failed to read '${wf("no-such-workflow.yml")}': no such file or directory`
        ]
      },
      {
        file: "suite/fail/replay-miss.yml",
        status: "error",
        failures: [expect.stringMatching(
          new RegExp(
            `^workflow '${wf("summarize.yml")}': no recorded cassette for this request \\(model 'fixture-model'\\) at '.*'; run \`lait run --record .*\` first against the same workflow/input/vars, or check that they still match this recording; the closest recording, '.*04a7db1bba4388c312fbeb38ed2db04645886689e34464c513b194f72df7e7c9\\.json', differs at messages\\[0\\]\\.content`
          )
        )]
      },
      {
        file: "suite/fail/tools.yml",
        status: "fail",
        failures: [
          "assertion 1: expected tool 'tool__word_count' to be called at least 2 time(s), was called 1 time(s)",
          "assertion 2: expected tool 'tool__word_count' to be called at most 0 time(s), was called 1 time(s)",
          "assertion 3: no call to tool 'tool__word_count' had arguments satisfying `.text == \"something else\"`; " +
            "the arguments of its 1 call(s):\n  {\"text\":\"alpha beta gamma\"}",
          "assertion 4: expected tool 'mcp__files__read_file' to be called at least 1 time(s), was called 0 time(s)"
        ]
      },
      { file: "suite/fail/unknown-input.yml", status: "error", failures: ["unknown input 'tone'; the workflow declares: lang"] }
    ])
    // The files whose workflow could not run at all are errors; the rest ran and failed.
    const errored = outcomes.filter((o) => o.status === "error").map((o) => path.basename(o.file))
    expect(errored).toEqual([
      "bad-definition.yml",
      "invalid-input.yml",
      "missing-workflow.yml",
      "replay-miss.yml",
      "unknown-input.yml"
    ])
  }, 30_000)
})

// Steps that call "tools" and report usage through the file's own RunTracer/RunUsage — exactly as the
// real tool loop does — while counting how many files are inside a step at the same moment.
const instrumented = (stats: { inFlight: number; peak: number }) =>
  Layer.effect(
    LlmSteps,
    Effect.gen(function*() {
      const tracer = yield* RunTracer
      const usage = yield* RunUsage
      const call = (input: unknown) =>
        Effect.gen(function*() {
          const n = Number(input)
          if (!Number.isInteger(n)) return yield* new LaitError({ message: `bad input ${JSON.stringify(input)}` })
          stats.inFlight++
          stats.peak = Math.max(stats.peak, stats.inFlight)
          for (let i = 0; i < n; i++) {
            yield* Effect.sleep("15 millis")
            const now = new Date()
            yield* tracer.record({
              operation: "execute_tool",
              label: "tool 'tool__tick'",
              start: now,
              end: now,
              attributes: { "gen_ai.tool.name": "tool__tick", "gen_ai.tool.arguments": `{"i":${i}}` }
            })
            yield* usage.record({ label: "tick", prompt: 10, completion: 1, total: 11 })
          }
          stats.inFlight--
          return `ticked ${n}`
        })
      return LlmSteps.of({ runPrompt: (_s, input) => call(input), runAgent: (_s, input) => call(input) })
    })
  )

/** A temp dir with wf.yml (one prompt step) and an empty tests/ beside it; returns tests/. */
const testsDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-runner-"))
  fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - id: tick\n    prompt: '{{ input }}'\n")
  fs.mkdirSync(path.join(dir, "tests"))
  return path.join(dir, "tests")
}

describe("what a suite shares", () => {
  test("one engine per suite and one replay client per cassette directory, however many files use them", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-runner-shared-"))
    try {
      const kinds = ["summarize-en", "summarize-en", "ticket-billing", "summarize-en", "ticket-billing", "summarize-en"]
      kinds.forEach((kind, i) => {
        const text = fs.readFileSync(path.join(fixtures, `suite/pass/${kind}.yml`), "utf8")
          .replace("../../workflows/", `${fixtures}/workflows/`)
          .replace("../../cassettes/", `${fixtures}/cassettes/`)
        fs.writeFileSync(path.join(dir, `case-${i}.yml`), text)
      })
      const before = { ...sharedBuilds }
      const outcomes = await runSuite([dir], { concurrency: 3 })
      expect(outcomes.map((o) => o.status)).toEqual(kinds.map(() => "pass"))
      expect(sharedBuilds.engines - before.engines).toBe(1)
      expect(sharedBuilds.replayClients - before.replayClients).toBe(2)
      // A second suite builds its own.
      await runSuite([path.join(dir, "case-0.yml")])
      expect(sharedBuilds.engines - before.engines).toBe(2)
      expect(sharedBuilds.replayClients - before.replayClients).toBe(3)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)
})

describe("run contexts", () => {
  test("16 files, 8 at a time: each sees only its own tool calls and usage; results keep path order", async () => {
    const dir = testsDir()
    const expected: Array<{ file: string; status: "pass" | "fail"; failures: ReadonlyArray<string> }> = []
    for (let i = 0; i < 16; i++) {
      // Alternating 1 and 5 calls: any sharing of trace or usage between files would break the counts.
      const n = i % 2 === 0 ? 1 : 5
      const name = `case-${String(i).padStart(2, "0")}.yml`
      fs.writeFileSync(
        path.join(dir, name),
        [
          "workflow: ../wf.yml",
          `input: ${n}`,
          "replay: unused",
          "assert:",
          `  - {type: equals, value: ticked ${n}}`,
          `  - {type: tool_called, name: tool__tick, min: ${n}, max: ${n}, args_jq: '.i == ${n - 1}'}`,
          `  - {type: usage, max_total_tokens: ${11 * n}, max_prompt_tokens: ${10 * n}}`,
          "  - {type: step_output, id: tick, assert: [{type: tool_called, name: tool__tick, max: " + n + "}]}",
          ""
        ].join("\n")
      )
      expected.push({ file: name, status: "pass", failures: [] })
    }
    // And one file whose run fails in the middle of the others.
    fs.writeFileSync(path.join(dir, "case-99.yml"), "workflow: ../wf.yml\ninput: boom\nreplay: unused\n")
    expected.push({
      file: "case-99.yml",
      status: "fail",
      failures: [`workflow '${dir}/../wf.yml': bad input "boom"`]
    })
    const stats = { inFlight: 0, peak: 0 }
    const outcomes = await runSuite([dir], { llmSteps: instrumented(stats) })
    expect(outcomes.map((o) => ({ file: path.basename(o.file), status: o.status, failures: o.failures }))).toEqual(expected)
    // Eight files were inside a step at the same moment: the isolation above held under real overlap.
    expect(stats.peak).toBe(8)
  }, 30_000)

  test("a concurrency of 1 runs the files one after another", async () => {
    const dir = testsDir()
    for (const name of ["a", "b", "c"]) {
      fs.writeFileSync(path.join(dir, `${name}.yml`), "workflow: ../wf.yml\ninput: 2\nreplay: unused\nassert:\n  - {type: tool_called, name: tool__tick, min: 2, max: 2}\n")
    }
    const stats = { inFlight: 0, peak: 0 }
    const outcomes = await runSuite([dir], { llmSteps: instrumented(stats), concurrency: 1 })
    expect(outcomes.map((o) => o.status)).toEqual(["pass", "pass", "pass"])
    expect(stats.peak).toBe(1)
  })
})
