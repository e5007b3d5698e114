// Every assertion type, passing and failing, with the exact upstream failure texts.
import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { LaitError } from "../../src/core/errors.ts"
import type { Json } from "../../src/core/json.ts"
import type { UsageTotals } from "../../src/model/RunUsage.ts"
import {
  AssertionEvaluator,
  type Check,
  type EvaluationContext,
  failureLines,
  LLM_JUDGE_UNSUPPORTED,
  TRAJECTORY_UNSUPPORTED,
  type TrajectoryContext
} from "../../src/testing/AssertionEvaluator.ts"
import type { Assertion } from "../../src/testing/assertions.ts"
import { makeRunTracer, type TraceEvent } from "../../src/trace/RunTracer.ts"
import { type JudgeRequest, type JudgeService, RunContext } from "../../src/workflow/RunContext.ts"

const noUsage: UsageTotals = { prompt: 0, completion: 0, total: 0, requests: 0, costUsd: undefined }

const evaluate = (
  assertions: ReadonlyArray<Assertion>,
  context: EvaluationContext,
  judge?: JudgeService
): Promise<ReadonlyArray<Check>> =>
  Effect.runPromise(
    AssertionEvaluator.use((e) => e.evaluate(assertions, context)).pipe(
      Effect.provide(Layer.mergeAll(AssertionEvaluator.layer, RunContext.layer({ env: {}, judge })))
    )
  )

const failures = async (
  assertions: ReadonlyArray<Assertion>,
  output: string,
  trajectory?: TrajectoryContext,
  judge?: JudgeService
) => failureLines(await evaluate(assertions, { output, trajectory }, judge))

/** Events recorded through a real RunTracer, as the tool loop records them. */
const toolEvents = async (
  calls: ReadonlyArray<{ name: string; args: string; decision?: "allowed" | "denied" }>
): Promise<ReadonlyArray<TraceEvent>> => {
  const tracer = makeRunTracer()
  const at = new Date("2026-01-01T00:00:00Z")
  await Effect.runPromise(
    tracer.record({
      operation: "chat",
      label: "step",
      start: at,
      end: at,
      attributes: { "gen_ai.request.model": "m", "lait.source": "replay", "gen_ai.tool.name": "tool__x" }
    })
  )
  for (const [i, call] of calls.entries()) {
    await Effect.runPromise(tracer.record({
      operation: "execute_tool",
      label: `tool '${call.name}'`,
      start: at,
      end: at,
      attributes: {
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.arguments": call.args,
        "lait.step.label": "step",
        "lait.tool.round": i + 1,
        "lait.tool.decision": call.decision ?? "allowed",
        ...(call.decision === "denied" ? { "lait.tool.denial_reason": "denied by 'tool_policy' in lait.config.yml" } : {})
      }
    }))
  }
  return Effect.runPromise(tracer.events)
}

const trajectory = (over: Partial<TrajectoryContext> = {}): TrajectoryContext => ({
  events: [],
  steps: {},
  usage: noUsage,
  ...over
})

describe("equals / contains", () => {
  test("equals is an exact match; the failure quotes both sides like Rust {:?}", async () => {
    expect(await failures([{ type: "equals", value: "hello" }], "hello")).toEqual([])
    expect(await failures([{ type: "equals", value: "hello" }], "hello\n")).toEqual([
      `assertion 1: expected output to equal "hello", got "hello\\n"`
    ])
    expect(await failures([{ type: "equals", value: "say \"hi\"" }], "tab\there")).toEqual([
      `assertion 1: expected output to equal "say \\"hi\\"", got "tab\\there"`
    ])
  })
  test("contains is a plain substring match", async () => {
    expect(await failures([{ type: "contains", value: "結論" }], "これは結論です")).toEqual([])
    expect(await failures([{ type: "contains", value: "結論" }], "まだ途中です")).toEqual([
      `assertion 1: expected output to contain "結論", got "まだ途中です"`
    ])
    // Not JSON-normalised: the quotes of a JSON string output are part of the text.
    expect(await failures([{ type: "contains", value: "\"a\"" }], "{\"a\":1}")).toEqual([])
  })
})

