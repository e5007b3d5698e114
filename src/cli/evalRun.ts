// What `lait eval FILE` does once its command line is read: the handler and the services it runs
// with. Without effect/cli, so that both the command tree (src/cli/eval.ts) and the lean path of a
// plain `lait eval` (src/cli/leanEval.ts) call the same code with the same options.
import { Console, Effect, Layer, Option } from "effect"
import { dirname } from "node:path"
import { LaitConfig } from "../config/LaitConfig.ts"
import { traceWritten } from "../core/tracing.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { RecordHint } from "../model/recordHint.ts"
import { formatUsage } from "../model/RunUsage.ts"
import { liveExportLayer } from "../trace/live/layer.ts"
import { configLayer } from "./configLayer.ts"
import { checkTraceDirFlags } from "./traceDirCheck.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { toolCassettesLayer } from "./toolLayers.ts"
import type { EvalOutcome } from "../eval/runner.ts"
import type { BaselineOptions } from "./evalReport.ts"
import { printLine } from "./output.ts"
import { evalRecordHint } from "./recordHints.ts"

/** Documented bound of --repeat: far beyond any useful pass-rate estimate, small enough to stay cheap. */
export const MAX_REPEAT = 10_000
/** Bound of --jobs: more runs at once than any server serves. */
export const MAX_JOBS = 1_000
/** The defaults of --jobs and --significance (src/cli/evalMerge.ts declares the flags). */
export const DEFAULT_JOBS = 8
export const DEFAULT_SIGNIFICANCE = 0.05

/** `lait eval`'s flags, as effect/cli parses them (src/cli/eval.ts, evalMerge.ts, flags/). */
export interface EvalOptions {
  readonly file: string
  readonly repeat: number
  readonly format: "text" | "json" | "junit" | "html" | "github" | "markdown"
  readonly output: Option.Option<string>
  readonly minPassRate: Option.Option<number>
  readonly maxCost: Option.Option<number>
  readonly showUsage: boolean
  readonly dryRun: boolean
  readonly record: Option.Option<string>
  readonly replay: Option.Option<string>
  readonly strictReplay: boolean
  readonly traceDir: Option.Option<string>
  readonly traceSpans: Option.Option<boolean>
  readonly traceContent: Option.Option<boolean>
  readonly jobs: number
  readonly shard: Option.Option<string>
  readonly baseline: Option.Option<string>
  readonly saveBaseline: Option.Option<string>
  readonly significance: number
  readonly failOnRegression: boolean
}

const invalid = (flag: string, value: number, expected: string) =>
  new ArgumentError({ reason: { _tag: "InvalidValue", flag, value: String(value), expected } })

/** The baseline flags checked against each other. */
export const checkBaselineFlags = (flags: {
  readonly baseline: Option.Option<string>
  readonly saveBaseline: Option.Option<string>
  readonly significance: number
  readonly failOnRegression: boolean
}): Effect.Effect<BaselineOptions, ArgumentError> => {
  const baseline = Option.getOrUndefined(flags.baseline)
  if (!(flags.significance > 0 && flags.significance < 1)) {
    return Effect.fail(
      new ArgumentError({
        reason: {
          _tag: "InvalidValue",
          flag: "--significance <P>",
          value: String(flags.significance),
          expected: "a number between 0 and 1"
        }
      })
    )
  }
  if (flags.failOnRegression && baseline === undefined) {
    return Effect.fail(
      new ArgumentError({ reason: { _tag: "Requires", flag: "--fail-on-regression", needs: "--baseline <FILE>" } })
    )
  }
  return Effect.succeed({
    baseline,
    saveBaseline: Option.getOrUndefined(flags.saveBaseline),
    significance: flags.significance,
    failOnRegression: flags.failOnRegression
  })
}


/** The config as modelClientLayer should see it for an eval: `default.cache` switched off. */
const withoutDefaultCache = Layer.effect(
  LaitConfig,
  Effect.map(
    LaitConfig,
    (service) =>
      LaitConfig.of({ ...service, config: { ...service.config, default: { ...service.config.default, cache: false } } })
  )
)

type ServiceFlags = Pick<EvalOptions, "record" | "replay" | "strictReplay">

/** The model client an eval's flags choose, without `default.cache`. */
export const evalModelLayer = ({ record, replay, strictReplay }: ServiceFlags) =>
  modelClientLayer({
    record: Option.getOrUndefined(record),
    replay: Option.getOrUndefined(replay),
    strictReplay
  }).pipe(Layer.provide(withoutDefaultCache))

