// What `lait eval` and `lait eval merge` do with a finished eval: write the report (with the baseline
// comparison, when asked) to stdout or `-o FILE`, the annotations of `--format github` and the job
// summary (docs/ci.md#annotations-and-summaries), save a baseline, and choose the exit code. Loaded on
// demand with the rest of the eval code.
//
// Exit codes (verdictOf, which every report's verdict follows too): with --fail-on-regression the
// baseline decides (1 when a case or all cases pooled regressed significantly, else 4 when runs could
// not run, else 0); otherwise 1 when a case failed, 4 when every failure was a run that could not run
// (a server or setup error is never the model's quality), 0 when all passed.
import { Console, Effect } from "effect"
import { causeDetail, type OutputError } from "../core/errors.ts"
import { redact, redactMarkup } from "../core/redaction.ts"
import {
  baselineOf,
  type Comparison,
  compareWithBaseline,
  comparisonText,
  comparisonValue,
  formatBaseline,
  junitWithComparison,
  parseBaseline,
  regressionReason
} from "../eval/baseline.ts"
import { EvalError, type EvalErrorReason } from "../eval/evalErrors.ts"
import { htmlReport } from "../eval/html.ts"
import { caseLocator, casesFileOf } from "../eval/caseLocations.ts"
import { evalAnnotations, evalMarkdown } from "../eval/ciReport.ts"
import { jsonReportValue, junitReport, type Report, type ReportFormat, textReport } from "../eval/report.ts"
import type { Shard, ShardRecord } from "../eval/shard.ts"
import { rustJson } from "../model/rustJson.ts"
import { FileLoader, writeTargetProblem, writeUserFile } from "../platform/FileLoader.ts"
import { osErrorText } from "../platform/process.ts"
import { printLine } from "./output.ts"
import { appendStepSummary, githubWorkspace, printAnnotations, readIfReadable } from "./ciOutput.ts"

export { fewRunsWarning } from "../eval/baseline.ts"

export interface BaselineOptions {
  readonly baseline: string | undefined
  readonly saveBaseline: string | undefined
  readonly significance: number
  readonly failOnRegression: boolean
  readonly shard?: Shard | undefined
}

/** Read before any run, so that a bad --baseline costs no model call. */
export const loadBaseline = (path: string) =>
  Effect.gen(function*() {
    const loader = yield* FileLoader
    const text = yield* loader.readText(path, { waitForWriter: true }).pipe(
      Effect.mapError((e) =>
        new EvalError({
          reason: { _tag: "BaselineReadFailed", path, detail: causeDetail(e) }
        })
      )
    )
    const parsed = parseBaseline(text, path)
    return parsed instanceof EvalError ? yield* parsed : parsed
  })

const reportWriteFailure = (path: string, e: unknown) =>
  new EvalError({ reason: { _tag: "ReportWriteFailed", path, detail: osErrorText(e) } })

/** `-o PATH` that could never be written fails before any run has cost anything. */
export const checkReportTarget = (path: string) =>
  Effect.suspend(() => {
    const problem = writeTargetProblem(path, { createDirs: false })
    return problem === undefined ? Effect.void : Effect.fail(reportWriteFailure(path, problem))
  })

export interface RenderOptions {
  /** The eval file as given. */
  readonly file: string
  readonly comparison?: Comparison | undefined
  /** With --shard: the JSON report records which shard of which eval it is. */
  readonly shard?: ShardRecord | undefined
  /**
   * The verdict the exit code follows, which the HTML page shows: `fails` is why the eval fails,
   * undefined when it passes. Without it (a Ctrl-C report) the page judges by the cases alone.
   */
  readonly verdict?: { readonly fails: EvalErrorReason | undefined } | undefined
}

/** What `--format` takes: the reports, and for CI `github` (text, then annotations) and `markdown`. */
export type EvalFormat = ReportFormat | "github" | "markdown"

/** Why the eval fails as `lait: …` says it, undefined when it passes or when no verdict is known. */
const failsText = (options: RenderOptions): string | undefined => {
  const fails = options.verdict?.fails
  return fails === undefined ? undefined : new EvalError({ reason: fails }).message
}

/** The report in `format` with every secret masked (src/core/redaction.ts): reports are CI artifacts. */
export const renderEvalReport = (report: Report, format: EvalFormat, options: RenderOptions): string => {
  if (format === "markdown") {
    const { file, comparison } = options
    return redact(evalMarkdown(report, { file, comparison, fails: failsText(options) }))
  }
  const base = format === "github" ? "text" : format
  return (base === "junit" || base === "html" ? redactMarkup : redact)(renderUnmasked(report, base, options))
}

const renderUnmasked = (report: Report, format: ReportFormat, options: RenderOptions): string => {
  const { file, comparison, shard } = options
  if (format === "json") {
    const value = jsonReportValue(report)
    if (comparison === undefined && shard === undefined) return rustJson(value)
    const extra = {
      ...(comparison === undefined ? {} : { baseline: comparisonValue(comparison) }),
      ...(shard === undefined ? {} : { shard })
    }
    // A single target's array needs an object around it to carry them; a matrix is one.
    return rustJson(Array.isArray(value) ? { cases: value, ...extra } : { ...(value as object), ...extra })
  }
  if (format === "junit") {
    const xml = junitReport(report, { file })
    return comparison === undefined ? xml : junitWithComparison(xml, comparison)
  }
  if (format === "html") {
    const fails = failsText(options)
    return htmlReport(report, {
      file,
      verdict: options.verdict === undefined
        ? undefined
        : fails === undefined
        ? { pass: true }
        : { pass: false, reason: fails },
      ...(comparison === undefined ? {} : { baseline: comparisonText(comparison) })
    })
  }
  const text = textReport(report)
  return comparison === undefined ? text : `${text}\n${comparisonText(comparison)}`
}

