import { afterEach, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Deferred, Effect, Layer } from "effect"
import { ModelHttp } from "../../src/model/ModelHttp.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import type { ConfigFile } from "../../src/config/schema.ts"
import { type EvalOptions, runEval, schedule, totalUsage } from "../../src/eval/runner.ts"
import { parseEvalDefinition, withEvalSchema } from "../../src/eval/schema.ts"
import { loadTarget } from "../../src/eval/target.ts"
import { CassetteRepeat } from "../../src/model/cassette/repeat.ts"
import { ModelClient } from "../../src/model/ModelClient.ts"
import { AssertionEvaluator } from "../../src/testing/AssertionEvaluator.ts"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"

let server: OpenAiServer | undefined
let dir: string | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

interface Stats {
  inFlight: number
  max: number
  calls: number
  /** `<label> <repeat>` of every call: the cassette repeat (CassetteRepeat) it was made in. */
  repeats: Array<string>
}

/** A ModelClient that forwards to another and remembers how many calls were in flight at most. */
const counting = (stats: Stats) =>
  Layer.effect(
    ModelClient,
    Effect.map(ModelClient, (inner) =>
      ModelClient.of({
        complete: (call) =>
          Effect.gen(function*() {
            stats.repeats.push(`${call.label} ${yield* CassetteRepeat}`)
            stats.calls++
            stats.max = Math.max(stats.max, ++stats.inFlight)
            return yield* inner.complete(call)
          }).pipe(Effect.ensuring(Effect.sync(() => void stats.inFlight--)))
      }))
  ).pipe(Layer.provide(ModelClient.layerLive({ attempts: 1 }).pipe(Layer.provide(ModelHttp.layer))))

const pricing = { input_per_1m: 1000, output_per_1m: 2000 }

const configFor = (baseUrl: string, priced = false): ConfigFile => ({
  models: {
    m: [{ provider: { base_url: baseUrl }, model_id: "fixture-model", ...(priced ? { pricing } : {}) }]
  }
})

const evalRun = async (options: {
  readonly script: ReadonlyArray<ScriptedReply>
  readonly evalYaml: string
  readonly files?: Readonly<Record<string, string>>
  readonly run: Omit<EvalOptions, "onProgress">
  readonly priced?: boolean
}) => {
  server = startOpenAiServer({ script: options.script })
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-eval-runner-"))
  for (const [name, text] of Object.entries(options.files ?? {})) fs.writeFileSync(path.join(dir, name), text)
  const evalFile = path.join(dir, "e.yml")
  const definition = await Effect.runPromise(withEvalSchema(() => parseEvalDefinition(options.evalYaml, evalFile)))
  if (definition instanceof Error) throw definition
  const stats: Stats = { inFlight: 0, max: 0, calls: 0, repeats: [] }
  const progress: Array<string> = []
  const outcome = await Effect.runPromise(
    Effect.gen(function*() {
      const target = yield* loadTarget(definition.targets[0]!, evalFile)
      return yield* runEval(target, definition.cases, {
        ...options.run,
        onProgress: (e) => Effect.sync(() => void progress.push(`${e.runsDone}/${e.runsTotal}${e.caseDone ? ` case ${e.caseDone.index}` : ""}`))
      })
    }).pipe(
      Effect.provide(
        Layer.mergeAll(counting(stats), AssertionEvaluator.layer).pipe(
          Layer.provideMerge(LaitConfig.layerTest(configFor(server.baseUrl, options.priced), { cwd: dir })),
          Layer.provideMerge(FileLoader.layer)
        )
      )
    )
  )
  return { outcome, stats, progress }
}