/** Recording an eval records its tool calls too; an eval never replays them. */
export const evalToolsLayer = ({ record }: ServiceFlags) =>
  toolCassettesLayer({ record: Option.getOrUndefined(record) })

export const evalConfigLayer = configLayer({ waitForWriter: true })

/** `handler` with the services the command tree provides around it (src/cli/eval.ts), in its order. */
export const provideEvalServices = <A, E, R>(flags: ServiceFlags, handler: Effect.Effect<A, E, R>) =>
  handler.pipe(
    Effect.provide(evalModelLayer(flags)),
    Effect.provide(evalToolsLayer(flags)),
    Effect.provide(evalConfigLayer),
    Effect.provide(liveExportLayer)
  )

/**
 * `note: …` on stderr for the `cost`/`latency` assertions that held unchecked (a replayed run,
 * docs/evals.md#cost-and-latency): a pass that measured nothing must not read as a measurement.
 */
const skippedNotes = (outcome: EvalOutcome): string | undefined => {
  const reasons = new Map<string, number>()
  for (const c of outcome.cases) {
    for (const run of c.runs) {
      for (const a of run.assertions ?? []) {
        if (a.skipped !== undefined) reasons.set(a.skipped, (reasons.get(a.skipped) ?? 0) + 1)
      }
    }
  }
  if (reasons.size === 0) return undefined
  return [...reasons].map(([reason, n]) => `note: ${n} cost/latency assertion(s) skipped: ${reason}`).join("\n")
}

