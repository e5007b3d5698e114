// The eval reports (docs/evals.md#reports plus the reliability statistics):
//   text  — upstream's lines (`<name>: p/t (pct%) PASS|FAIL`, `  run r: <failure>`, the footer; a
//           case's name defaults to `case i`), and with --repeat > 1 a reliability block after
//           them, so the upstream lines stay a prefix. Comparing `targets:`, one column per target;
//   json  — upstream's compact array, each case extended with its statistics and each run with its
//           output, assertions, duration and usage; comparing targets, a matrix (cases × targets);
//   junit — one testcase per case (a testsuite per target); flaky cases carry a <flakyFailure> per
//           failed run (the Surefire rerun extension that Jenkins, GitLab and GitHub reporters read);
//   html  — src/eval/html.ts.
import { rustDebugString, rustFixed } from "../core/rustFormat.ts"
import { escapeControls } from "../core/terminalText.ts"
import { RustFloat, rustJson } from "../model/rustJson.ts"
import type { CaseOutcome, EvalOutcome, RunOutcome } from "./runner.ts"
import { type CaseStats, caseStats, everyRunErrored, type SuiteStats, suiteStats } from "./stats.ts"

export type ReportFormat = "text" | "json" | "junit" | "html"

export interface ReportOptions {
  readonly minPassRate?: number | undefined
}

export interface CaseReport {
  readonly outcome: CaseOutcome
  readonly stats: CaseStats
}

/** One target of an eval that compares `targets:`: its cases in order and their summary. */
export interface TargetReport {
  readonly name: string
  readonly cases: ReadonlyArray<CaseReport>
  readonly suite: SuiteStats
}

/** One case across the compared targets (cells in target order). */
export interface MatrixRow {
  readonly index: number
  readonly name: string
  /** The first target's outcome of the case: its input, as every cell of the row has it. */
  readonly first: CaseOutcome
  readonly cells: ReadonlyArray<CaseReport>
}

export interface Report {
  /** One per case; comparing targets, one per (case, target) in case order. */
  readonly cases: ReadonlyArray<CaseReport>
  readonly suite: SuiteStats
  /** Set when the eval compares `targets:`. */
  readonly targets: ReadonlyArray<TargetReport> | undefined
  readonly repeat: number
  readonly minPassRate: number | undefined
  /** Every case accepted and nothing left unrun: the eval passes. */
  readonly ok: boolean
  /** Ctrl-C stopped the eval: only the runs that finished are counted. */
  readonly partial: boolean
  /**
   * What a `lait eval merge --allow-partial` went without: the report lacks cases. Marked partial in
   * every format; its verdict is that of the cases it holds.
   */
  readonly incomplete: string | undefined
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
  const targets = outcome.targets?.map((name): TargetReport => {
    const own = cases.filter((c) => c.outcome.target === name)
    return { name, cases: own, suite: suiteStats(own.map((c) => c.stats)) }
  })
  return {
    cases,
    suite,
    targets,
    repeat: outcome.repeat,
    minPassRate: options.minPassRate,
    ok: outcome.budgetStop === undefined && outcome.partial !== true &&
      cases.every((c) => c.stats.accepted && c.outcome.notStarted === 0 && c.stats.errors === 0),
    partial: outcome.partial === true,
    incomplete: outcome.incomplete
  }
}

const pct = (stats: CaseStats) => rustFixed(stats.passAt1 * 100, 0)
const two = (x: number) => rustFixed(x, 2)

export const fullyPassed = (c: CaseReport) => c.stats.total > 0 && c.stats.passed === c.stats.total

/** `name:`, else `case <i>`. */
export const caseName = (c: CaseOutcome): string => c.name ?? `case ${c.index}`

/** The cases of a comparison, each with its targets' cells side by side. */
export const matrixRows = (report: Report): ReadonlyArray<MatrixRow> => {
  const rows = new Map<number, { name: string; first: CaseOutcome; cells: Array<CaseReport> }>()
  for (const c of report.cases) {
    const row = rows.get(c.outcome.index)
    if (row === undefined) rows.set(c.outcome.index, { name: caseName(c.outcome), first: c.outcome, cells: [c] })
    else row.cells.push(c)
  }
  return [...rows.entries()].map(([index, row]) => ({ index, ...row }))
}

const EXCERPT_CHARS = 200

/** The start of a run's output, quoted on one line. */
export const outputExcerpt = (output: string): string =>
  output.length > EXCERPT_CHARS ? `${rustDebugString(output.slice(0, EXCERPT_CHARS))}...` : rustDebugString(output)

