// How `lait test` prints its results on stdout (docs/testing.md#reports): upstream's text and compact JSON,
// and JUnit XML for CI systems (GitHub/GitLab/Jenkins test reports): one <testcase> per test file, a
// <failure> or an <error> carrying its reasons, the time each file took. A suite without ERRORs reads
// exactly as upstream's.
import type { TestOutcome } from "./runner.ts"

export type ReportFormat = "text" | "json" | "junit" | "github" | "markdown"

export interface Tally {
  readonly passed: number
  readonly failed: number
  readonly errors: number
  readonly total: number
}

export const tally = (outcomes: ReadonlyArray<TestOutcome>): Tally => {
  const count = (status: TestOutcome["status"]) => outcomes.filter((o) => o.status === status).length
  return { passed: count("pass"), failed: count("fail"), errors: count("error"), total: outcomes.length }
}

/** ` (recorded 2, replayed 1)` after the status of a file run by `lait test --record[-missing]`. */
const recordedNote = (outcome: TestOutcome): string => {
  const r = outcome.recorded
  if (r === undefined) return ""
  return ` (recorded ${r.live}${r.replayed > 0 ? `, replayed ${r.replayed}` : ""})`
}

/**
 * `<file>: PASS`, or `<file>: FAIL`/`ERROR`, its indented reasons and (`--trace-dir`) `trace: <path>`;
 * then the totals line.
 */
export const textReport = (outcomes: ReadonlyArray<TestOutcome>): string => {
  const lines: Array<string> = []
  for (const outcome of outcomes) {
    lines.push(`${outcome.file}: ${outcome.status.toUpperCase()}${recordedNote(outcome)}`)
    // A reason of several lines (JSON shown indented) keeps its own indentation under this one.
    for (const reason of outcome.failures) lines.push(`  ${reason.replaceAll("\n", "\n  ")}`)
    if (outcome.status !== "pass" && outcome.trace !== undefined) lines.push(`  trace: ${outcome.trace}`)
  }
  const t = tally(outcomes)
  lines.push(
    t.errors === 0
      ? `${t.passed} passed, ${t.failed} failed, ${t.total} total`
      : `${t.passed} passed, ${t.failed} failed, ${t.errors} ${t.errors === 1 ? "error" : "errors"}, ${t.total} total`
  )
  return lines.join("\n")
}

/**
 * One compact line: `[{"file","status":"pass"|"fail"|"error","failures":[...]}]` (+ `"recorded","replayed"`,
 * + `"trace"` under `--trace-dir`, for every file).
 */
export const jsonReport = (outcomes: ReadonlyArray<TestOutcome>): string =>
  JSON.stringify(outcomes.map((o) => ({
    file: o.file,
    status: o.status,
    failures: o.failures,
    ...(o.recorded === undefined ? {} : { recorded: o.recorded.live, replayed: o.recorded.replayed }),
    ...(o.trace === undefined ? {} : { trace: o.trace })
  })))

// XML 1.0 cannot carry these at all, not even as character references.
const NOT_XML = new RegExp(
  [
    "[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]", // control characters XML 1.0 forbids
    "[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])", // a high surrogate without its low half
    "(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]" // a low surrogate without its high half
  ].join("|"),
  "g"
)

const xmlSafe = (text: string): string => text.replace(NOT_XML, (ch) => `\\u{${ch.charCodeAt(0).toString(16)}}`)

const escapeText = (text: string): string =>
  xmlSafe(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

const escapeAttribute = (text: string): string =>
  escapeText(text).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;")

const seconds = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3)

/** `tests/cases/a.yml` → `tests.cases.a`: Jenkins reads `classname` as package.Class. */
const classNameOf = (file: string): string => {
  const withoutExtension = file.replace(/\.ya?ml$/, "")
  const parts = withoutExtension.split("/").filter((p) => p !== "" && p !== ".")
  return parts.length === 0 ? "lait" : parts.join(".")
}

export interface JunitOptions {
  /** Wall-clock time of the whole suite. */
  readonly totalMs: number
  /** When the suite started (UTC). */
  readonly startedAt: Date
  readonly hostname: string
}

/**
 * JUnit XML: `<testsuites>` holding one `<testsuite name="lait test">` with a `<testcase>` per file.
 * A failed file has one `<failure>` (`type` says whether assertions failed or the workflow did), a
 * file that could not run one `<error>`: `message` is the first reason, the body all of them, one per
 * line, then `trace: <path>` under `--trace-dir`.
 */
export const junitReport = (outcomes: ReadonlyArray<TestOutcome>, options: JunitOptions): string => {
  const t = tally(outcomes)
  const total = seconds(options.totalMs)
  const counts = `tests="${t.total}" failures="${t.failed}" errors="${t.errors}"`
  // xs:dateTime without a zone, as the Ant/Jenkins JUnit schema expects.
  const timestamp = options.startedAt.toISOString().slice(0, 19)
  const out: Array<string> = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="lait test" ${counts} time="${total}">`,
    `  <testsuite name="lait test" ${counts} skipped="0" time="${total}" timestamp="${timestamp}" hostname="${
      escapeAttribute(options.hostname)
    }">`
  ]
  for (const outcome of outcomes) {
    const attributes = `name="${escapeAttribute(outcome.file)}" classname="${
      escapeAttribute(classNameOf(outcome.file))
    }" file="${escapeAttribute(outcome.file)}" time="${seconds(outcome.durationMs)}"`
    if (outcome.status === "pass") {
      out.push(`    <testcase ${attributes}/>`)
      continue
    }
    const element = outcome.status === "error" ? "error" : "failure"
    // A FAIL without an evaluation is a workflow that failed before its assertions could run.
    const type = outcome.status === "error" ? "error" : outcome.evaluated === undefined ? "workflow" : "assertion"
    out.push(`    <testcase ${attributes}>`)
    const body = [...outcome.failures, ...(outcome.trace === undefined ? [] : [`trace: ${outcome.trace}`])]
    out.push(
      `      <${element} message="${escapeAttribute(outcome.failures[0] ?? "failed")}" type="${type}">${
        escapeText(body.join("\n"))
      }</${element}>`
    )
    out.push(`    </testcase>`)
  }
  out.push(`  </testsuite>`, `</testsuites>`)
  return out.join("\n")
}
