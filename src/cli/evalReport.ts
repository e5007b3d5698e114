// What `lait eval` and `lait eval merge` do with a finished eval: write the report (with the baseline
// comparison, when asked) to stdout or `-o FILE`, save a baseline, and choose the exit code. Loaded on
// demand with the rest of the eval code.
//
// Exit codes: with --fail-on-regression the baseline decides (1 when a case regressed significantly,
// else 4 when runs could not run, else 0); otherwise 1 when a case failed, 4 when every failure was a
// run that could not run (a server or setup error is never the model's quality), 0 when all passed.
import { Console, Effect } from "effect"
import { type OutputError, renderChain } from "../core/errors.ts"
import { redact, redactMarkup } from "../core/redaction.ts"
import {
  baselineOf,
  type Comparison,
  compareWithBaseline,
  comparisonText,
  comparisonValue,
  formatBaseline,
  junitWithComparison,
  parseBaseline
} from "../eval/baseline.ts"
import { EvalError } from "../eval/evalErrors.ts"
import { htmlReport } from "../eval/html.ts"
import { jsonReportValue, junitReport, type Report, type ReportFormat, textReport } from "../eval/report.ts"
import type { Shard } from "../eval/shard.ts"
import { rustJson } from "../model/rustJson.ts"
import { FileLoader, writeTargetProblem, writeUserFile } from "../platform/FileLoader.ts"
import { osErrorText } from "../platform/process.ts"
import { printLine } from "./output.ts"

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
          reason: { _tag: "BaselineReadFailed", path, detail: e.cause === undefined ? e.message : renderChain(e.cause) }
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

/** The report in `format` with every secret masked (src/core/redaction.ts): reports are CI artifacts. */
export const renderEvalReport = (
  report: Report,
  format: ReportFormat,
  file: string,
  comparison: Comparison | undefined
): string =>
  (format === "junit" || format === "html" ? redactMarkup : redact)(
    renderUnmasked(report, format, file, comparison)
  )

const renderUnmasked = (
  report: Report,
  format: ReportFormat,
  file: string,
  comparison: Comparison | undefined
): string => {
  if (format === "json") {
    if (comparison === undefined) return rustJson(jsonReportValue(report))
    const value = jsonReportValue(report)
    const baseline = comparisonValue(comparison)
    // A single target's array needs an object around it to carry the comparison; a matrix is one.
    return rustJson(Array.isArray(value) ? { cases: value, baseline } : { ...(value as object), baseline })
  }
  if (format === "junit") {
    const xml = junitReport(report, { file })
    return comparison === undefined ? xml : junitWithComparison(xml, comparison)
  }
  if (format === "html") {
    return htmlReport(report, { file, ...(comparison === undefined ? {} : { baseline: comparisonText(comparison) }) })
  }
  const text = textReport(report)
  return comparison === undefined ? text : `${text}\n${comparisonText(comparison)}`
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
    readonly format: ReportFormat
    readonly file: string
    /** `-o PATH`; undefined or `-` for stdout. */
    readonly output: string | undefined
    readonly minPassRate: number | undefined
    readonly baseline: BaselineOptions
    /** Read up front by `loadBaseline`. */
    readonly baselineFile: ReturnType<typeof baselineOf> | undefined
    /** Checked by the caller after the report (the --max-cost stop). */
    readonly beforeVerdict?: Effect.Effect<void, EvalError> | undefined
  }
) {
  const b = options.baseline
  const comparison = options.baselineFile === undefined || b.baseline === undefined
    ? undefined
    : compareWithBaseline(report, options.baselineFile, {
      file: b.baseline,
      significance: b.significance,
      shard: b.shard
    })
  yield* writeReport(renderEvalReport(report, options.format, options.file, comparison), options.output)
  if (b.saveBaseline !== undefined && !report.partial) {
    const path = b.saveBaseline
    yield* writeUserFile(path, formatBaseline(baselineOf(report))).pipe(
      Effect.mapError((e) => new EvalError({ reason: { _tag: "BaselineWriteFailed", path, detail: osErrorText(e) } }))
    )
    const cases = new Set(report.cases.map((c) => c.outcome.index)).size
    const targets = report.targets === undefined ? "" : ` on ${report.targets.length} target(s)`
    yield* Console.error(`note: saved the baseline of ${cases} case(s)${targets} to '${path}'`)
  }
  if (options.beforeVerdict !== undefined) yield* options.beforeVerdict
  const errorRuns = report.suite.errorRuns
  const couldNotRun = new EvalError({ reason: { _tag: "RunsCouldNotRun", runs: errorRuns } })
  if (b.failOnRegression && comparison !== undefined) {
    const regressed = comparison.counts.regressed
    if (regressed > 0) {
      return yield* new EvalError({
        reason: { _tag: "Regressed", count: regressed, file: comparison.file, significance: comparison.significance }
      })
    }
    if (errorRuns > 0) return yield* couldNotRun
    return
  }
  if (report.ok) return
  const failed = report.cases.some((c) => c.stats.total > 0 && !c.stats.accepted) ||
    report.cases.some((c) => c.outcome.notStarted > 0 && !report.partial)
  if (!failed && errorRuns > 0) return yield* couldNotRun
  const minRate = options.minPassRate
  return yield* new EvalError({ reason: { _tag: "CasesFailed", ...(minRate === undefined ? {} : { minRate }) } })
})