describe("jq", () => {
  test("plain text is a JSON string", async () => {
    expect(await failures([{ type: "jq", expr: "contains(\"結論\")" }], "これは結論です")).toEqual([])
    expect(await failures([{ type: "jq", expr: "contains(\"結論\")" }], "まだ途中です")).toEqual([
      "assertion 1: jq expression `contains(\"結論\")` was false for output \"まだ途中です\""
    ])
  })
  test("JSON text is parsed", async () => {
    expect(await failures([{ type: "jq", expr: ".title | length > 0" }], "{\"title\": \"hello\"}")).toEqual([])
    expect(await failures([{ type: "jq", expr: ". == 42" }], "42")).toEqual([])
    expect(await failures([{ type: "jq", expr: ".ok" }], "{\"ok\":null}")).toEqual([
      "assertion 1: jq expression `.ok` was false for output \"{\\\"ok\\\":null}\""
    ])
  })
  test("anything but false and null is truthy", async () => {
    expect(await failures([{ type: "jq", expr: "0" }, { type: "jq", expr: "\"\"" }, { type: "jq", expr: "[]" }], "x")).toEqual([])
  })
  test("errors, no output and several outputs fail with jq's message", async () => {
    expect(await failures([{ type: "jq", expr: ".[]" }], "[1,2]")).toEqual([
      "assertion 1: jq expression `.[]` failed: jq condition \".[]\" produced 2 outputs; expected exactly one value (wrap a stream in '[...]' to collect it into an array)"
    ])
    expect(await failures([{ type: "jq", expr: "empty" }], "x")).toEqual([
      "assertion 1: jq expression `empty` failed: jq condition \"empty\" produced no output; expected exactly one value"
    ])
    const [syntax] = await failures([{ type: "jq", expr: "not valid jq (((" }], "x")
    expect(syntax).toStartWith("assertion 1: jq expression `not valid jq (((` failed: failed to parse jq filter \"not valid jq (((\": ")
    const [runtime] = await failures([{ type: "jq", expr: ".a.b" }], "\"text\"")
    expect(runtime).toStartWith("assertion 1: jq expression `.a.b` failed: jq condition \".a.b\" failed: ")
    expect(runtime).toContain("Cannot index string")
  })
})

describe("jq at suite scale", () => {
  // jq-wasm leaks a virtual file descriptor per call on text input and fails after ~4094 calls;
  // a large `lait test` suite makes that many evaluations in one process.
  test("more than 4096 jq assertions over text all evaluate", async () => {
    const checks = await evaluate(
      Array.from({ length: 4200 }, () => ({ type: "jq", expr: "startswith(\"Summary\")" }) as const),
      { output: "Summary: text" }
    )
    expect(checks.filter((c) => c.message !== undefined).map((c) => `${c.position}: ${c.message}`).slice(0, 3)).toEqual([])
  }, 120_000)
})

describe("llm_judge", () => {
  test("without a judge (lait test) it always fails with the documented message", async () => {
    expect(await failures([{ type: "llm_judge", criteria: "polite" }], "hi")).toEqual([`assertion 1: ${LLM_JUDGE_UNSUPPORTED}`])
    expect(LLM_JUDGE_UNSUPPORTED).toBe(
      "llm_judge assertions are not supported here (no judge model available in this context; use `lait eval`)"
    )
  })
  test("with a Judge: threshold (default 0.7), score and criteria in the message", async () => {
    const seen: Array<JudgeRequest> = []
    const judge = (score: number) =>
      ({ score: (r: JudgeRequest) => Effect.sync(() => (seen.push(r), { score, reasoning: undefined })) })
    expect(await failures([{ type: "llm_judge", criteria: "polite" }], "hi", undefined, judge(0.7))).toEqual([])
    expect(await failures([{ type: "llm_judge", criteria: "polite \"enough\"" }], "hi", undefined, judge(0.125))).toEqual([
      "assertion 1: llm_judge score 0.12 is below threshold 0.70 for criteria \"polite \\\"enough\\\"\""
    ])
    expect(
      await failures([{ type: "llm_judge", criteria: "c", threshold: 0.95, model: "big" }], "out", undefined, judge(0.9))
    ).toEqual(["assertion 1: llm_judge score 0.90 is below threshold 0.95 for criteria \"c\""])
    const checks = await evaluate([{ type: "llm_judge", criteria: "c", model: null }], { output: "o", input: "the case" }, judge(1))
    expect(checks[0]!.message).toBeUndefined()
    expect(checks[0]!.judge).toEqual({ score: 1, reasoning: undefined })
    expect(seen.at(-2)).toEqual({ criteria: "c", output: "out", input: undefined, model: "big" })
    expect(seen.at(-1)).toEqual({ criteria: "c", output: "o", input: "the case", model: undefined })
  })
  test("the judge's score and reasoning are kept on the check, passed or failed", async () => {
    const reasoned: JudgeService = { score: () => Effect.succeed({ score: 0.25, reasoning: "too curt" }) }
    const checks = await evaluate([{ type: "llm_judge", criteria: "c" }], { output: "o" }, reasoned)
    expect(checks[0]!.judge).toEqual({ score: 0.25, reasoning: "too curt" })
    expect(checks[0]!.message).toContain("llm_judge score 0.25 is below threshold 0.70")
  })
  test("a judge error is reported with its chain", async () => {
    const failing: JudgeService = {
      score: () => Effect.fail(new LaitError({ message: "llm_judge requires a `model:`", cause: "none configured" }))
    }
    expect(await failures([{ type: "llm_judge", criteria: "c" }], "o", undefined, failing)).toEqual([
      "assertion 1: llm_judge evaluation failed: llm_judge requires a `model:`: none configured"
    ])
  })
})

