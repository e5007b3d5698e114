// Evaluates `assert:` lists (docs/testing.md#assertions) against one run: its output text and, for the trajectory
// assertions (tool_called, usage, step_output), the run's own trace events, usage totals and `$steps`.
// Every assertion is evaluated — in order, at most four at once, never short-circuiting — and each
// failure is reported as `assertion <k>: <message>` with upstream's exact wording.
//
// `llm_judge` needs a model: the judge of the run's RunContext. `lait test` has none (it only
// replays), so there it always fails with the documented message; `lait eval` gives each (case,
// repeat) run a judge metered in that run's usage.
import { Context, Effect, Layer } from "effect"
import { renderChain } from "../core/errors.ts"
import { type Json, textForm } from "../core/json.ts"
import { Attr } from "../core/tracing.ts"
import { rustDebugString, rustFixed } from "../core/rustFormat.ts"
import { parseTextInput } from "../lang/inputs.ts"
import type { UsageTotals } from "../model/RunUsage.ts"
import type { TraceEvent } from "../trace/RunTracer.ts"
import { RunContext, type JudgeVerdict } from "../workflow/RunContext.ts"
import { type Assertion, assertionLabel, isNot, type TypedAssertion } from "./assertions.ts"
import type { ScriptOutcome } from "./scriptAssertion.ts"
import { checkText } from "./textChecks.ts"
import { callArgumentsBlock, jsonOutputBlock } from "./shown.ts"

/** Upstream evaluates at most this many assertions of one list at once. */
export const MAX_CONCURRENT_ASSERTIONS = 4
export const DEFAULT_LLM_JUDGE_THRESHOLD = 0.7

export const LLM_JUDGE_UNSUPPORTED =
  "llm_judge assertions are not supported here (no judge model available in this context; use `lait eval`)"
export const MEASURED_UNSUPPORTED = (type: string) =>
  `${type} assertions are measured only by \`lait eval\` (this run has no measurements)`
export const REPLAYED_NOTE = "not measured: the run's answers were replayed"
export const NOT_PRICED_NOTE = "not measured: no model of the run has pricing:"
export const TRAJECTORY_UNSUPPORTED = "trajectory assertions (tool_called/usage/step_output) are not supported here " +
  "(no per-run trace context is available in this context)"

/** What one run offers trajectory assertions. All of it belongs to that run alone. */
export interface TrajectoryContext {
  readonly events: ReadonlyArray<TraceEvent>
  /** The run's `$steps` (top-level ids). */
  readonly steps: Readonly<Record<string, Json>>
  readonly usage: UsageTotals
}

export interface EvaluationContext {
  /** The run's output in text form. */
  readonly output: string
  /** Undefined when the caller has no per-run trace (trajectory assertions then fail). */
  readonly trajectory?: TrajectoryContext | undefined
  /** Passed on to a judge. */
  readonly input?: string | undefined
  /**
   * `lait test`: a failure shows a JSON object or array output as indented JSON under its message,
   * and an `args_jq` failure the arguments of the calls (./shown.ts). Without it, messages keep
   * upstream's one-line wording (`lait eval`'s reports).
   */
  readonly showJson?: boolean | undefined
  /** The definition file's directory: a `json_schema` `file:` is read and a `script` starts there. */
  readonly base?: string | undefined
  /** What a `script` is told besides the output: the case input, its vars, its name (a test: its file). */
  readonly subject?: { readonly input: Json; readonly vars: Readonly<Record<string, Json>>; readonly case: string }
  /**
   * `lait eval`: what the target's run took and cost, for `latency` and `cost`; `replayed` when any
   * answer came from a cassette or the cache (nothing real was measured). Undefined under `lait test`.
   */
  readonly measured?: {
    readonly latencyMs: number
    readonly costUsd: number | undefined
    readonly replayed: boolean
  } | undefined
}