describe("runEval", () => {
  test("runs every (case, repeat) pair, at most 8 at once, results in case and repeat order", async () => {
    const cases = Array.from({ length: 5 }, (_, i) => `  - input: "q${i}"\n    assert: [{ type: contains, value: "q${i}" }]`)
    const { outcome, stats, progress } = await evalRun({
      script: [{ delay_ms: 40, repeat: true }],
      evalYaml: `target: { model: m, prompt: "{{input}}" }\ncases:\n${cases.join("\n")}\n`,
      run: { repeat: 4 }
    })
    expect(stats.calls).toBe(20)
    expect(stats.max).toBe(8)
    expect(outcome.cases.map((c) => [c.index, c.input, c.runs.length, c.notStarted])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [i + 1, `q${i}`, 4, 0])
    )
    expect(outcome.cases.every((c) => c.runs.every((r) => r.failures.length === 0))).toBe(true)
    expect(progress).toHaveLength(20)
    expect(progress.at(-1)).toStartWith("20/20")
    expect(progress.filter((p) => p.includes(" case ")).length).toBe(5)
    expect(outcome.budgetStop).toBeUndefined()
    expect(outcome.costUsd).toBeUndefined()
  })

  test("each run has its own usage: concurrent runs never see another run's tokens", async () => {
    // Every case's answer reports a different prompt_tokens; with a shared meter runs would mix them.
    const script: Array<ScriptedReply> = Array.from({ length: 6 }, (_, i) => ({
      match: `case-${i}`,
      content: `answer ${i}`,
      usage: { prompt_tokens: 100 + i, completion_tokens: 1 },
      delay_ms: 20 * (6 - i),
      repeat: true
    }))
    const cases = Array.from(
      { length: 6 },
      (_, i) =>
        `  - input: "case-${i}"\n    assert: [{ type: usage, max_prompt_tokens: ${100 + i} }, { type: usage, max_prompt_tokens: ${99 + i} }]`
    )
    const { outcome } = await evalRun({
      script,
      evalYaml: `target: { model: m, prompt: "{{input}}" }\ncases:\n${cases.join("\n")}\n`,
      run: { repeat: 3 }
    })
    for (const [i, c] of outcome.cases.entries()) {
      for (const run of c.runs) {
        expect(run.usageEntries).toEqual([
          { label: "eval target 'm'", prompt: 100 + i, completion: 1, total: 101 + i, requests: 1, costUsd: undefined }
        ])
        expect(run.failures).toEqual([`assertion 2: prompt_tokens ${100 + i} exceeded max_prompt_tokens ${99 + i}`])
      }
    }
    const usage = totalUsage(outcome)
    expect(usage.entries).toEqual([
      { label: "eval target 'm'", prompt: 3 * (600 + 15), completion: 18, total: 3 * (606 + 15), requests: 18, costUsd: undefined }
    ])
  })

  test("a run that fails is one failure with its error chain; the other runs go on", async () => {
    const { outcome } = await evalRun({
      script: [{ match: "boom", status: 400, body: { error: { message: "no such thing" } }, repeat: true }, { repeat: true }],
      evalYaml: `target: { model: m, prompt: "{{input}}" }\ncases:\n  - input: boom\n    assert: [{ type: contains, value: x }, { type: contains, value: y }]\n  - input: fine\n    assert: [{ type: contains, value: fine }]\n`,
      run: { repeat: 2 }
    })
    expect(outcome.cases[0]!.runs.map((r) => r.failures)).toEqual([
      [`the model server at '${server!.baseUrl}' answered HTTP 400: no such thing`],
      [`the model server at '${server!.baseUrl}' answered HTTP 400: no such thing`]
    ])
    expect(outcome.cases[1]!.runs.map((r) => r.failures)).toEqual([[], []])
  })

  test("a workflow target: loaded and its inputs resolved once, the case input read through input_schema, $steps for step_output", async () => {
    const { outcome, stats } = await evalRun({
      script: [{ match: "draft:", content: "DRAFT", repeat: true }, { repeat: true }],
      files: {
        "wf.yml": [
          "inputs:",
          "  lang: { type: string }",
          "input_schema: { type: object, properties: { n: { type: integer } }, required: [n] }",
          "default: { model: m }",
          "steps:",
          "  - id: draft",
          "    prompt: 'draft: {{input.n}} in {{inputs.lang}}'",
          "  - id: final",
          "    jq: '{n: ($steps.draft | ascii_downcase)}'",
          ""
        ].join("\n")
      },
      evalYaml: [
        "target: { workflow: ./wf.yml, inputs: { lang: ja } }",
        "cases:",
        "  - input: '{\"n\": 3}'",
        "    assert:",
        "      - { type: jq, expr: '.n == \"draft\"' }",
        "      - { type: step_output, id: draft, assert: [{ type: equals, value: DRAFT }, { type: equals, value: nope }] }",
        "      - { type: tool_called, name: tool__x, min: 0, max: 0 }",
        "  - input: 'not json'",
        ""
      ].join("\n"),
      run: { repeat: 2 }
    })
    expect(stats.calls).toBe(2)
    expect((server!.requests[0]!.body as { messages: Array<{ content: string }> }).messages[0]!.content).toBe("draft: 3 in ja")
    expect(outcome.cases[0]!.runs.map((r) => r.failures)).toEqual([
      ["assertion 2: step 'draft': assertion 2: expected output to equal \"nope\", got \"DRAFT\""],
      ["assertion 2: step 'draft': assertion 2: expected output to equal \"nope\", got \"DRAFT\""]
    ])
    expect(outcome.cases[1]!.runs[0]!.failures).toHaveLength(1)
    expect(outcome.cases[1]!.runs[0]!.failures[0]).toStartWith("the initial input must be JSON matching the workflow's 'input_schema'")
  })

  test("every request of a run, its judge's included, is made in that run's repeat (for per-repeat cassettes)", async () => {
    const { stats } = await evalRun({
      script: [{ match: "llm_judge_score", content: '{"score": 1, "reasoning": "r"}', repeat: true }, { repeat: true }],
      files: { "wf.yml": "default: { model: m }\nsteps:\n  - id: a\n    prompt: 'a: {{input}}'\n  - id: b\n    prompt: 'b: {{input}}'\n" },
      evalYaml: "target: { workflow: ./wf.yml }\ncases:\n  - input: x\n    assert: [{ type: llm_judge, criteria: c, model: m }]\n",
      run: { repeat: 3 }
    })
    expect(stats.repeats.sort()).toEqual(["a 0", "a 1", "a 2", "b 0", "b 1", "b 2", "llm_judge 0", "llm_judge 1", "llm_judge 2"])
  })

  test("a budget: one run until a cost is known, then only as many as fit; the rest never start", async () => {
    // Each target request: 10 prompt + 5 completion tokens = 10e-3 + 10e-3 = $0.02 at the pricing above.
    const cases = Array.from({ length: 4 }, (_, i) => `  - input: "c${i}"`)
    const { outcome, stats } = await evalRun({
      script: [{ delay_ms: 10, repeat: true }],
      evalYaml: `target: { model: m, prompt: "{{input}}" }\ncases:\n${cases.join("\n")}\n`,
      run: { repeat: 3, maxCostUsd: 0.1 },
      priced: true
    })
    expect(stats.calls).toBe(5)
    expect(outcome.cases.map((c) => [c.runs.length, c.notStarted])).toEqual([[3, 0], [2, 1], [0, 3], [0, 3]])
    expect(outcome.budgetStop).toEqual({ budgetUsd: 0.1, spentUsd: outcome.costUsd!, started: 5, total: 12 })
    expect(outcome.costUsd).toBeCloseTo(0.1, 12)
  })

  test("a first run whose prompt-size estimate alone passes the budget does not start", async () => {
    const { stats, outcome } = await evalRun({
      script: [{ repeat: true }],
      evalYaml: `target: { model: m, prompt: "{{input}}" }\ncases:\n  - input: a\n  - input: b\n`,
      run: { repeat: 2, maxCostUsd: 0.001, firstRunEstimateUsd: 0.002 },
      priced: true
    })
    expect(stats.calls).toBe(0)
    expect(outcome.cases.map((c) => [c.runs.length, c.notStarted])).toEqual([[0, 2], [0, 2]])
    expect(outcome.budgetStop).toEqual({ budgetUsd: 0.001, spentUsd: 0, started: 0, total: 4 })
  })

  test("a second run whose estimated cost would pass the budget does not start", async () => {
    const { stats, outcome } = await evalRun({
      script: [{ repeat: true }],
      evalYaml: `target: { model: m, prompt: "{{input}}" }\ncases:\n  - input: a\n`,
      run: { repeat: 3, maxCostUsd: 0.03 },
      priced: true
    })
    expect(stats.calls).toBe(1)
    expect(outcome.budgetStop?.started).toBe(1)
  })

  test("a repeat far beyond any case count is scheduled lazily: nothing is listed up front", async () => {
    // 2^32 runs could not even be held in one array; the budget stops the eval after the first run.
    const repeat = 2 ** 32
    const { stats, outcome } = await evalRun({
      script: [{ repeat: true }],
      evalYaml: `target: { model: m, prompt: "{{input}}" }\ncases:\n  - input: a\n`,
      run: { repeat, maxCostUsd: 0.03 },
      priced: true
    })
    expect(stats.calls).toBe(1)
    expect(outcome.cases.map((c) => [c.runs.length, c.notStarted])).toEqual([[1, repeat - 1]])
    expect(outcome.budgetStop).toMatchObject({ started: 1, total: repeat })
  })

  test("a finished run's slot goes to the next run at once, before other runs answered meanwhile are checked", async () => {
    // Runs 1 and 2 are answered together. The next request must leave as soon as one of them is done,
    // not after both have been checked: that wait was on every slot's path from answer to request.
    const events: Array<string> = []
    const gate = Effect.runSync(Deferred.make<void>())
    let calls = 0
    const client = Layer.succeed(
      ModelClient,
      ModelClient.of({
        complete: (call) =>
          Effect.gen(function*() {
            const n = ++calls
            events.push("send")
            if (n === 2) yield* Deferred.succeed(gate, undefined)
            if (n <= 2) yield* Deferred.await(gate)
            const content = `echo: ${call.request.messages.at(-1)?.content as string}`
            return { content, reasoning: null, toolCalls: [], usage: undefined, source: "live", endpoint: call.endpoints[0], raw: {} } as const
          })
      })
    )
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-eval-runner-"))
    const evalFile = path.join(dir, "e.yml")
    const definition = await Effect.runPromise(withEvalSchema(() =>
      parseEvalDefinition(
        `target: { model: m, prompt: "{{input}}" }\ncases:\n  - input: a\n    assert: [{ type: contains, value: a }]\n`,
        evalFile
      )
    ))
    if (definition instanceof Error) throw definition
    const outcome = await Effect.runPromise(
      Effect.gen(function*() {
        const target = yield* loadTarget(definition.targets[0]!, evalFile)
        return yield* runEval(target, definition.cases, {
          repeat: 4,
          concurrency: 2,
          onProgress: (e) => Effect.sync(() => void events.push(`done ${e.runsDone}`))
        })
      }).pipe(
        Effect.provide(
          Layer.mergeAll(client, AssertionEvaluator.layer).pipe(
            Layer.provideMerge(LaitConfig.layerTest(configFor("http://127.0.0.1:9/v1"), { cwd: dir })),
            Layer.provideMerge(FileLoader.layer)
          )
        )
      )
    )
    expect(events).toEqual(["send", "send", "done 1", "send", "done 2", "send", "done 3", "done 4"])
    expect(outcome.cases[0]!.runs.map((r) => r.failures)).toEqual([[], [], [], []])
  })
})

describe("schedule", () => {
  test("yields (case, repeat) in case order, each case's repeats in order", () => {
    expect([...schedule(2, 3)]).toEqual([
      { caseIndex: 0, repeatIndex: 0 },
      { caseIndex: 0, repeatIndex: 1 },
      { caseIndex: 0, repeatIndex: 2 },
      { caseIndex: 1, repeatIndex: 0 },
      { caseIndex: 1, repeatIndex: 1 },
      { caseIndex: 1, repeatIndex: 2 }
    ])
    expect([...schedule(0, 5)]).toEqual([])
    expect([...schedule(3, 0)]).toEqual([])
  })

  test("is a lazy iterator: a run exists only when it is asked for", () => {
    const runs = schedule(3, Number.MAX_SAFE_INTEGER)
    expect(Array.isArray(runs)).toBe(false)
    expect(typeof runs.next).toBe("function")
    const first = [runs.next().value, runs.next().value]
    expect(first).toEqual([{ caseIndex: 0, repeatIndex: 0 }, { caseIndex: 0, repeatIndex: 1 }])
  })
})