const finishedRuns = (report: Report) => report.cases.reduce((n, c) => n + c.outcome.runs.length, 0)
const partialRuns = (report: Report) =>
  `interrupted after ${finishedRuns(report)} of ${report.cases.length * report.repeat} run(s) finished`

/** Why the report is partial (Ctrl-C, or a merge without every shard); undefined when it is whole. */
export const partialText = (report: Report): string | undefined =>
  report.partial ? partialRuns(report) : report.incomplete

// ---------------------------------------------------------------------------------------------------
// text

// Case names and inputs come from the eval file: control characters are shown escaped, not sent raw.
const oneLine = (text: string) => escapeControls(text.replace(/\s+/g, " ").trim())

const passCell = (c: CaseReport, partial: boolean): string => {
  const errors = c.stats.errors > 0 ? ` (${c.stats.errors} run(s) could not run)` : ""
  if (c.stats.total === 0) {
    return c.stats.errors > 0 ? `ERROR${errors}` : `not run (${partial ? "interrupted" : "stopped by --max-cost"})`
  }
  const cell = `${c.stats.passed}/${c.stats.total} (${pct(c.stats)}%) ${fullyPassed(c) ? "PASS" : "FAIL"}${errors}`
  const notStarted = c.outcome.notStarted
  return notStarted > 0 ? `${cell} (${notStarted} of ${c.stats.k} run(s) not started)` : cell
}

const caseLine = (c: CaseReport, partial: boolean): string => `${oneLine(caseName(c.outcome))}: ${passCell(c, partial)}`

/**
 * A failed case's failures, `  run r: <failure>` (`error: <error>` for a run that could not run), each
 * failed run followed by its output's start when no failure already quotes the whole output.
 */
const failureBlock = (c: CaseReport, prefix = ""): ReadonlyArray<string> => {
  if (c.stats.errors === 0 && (fullyPassed(c) || c.stats.total === 0)) return []
  const lines: Array<string> = []
  c.outcome.runs.forEach((run: RunOutcome, i) => {
    const error = run.error === true ? "error: " : ""
    for (const failure of run.failures) lines.push(`  ${prefix}run ${i + 1}: ${error}${failure}`)
    const output = run.output
    if (output === undefined || run.failures.length === 0) return
    const quoted = rustDebugString(output)
    if (!run.failures.some((f) => f.includes(quoted))) lines.push(`    output: ${outputExcerpt(output)}`)
  })
  return lines
}

const reliabilityCell = (s: CaseStats): string =>
  s.total === 0 ? s.label : `${s.label}  pass@1=${two(s.passAt1)}  pass^${s.k}=${s.passHatK ? 1 : 0}  ` +
    `95% CI [${two(s.wilson.lower)}, ${two(s.wilson.upper)}]${s.total < s.k ? ` (${s.total} of ${s.k} runs)` : ""}`

/** What replaces the pass rates when nothing was scored (./stats.ts's everyRunErrored). */
export const allErroredText = (s: SuiteStats): string =>
  `every run errored (${s.errorRuns} run(s), server or setup errors): no case could be scored`

const suiteLine = (s: SuiteStats, k: number): string =>
  everyRunErrored(s)
    ? allErroredText(s)
    : `mean pass@1=${two(s.meanPassAt1)}  pass^${k} ${s.passHatK} of ${s.cases} case(s)  ` +
      `stable-pass ${s.stablePass}, flaky ${s.flaky}, stable-fail ${s.stableFail}` +
      (s.notRun > 0 ? `, not-run ${s.notRun}` : "") + (s.errorCases > 0 ? `, error ${s.errorCases}` : "")

const errorRunsLine = (s: SuiteStats): ReadonlyArray<string> =>
  everyRunErrored(s)
    ? [allErroredText(s)]
    : s.errorRuns > 0
    ? [`${s.errorRuns} run(s) could not run (server or setup errors; not counted as failures)`]
    : []

const reliabilityLine = (c: CaseReport, minPassRate: number | undefined): string => {
  const s = c.stats
  if (s.total === 0) return `  ${oneLine(caseName(c.outcome))}: ${s.label}`
  const accepted = s.label === "flaky" && s.accepted && minPassRate !== undefined
    ? ` (accepted: pass@1 >= --min-pass-rate ${two(minPassRate)})`
    : ""
  const partial = s.total < s.k ? ` (${s.total} of ${s.k} runs)` : ""
  return `  ${oneLine(caseName(c.outcome))}: ${s.label}  pass@1=${two(s.passAt1)}  ` +
    `pass^${s.k}=${s.passHatK ? 1 : 0}  95% CI [${two(s.wilson.lower)}, ${two(s.wilson.upper)}]${partial}${accepted}`
}