/** The result of one assertion of a list. */
export interface Check {
  /** 1-based position in its list. */
  readonly position: number
  readonly assertion: Assertion
  /** Undefined when it held. For a step_output with nested failures, the folded message. */
  readonly message: string | undefined
  /** For `equals`: the text it was compared with (what `--update` writes). */
  readonly actual?: string
  /** For a `step_output` whose step produced a value: the nested checks. */
  readonly nested?: ReadonlyArray<Check>
  /** For an `llm_judge` the judge answered, or a `script`: its score and reasoning (eval reports show them). */
  readonly judge?: JudgeVerdict
  /** Held without being checked (a `cost` or `latency` of a replayed run): why. */
  readonly skipped?: string
  /** It could not be checked at all (an invalid regex, a script that crashed): a `not:` keeps it failed. */
  readonly broken?: true
}

export interface AssertionEvaluatorService {
  readonly evaluate: (
    assertions: ReadonlyArray<Assertion>,
    context: EvaluationContext
  ) => Effect.Effect<ReadonlyArray<Check>, never, RunContext>
}

/**
 * `step '<id>': assertion k: …; assertion j: …` from nested checks (skipping those `keep` rejects);
 * nested messages of several lines (./shown.ts) go one under another instead, indented.
 */
const foldStepFailures = (id: string, nested: ReadonlyArray<Check>, keep: (check: Check) => boolean) => {
  const lines = failureLines(nested, keep)
  if (lines.length === 0) return undefined
  if (!lines.some((line) => line.includes("\n"))) return `step '${id}': ${lines.join("; ")}`
  return `step '${id}':${lines.map((line) => `\n  ${line.replaceAll("\n", "\n  ")}`).join("")}`
}

/**
 * The `assertion <k>: <message>` lines of a list of checks. `keep` can drop checks (a failing
 * `equals` that `--update` rewrote); a step_output's folded message is then rebuilt from what is left.
 */
export const failureLines = (
  checks: ReadonlyArray<Check>,
  keep: (check: Check) => boolean = () => true
): ReadonlyArray<string> => {
  const lines: Array<string> = []
  for (const check of checks) {
    if (check.message === undefined || !keep(check)) continue
    if (!isNot(check.assertion) && check.assertion.type === "step_output" && check.nested !== undefined) {
      const folded = foldStepFailures(check.assertion.id, check.nested, keep)
      if (folded !== undefined) lines.push(`assertion ${check.position}: ${folded}`)
      continue
    }
    lines.push(`assertion ${check.position}: ${check.message}`)
  }
  return lines
}

/** jq's `.` for an assertion: the text parsed as JSON when it is JSON text, else the text as a string. */
export const jqInputOf = (text: string): Json => parseTextInput(text)

const NO_VARS = { steps: {}, inputs: {}, loop: null } as const

// jq (its native evaluator's modules) is loaded by the first jq assertion: an eval of `contains`
// assertions does not wait for it before its first request.
let jqModule: typeof import("../lang/jq.ts") | undefined
const loadJqModule = Effect.suspend(() =>
  jqModule !== undefined
    ? Effect.succeed(jqModule)
    : Effect.map(Effect.promise(() => import("../lang/jq.ts")), (m) => (jqModule = m))
)

const jqHolds = (expr: string, input: Json) =>
  Effect.flatMap(loadJqModule, (jq) => Effect.map(jq.evalJqOne(expr, input, NO_VARS, "condition"), jq.isTruthy))

const toolNameMatches = (wanted: string, recorded: Json | undefined): boolean =>
  typeof recorded === "string" &&
  // The docs spell MCP tools `mcp__<server>__<tool>`; the tool loop names them `<server>__<tool>`.
  (recorded === wanted || (wanted.startsWith("mcp__") && recorded === wanted.slice("mcp__".length)))

