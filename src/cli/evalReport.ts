// What `lait eval` and `lait eval merge` do with a finished eval: print the report (with the baseline
// comparison, when asked), save a baseline, and choose the exit code. Loaded on demand with the rest
// of the eval code.
//
// Exit codes: with --fail-on-regression the baseline decides (1 when a case regressed significantly,
// else 4 when runs could not run, else 0); otherwise 1 when a case failed, 4 when every failure was a
// run that could not run (a server or setup error is never the model's quality), 0 when all passed.
import { Console, Effect } from "effect"
import { LaitError, ModelApiError, ValidationError } from "../core/errors.ts"
import { FileLoader, writeUserFile } from "../platform/FileLoader.ts"
import { osErrorText } from "../platform/process.ts"
import {
  baselineOf,
  type Comparison,
  compareWithBaseline,
  comparisonJson,
  comparisonText,
  formatBaseline,
  junitWithComparison,
  parseBaseline
} from "../eval/baseline.ts"
import { jsonReport, junitReport, type Report, type ReportFormat, textReport } from "../eval/report.ts"
import type { Shard } from "../eval/shard.ts"
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
        new LaitError({ message: `failed to read baseline '${path}'`, cause: e.cause ?? e.message })
      )
    )
    const parsed = parseBaseline(text, path)
    return parsed instanceof ValidationError ? yield* parsed : parsed
  })

export const renderEvalReport = (
  report: Report,
  format: ReportFormat,
  file: string,
  comparison: Comparison | undefined
): string => {
  if (format === "json") {
    const cases = jsonReport(report)
    return comparison === undefined ? cases : `{"cases":${cases},"baseline":${comparisonJson(comparison)}}`
  }
  if (format === "junit") {
    const xml = junitReport(report, { file })
    return comparison === undefined ? xml : junitWithComparison(xml, comparison)
  }
  const text = textReport(report)
  return comparison === undefined ? text : `${text}\n${comparisonText(comparison)}`
}

/** Prints the report, saves the baseline, and fails with the exit code the outcome calls for. */
export const finishEval = Effect.fn("cli.eval.finish")(function*(
  report: Report,
  options: {
    readonly format: ReportFormat
    readonly file: string
    readonly minPassRate: number | undefined
    readonly baseline: BaselineOptions
    /** Read up front by `loadBaseline`. */
    readonly baselineFile: ReturnType<typeof baselineOf> | undefined
    /** Checked by the caller after the report (the --max-cost stop). */
    readonly beforeVerdict?: Effect.Effect<void, LaitError> | undefined
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
  yield* printLine(renderEvalReport(report, options.format, options.file, comparison))
  if (b.saveBaseline !== undefined && !report.partial) {
    const path = b.saveBaseline
    yield* writeUserFile(path, formatBaseline(baselineOf(report))).pipe(
      Effect.mapError((e) => new LaitError({ message: `failed to write baseline '${path}'`, cause: osErrorText(e) }))
    )
    yield* Console.error(`note: saved the baseline of ${report.cases.length} case(s) to '${path}'`)
  }
  if (options.beforeVerdict !== undefined) yield* options.beforeVerdict
  const errorRuns = report.suite.errorRuns
  const couldNotRun = new ModelApiError({
    message: `${errorRuns} run(s) could not run (server or setup errors; see the report)`
  })
  if (b.failOnRegression && comparison !== undefined) {
    const regressed = comparison.counts.regressed
    if (regressed > 0) {
      return yield* new LaitError({
        message: `${regressed} eval case(s) regressed against the baseline '${comparison.file}' ` +
          `(Fisher's exact test, p < ${comparison.significance})`
      })
    }
    if (errorRuns > 0) return yield* couldNotRun
    return
  }
  if (report.ok) return
  const failed = report.cases.some((c) => c.stats.total > 0 && !c.stats.accepted) ||
    report.cases.some((c) => c.outcome.notStarted > 0 && !report.partial)
  if (!failed && errorRuns > 0) return yield* couldNotRun
  return yield* new LaitError({
    message: options.minPassRate === undefined
      ? "one or more eval cases did not fully pass"
      : `one or more eval cases did not pass (a flaky case needs a pass rate of at least ${options.minPassRate})`
  })
})
