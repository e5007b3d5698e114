// Runs every (case, repeat) pair of an eval (docs/evals.md#how-an-eval-runs) — with several targets, every
// (case, target, repeat): each case's targets are cells of their own — in case order, at most `concurrency`
// (8) at once, each in a run context of its own — usage meter, trace collector, model steps and a
// RunContext whose judge is metered in that run's usage — so concurrent runs never see each other's
// events or tokens; the ModelClient, config and caches are shared. Pairs are produced one at a time
// as slots free up, never listed up front, so memory follows the runs that finished, not --repeat.
// A run that fails is one failure (`<error chain>`), unless it could not run at all (src/eval/runError.ts:
// a server or setup error, its judge's included): then it is an `error` run, kept out of the pass rates.
// Only an interruption stops the eval; `onInterrupted` then gets the runs that had finished.
//
// With a budget (`--max-cost`), a pair starts only while the cost spent plus an estimate for the
// runs in flight and this one stays within it. The estimate is the mean cost of the runs finished so
// far, so until the first run has finished only one runs: before that the only estimate is the
// prompt-size one of --dry-run, a lower bound, and a guess that is too low would start eight runs at
// once. That lower bound still keeps a first run that alone would pass the budget from starting.
import { Cause, Deferred, Effect, Exit, Semaphore } from "effect"
import type { LaitConfig } from "../config/LaitConfig.ts"
import { type AnyLaitError, renderChain } from "../core/errors.ts"
import type { Json } from "../core/json.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import { CassetteRepeat } from "../model/cassette/repeat.ts"
import type { ModelClient } from "../model/ModelClient.ts"
import { addUsage, RunUsage, sumUsage, type UsageEntry, type UsageTotals } from "../model/RunUsage.ts"
import { AssertionEvaluator, type Check, failureLines } from "../testing/AssertionEvaluator.ts"
import { assertionLabel } from "../testing/assertions.ts"
import { Attr } from "../core/tracing.ts"
import { liveRoot } from "../trace/LiveSpans.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { couldNotRun } from "./runError.ts"
import { inPromptRunContext, inWorkflowRunContext, type JudgeErrors } from "./runContext.ts"
import { caseInputText, type EvalCase } from "./schema.ts"
import { type LoadedTarget, runPromptTarget, runWorkflowTarget, type TargetRun } from "./target.ts"
import { runExecTarget, runHttpTarget } from "./appTarget.ts"
import { withRunTrace } from "./traces.ts"

/** Upstream's SUITE_CONCURRENCY, shared with `lait test`. */
export const EVAL_CONCURRENCY = 8

/** One assertion of a run, as reports show it. */
export interface AssertionResult {
  /** 1-based position in the case's list (its own assertions, then `default_assert:`). */
  readonly position: number
  readonly type: string
  readonly passed: boolean
  readonly message?: string | undefined
  /** An `llm_judge`'s score and reasoning, when the judge answered. */
  readonly score?: number | undefined
  readonly reasoning?: string | undefined
  /** A `cost`/`latency` that held without being checked (a replayed run): why. */
  readonly skipped?: string | undefined
}

export interface RunOutcome {
  /** `assertion k: …` lines, or the run's error chain; empty when the run passed. */
  readonly failures: ReadonlyArray<string>
  /** The output's text form; undefined when the run itself failed (or in older reports). */
  readonly output?: string | undefined
  /** Every assertion's result; undefined when the run itself failed (or in older reports). */
  readonly assertions?: ReadonlyArray<AssertionResult> | undefined
  /** Everything the run used, its judges included. */
  readonly usage: UsageTotals
  /** The same by label (`eval target 'm'`, step labels, `llm_judge`), in first-recorded order. */
  readonly usageEntries: ReadonlyArray<UsageEntry>
  readonly durationMs: number
  /** The run could not run (server or setup error): `failures` holds the error, not a verdict. */
  readonly error?: boolean
}

export interface CaseOutcome {
  /** 1-based position in `cases:`. */
  readonly index: number
  /** The case input's text form. */
  readonly input: string
  /** The input as written when it is not text (reports print it as a value). */
  readonly inputValue?: Json | undefined
  /** `name:`, else `case <index>`. */
  readonly name?: string | undefined
  /** Whether `name:` was given. */
  readonly named?: boolean | undefined
  /** The target's name when the eval compares `targets:`. */
  readonly target?: string | undefined
  /** The runs that ran, in repeat order. */
  readonly runs: ReadonlyArray<RunOutcome>
  /** Repeats that were never started (the budget ran out). */
  readonly notStarted: number
}

export interface BudgetStop {
  readonly budgetUsd: number
  readonly spentUsd: number
  readonly started: number
  readonly total: number
}