describe("tool_called", () => {
  test("counts execute_tool events by gen_ai.tool.name; min defaults to 1", async () => {
    const events = await toolEvents([
      { name: "tool__rg", args: "{\"pattern\":\"TODO\"}" },
      { name: "tool__rg", args: "{\"pattern\":\"FIXME\"}" },
      { name: "tool__ls", args: "{}" }
    ])
    const t = trajectory({ events })
    expect(await failures([{ type: "tool_called", name: "tool__rg" }], "", t)).toEqual([])
    expect(await failures([{ type: "tool_called", name: "tool__x" }], "", t)).toEqual([
      "assertion 1: expected tool 'tool__x' to be called at least 1 time(s), was called 0 time(s)"
    ])
    expect(await failures([{ type: "tool_called", name: "tool__rg", min: 3 }], "", t)).toEqual([
      "assertion 1: expected tool 'tool__rg' to be called at least 3 time(s), was called 2 time(s)"
    ])
    expect(await failures([{ type: "tool_called", name: "tool__rg", max: 1 }], "", t)).toEqual([
      "assertion 1: expected tool 'tool__rg' to be called at most 1 time(s), was called 2 time(s)"
    ])
    expect(await failures([{ type: "tool_called", name: "tool__x", min: 0, max: 0 }], "", t)).toEqual([])
  })
  test("a max without a min is an upper bound only: max 0 means never called", async () => {
    const t = trajectory({ events: await toolEvents([{ name: "tool__rg", args: "{}" }]) })
    expect(await failures([{ type: "tool_called", name: "tool__x", max: 0 }], "", t)).toEqual([])
    expect(await failures([{ type: "tool_called", name: "tool__x", max: 2, min: null }], "", t)).toEqual([])
    expect(await failures([{ type: "tool_called", name: "tool__rg", max: 0 }], "", t)).toEqual([
      "assertion 1: expected tool 'tool__rg' to be called at most 0 time(s), was called 1 time(s)"
    ])
    // An explicit min still applies next to a max, and a null max is no bound at all.
    expect(await failures([{ type: "tool_called", name: "tool__x", min: 1, max: 3 }], "", t)).toEqual([
      "assertion 1: expected tool 'tool__x' to be called at least 1 time(s), was called 0 time(s)"
    ])
    expect(await failures([{ type: "tool_called", name: "tool__x", max: null }], "", t)).toEqual([
      "assertion 1: expected tool 'tool__x' to be called at least 1 time(s), was called 0 time(s)"
    ])
  })
  test("denied calls count", async () => {
    const events = await toolEvents([{ name: "tool__rm", args: "{}", decision: "denied" }])
    expect(await failures([{ type: "tool_called", name: "tool__rm", min: 1, max: 1 }], "", trajectory({ events }))).toEqual([])
  })
  test("an MCP tool matches as <server>__<tool> and as mcp__<server>__<tool>", async () => {
    const events = await toolEvents([{ name: "everything__echo", args: "{\"message\":\"hi\"}" }])
    const t = trajectory({ events })
    expect(await failures([{ type: "tool_called", name: "everything__echo" }], "", t)).toEqual([])
    expect(await failures([{ type: "tool_called", name: "mcp__everything__echo", max: 1 }], "", t)).toEqual([])
    expect(await failures([{ type: "tool_called", name: "mcp__other__echo" }], "", t)).toEqual([
      "assertion 1: expected tool 'mcp__other__echo' to be called at least 1 time(s), was called 0 time(s)"
    ])
  })
  test("args_jq: one matching call suffices; errors count as not satisfied", async () => {
    const events = await toolEvents([
      { name: "tool__rg", args: "not json" },
      { name: "tool__rg", args: "{\"pattern\":\"TODO\"}" }
    ])
    const t = trajectory({ events })
    expect(await failures([{ type: "tool_called", name: "tool__rg", args_jq: ".pattern == \"TODO\"" }], "", t)).toEqual([])
    // `.pattern` on the string "not json" is an error: that call simply does not satisfy it.
    expect(await failures([{ type: "tool_called", name: "tool__rg", args_jq: ".pattern == \"XXX\"" }], "", t)).toEqual([
      "assertion 1: no call to tool 'tool__rg' had arguments satisfying `.pattern == \"XXX\"`"
    ])
    expect(await failures([{ type: "tool_called", name: "tool__rg", args_jq: "startswith(\"not\")" }], "", t)).toEqual([])
  })
})