const checkToolCalled = (
  assertion: Extract<Assertion, { readonly type: "tool_called" }>,
  trajectory: TrajectoryContext,
  showArguments: boolean
): Effect.Effect<string | undefined> =>
  Effect.gen(function*() {
    const { name } = assertion
    const calls = trajectory.events.filter((event) =>
      event.operation === "execute_tool" && toolNameMatches(name, event.attributes[Attr.toolName])
    )
    const count = calls.length
    const max = assertion.max ?? undefined
    // A bare `max` is an upper bound only (`max: 0` = never called); without either bound the
    // assertion means "called at least once".
    const min = assertion.min ?? (max === undefined ? 1 : 0)
    if (count < min) {
      return `expected tool '${name}' to be called at least ${min} time(s), was called ${count} time(s)`
    }
    if (max !== undefined && count > max) {
      return `expected tool '${name}' to be called at most ${max} time(s), was called ${count} time(s)`
    }
    const expr = assertion.args_jq
    if (expr === undefined || expr === null) return undefined
    for (const call of calls) {
      const args = call.attributes[Attr.toolArguments]
      if (typeof args !== "string") continue
      // An evaluation error only means this call does not satisfy the expression.
      const holds = yield* jqHolds(expr, jqInputOf(args)).pipe(Effect.orElseSucceed(() => false))
      if (holds) return undefined
    }
    const message = `no call to tool '${name}' had arguments satisfying \`${expr}\``
    if (!showArguments || calls.length === 0) return message
    const args = calls.map((call) => {
      const recorded = call.attributes[Attr.toolArguments]
      return typeof recorded === "string" ? recorded : undefined
    })
    return `${message}; the arguments of its ${calls.length} call(s):${callArgumentsBlock(args)}`
  })

const formatCost = (usd: number) => `$${rustFixed(usd, 4)}`

const checkUsage = (
  assertion: Extract<Assertion, { readonly type: "usage" }>,
  usage: UsageTotals
): string | undefined => {
  const limit = (value: number | null | undefined) => (value === null ? undefined : value)
  const maxPrompt = limit(assertion.max_prompt_tokens)
  if (maxPrompt !== undefined && usage.prompt > maxPrompt) {
    return `prompt_tokens ${usage.prompt} exceeded max_prompt_tokens ${maxPrompt}`
  }
  const maxCompletion = limit(assertion.max_completion_tokens)
  if (maxCompletion !== undefined && usage.completion > maxCompletion) {
    return `completion_tokens ${usage.completion} exceeded max_completion_tokens ${maxCompletion}`
  }
  const maxTotal = limit(assertion.max_total_tokens)
  if (maxTotal !== undefined && usage.total > maxTotal) {
    return `total_tokens ${usage.total} exceeded max_total_tokens ${maxTotal}`
  }
  // No priced model in the run means the cost is unknown, not zero: nothing to compare.
  const maxCost = limit(assertion.max_cost_usd)
  if (maxCost !== undefined && usage.costUsd !== undefined && usage.costUsd > maxCost) {
    return `cost ${formatCost(usage.costUsd)} exceeded max_cost_usd ${formatCost(maxCost)}`
  }
  return undefined
}

const checkLlmJudge = (
  assertion: Extract<Assertion, { readonly type: "llm_judge" }>,
  output: string,
  input: string | undefined
): Effect.Effect<{ readonly message: string | undefined; readonly verdict?: JudgeVerdict }, never, RunContext> =>
  Effect.gen(function*() {
    const { judge } = yield* RunContext
    if (judge === undefined) return { message: LLM_JUDGE_UNSUPPORTED }
    const threshold = assertion.threshold ?? DEFAULT_LLM_JUDGE_THRESHOLD
    const outcome = yield* Effect.result(
      judge.score({ criteria: assertion.criteria, output, input, model: assertion.model ?? undefined })
    )
    if (outcome._tag === "Failure") return { message: `llm_judge evaluation failed: ${renderChain(outcome.failure)}` }
    const verdict = outcome.success
    if (verdict.score >= threshold) return { message: undefined, verdict }
    return {
      message: `llm_judge score ${rustFixed(verdict.score, 2)} is below threshold ${
        rustFixed(threshold, 2)
      } for criteria ${rustDebugString(assertion.criteria)}`,
      verdict
    }
  })

/** What evaluating needs: the judge of the run (llm_judge). */
type Needs = RunContext

/** A `not:` holds when what it holds fails; what could not be checked (or was skipped) stays so. */
const negate = (assertion: Assertion, inner: Check): Check => {
  const base = { position: inner.position, assertion }
  if (inner.broken === true) return { ...base, message: inner.message, broken: true }
  if (inner.skipped !== undefined) return { ...base, message: undefined, skipped: inner.skipped }
  return {
    ...base,
    message: inner.message === undefined
      ? `expected the negated '${assertionLabel(inner.assertion)}' assertion to fail, but it held`
      : undefined
  }
}