export interface EvalOutcome {
  /** One per case; with `targets:`, one per (case, target), each case's targets in order. */
  readonly cases: ReadonlyArray<CaseOutcome>
  /** The target names of an eval that compares `targets:`. */
  readonly targets?: ReadonlyArray<string> | undefined
  readonly repeat: number
  /** Set when --max-cost stopped new runs from starting. */
  readonly budgetStop: BudgetStop | undefined
  /** The summed cost of every run, undefined when no request had a priced model. */
  readonly costUsd: number | undefined
  /** Set when an interruption (Ctrl-C) stopped the eval: only the runs that finished are in. */
  readonly partial?: boolean
  /** What a merge with --allow-partial went without (`shard(s) 3 of 3 missing`): cases are left out. */
  readonly incomplete?: string | undefined
}

export interface ProgressEvent {
  readonly runsDone: number
  readonly runsTotal: number
  readonly runsFailed: number
  /** Set when this run was the last of its case. */
  readonly caseDone?: {
    readonly index: number
    readonly passed: number
    readonly total: number
    /** The target, when the eval compares several. */
    readonly target?: string
  }
}

export interface EvalOptions {
  /** Already at least 1. */
  readonly repeat: number
  readonly concurrency?: number
  readonly maxCostUsd?: number | undefined
  /**
   * What a run is expected to cost before any has finished (the dry-run's prompt-size estimate per
   * run; a lower bound). Default 0.
   */
  readonly firstRunEstimateUsd?: number | undefined
  readonly onProgress?: (event: ProgressEvent) => Effect.Effect<void>
  /** Compare the targets (`targets:`): outcomes name their target. Default: more than one target. */
  readonly compare?: boolean
  /** The 1-based number each case reports as (a --shard runs a subset); default its position. */
  readonly caseNumbers?: ReadonlyArray<number> | undefined
  /** The eval file's directory: a `script` assertion starts there, a `json_schema` file is relative to it. */
  readonly base?: string | undefined
  /** Called with the finished runs when the eval is interrupted, before the interruption goes on. */
  readonly onInterrupted?: ((partial: EvalOutcome) => Effect.Effect<void>) | undefined
}

// Costs are sums of small floats; a budget met exactly must not read as exceeded.
const BUDGET_SLACK = 1e-9

const assertionResult = (check: Check): AssertionResult => ({
  position: check.position,
  type: assertionLabel(check.assertion),
  passed: check.message === undefined,
  ...(check.message === undefined ? {} : { message: check.message }),
  ...(check.judge === undefined ? {} : { score: check.judge.score, reasoning: check.judge.reasoning }),
  ...(check.skipped === undefined ? {} : { skipped: check.skipped })
})

const evaluatePair = <R>(
  evalCase: EvalCase,
  run: Effect.Effect<TargetRun, AnyLaitError, R>,
  judgeErrors: JudgeErrors,
  base: string | undefined
) =>
  Effect.gen(function*() {
    const started = Date.now()
    const evaluator = yield* AssertionEvaluator
    const usage = yield* RunUsage
    const runStarted = performance.now()
    const ran = yield* Effect.result(run)
    // What `latency` reads: the target's run alone, before any assertion (a judge) adds its own time.
    const latencyMs = performance.now() - runStarted
    let failures: ReadonlyArray<string>
    let details: Pick<RunOutcome, "output" | "assertions"> = {}
    let error = false
    if (ran._tag === "Failure") {
      failures = [renderChain(ran.failure)]
      error = couldNotRun(ran.failure)
    } else {
      // Usage assertions see the run itself; the judge's requests come after this snapshot.
      const trajectory = {
        events: [...yield* (yield* RunTracer).events, ...(ran.success.toolEvents ?? [])],
        steps: ran.success.steps,
        usage: yield* usage.total
      }
      const checks = yield* evaluator.evaluate(evalCase.assert, {
        output: ran.success.output,
        trajectory,
        input: caseInputText(evalCase),
        base,
        subject: { input: evalCase.input, vars: evalCase.vars, case: evalCase.name },
        measured: {
          latencyMs,
          costUsd: trajectory.usage.costUsd,
          // An answer from a cassette or the cache took no real time and cost nothing real.
          replayed: trajectory.events.some((e) => e.operation === "chat" && e.attributes[Attr.source] !== "live")
        }
      })
      failures = failureLines(checks)
      details = { output: ran.success.output, assertions: checks.map(assertionResult) }
      // Only when every failure is a judge that could not answer; one real verdict makes it a failure.
      error = failures.length > 0 && judgeErrors.rendered.length > 0 &&
        failures.every((f) => judgeErrors.rendered.some((e) => f.includes(`llm_judge evaluation failed: ${e}`)))
    }
    return {
      failures,
      ...details,
      usage: yield* usage.total,
      usageEntries: yield* usage.entries,
      durationMs: Date.now() - started,
      ...(error ? { error } : {})
    } satisfies RunOutcome
  })

