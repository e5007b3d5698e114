// `lait eval --format github|markdown` and the job summary (docs/ci.md#annotations-and-summaries), made
// from the same Report (./report.ts) and baseline Comparison (./baseline.ts) the text, JSON, JUnit and
// HTML reports are: nothing is computed twice. Annotations: an `::error` per case that fails or has
// runs that could not run, at its failing assertion's line (./caseLocations.ts), a `::warning` per
// flaky case that --min-pass-rate accepted, and an `::error` per case the baseline says regressed.
// The Markdown: the verdict, the totals, every case's pass rate and label, the failures, the baseline.
import { rustFixed } from "../core/rustFormat.ts"
import { type Annotation, markdownCode, markdownTable, oneLine, workspacePath } from "../core/ciText.ts"
import { type CaseChange, changeName, type Comparison, countsText, pText, regressionText } from "./baseline.ts"
import type { CaseLocator } from "./caseLocations.ts"
import { allErroredText, type CaseReport, caseName, partialText, type Report } from "./report.ts"
import { everyRunErrored } from "./stats.ts"

const two = (x: number) => rustFixed(x, 2)
const percent = (c: CaseReport) => `${rustFixed(c.stats.passAt1 * 100, 0)}%`

/** `name`, `name [target]` when the eval compares targets. */
const title = (c: CaseReport) =>
  `${oneLine(caseName(c.outcome))}${c.outcome.target === undefined ? "" : ` [${c.outcome.target}]`}`

/** The first failure of a run that ran (not one that could not run): `run r: <failure>`. */
const firstFailure = (c: CaseReport) => {
  for (const [i, run] of c.outcome.runs.entries()) {
    if (run.error !== true && run.failures.length > 0) return { run: i + 1, text: run.failures[0]! }
  }
  return undefined
}

const firstError = (c: CaseReport) => {
  for (const [i, run] of c.outcome.runs.entries()) {
    if (run.error === true) return { run: i + 1, text: run.failures[0] ?? "could not run" }
  }
  return undefined
}

const assertionNumber = (reason: string): number | undefined => {
  const match = /^assertion (\d+): /.exec(reason)
  return match === null ? undefined : Number(match[1])
}

export interface EvalAnnotationContext {
  /** Where the eval's cases are written; undefined when no eval file is known (a merge of old reports). */
  readonly locate: CaseLocator | undefined
  readonly comparison: Comparison | undefined
  /** GITHUB_WORKSPACE: annotation paths are relative to it. */
  readonly workspace: string | undefined
}

export const evalAnnotations = (report: Report, context: EvalAnnotationContext): ReadonlyArray<Annotation> => {
  const at = (index: number, assertion: number | undefined) => {
    if (context.locate === undefined) return {}
    const where = context.locate(index, assertion)
    return { file: workspacePath(where.file, context.workspace), line: where.line }
  }
  const out: Array<Annotation> = []
  for (const c of report.cases) {
    const s = c.stats
    const errors = s.errors > 0 ? `; ${s.errors} run(s) could not run` : ""
    const failure = firstFailure(c)
    if (s.total > 0 && !s.accepted) {
      const why = failure === undefined ? "" : `: run ${failure.run}: ${oneLine(failure.text)}`
      out.push({
        level: "error",
        ...at(c.outcome.index, failure === undefined ? undefined : assertionNumber(failure.text)),
        title: title(c),
        message: `${s.label}: ${s.passed}/${s.total} runs passed (${percent(c)})${errors}${why}`
      })
    } else if (s.errors > 0) {
      const error = firstError(c)
      out.push({
        level: "error",
        ...at(c.outcome.index, undefined),
        title: title(c),
        message: `${s.errors} run(s) could not run` +
          (error === undefined ? "" : `: run ${error.run}: ${oneLine(error.text)}`)
      })
    } else if (s.label === "flaky") {
      const why = failure === undefined ? "" : `: run ${failure.run}: ${oneLine(failure.text)}`
      out.push({
        level: "warning",
        ...at(c.outcome.index, failure === undefined ? undefined : assertionNumber(failure.text)),
        title: title(c),
        message: `flaky, accepted by --min-pass-rate: ${s.passed}/${s.total} runs passed (${percent(c)})${why}`
      })
    }
  }
  const comparison = context.comparison
  for (const change of comparison?.cases ?? []) {
    if (change.status !== "regressed") continue
    out.push({
      level: "error",
      ...at(change.case, undefined),
      title: `${changeName(change)} regressed`,
      message: `regressed against baseline '${comparison!.file}': ${changeLine(change)}`
    })
  }
  if (comparison !== undefined && comparison.counts.regressed === 0 && comparison.overall.status === "regressed") {
    const o = comparison.overall
    out.push({
      level: "error",
      title: "all cases regressed",
      message: `${regressionText(comparison)}: ${countsText(o.before)} -> ${countsText(o.after)} (${pText(o.pValue)})`
    })
  }
  return out
}