type BudgetStop = Extract<EvalErrorReason, { _tag: "BudgetReached" }>

/**
 * Why the eval fails, the reason its exit code and every report's verdict come from; undefined when it
 * passes. A --max-cost stop fails it first. With --fail-on-regression the baseline decides (a case or
 * the pooled runs regressed, else runs that could not run); otherwise a case that was not accepted
 * fails it, and runs that could not run when nothing else did.
 */
export const verdictOf = (
  report: Report,
  comparison: Comparison | undefined,
  options: { readonly minPassRate: number | undefined; readonly budgetStop?: BudgetStop | undefined }
): EvalErrorReason | undefined => {
  if (options.budgetStop !== undefined) return options.budgetStop
  const errorRuns = report.suite.errorRuns
  const couldNotRun: EvalErrorReason = { _tag: "RunsCouldNotRun", runs: errorRuns }
  if (comparison?.failOnRegression === true) {
    if (comparison.regression) return regressionReason(comparison)
    return errorRuns > 0 ? couldNotRun : undefined
  }
  if (report.ok) return undefined
  const failed = report.cases.some((c) => c.stats.total > 0 && !c.stats.accepted) ||
    report.cases.some((c) => c.outcome.notStarted > 0 && !report.partial)
  if (!failed && errorRuns > 0) return couldNotRun
  const minRate = options.minPassRate
  return { _tag: "CasesFailed", ...(minRate === undefined ? {} : { minRate }) }
}

/** The report on stdout, or in `output` (`-` is stdout). */
export const writeReport = (body: string, output: string | undefined): Effect.Effect<void, OutputError | EvalError> =>
  output === undefined || output === "-"
    ? printLine(body)
    : writeUserFile(output, `${body}\n`, { createDirs: false }).pipe(
      Effect.mapError((e) => reportWriteFailure(output, e))
    )

/** Writes the report, saves the baseline, and fails with the exit code the outcome calls for. */
export const finishEval = Effect.fn("cli.eval.finish")(function*(
  report: Report,
  options: {
    readonly format: EvalFormat
    readonly file: string
    /** The eval file whose lines annotations point at (a merge: the one its shards ran), if known. */
    readonly evalFile?: string | undefined
    /** `-o PATH`; undefined or `-` for stdout. */
    readonly output: string | undefined
    readonly minPassRate: number | undefined
    readonly baseline: BaselineOptions
    /** Read up front by `loadBaseline`. */
    readonly baselineFile: ReturnType<typeof baselineOf> | undefined
    /** With --shard: what the JSON report records. */
    readonly shard?: ShardRecord | undefined
    /** Where --max-cost stopped the eval. */
    readonly budgetStop?: BudgetStop | undefined
    /** Run after the report, before the verdict (the --show-usage lines). */
    readonly beforeVerdict?: Effect.Effect<void> | undefined
  }
) {
  const b = options.baseline
  const comparison = options.baselineFile === undefined || b.baseline === undefined
    ? undefined
    : compareWithBaseline(report, options.baselineFile, {
      file: b.baseline,
      significance: b.significance,
      shard: b.shard,
      failOnRegression: b.failOnRegression
    })
  const verdict = verdictOf(report, comparison, options)
  const renderOptions: RenderOptions = {
    file: options.file,
    comparison,
    shard: options.shard,
    verdict: { fails: verdict }
  }
  yield* writeReport(renderEvalReport(report, options.format, renderOptions), options.output)
  if (options.format === "github") {
    // On stdout even under `-o FILE`: that is where the runner reads workflow commands.
    const evalFile = options.evalFile
    const evalText = evalFile === undefined ? undefined : yield* readIfReadable(evalFile)
    const casesFile = evalFile === undefined ? undefined : casesFileOf(evalFile, evalText)
    const casesText = casesFile === undefined ? undefined : yield* readIfReadable(casesFile)
    yield* printAnnotations(evalAnnotations(report, {
      locate: evalFile === undefined ? undefined : caseLocator(evalFile, evalText, casesText),
      comparison,
      workspace: githubWorkspace()
    }))
  }
  yield* appendStepSummary(() => renderEvalReport(report, "markdown", renderOptions))
  if (b.saveBaseline !== undefined && report.incomplete !== undefined) {
    yield* Console.error(`warning: no baseline saved to '${b.saveBaseline}': the merged report is partial`)
  } else if (b.saveBaseline !== undefined && !report.partial) {
    const path = b.saveBaseline
    yield* writeUserFile(path, formatBaseline(baselineOf(report))).pipe(
      Effect.mapError((e) => new EvalError({ reason: { _tag: "BaselineWriteFailed", path, detail: osErrorText(e) } }))
    )
    const cases = new Set(report.cases.map((c) => c.outcome.index)).size
    const targets = report.targets === undefined ? "" : ` on ${report.targets.length} target(s)`
    yield* Console.error(`note: saved the baseline of ${cases} case(s)${targets} to '${path}'`)
  }
  if (options.beforeVerdict !== undefined) yield* options.beforeVerdict
  if (verdict !== undefined) return yield* new EvalError({ reason: verdict })
})
