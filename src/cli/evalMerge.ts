// The flags `lait eval` gained for teams (--jobs, --shard, the baseline flags), and `lait eval merge
// a.json b.json …`, which turns the JSON reports of shards (--shard K/N, on one machine or many) into
// the report one run over all the cases would have printed, in any format, with the same baseline
// comparison and exit code; only when every shard is there (src/eval/mergeShards.ts), unless
// --allow-partial. Everything heavy is loaded on demand.
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { switchFlag, valueFlag } from "./flags/make.ts"
import { causeDetail } from "../core/errors.ts"
import { EvalError } from "../eval/evalErrors.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { formatFlag, outputFlag } from "./flags/output.ts"
import { checkBaselineFlags, DEFAULT_JOBS, DEFAULT_SIGNIFICANCE } from "./evalRun.ts"

const baselineFlags = {
  baseline: valueFlag(
    "baseline", "FILE", "Compare each case's pass rate with FILE (from --save-baseline) by Fisher's exact test"
  ),
  saveBaseline: valueFlag("save-baseline", "FILE", "Write each case's pass counts to FILE, for a later --baseline"),
  significance: Flag.Finite("significance").pipe(
    Flag.withMetavar("P"),
    Flag.withDescription(`With --baseline, call a change significant when p < P (default ${DEFAULT_SIGNIFICANCE})`),
    Flag.withDefault(DEFAULT_SIGNIFICANCE)
  ),
  failOnRegression: switchFlag(
    "fail-on-regression", "With --baseline, exit 1 exactly when a case regressed significantly"
  )
}

/** How an eval's report is written and judged: `lait eval` and `lait eval merge` alike. */
export const reportFlags = {
  format: formatFlag(
    ["text", "json", "junit", "html", "github", "markdown"],
    "Report format (html: one self-contained page; github: text and an annotation per failing case)"
  ),
  output: outputFlag("report"),
  minPassRate: Flag.Finite("min-pass-rate").pipe(
    Flag.withMetavar("R"),
    Flag.withDescription("Accept a flaky case whose pass rate is at least R (0 to 1); the exit code follows"),
    Flag.optional
  )
}

export const scaleFlags = {
  jobs: Flag.Int("jobs").pipe(
    Flag.withAlias("j"),
    Flag.withMetavar("N"),
    Flag.withDescription(`Run at most N (case, repeat) runs at once (default ${DEFAULT_JOBS})`),
    Flag.withDefault(DEFAULT_JOBS)
  ),
  shard: valueFlag(
    "shard", "K/N", "Run only shard K of N (a stable split of the cases); combine with 'lait eval merge'"
  ),
  ...baselineFlags
}

export const evalMergeCommand = Command.make(
  "merge",
  {
    reports: Argument.String("report").pipe(
      Argument.withDescription("JSON reports of 'lait eval --format json' (the shards of one suite)"),
      Argument.variadic({ min: 1 })
    ),
    ...reportFlags,
    ...baselineFlags,
    allowPartial: switchFlag(
      "allow-partial", "Merge even when a shard's report is missing or records no shard; mark the report partial"
    )
  },
  Effect.fn("cli.eval.merge")(function*({ reports: paths, format, output, minPassRate, allowPartial, ...flags }) {
    const minRate = Option.getOrUndefined(minPassRate)
    if (minRate !== undefined && (minRate < 0 || minRate > 1)) {
      return yield* new ArgumentError({
        reason: {
          _tag: "InvalidValue",
          flag: "--min-pass-rate <R>",
          value: String(minRate),
          expected: "a number from 0 to 1"
        }
      })
    }
    const baselineOptions = yield* checkBaselineFlags(flags)
    const [{ listed, mergeReports, parseJsonReport }, shardSet, { buildReport }, finish] = yield* Effect.promise(() =>
      Promise.all([
        import("../eval/merge.ts"),
        import("../eval/mergeShards.ts"),
        import("../eval/report.ts"),
        import("./evalReport.ts")
      ])
    )
    const reportPath = Option.getOrUndefined(output)
    if (reportPath !== undefined && reportPath !== "-") yield* finish.checkReportTarget(reportPath)
    const baselineFile = baselineOptions.baseline === undefined
      ? undefined
      : yield* finish.loadBaseline(baselineOptions.baseline)
    const loader = yield* FileLoader
    const inputs = []
    for (const path of paths) {
      const text = yield* loader.readText(path, { waitForWriter: true }).pipe(
        Effect.mapError((e) =>
          new EvalError({
            reason: { _tag: "ReportReadFailed", path, detail: causeDetail(e) }
          })
        )
      )
      const report = parseJsonReport(text, path)
      if (report instanceof EvalError) return yield* report
      inputs.push({ path, report })
    }
    const otherEval = shardSet.checkSameEval(inputs)
    if (otherEval !== undefined) return yield* otherEval
    const merged = mergeReports(inputs)
    if (merged instanceof EvalError) return yield* merged
    const shards = shardSet.checkComplete(inputs, allowPartial)
    if (shards instanceof EvalError) return yield* shards
    if (shards.warning !== undefined) yield* Console.error(shards.warning)
    // The shards' own warning already says what is missing.
    if (merged.gaps.length > 0 && shards.warning === undefined) {
      yield* Console.error(
        `warning: no report holds case(s) ${listed(merged.gaps)}; is a shard missing?`
      )
    }
    if (baselineFile !== undefined) {
      const warning = finish.fewRunsWarning(baselineFile.repeat, merged.outcome.repeat, baselineOptions.significance)
      if (warning !== undefined) yield* Console.error(warning)
    }
    const report = buildReport({ ...merged.outcome, incomplete: shards.incomplete }, { minPassRate: minRate })
    yield* finish.finishEval(report, {
      format,
      file: "lait eval merge",
      evalFile: inputs.find((input) => input.report.shard !== undefined)?.report.shard?.file,
      output: reportPath,
      minPassRate: minRate,
      baseline: baselineOptions,
      baselineFile
    })
  })
).pipe(
  Command.withDescription("Combine the JSON reports of eval shards into one report, as from a single run")
)