const changeLine = (change: CaseChange) =>
  `${countsText(change.before!)} -> ${countsText(change.after!)} (${pText(change.pValue!)})`

export interface EvalMarkdownOptions {
  /** The eval file as given (`lait eval merge` for a merge). */
  readonly file: string
  readonly comparison: Comparison | undefined
  /** Why the eval fails (the message `lait: …` prints), undefined when it passes. */
  readonly fails: string | undefined
}

const suiteLine = (report: Report): string => {
  const s = report.suite
  if (everyRunErrored(s)) return allErroredText(s)
  return `${s.fullyPassed} of ${s.cases} case(s) fully passed; mean pass@1 ${two(s.meanPassAt1)}; ` +
    `stable-pass ${s.stablePass}, flaky ${s.flaky}, stable-fail ${s.stableFail}` +
    (s.notRun > 0 ? `, not-run ${s.notRun}` : "") + (s.errorCases > 0 ? `, error ${s.errorCases}` : "") +
    (s.errorRuns > 0 ? `; ${s.errorRuns} run(s) could not run` : "")
}

const caseRows = (report: Report) =>
  report.cases.map((c) => {
    const s = c.stats
    return [
      oneLine(caseName(c.outcome)),
      ...(report.targets === undefined ? [] : [c.outcome.target ?? ""]),
      s.total === 0 ? "0/0" : `${s.passed}/${s.total} (${percent(c)})`,
      s.total === 0 ? "" : two(s.passAt1),
      `${s.label}${s.label === "flaky" && s.accepted ? " (accepted)" : ""}`,
      s.total === 0 ? "" : `[${two(s.wilson.lower)}, ${two(s.wilson.upper)}]`
    ]
  })

/** A summary is read, not searched: GitHub shows at most 1 MiB of it per step. */
const FAILURE_ROWS = 50

const failureRows = (report: Report) =>
  report.cases.flatMap((c) =>
    c.outcome.runs.flatMap((run, i) =>
      run.failures.length === 0 ? [] : [[
        title(c),
        `${i + 1}`,
        `${run.error === true ? "could not run: " : ""}${run.failures.join("\n")}`
      ]]
    )
  )

const baselineSection = (c: Comparison): ReadonlyArray<string> => {
  const rows = c.cases.map((change) => [
    changeName(change),
    change.before === undefined ? "" : countsText(change.before),
    change.after === undefined ? "" : countsText(change.after),
    change.pValue === undefined ? "" : pText(change.pValue),
    change.status
  ])
  const o = c.overall
  rows.push(["all cases pooled", countsText(o.before), countsText(o.after), pText(o.pValue), o.status])
  return [
    "",
    "### Baseline",
    "",
    `Compared with ${markdownCode(c.file)} by Fisher's exact test (two-sided), significant at p < ${c.significance}.`,
    "",
    markdownTable(["Case", "Baseline", "This run", "p-value", "Change"], rows),
    "",
    c.regression ? `**Regressed**: ${regressionText(c)}.` : "No significant regression."
  ]
}

/** The Markdown of an eval's results, for GITHUB_STEP_SUMMARY and `--format markdown`. */
export const evalMarkdown = (report: Report, options: EvalMarkdownOptions): string => {
  const verdict = options.fails === undefined ? "✅ passed" : `❌ failed: ${options.fails}`
  const lines = [`## lait eval ${markdownCode(options.file)}`, "", `**${verdict}**`, "", suiteLine(report)]
  const partial = partialText(report)
  if (partial !== undefined) lines.push("", `Partial results: ${partial}.`)
  const header = ["Case", ...(report.targets === undefined ? [] : ["Target"]), "Passed", "pass@1", "Label", "95% CI"]
  lines.push("", `### Cases (${report.repeat} run(s) each)`, "", markdownTable(header, caseRows(report)))
  const failures = failureRows(report)
  if (failures.length > 0) {
    lines.push("", "### Failures", "", markdownTable(["Case", "Run", "Reason"], failures.slice(0, FAILURE_ROWS)))
    if (failures.length > FAILURE_ROWS) {
      lines.push("", `…and ${failures.length - FAILURE_ROWS} more failed run(s): the report has them all.`)
    }
  }
  if (options.comparison !== undefined) lines.push(...baselineSection(options.comparison))
  return lines.join("\n")
}