// The repeat is set around the whole run, its judge's context included, so that --record keeps
// each repeat's answers apart and --replay gives each repeat its own (src/model/cassette/repeat.ts).
const runPair = (target: LoadedTarget, evalCase: EvalCase, repeatIndex: number, base: string | undefined) =>
  Effect.suspend(() => {
    const judgeErrors: JudgeErrors = { rendered: [] }
    const pair = <R>(run: Effect.Effect<TargetRun, AnyLaitError, R>) => evaluatePair(evalCase, run, judgeErrors, base)
    switch (target.kind) {
      case "workflow":
        return inWorkflowRunContext(target, judgeErrors, pair(runWorkflowTarget(target, evalCase)))
      case "prompt":
        return inPromptRunContext(target, judgeErrors, pair(runPromptTarget(target, evalCase)))
      // An app needs no engine either: the prompt target's lean run context serves it.
      case "exec":
        return inPromptRunContext(target, judgeErrors, pair(runExecTarget(target, evalCase)))
      case "http":
        return inPromptRunContext(target, judgeErrors, pair(runHttpTarget(target, evalCase)))
    }
  }).pipe(Effect.provideService(CassetteRepeat, repeatIndex))

export interface ScheduledRun {
  /** 0-based position in `cases:`. */
  readonly caseIndex: number
  /** 0-based repeat of that case. */
  readonly repeatIndex: number
}

/**
 * The (case, repeat) runs in the order they start: case by case, each case's repeats in order.
 * Lazy: a run exists only once the scheduler reaches it, so a large --repeat costs no memory up front.
 */
export function* schedule(caseCount: number, repeat: number): Generator<ScheduledRun, void, undefined> {
  for (let caseIndex = 0; caseIndex < caseCount; caseIndex++) {
    for (let repeatIndex = 0; repeatIndex < repeat; repeatIndex++) yield { caseIndex, repeatIndex }
  }
}

