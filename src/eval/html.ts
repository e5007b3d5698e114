// `lait eval --format html`: the report as one self-contained page, for people rather than CI. It
// loads nothing (inline CSS and a few lines of script, and a Content-Security-Policy that forbids
// any fetch), so it can be mailed, archived or opened from a CI artifact as it is. Every text that
// comes from the eval — names, inputs, outputs, messages, judge reasoning — is escaped.
// Sections: the summary, the comparison matrix (with several targets), then per target a row per
// case (pass rate, Wilson interval, label) whose runs expand to their output and assertions.
import { rustFixed } from "../core/rustFormat.ts"
import { allErroredText, type CaseReport, caseName, fullyPassed, matrixRows, type Report } from "./report.ts"
import type { RunOutcome } from "./runner.ts"
import { type CaseStats, everyRunErrored, type SuiteStats } from "./stats.ts"

export const htmlEscape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(
    /'/g,
    "&#39;"
  )

/** Outputs beyond this many characters are cut in the page (the JSON report keeps them whole). */
const OUTPUT_CHARS = 20_000

const two = (x: number) => rustFixed(x, 2)
const percent = (s: CaseStats) => `${rustFixed(s.passAt1 * 100, 0)}%`

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2330;background:#fbfbfd}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px}
.file{color:#5b6475;margin-bottom:16px}
.summary{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}
.stat{background:#fff;border:1px solid #dde1ea;border-radius:8px;padding:10px 14px;min-width:120px}
.stat b{display:block;font-size:20px}
.verdict-pass b{color:#17803d}.verdict-fail b{color:#b42318}
table{border-collapse:collapse;background:#fff;border:1px solid #dde1ea;width:100%}
th,td{border-bottom:1px solid #eceff4;padding:6px 10px;text-align:left;vertical-align:top}
th{background:#f1f3f8;font-weight:600}
.label{display:inline-block;border-radius:10px;padding:1px 8px;font-size:12px;font-weight:600}
.stable-pass{background:#dcfae6;color:#085d3a}.flaky{background:#fef0c7;color:#93370d}
.stable-fail{background:#fee4e2;color:#912018}.not-run{background:#eaecf0;color:#344054}
.error{background:#ede9fe;color:#4c1d95}pre.baseline{background:#fff;border:1px solid #dde1ea;padding:10px}
td.cell-stable-pass{background:#f0fdf4}td.cell-flaky{background:#fffbeb}td.cell-stable-fail{background:#fef3f2}
.input{color:#5b6475;max-width:28em;overflow-wrap:anywhere}
details{margin:2px 0}summary{cursor:pointer}
.run{border-left:3px solid #dde1ea;margin:6px 0 6px 4px;padding-left:8px}
.run.pass{border-color:#32d583}.run.fail{border-color:#f97066}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f7f9;border:1px solid #eceff4;border-radius:4px;
padding:6px 8px;max-height:24em;overflow:auto;margin:4px 0}
ul.asserts{margin:4px 0;padding-left:18px}.ok{color:#17803d}.bad{color:#b42318}
.reason{color:#344054;font-style:italic}.meta{color:#5b6475;font-size:12px}
.controls{margin:8px 0}.verdict-reason{color:#b42318;font-weight:600}`

// Hides the rows of cases that fully passed, so a long suite shows what needs attention.
const SCRIPT = `
document.getElementById("only-failing").addEventListener("change", function (e) {
  document.querySelectorAll("tr.case-pass").forEach(function (row) {
    row.style.display = e.target.checked ? "none" : "";
  });
});`

const label = (s: CaseStats) => `<span class="label ${s.label}">${s.label}</span>`

const interval = (s: CaseStats) => s.total === 0 ? "–" : `[${two(s.wilson.lower)}, ${two(s.wilson.upper)}]`

const rate = (s: CaseStats) => s.total === 0 ? "not run" : `${s.passed}/${s.total} (${percent(s)})`

const runDetails = (run: RunOutcome, index: number): string => {
  const passed = run.failures.length === 0
  const usage = run.usage
  const meta = [
    `${(run.durationMs / 1000).toFixed(2)} s`,
    `${usage.total} tokens (${usage.prompt} prompt + ${usage.completion} completion)`,
    ...(usage.costUsd === undefined ? [] : [`$${usage.costUsd.toFixed(4)}`])
  ].join(" · ")
  const parts = [`<div class="meta">${htmlEscape(meta)}</div>`]
  if (run.output !== undefined) {
    const cut = run.output.length > OUTPUT_CHARS
    const shown = cut ? `${run.output.slice(0, OUTPUT_CHARS)}\n… (${run.output.length} characters in all)` : run.output
    parts.push(`<div>output:</div><pre>${htmlEscape(shown)}</pre>`)
  }
  if (run.assertions !== undefined && run.assertions.length > 0) {
    const items = run.assertions.map((a) => {
      const verdict = a.skipped !== undefined
        ? `<span class="meta">skipped (${htmlEscape(a.skipped)})</span>`
        : a.passed
        ? `<span class="ok">pass</span>`
        : `<span class="bad">fail</span>`
      const score = a.score === undefined ? "" : ` score ${htmlEscape(two(a.score))}`
      const message = a.message === undefined ? "" : `: ${htmlEscape(a.message)}`
      const reasoning = a.reasoning === undefined ? "" : `<div class="reason">${htmlEscape(a.reasoning)}</div>`
      return `<li>assertion ${a.position} (${htmlEscape(a.type)}) ${verdict}${score}${message}${reasoning}</li>`
    })
    parts.push(`<ul class="asserts">${items.join("")}</ul>`)
  } else if (!passed) {
    parts.push(`<pre>${htmlEscape(run.failures.join("\n"))}</pre>`)
  }
  const title = `run ${index + 1}: ${passed ? "PASS" : "FAIL"}`
  return `<details class="run ${passed ? "pass" : "fail"}"${passed ? "" : " open"}><summary>${title}</summary>` +
    `${parts.join("")}</details>`
}

const caseRow = (c: CaseReport): string => {
  const s = c.stats
  const runs = c.outcome.runs
  const notStarted = c.outcome.notStarted > 0 ? ` <span class="meta">(${c.outcome.notStarted} not started)</span>` : ""
  const details = runs.length === 0
    ? ""
    : `<details${fullyPassed(c) ? "" : " open"}><summary>${runs.length} run(s)</summary>${
      runs.map(runDetails).join("")
    }</details>`
  return `<tr class="${fullyPassed(c) ? "case-pass" : "case-fail"}">` +
    `<td>${htmlEscape(caseName(c.outcome))}</td>` +
    `<td class="input">${htmlEscape(excerpt(c.outcome.input, 300))}</td>` +
    `<td>${rate(s)}${notStarted}</td><td>${interval(s)}</td><td>${label(s)}</td><td>${details}</td></tr>`
}

const excerpt = (text: string, chars: number) => text.length > chars ? `${text.slice(0, chars)}…` : text

const caseTable = (cases: ReadonlyArray<CaseReport>): string =>
  `<table><thead><tr><th>case</th><th>input</th><th>pass rate</th><th>95% CI (Wilson)</th><th>label</th>` +
  `<th>runs</th></tr></thead><tbody>${cases.map(caseRow).join("")}</tbody></table>`

const suiteText = (s: SuiteStats, k: number) =>
  everyRunErrored(s) ? `${s.fullyPassed} of ${s.cases} case(s) fully passed · ${allErroredText(s)}` :
  `${s.fullyPassed} of ${s.cases} case(s) fully passed · mean pass@1 ${two(s.meanPassAt1)} · pass^${k} ${s.passHatK}` +
  ` · stable-pass ${s.stablePass}, flaky ${s.flaky}, stable-fail ${s.stableFail}` +
  (s.notRun > 0 ? `, not-run ${s.notRun}` : "") + (s.errorCases > 0 ? `, error ${s.errorCases}` : "") +
  (s.errorRuns > 0 ? ` · ${s.errorRuns} run(s) could not run (not counted as failures)` : "")

const matrix = (report: Report): string => {
  const targets = report.targets ?? []
  const head = `<tr><th>case</th>${targets.map((t) => `<th>${htmlEscape(t.name)}</th>`).join("")}</tr>`
  const rows = matrixRows(report).map((row) =>
    `<tr><td>${htmlEscape(row.name)}</td>${
      row.cells.map((c) =>
        `<td class="cell-${c.stats.label}">${rate(c.stats)} ${label(c.stats)}<div class="meta">${
          interval(c.stats)
        }</div></td>`
      ).join("")
    }</tr>`
  )
  const totals = `<tr><th>all</th>${
    targets.map((t) =>
      `<th>${t.suite.fullyPassed}/${t.suite.cases} fully passed · pass@1 ${two(t.suite.meanPassAt1)}</th>`
    ).join("")
  }</tr>`
  return `<h2>Comparison</h2><table><thead>${head}</thead><tbody>${rows.join("")}${totals}</tbody></table>`
}

export interface HtmlOptions {
  /** The eval file as given. */
  readonly file: string
  /** The comparison with `--baseline`, as the text report prints it. */
  readonly baseline?: string | undefined
  /**
   * The verdict the exit code follows (src/cli/evalReport.ts verdictOf), with the reason it fails;
   * without one, whether every case was accepted.
   */
  readonly verdict?: { readonly pass: boolean; readonly reason?: string | undefined } | undefined
}

export const htmlReport = (report: Report, options: HtmlOptions): string => {
  const runs = report.cases.flatMap((c) => c.outcome.runs)
  const tokens = runs.reduce((sum, r) => sum + r.usage.total, 0)
  const priced = runs.filter((r) => r.usage.costUsd !== undefined)
  const cost = priced.reduce((sum, r) => sum + (r.usage.costUsd ?? 0), 0)
  const seconds = runs.reduce((sum, r) => sum + r.durationMs, 0) / 1000
  const caseCount = new Set(report.cases.map((c) => c.outcome.index)).size
  const stat = (value: string, name: string, cls = "") =>
    `<div class="stat ${cls}"><b>${htmlEscape(value)}</b>${htmlEscape(name)}</div>`
  const pass = options.verdict?.pass ?? report.ok
  const partial = report.partial ? "interrupted: only the runs that finished" : report.incomplete
  const summary = [
    stat(pass ? "PASS" : "FAIL", "verdict", pass ? "verdict-pass" : "verdict-fail"),
    ...(partial === undefined ? [] : [stat("partial", partial)]),
    stat(String(caseCount), "case(s)"),
    ...(report.targets === undefined ? [] : [stat(String(report.targets.length), "target(s)")]),
    stat(String(report.repeat), "run(s) per case"),
    stat(
      `${report.suite.fullyPassed}/${report.suite.cases}`,
      report.targets === undefined ? "fully passed" : "cells fully passed"
    ),
    stat(everyRunErrored(report.suite) ? "n/a" : two(report.suite.meanPassAt1), "mean pass@1"),
    stat(String(tokens), "tokens"),
    ...(priced.length === 0 ? [] : [stat(`$${cost.toFixed(4)}`, "cost")]),
    stat(`${seconds.toFixed(1)} s`, "run time (summed)")
  ].join("")
  const sections = report.targets === undefined
    ? [
      `<h2>Cases</h2><p class="meta">${htmlEscape(suiteText(report.suite, report.repeat))}</p>` +
      caseTable(report.cases)
    ]
    : [
      matrix(report),
      ...report.targets.map((t) =>
        `<h2>Target: ${htmlEscape(t.name)}</h2><p class="meta">${htmlEscape(suiteText(t.suite, report.repeat))}</p>` +
        caseTable(t.cases)
      )
    ]
  return [
    "<!DOCTYPE html>",
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; ` +
    `script-src 'unsafe-inline'">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>lait eval: ${htmlEscape(options.file)}</title><style>${STYLE}</style></head><body>`,
    `<h1>lait eval report</h1><div class="file">${htmlEscape(options.file)}</div>`,
    `<div class="summary">${summary}</div>`,
    ...(options.verdict?.reason === undefined
      ? []
      : [`<p class="verdict-reason">${htmlEscape(options.verdict.reason)}</p>`]),
    `<div class="controls"><label><input type="checkbox" id="only-failing"> show only cases that did not fully pass` +
    `</label></div>`,
    ...sections,
    ...(options.baseline === undefined
      ? []
      : [`<h2>Baseline</h2><pre class="baseline">${htmlEscape(options.baseline)}</pre>`]),
    `<script>${SCRIPT}</script></body></html>`
  ].join("\n")
}
