// The three eval reports, all for stdout (docs/evals.md#reports plus the reliability statistics):
//   text  — upstream's lines (`case i: p/t (pct%) PASS|FAIL`, `  run r: <failure>`, the footer), and
//           with --repeat > 1 a reliability block after them, so the upstream lines stay a prefix;
//   json  — upstream's compact array, each case extended with its statistics;
//   junit — one testcase per case; flaky cases carry a <flakyFailure> per failed run (the
//           Surefire rerun extension that Jenkins, GitLab and GitHub reporters read).
import { rustFixed } from "../core/rustFormat.ts"
import { RustFloat, rustJson } from "../model/rustJson.ts"
import type { CaseOutcome, EvalOutcome } from "./runner.ts"
import { type CaseStats, caseStats, type SuiteStats, suiteStats } from "./stats.ts"

export type ReportFormat = "text" | "json" | "junit"
export const REPORT_FORMATS: ReadonlyArray<ReportFormat> = ["text", "json", "junit"]

export interface ReportOptions {
  readonly minPassRate?: number | undefined
}

export interface CaseReport {
  readonly outcome: CaseOutcome
  readonly stats: CaseStats
}

export interface Report {
  readonly cases: ReadonlyArray<CaseReport>
  readonly suite: SuiteStats
  readonly repeat: number
  readonly minPassRate: number | undefined
  /** Every case accepted and nothing left unrun: the eval passes. */
  readonly ok: boolean
  /** Ctrl-C stopped the eval: only the runs that finished are counted. */
  readonly partial: boolean
}

export const buildReport = (outcome: EvalOutcome, options: ReportOptions = {}): Report => {
  const cases = outcome.cases.map((c): CaseReport => {
    // Runs that could not run are no verdict on the model: out of the rates, counted apart.
    const errors = c.runs.filter((r) => r.error === true).length
    const passed = c.runs.filter((r) => r.failures.length === 0 && r.error !== true).length
    return {
      outcome: c,
      stats: caseStats(passed, c.runs.length - errors, outcome.repeat, options.minPassRate, errors)
    }
  })
  const suite = suiteStats(cases.map((c) => c.stats))
  return {
    cases,
    suite,
    repeat: outcome.repeat,
    minPassRate: options.minPassRate,
    ok: outcome.budgetStop === undefined && outcome.partial !== true &&
      cases.every((c) => c.stats.accepted && c.outcome.notStarted === 0 && c.stats.errors === 0),
    partial: outcome.partial === true
  }
}

const pct = (stats: CaseStats) => rustFixed(stats.passAt1 * 100, 0)
const two = (x: number) => rustFixed(x, 2)

const fullyPassed = (c: CaseReport) => c.stats.total > 0 && c.stats.passed === c.stats.total

const finishedRuns = (report: Report) => report.cases.reduce((n, c) => n + c.outcome.runs.length, 0)
const partialRuns = (report: Report) =>
  `interrupted after ${finishedRuns(report)} of ${report.cases.length * report.repeat} run(s) finished`

// ---------------------------------------------------------------------------------------------------
// text

const caseLine = (c: CaseReport, partial: boolean): string => {
  const { index, notStarted } = c.outcome
  const errors = c.stats.errors > 0 ? ` (${c.stats.errors} run(s) could not run)` : ""
  if (c.stats.total === 0) {
    return c.stats.errors > 0
      ? `case ${index}: ERROR${errors}`
      : `case ${index}: not run (${partial ? "interrupted" : "stopped by --max-cost"})`
  }
  const line = `case ${index}: ${c.stats.passed}/${c.stats.total} (${pct(c.stats)}%) ${
    fullyPassed(c) ? "PASS" : "FAIL"
  }${errors}`
  return notStarted > 0 ? `${line} (${notStarted} of ${c.stats.k} run(s) not started)` : line
}

const reliabilityLine = (c: CaseReport, minPassRate: number | undefined): string => {
  const s = c.stats
  if (s.total === 0) return `  case ${c.outcome.index}: ${s.label}`
  const accepted = s.label === "flaky" && s.accepted && minPassRate !== undefined
    ? ` (accepted: pass@1 >= --min-pass-rate ${two(minPassRate)})`
    : ""
  const partial = s.total < s.k ? ` (${s.total} of ${s.k} runs)` : ""
  return `  case ${c.outcome.index}: ${s.label}  pass@1=${two(s.passAt1)}  pass^${s.k}=${s.passHatK ? 1 : 0}  ` +
    `95% CI [${two(s.wilson.lower)}, ${two(s.wilson.upper)}]${partial}${accepted}`
}

export const textReport = (report: Report): string => {
  const lines: Array<string> = []
  if (report.partial) lines.push(`partial results: ${partialRuns(report)}`)
  for (const c of report.cases) {
    lines.push(caseLine(c, report.partial))
    if (fullyPassed(c) && c.stats.errors === 0) continue
    if (c.stats.total === 0 && c.stats.errors === 0) continue
    c.outcome.runs.forEach((run, i) => {
      for (const failure of run.failures) lines.push(`  run ${i + 1}: ${run.error === true ? "error: " : ""}${failure}`)
    })
  }
  lines.push(`${report.suite.fullyPassed} of ${report.suite.cases} case(s) fully passed`)
  if (report.suite.errorRuns > 0) {
    lines.push(`${report.suite.errorRuns} run(s) could not run (server or setup errors; not counted as failures)`)
  }
  if (report.repeat > 1) {
    const k = report.repeat
    lines.push(`reliability over ${k} runs per case (Wilson 95% interval):`)
    for (const c of report.cases) lines.push(reliabilityLine(c, report.minPassRate))
    const s = report.suite
    lines.push(
      `  all: mean pass@1=${two(s.meanPassAt1)}  pass^${k} ${s.passHatK} of ${s.cases} case(s)  ` +
        `stable-pass ${s.stablePass}, flaky ${s.flaky}, stable-fail ${s.stableFail}` +
        (s.notRun > 0 ? `, not-run ${s.notRun}` : "") + (s.errorCases > 0 ? `, error ${s.errorCases}` : "")
    )
  }
  return lines.join("\n")
}