/** Rows of cells padded into columns (the last column unpadded). */
const columns = (rows: ReadonlyArray<ReadonlyArray<string>>, indent = ""): Array<string> => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  const pad = (cell: string, i: number, row: ReadonlyArray<string>) =>
    i === row.length - 1 ? cell : cell.padEnd(widths[i]! + 2)
  return rows.map((r) => indent + r.map((cell, i) => pad(cell, i, r)).join(""))
}

const comparisonText = (report: Report, targets: ReadonlyArray<TargetReport>): string => {
  const partial = partialText(report)
  const lines: Array<string> = partial === undefined ? [] : [`partial results: ${partial}`]
  const rows = matrixRows(report)
  const header = ["case", ...targets.map((t) => t.name)]
  const cells = rows.map((r) => [oneLine(r.name), ...r.cells.map((c) => passCell(c, report.partial))])
  const table = columns([header, ...cells])
  lines.push(table[0]!)
  rows.forEach((row, i) => {
    lines.push(table[i + 1]!)
    for (const cell of row.cells) lines.push(...failureBlock(cell, `[${cell.outcome.target}] `))
  })
  for (const t of targets) lines.push(`${t.name}: ${t.suite.fullyPassed} of ${t.suite.cases} case(s) fully passed`)
  lines.push(...errorRunsLine(report.suite))
  if (report.repeat > 1) {
    const k = report.repeat
    lines.push(`reliability over ${k} runs per case (Wilson 95% interval):`)
    const reliability = rows.map((r) => [oneLine(r.name), ...r.cells.map((c) => reliabilityCell(c.stats))])
    lines.push(...columns([header, ...reliability], "  "))
    for (const t of targets) lines.push(`  ${t.name}: ${suiteLine(t.suite, k)}`)
  }
  return lines.join("\n")
}

export const textReport = (report: Report): string => {
  if (report.targets !== undefined) return comparisonText(report, report.targets)
  const partial = partialText(report)
  const lines: Array<string> = partial === undefined ? [] : [`partial results: ${partial}`]
  for (const c of report.cases) lines.push(caseLine(c, report.partial), ...failureBlock(c))
  lines.push(`${report.suite.fullyPassed} of ${report.suite.cases} case(s) fully passed`)
  lines.push(...errorRunsLine(report.suite))
  if (report.repeat > 1) {
    const k = report.repeat
    lines.push(`reliability over ${k} runs per case (Wilson 95% interval):`)
    for (const c of report.cases) lines.push(reliabilityLine(c, report.minPassRate))
    lines.push(`  all: ${suiteLine(report.suite, k)}`)
  }
  return lines.join("\n")
}

// ---------------------------------------------------------------------------------------------------
// json

const float = (x: number) => new RustFloat(x)

const runJson = (r: RunOutcome) => ({
  passed: r.failures.length === 0,
  failures: r.failures,
  ...(r.error === true ? { error: true } : {}),
  output: r.output ?? null,
  assertions: r.assertions?.map((a) => ({
    assertion: a.position,
    type: a.type,
    passed: a.passed,
    message: a.message,
    score: a.score === undefined ? undefined : float(a.score),
    reasoning: a.reasoning,
    skipped: a.skipped
  })) ?? [],
  duration_ms: r.durationMs,
  tokens: { prompt: r.usage.prompt, completion: r.usage.completion, total: r.usage.total },
  requests: r.usage.requests,
  cost_usd: r.usage.costUsd === undefined ? null : float(r.usage.costUsd)
})

/** A case's results: upstream's fields, then the statistics. */
const resultJson = (c: CaseReport, head: Readonly<Record<string, unknown>>, partial: boolean) => {
  const s = c.stats
  return {
    ...head,
    passed: s.passed,
    total: s.total,
    // serde writes NaN (0 of 0) as null
    success_rate: s.total === 0 ? null : float(s.passAt1),
    runs: c.outcome.runs.map(runJson),
    k: s.k,
    pass_at_1: s.total === 0 ? null : float(s.passAt1),
    pass_hat_k: s.passHatK,
    pass_at_k: s.passAtK === undefined ? null : float(s.passAtK),
    wilson_95: { lower: float(s.wilson.lower), upper: float(s.wilson.upper) },
    label: s.label,
    accepted: s.accepted,
    not_started: c.outcome.notStarted,
    errors: s.errors,
    ...(partial ? { partial: true } : {})
  }
}