describe("usage", () => {
  const usage = (over: Partial<UsageTotals>): TrajectoryContext => trajectory({ usage: { ...noUsage, ...over } })
  test("limits are inclusive; the first exceeded one (in order) is reported", async () => {
    const t = usage({ prompt: 100, completion: 50, total: 150, requests: 2 })
    expect(await failures([{ type: "usage", max_prompt_tokens: 100, max_completion_tokens: 50, max_total_tokens: 150 }], "", t))
      .toEqual([])
    expect(await failures([{ type: "usage", max_total_tokens: 10, max_completion_tokens: 10, max_prompt_tokens: 10 }], "", t))
      .toEqual(["assertion 1: prompt_tokens 100 exceeded max_prompt_tokens 10"])
    expect(await failures([{ type: "usage", max_total_tokens: 10, max_completion_tokens: 10 }], "", t)).toEqual([
      "assertion 1: completion_tokens 50 exceeded max_completion_tokens 10"
    ])
    expect(await failures([{ type: "usage", max_total_tokens: 149 }], "", t)).toEqual([
      "assertion 1: total_tokens 150 exceeded max_total_tokens 149"
    ])
  })
  test("no reported usage counts as zero", async () => {
    expect(await failures([{ type: "usage", max_total_tokens: 0 }], "", trajectory())).toEqual([])
  })
  test("cost: checked only when some model had pricing, printed with 4 decimals", async () => {
    expect(await failures([{ type: "usage", max_cost_usd: 0 }], "", usage({ total: 5 }))).toEqual([])
    expect(await failures([{ type: "usage", max_cost_usd: 0.001 }], "", usage({ costUsd: 0.03125 }))).toEqual([
      // 0.03125 is exactly halfway between 0.0312 and 0.0313: Rust rounds to even.
      "assertion 1: cost $0.0312 exceeded max_cost_usd $0.0010"
    ])
    expect(await failures([{ type: "usage", max_cost_usd: 0.01 }], "", usage({ costUsd: 0.01 }))).toEqual([])
  })
})