// ---------------------------------------------------------------------------------------------------
// json

const float = (x: number) => new RustFloat(x)

export const jsonReport = (report: Report): string =>
  rustJson(report.cases.map((c) => {
    const s = c.stats
    return {
      case: c.outcome.index,
      ...(c.outcome.name !== undefined ? { name: c.outcome.name } : {}),
      input: c.outcome.input,
      passed: s.passed,
      total: s.total,
      // serde writes NaN (0 of 0) as null
      success_rate: s.total === 0 ? null : float(s.passAt1),
      runs: c.outcome.runs.map((r) => ({
        passed: r.failures.length === 0,
        failures: r.failures,
        ...(r.error === true ? { error: true } : {})
      })),
      k: s.k,
      pass_at_1: s.total === 0 ? null : float(s.passAt1),
      pass_hat_k: s.passHatK,
      pass_at_k: s.passAtK === undefined ? null : float(s.passAtK),
      wilson_95: { lower: float(s.wilson.lower), upper: float(s.wilson.upper) },
      label: s.label,
      accepted: s.accepted,
      not_started: c.outcome.notStarted,
      errors: s.errors,
      ...(report.partial ? { partial: true } : {})
    }
  }))

// ---------------------------------------------------------------------------------------------------
// junit

// XML 1.0 cannot hold most C0 controls even escaped; they are replaced so the file stays well-formed.
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g

export const xmlEscape = (text: string): string =>
  text
    .replace(INVALID_XML, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")

const seconds = (ms: number) => (ms / 1000).toFixed(3)

const caseName = (c: CaseOutcome): string => {
  const oneLine = c.input.replace(/\s+/g, " ").trim()
  return `case ${c.index}: ${oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine}`
}

export interface JunitOptions {
  /** The eval file as given: suite name and classname. */
  readonly file: string
}

export const junitReport = (report: Report, options: JunitOptions): string => {
  const file = xmlEscape(options.file)
  const failures = report.cases.filter((c) => c.stats.total > 0 && !c.stats.accepted).length
  const errors = report.cases.filter((c) => c.stats.errors > 0 && (c.stats.total === 0 || c.stats.accepted)).length
  const skipped = report.cases.filter((c) => c.stats.total === 0 && c.stats.errors === 0).length
  const time = seconds(report.cases.reduce((sum, c) => sum + c.outcome.runs.reduce((t, r) => t + r.durationMs, 0), 0))
  const body: Array<string> = []
  for (const c of report.cases) {
    const s = c.stats
    const caseTime = seconds(c.outcome.runs.reduce((t, r) => t + r.durationMs, 0))
    body.push(`    <testcase name="${xmlEscape(caseName(c.outcome))}" classname="${file}" time="${caseTime}">`)
    const runErrors = c.outcome.runs.flatMap((run, i) =>
      run.error === true ? [`run ${i + 1}: ${run.failures[0]}`] : []
    )
    if (s.errors > 0 && (s.total === 0 || s.accepted)) {
      body.push(
        `      <error message="${xmlEscape(`${s.errors} run(s) could not run`)}" type="error">${
          xmlEscape(runErrors.join("\n"))
        }</error>`
      )
    }
    if (s.total === 0 && s.errors === 0) {
      body.push(`      <skipped message="not started: the --max-cost budget was reached"/>`)
    } else if (s.total > 0) {
      const runFailures = c.outcome.runs.flatMap((run, i) =>
        run.error === true ? [] : run.failures.map((f) => `run ${i + 1}: ${f}`)
      )
      if (!s.accepted) {
        const message = `${s.passed}/${s.total} runs passed (${pct(s)}%)` +
          (c.outcome.notStarted > 0 ? `; ${c.outcome.notStarted} not started` : "") +
          (s.errors > 0 ? `; ${s.errors} could not run` : "")
        body.push(
          `      <failure message="${xmlEscape(message)}" type="${s.label}">${
            xmlEscape(runFailures.join("\n"))
          }</failure>`
        )
      }
      if (s.label === "flaky") {
        c.outcome.runs.forEach((run, i) => {
          if (run.failures.length === 0 || run.error === true) return
          body.push(
            `      <flakyFailure message="${xmlEscape(`run ${i + 1}: ${run.failures[0]}`)}" type="flaky">` +
              `${xmlEscape(run.failures.join("\n"))}</flakyFailure>`
          )
        })
      }
      body.push(
        `      <system-out>${
          xmlEscape(
            `${s.label}: pass@1=${two(s.passAt1)} pass^${s.k}=${s.passHatK ? 1 : 0} ` +
              `95% CI [${two(s.wilson.lower)}, ${two(s.wilson.upper)}] over ${s.total} run(s)`
          )
        }</system-out>`
      )
    }
    body.push("    </testcase>")
  }
  const counts =
    `tests="${report.cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time}"`
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="lait eval" ${counts}>`,
    `  <testsuite name="${file}" ${counts}>`,
    ...(report.partial
      ? [`    <properties><property name="partial" value="${xmlEscape(partialRuns(report))}"/></properties>`]
      : []),
    ...body,
    "  </testsuite>",
    "</testsuites>"
  ].join("\n")
}