// Loaded by the first script assertion only (it brings Effect Schema for the verdict).
let scriptModule: typeof import("./scriptAssertion.ts") | undefined
const loadScriptModule = Effect.suspend(() =>
  scriptModule !== undefined
    ? Effect.succeed(scriptModule)
    : Effect.map(Effect.promise(() => import("./scriptAssertion.ts")), (m) => (scriptModule = m))
)

// Likewise the json_schema check (it brings the schema file reader and Ajv's wrapper).
let jsonSchemaModule: typeof import("./jsonSchemaCheck.ts") | undefined
const loadJsonSchemaModule = Effect.suspend(() =>
  jsonSchemaModule !== undefined
    ? Effect.succeed(jsonSchemaModule)
    : Effect.map(Effect.promise(() => import("./jsonSchemaCheck.ts")), (m) => (jsonSchemaModule = m))
)

const NO_SUBJECT = { input: null, vars: {}, case: "" } as const

const evaluateList = (
  assertions: ReadonlyArray<Assertion>,
  context: EvaluationContext
): Effect.Effect<ReadonlyArray<Check>, never, Needs> => {
  const { output, trajectory } = context
  // Parsed once, and only for a jq assertion: most lists never read it.
  let input: Json | undefined
  // Likewise the indented form of a JSON output, for failures under `showJson` ("" when not shown).
  let shownJson: string | undefined = context.showJson === true ? undefined : ""
  /** `… got "<output>"`, or for JSON shown indented, `… got:` and the block. */
  const shownOutput = (before: string): string => {
    shownJson ??= jsonOutputBlock(output) ?? ""
    return shownJson === "" ? `${before} ${rustDebugString(output)}` : `${before}:${shownJson}`
  }
  const one = (assertion: Assertion, position: number): Effect.Effect<Check, never, Needs> =>
    isNot(assertion)
      ? Effect.map(one(assertion.not, position), (inner) => negate(assertion, inner))
      : typed(assertion, position)
  const typed = (assertion: TypedAssertion, position: number): Effect.Effect<Check, never, Needs> => {
    type Extra = Partial<Pick<Check, "actual" | "nested" | "judge" | "skipped" | "broken">>
    const done = (message: string | undefined, extra: Extra = {}): Check => ({
      position,
      assertion,
      message,
      ...extra
    })
    const broken = (message: string) => done(message, { broken: true })
    switch (assertion.type) {
      case "regex":
      case "icontains":
      case "starts_with":
      case "contains_any":
      case "contains_all":
      case "is_json":
      case "levenshtein":
      case "length": {
        const verdict = checkText(assertion, output)
        return Effect.succeed(
          verdict === undefined
            ? done(undefined)
            : "broken" in verdict
            ? broken(verdict.broken)
            : done("message" in verdict ? verdict.message : shownOutput(verdict.expected))
        )
      }
      case "json_schema":
        return Effect.flatMap(loadJsonSchemaModule, (m) => m.checkJsonSchema(assertion, output, context.base)).pipe(
          Effect.map((verdict) =>
            verdict === undefined
              ? done(undefined)
              : "broken" in verdict
              ? broken(verdict.broken)
              : done(verdict.message)
          )
        )
      case "cost":
      case "latency": {
        const measured = context.measured
        if (measured === undefined) return Effect.succeed(broken(MEASURED_UNSUPPORTED(assertion.type)))
        if (measured.replayed) return Effect.succeed(done(undefined, { skipped: REPLAYED_NOTE }))
        if (assertion.type === "latency") {
          return Effect.succeed(done(
            measured.latencyMs <= assertion.max
              ? undefined
              : `latency ${Math.ceil(measured.latencyMs)} ms exceeded max ${assertion.max} ms`
          ))
        }
        if (measured.costUsd === undefined) return Effect.succeed(done(undefined, { skipped: NOT_PRICED_NOTE }))
        return Effect.succeed(done(
          measured.costUsd <= assertion.max
            ? undefined
            : `cost ${formatCost(measured.costUsd)} exceeded max ${formatCost(assertion.max)}`
        ))
      }
      case "script":
        return Effect.flatMap(
          loadScriptModule,
          (m) => m.runScript(assertion, { output, ...(context.subject ?? NO_SUBJECT) }, context.base)
        ).pipe(Effect.map((outcome: ScriptOutcome) => {
          if ("broken" in outcome) return broken(outcome.broken)
          const reason = outcome.reason ?? "(no reason given)"
          return done(
            outcome.pass ? undefined : `script failed the output: ${reason}`,
            outcome.score === undefined ? {} : { judge: { score: outcome.score, reasoning: outcome.reason } }
          )
        }))
      case "equals":
        return Effect.succeed(
          done(
            output === assertion.value
              ? undefined
              : shownOutput(`expected output to equal ${rustDebugString(assertion.value)}, got`),
            { actual: output }
          )
        )
      case "contains":
        return Effect.succeed(
          done(
            output.includes(assertion.value)
              ? undefined
              : shownOutput(`expected output to contain ${rustDebugString(assertion.value)}, got`)
          )
        )
      case "jq":
        return jqHolds(assertion.expr, input ??= jqInputOf(output)).pipe(
          Effect.map((holds) =>
            done(
              holds ? undefined : shownOutput(`jq expression \`${assertion.expr}\` was false for output`)
            )
          ),
          Effect.catch((error) =>
            Effect.succeed(broken(`jq expression \`${assertion.expr}\` failed: ${renderChain(error)}`))
          )
        )
      case "llm_judge":
        return Effect.map(
          checkLlmJudge(assertion, output, context.input),
          // Without a verdict the judge never answered: not a grade a `not:` may turn around.
          ({ message, verdict }) =>
            verdict === undefined ? (message === undefined ? done(undefined) : broken(message)) : done(message, {
              judge: verdict
            })
        )
      case "tool_called":
        return trajectory === undefined
          ? Effect.succeed(broken(TRAJECTORY_UNSUPPORTED))
          : Effect.map(checkToolCalled(assertion, trajectory, context.showJson === true), (message) => done(message))
      case "usage":
        return Effect.succeed(
          trajectory === undefined ? broken(TRAJECTORY_UNSUPPORTED) : done(checkUsage(assertion, trajectory.usage))
        )
      case "step_output": {
        if (trajectory === undefined) return Effect.succeed(broken(TRAJECTORY_UNSUPPORTED))
        const { id } = assertion
        if (!Object.hasOwn(trajectory.steps, id)) {
          return Effect.succeed(
            done(`step '${id}' produced no output (it may not have run, or the id doesn't exist)`)
          )
        }
        const text = textForm(trajectory.steps[id]!)
        // Nested trajectory assertions see the same (whole-run) trajectory: tool calls are not
        // attributed to steps.
        return Effect.map(
          evaluateList(assertion.assert, { ...context, output: text }),
          (nested) =>
            done(foldStepFailures(id, nested, () => true), {
              nested,
              ...(nested.some((check) => check.broken === true) ? { broken: true } : {})
            })
        )
      }
    }
  }
  return Effect.forEach(assertions, (assertion, index) => one(assertion, index + 1), {
    concurrency: MAX_CONCURRENT_ASSERTIONS
  })
}

const evaluate = Effect.fnUntraced(function*(
  assertions: ReadonlyArray<Assertion>,
  context: EvaluationContext
) {
  // jq-wasm (a large wasm module) is loaded by the first evaluation that needs it, if any: most
  // filters run natively; a failure to load it shows up in each such assertion's message.
  return yield* evaluateList(assertions, context)
})

export class AssertionEvaluator extends Context.Service<AssertionEvaluator, AssertionEvaluatorService>()(
  "lait/testing/AssertionEvaluator"
) {
  /** Stateless; `llm_judge` uses the judge of the RunContext the evaluation runs in, when there is one. */
  static readonly layer = Layer.succeed(AssertionEvaluator, AssertionEvaluator.of({ evaluate }))
}