export const runEval = (
  targetOrTargets: LoadedTarget | ReadonlyArray<LoadedTarget>,
  evalCases: ReadonlyArray<EvalCase>,
  options: EvalOptions
): Effect.Effect<EvalOutcome, never, FileLoader | LaitConfig | ModelClient | AssertionEvaluator> =>
  Effect.gen(function*() {
    const targets: ReadonlyArray<LoadedTarget> = Array.isArray(targetOrTargets) ? targetOrTargets : [targetOrTargets]
    const compare = options.compare ?? targets.length > 1
    // The scheduler's "cases" are cells: each case with each target, the case's targets side by side.
    const cases = evalCases.flatMap((evalCase, caseIndex) => targets.map((target) => ({ target, evalCase, caseIndex })))
    const repeat = options.repeat
    const concurrency = Math.max(1, options.concurrency ?? EVAL_CONCURRENCY)
    const budget = options.maxCostUsd
    const total = cases.length * repeat
    // Filled in as runs finish (in any order), read in repeat order.
    const outcomes: Array<Array<RunOutcome>> = cases.map(() => [])
    const finishedPerCase = cases.map(() => 0)
    const passedPerCase = cases.map(() => 0)
    const firstDone = yield* Deferred.make<void>()
    let inFlight = 0
    let done = 0
    let failed = 0
    let spent = 0
    let priced = false
    let started = 0
    let stoppedByBudget = false
    // A run cannot fail (its errors are its failures); a defect in one is kept and raised at the end.
    let defect: Cause.Cause<never> | undefined

    const numberOf = (caseIndex: number) => options.caseNumbers?.[caseIndex] ?? caseIndex + 1
    const finish = (run: ScheduledRun, outcome: RunOutcome) =>
      Effect.gen(function*() {
        const runs = outcomes[run.caseIndex]!
        runs[run.repeatIndex] = outcome
        inFlight--
        done++
        if (outcome.failures.length > 0) failed++
        if (outcome.usage.costUsd !== undefined) {
          priced = true
          spent += outcome.usage.costUsd
        }
        finishedPerCase[run.caseIndex]!++
        if (outcome.failures.length === 0) passedPerCase[run.caseIndex]!++
        yield* Deferred.succeed(firstDone, undefined)
        if (options.onProgress !== undefined) {
          const cell = cases[run.caseIndex]!
          const caseDone = finishedPerCase[run.caseIndex] === repeat
            ? {
              index: numberOf(cell.caseIndex),
              passed: passedPerCase[run.caseIndex]!,
              total: repeat,
              ...(compare ? { target: cell.target.name } : {})
            }
            : undefined
          yield* options.onProgress({
            runsDone: done,
            runsTotal: total,
            runsFailed: failed,
            ...(caseDone !== undefined ? { caseDone } : {})
          })
        }
      })

    const collect = (partial: boolean): EvalOutcome => {
      const caseOutcomes = cases.map((cell, cellIndex): CaseOutcome => {
        // Array.prototype.filter skips the holes of repeats that never started (or never finished).
        const runs = outcomes[cellIndex]!.filter((o) => o !== undefined)
        const c = cell.evalCase
        return {
          index: numberOf(cell.caseIndex),
          input: caseInputText(c),
          ...(typeof c.input === "string" ? {} : { inputValue: c.input }),
          name: c.name,
          named: c.named,
          ...(compare ? { target: cell.target.name } : {}),
          runs,
          notStarted: repeat - runs.length
        }
      })
      return {
        cases: caseOutcomes,
        ...(compare ? { targets: targets.map((t) => t.name) } : {}),
        repeat,
        budgetStop: stoppedByBudget && budget !== undefined
          ? { budgetUsd: budget, spentUsd: spent, started, total }
          : undefined,
        costUsd: priced ? spent : undefined,
        ...(partial ? { partial } : {})
      }
    }

    // The next run to start, or undefined once none may: the schedule is done or the budget is spent.
    const runs = schedule(cases.length, repeat)
    let closed = false
    const admitNext: Effect.Effect<ScheduledRun | undefined> = Effect.gen(function*() {
      if (closed) return undefined
      const next = runs.next()
      if (next.done === true) {
        closed = true
        return undefined
      }
      if (budget !== undefined) {
        if (done === 0 && inFlight > 0) yield* Deferred.await(firstDone)
        const estimate = done === 0 ? (options.firstRunEstimateUsd ?? 0) : spent / done
        if (spent + estimate * (inFlight + 1) > budget * (1 + BUDGET_SLACK) + BUDGET_SLACK) {
          closed = true
          stoppedByBudget = true
          return undefined
        }
      }
      inFlight++
      started++
      return next.value
    })
    // Without a budget admitting never waits, so it cannot interleave; with one it may wait for the
    // first run's cost, and the runs must still be admitted one at a time in schedule order.
    const admit = budget === undefined ? admitNext : Semaphore.withPermit(yield* Semaphore.make(1), admitNext)

    const runOne = (run: ScheduledRun) => {
      const cell = cases[run.caseIndex]!
      const number = numberOf(cell.caseIndex)
      // The span names its target, as the reports do (`case 3 [short]`): with `targets:` the runs of
      // one case and repeat are otherwise alike, and a collector holds the runs of many evals.
      return liveRoot(
        { operation: "eval_run", label: `case ${number} [${cell.target.name}], repeat ${run.repeatIndex + 1}` },
        {
          "lait.eval.case": number,
          "lait.eval.repeat": run.repeatIndex + 1,
          "lait.eval.target": cell.target.name
        },
        withRunTrace(
          { caseIndex: number - 1, repeatIndex: run.repeatIndex, target: compare ? cell.target.name : undefined },
          cell.evalCase,
          runPair(cell.target, cell.evalCase, run.repeatIndex, options.base)
        ),
        (exit) => (Exit.isSuccess(exit) ? { "lait.eval.passed": exit.value.failures.length === 0 } : {})
      ).pipe(
        Effect.flatMap((outcome) => finish(run, outcome)),
        // An interruption of the eval ends the worker itself; a run that only interrupted itself ends.
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.sync(() => void (defect ??= cause))
        )
      )
    }

    // One worker per slot, each starting the next run as soon as its own has finished: the next request
    // leaves before the other answers that came in meanwhile are checked (an eval's critical path).
    const worker = Effect.gen(function*() {
      for (;;) {
        const run = yield* admit
        if (run === undefined) return
        yield* runOne(run)
      }
    })
    const startAll = Effect.forEach(Array.from({ length: Math.min(concurrency, total) }), () => worker, {
      concurrency: "unbounded",
      discard: true
    })
    const onInterrupted = options.onInterrupted
    yield* onInterrupted === undefined
      ? startAll
      : startAll.pipe(Effect.onInterrupt(() => onInterrupted(collect(true))))
    if (defect !== undefined) return yield* Effect.failCause(defect)
    return collect(false)
  })

/** Usage of every run summed per label, labels in the order they first appear (case order). */
export const totalUsage = (
  outcome: EvalOutcome
): { readonly entries: ReadonlyArray<UsageEntry>; readonly total: UsageTotals } => {
  const byLabel = new Map<string, UsageEntry>()
  for (const c of outcome.cases) {
    for (const run of c.runs) {
      for (const e of run.usageEntries) {
        const prev = byLabel.get(e.label)
        byLabel.set(e.label, prev === undefined ? e : { label: e.label, ...addUsage(prev, e) })
      }
    }
  }
  const entries = [...byLabel.values()]
  return { entries, total: sumUsage(entries) }
}