export const runEvalCommand = Effect.fn("cli.eval")(function*(
  { traceDir, traceSpans, traceContent, ...flags }: EvalOptions
) {
  const { file, repeat, format, output, minPassRate, maxCost, showUsage, dryRun, ...scale } = flags
  yield* checkTraceDirFlags({ traceDir, traceSpans, traceContent })
  if (repeat < 0 || repeat > MAX_REPEAT) {
    return yield* invalid("--repeat <N>", repeat, `an integer from 0 to ${MAX_REPEAT}`)
  }
  const minRate = Option.getOrUndefined(minPassRate)
  if (minRate !== undefined && (minRate < 0 || minRate > 1)) {
    return yield* invalid("--min-pass-rate <R>", minRate, "a number from 0 to 1")
  }
  const budget = Option.getOrUndefined(maxCost)
  if (budget !== undefined && budget < 0) return yield* invalid("--max-cost <USD>", budget, "a non-negative amount")
  const k = Math.max(repeat, 1)
  if (scale.jobs < 1 || scale.jobs > MAX_JOBS) {
    return yield* invalid("--jobs <N>", scale.jobs, `an integer from 1 to ${MAX_JOBS}`)
  }
  const baselineOptions = yield* checkBaselineFlags(scale)
  const shardText = Option.getOrUndefined(scale.shard)

  // Loaded on demand so that other commands never pay for the engine, jq, YAML or Ajv.
  const [{ evalFileHash, loadEvalDefinition }, { loadTarget }, { runEval, totalUsage }, reports, dry, {
    makeEvalProgress
  }, { AssertionEvaluator }, shards, finish] = yield* Effect.promise(() =>
    Promise.all([
      import("../eval/cases.ts"),
      import("../eval/target.ts"),
      import("../eval/runner.ts"),
      import("../eval/report.ts"),
      import("../eval/dryrun.ts"),
      import("../eval/progress.ts"),
      import("../testing/AssertionEvaluator.ts"),
      import("../eval/shard.ts"),
      import("./evalReport.ts")
    ])
  )
  const shard = shardText === undefined ? undefined : shards.parseShard(shardText)
  if (shardText !== undefined && shard === undefined) {
    return yield* new ArgumentError({
      reason: { _tag: "InvalidValue", flag: "--shard <K/N>", value: shardText, expected: "K/N with 1 <= K <= N" }
    })
  }
  const baselineFile = baselineOptions.baseline === undefined
    ? undefined
    : yield* finish.loadBaseline(baselineOptions.baseline)

  const definition = yield* loadEvalDefinition(file)
  const targets = yield* Effect.forEach(definition.targets, (t) => loadTarget(t, file))
  // A shard selects cases, each with all its targets; the cases keep their numbers in the file.
  const caseNumbers = shard === undefined ? undefined : shards.shardCaseNumbers(definition.cases, shard)
  const cases = caseNumbers === undefined ? definition.cases : caseNumbers.map((n) => definition.cases[n - 1]!)
  if (shard !== undefined) {
    yield* Console.error(
      `eval: shard ${shard.index}/${shard.count}: ${cases.length} of ${definition.cases.length} case(s)`
    )
  }
  const record = shard === undefined
    ? undefined
    : { ...shard, file, sha256: yield* evalFileHash(file, definition), cases: definition.cases.length }
  if (baselineFile !== undefined) {
    const warning = finish.fewRunsWarning(baselineFile.repeat, k, baselineOptions.significance)
    if (warning !== undefined) yield* Console.error(warning)
  }

  if (dryRun) {
    const plan = yield* dry.planEvalTargets(targets, cases, k)
    yield* printLine(dry.formatDryRun(plan, cases.length, k, targets.length))
    return
  }
  const reportPath = Option.getOrUndefined(output)
  if (reportPath !== undefined && reportPath !== "-") yield* finish.checkReportTarget(reportPath)

  // The prompt-size estimate of one run, so that not even a first run starts past the budget.
  const firstRunEstimateUsd = budget === undefined ?
    undefined :
    yield* dry.planEvalTargets(targets, cases, k).pipe(
      Effect.map((plan) => (plan.costUsd === undefined || plan.runs === 0 ? 0 : plan.costUsd / plan.runs))
    )
  // `--trace-dir`: checked before the first run; each run writes its own file (src/eval/traces.ts).
  const tracesTo = Option.getOrUndefined(traceDir)
  const traced = tracesTo === undefined
    ? <A, E, R>(effect: Effect.Effect<A, E, R>) => effect
    : yield* (yield* Effect.promise(() => import("../eval/traces.ts"))).evalTraces({
      dir: tracesTo,
      spans: Option.getOrUndefined(traceSpans),
      content: Option.getOrUndefined(traceContent),
      // Shards keep the file's case numbers, and so its file names' width.
      caseCount: definition.cases.length,
      repeat: k
    })
  const progress = makeEvalProgress()
  yield* progress.start(cases.length, k, scale.jobs, targets.length)
  const outcome = yield* runEval(targets, cases, {
    repeat: k,
    compare: definition.compare,
    concurrency: scale.jobs,
    base: dirname(file),
    maxCostUsd: budget,
    firstRunEstimateUsd,
    onProgress: progress.update,
    caseNumbers,
    // Ctrl-C: what finished is still worth reading (if anything did), in the chosen format and place
    // (`-o FILE` too); the interruption then goes on (exit 130). No baseline is saved from it.
    onInterrupted: (partial) =>
      partial.cases.every((c) => c.runs.length === 0) ? progress.end : progress.end.pipe(
        Effect.andThen(finish.writeReport(
          finish.renderEvalReport(reports.buildReport(partial, { minPassRate: minRate }), format, {
            file,
            shard: record
          }),
          reportPath
        )),
        Effect.ignore
      )
  }).pipe(
    Effect.ensuring(progress.end),
    traceWritten(tracesTo !== undefined),
    traced,
    Effect.provide(AssertionEvaluator.layer)
  )
  const report = reports.buildReport(outcome, { minPassRate: minRate })
  yield* finish.finishEval(report, {
    format,
    file,
    evalFile: file,
    output: reportPath,
    minPassRate: minRate,
    baseline: { ...baselineOptions, shard },
    baselineFile,
    shard: record,
    budgetStop: outcome.budgetStop === undefined ? undefined : { _tag: "BudgetReached", ...outcome.budgetStop },
    beforeVerdict: Effect.gen(function*() {
      if (showUsage) {
        const usage = totalUsage(outcome)
        yield* Console.error(formatUsage(usage.entries, usage.total))
      }
      const skipped = skippedNotes(outcome)
      if (skipped !== undefined) yield* Console.error(skipped)
      if (budget !== undefined && outcome.costUsd === undefined && outcome.budgetStop === undefined) {
        yield* Console.error(
          "warning: --max-cost was not enforced: no request of this eval went to a model with 'pricing:'"
        )
      }
    })
  })}, (effect, { file }) => Effect.provideService(effect, RecordHint, evalRecordHint(file)))