const suiteJson = (s: SuiteStats) => ({
  cases: s.cases,
  fully_passed: s.fullyPassed,
  accepted: s.accepted,
  mean_pass_at_1: float(s.meanPassAt1),
  pass_hat_k: s.passHatK,
  stable_pass: s.stablePass,
  flaky: s.flaky,
  stable_fail: s.stableFail,
  not_run: s.notRun,
  error: s.errorCases,
  error_runs: s.errorRuns
})

const inputJson = (c: CaseOutcome) => c.inputValue ?? c.input

/**
 * The JSON report as a value; `lait eval merge` reads it back (src/eval/merge.ts). With a baseline
 * comparison (`baseline`), a single target's array becomes `{cases, baseline}` and a matrix gains
 * a `baseline` member.
 */
export const jsonReportValue = (report: Report): unknown => {
  if (report.targets !== undefined) {
    return {
      targets: report.targets.map((t) => ({ name: t.name, ...suiteJson(t.suite) })),
      cases: matrixRows(report).map((row) => ({
        case: row.index,
        name: row.name,
        input: inputJson(row.first),
        results: row.cells.map((c) => resultJson(c, { target: c.outcome.target }, partialText(report) !== undefined))
      }))
    }
  }
  return report.cases.map((c) => ({
    ...resultJson(c, { case: c.outcome.index, input: inputJson(c.outcome) }, partialText(report) !== undefined),
    name: caseName(c.outcome)
  }))
}

export const jsonReport = (report: Report): string => rustJson(jsonReportValue(report))

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

/** A named case's name; otherwise `case <i>: <input>` (the name before cases had names). */
const testName = (c: CaseOutcome): string => {
  if (c.named === true && c.name !== undefined) return c.name
  const input = oneLine(c.input)
  return `case ${c.index}: ${input.length > 80 ? `${input.slice(0, 77)}...` : input}`
}

export interface JunitOptions {
  /** The eval file as given: suite name and classname. */
  readonly file: string
}

const counts = (cases: ReadonlyArray<CaseReport>) => {
  const failures = cases.filter((c) => c.stats.total > 0 && !c.stats.accepted).length
  const errors = cases.filter((c) => c.stats.errors > 0 && (c.stats.total === 0 || c.stats.accepted)).length
  const skipped = cases.filter((c) => c.stats.total === 0 && c.stats.errors === 0).length
  const time = seconds(cases.reduce((sum, c) => sum + c.outcome.runs.reduce((t, r) => t + r.durationMs, 0), 0))
  return `tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time}"`
}

/** Comparing targets, one testsuite per target, named `<file> [<target>]`. */
export const junitReport = (report: Report, options: JunitOptions): string => {
  const suites = report.targets === undefined
    ? [{ name: options.file, cases: report.cases }]
    : report.targets.map((t) => ({ name: `${options.file} [${t.name}]`, cases: t.cases }))
  const why = partialText(report)
  const partial = why === undefined
    ? []
    : [`    <properties><property name="partial" value="${xmlEscape(why)}"/></properties>`]
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="lait eval" ${counts(report.cases)}>`,
    ...suites.flatMap((suite) => [
      `  <testsuite name="${xmlEscape(suite.name)}" ${counts(suite.cases)}>`,
      ...partial,
      ...junitCases(suite.cases, xmlEscape(options.file)),
      "  </testsuite>"
    ]),
    "</testsuites>"
  ].join("\n")
}

const junitCases = (cases: ReadonlyArray<CaseReport>, file: string): ReadonlyArray<string> => {
  const body: Array<string> = []
  for (const c of cases) {
    const s = c.stats
    const caseTime = seconds(c.outcome.runs.reduce((t, r) => t + r.durationMs, 0))
    body.push(`    <testcase name="${xmlEscape(testName(c.outcome))}" classname="${file}" time="${caseTime}">`)
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
      // A cost/latency that held unchecked (a replayed run) says so: it measured nothing.
      const skipped = c.outcome.runs.flatMap((run, i) =>
        (run.assertions ?? []).flatMap((a) =>
          a.skipped === undefined ? [] : [`\nrun ${i + 1}: assertion ${a.position} (${a.type}) skipped: ${a.skipped}`]
        )
      )
      body.push(
        `      <system-out>${
          xmlEscape(
            `${s.label}: pass@1=${two(s.passAt1)} pass^${s.k}=${s.passHatK ? 1 : 0} ` +
              `95% CI [${two(s.wilson.lower)}, ${two(s.wilson.upper)}] over ${s.total} run(s)${skipped.join("")}`
          )
        }</system-out>`
      )
    }
    body.push("    </testcase>")
  }
  return body
}