describe("step_output", () => {
  const steps: Record<string, Json> = { summary: "結論: ok", data: { n: 1 }, nothing: null }
  test("nested assertions see the step's text form; failures are folded into one", async () => {
    const t = trajectory({ steps })
    expect(await failures([{ type: "step_output", id: "summary", assert: [{ type: "contains", value: "結論" }] }], "final", t))
      .toEqual([])
    expect(await failures([{ type: "step_output", id: "data", assert: [{ type: "equals", value: "{\"n\":1}" }, { type: "jq", expr: ".n == 1" }] }], "", t))
      .toEqual([])
    expect(await failures([{ type: "step_output", id: "nothing", assert: [{ type: "equals", value: "null" }] }], "", t)).toEqual([])
    expect(
      await failures([{
        type: "step_output",
        id: "summary",
        assert: [{ type: "equals", value: "x" }, { type: "contains", value: "結論" }, { type: "jq", expr: "startswith(\"z\")" }]
      }], "final", t)
    ).toEqual([
      "assertion 1: step 'summary': assertion 1: expected output to equal \"x\", got \"結論: ok\"; assertion 3: jq expression `startswith(\"z\")` was false for output \"結論: ok\""
    ])
  })
  test("a missing id", async () => {
    expect(await failures([{ type: "step_output", id: "nope", assert: [] }], "", trajectory({ steps }))).toEqual([
      "assertion 1: step 'nope' produced no output (it may not have run, or the id doesn't exist)"
    ])
  })
  test("nested tool_called/usage look at the whole run; nested step_output looks up the run's steps", async () => {
    const events = await toolEvents([{ name: "tool__rg", args: "{}" }])
    const t = trajectory({ steps, events, usage: { ...noUsage, total: 20 } })
    expect(await failures([{
      type: "step_output",
      id: "summary",
      assert: [
        { type: "tool_called", name: "tool__rg" },
        { type: "usage", max_total_tokens: 10 },
        { type: "step_output", id: "data", assert: [{ type: "equals", value: "no" }] }
      ]
    }], "", t)).toEqual([
      "assertion 1: step 'summary': assertion 2: total_tokens 20 exceeded max_total_tokens 10; assertion 3: step 'data': assertion 1: expected output to equal \"no\", got \"{\\\"n\\\":1}\""
    ])
  })
})

describe("the list", () => {
  test("without a trajectory, trajectory assertions fail with upstream's message", async () => {
    expect(await failures([
      { type: "tool_called", name: "t" },
      { type: "usage" },
      { type: "step_output", id: "s", assert: [] }
    ], "")).toEqual([1, 2, 3].map((k) => `assertion ${k}: ${TRAJECTORY_UNSUPPORTED}`))
  })

  test("every assertion is evaluated, in order, with 1-based positions across several windows of 4", async () => {
    const assertions: ReadonlyArray<Assertion> = [
      { type: "equals", value: "no-match-1" },
      { type: "contains", value: "結論" },
      { type: "jq", expr: "contains(\"never\")" },
      { type: "equals", value: "actual" },
      { type: "contains", value: "no-match-2" },
      { type: "jq", expr: "contains(\"missing\")" },
      { type: "llm_judge", criteria: "c" }
    ]
    const lines = await failures(assertions, "actual")
    expect(lines.map((l) => l.split(":")[0])).toEqual([
      "assertion 1",
      "assertion 2",
      "assertion 3",
      "assertion 5",
      "assertion 6",
      "assertion 7"
    ])
  })

  test("at most four assertions are evaluated at once", async () => {
    let inFlight = 0
    let peak = 0
    const slow: JudgeService = {
      score: () =>
        Effect.gen(function*() {
          inFlight++
          peak = Math.max(peak, inFlight)
          yield* Effect.sleep("20 millis")
          inFlight--
          return { score: 1, reasoning: undefined }
        })
    }
    const checks = await evaluate(Array.from({ length: 10 }, () => ({ type: "llm_judge", criteria: "c" }) as const), { output: "o" }, slow)
    expect(checks.every((c) => c.message === undefined)).toBe(true)
    expect(peak).toBe(4)
  })

  test("failureLines can leave out checks, rebuilding a step_output's folded message", async () => {
    const checks = await evaluate([
      { type: "equals", value: "old" },
      { type: "step_output", id: "s", assert: [{ type: "equals", value: "a" }, { type: "contains", value: "zz" }] }
    ], { output: "new", trajectory: trajectory({ steps: { s: "b" } }) })
    expect(checks[0]!.actual).toBe("new")
    const nestedEquals = checks[1]!.nested![0]!
    expect(nestedEquals.actual).toBe("b")
    expect(failureLines(checks, (c) => c !== checks[0] && c !== nestedEquals)).toEqual([
      "assertion 2: step 's': assertion 2: expected output to contain \"zz\", got \"b\""
    ])
  })
})
