// Regressions against a baseline (docs/evals.md#baselines). `--save-baseline FILE` keeps each case's
// counts; `--baseline FILE` compares each case's pass rate with them by Fisher's exact test (two-sided)
// and calls a case `regressed` or `improved` only when p < --significance, `unchanged` otherwise, so
// one flaky run does not make a change "worse". Cases are matched by name (`case <n>` when unnamed) and,
// comparing `targets:`, by target too: each (target, case) cell is compared with its own baseline. A
// cell in only one of the two is `new` or `missing`. The overall change pools the runs of the cells in
// both. Runs that could not run (`errors`) count on neither side. The eval regressed when a case did or
// the pooled runs did: with few runs per case no single case can be significant (3 of 3 against 0 of 3
// is p = 0.1), while the pooled runs can, and --fail-on-regression must not pass such an eval.
import { readJsonText } from "../core/jsonDepth.ts"
import { rustFixed } from "../core/rustFormat.ts"
import { RustFloat } from "../model/rustJson.ts"
import { EvalError, type EvalErrorReason } from "./evalErrors.ts"
import { fisherExact } from "./fisher.ts"
import { caseName, type Report, xmlEscape } from "./report.ts"
import { caseKey, inShard, type Shard } from "./shard.ts"

export const BASELINE_VERSION = 1
export const DEFAULT_SIGNIFICANCE = 0.05

export interface BaselineCase {
  readonly case: number
  readonly name?: string
  /** The target's name when the eval compared `targets:`. */
  readonly target?: string
  readonly input: string
  readonly passed: number
  /** Runs that ran (errors excluded). */
  readonly total: number
  readonly errors: number
}

export interface BaselineFile {
  readonly version: typeof BASELINE_VERSION
  readonly kind: "lait-eval-baseline"
  readonly repeat: number
  readonly cases: ReadonlyArray<BaselineCase>
}

export const baselineOf = (report: Report): BaselineFile => ({
  version: BASELINE_VERSION,
  kind: "lait-eval-baseline",
  repeat: report.repeat,
  cases: report.cases.map((c) => ({
    case: c.outcome.index,
    name: caseName(c.outcome),
    ...(c.outcome.target !== undefined ? { target: c.outcome.target } : {}),
    input: c.outcome.input,
    passed: c.stats.passed,
    total: c.stats.total,
    errors: c.stats.errors
  }))
})

export const formatBaseline = (baseline: BaselineFile): string => `${JSON.stringify(baseline, null, 2)}\n`

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0

/** A baseline file's text, checked; an error (exit 3) says what is wrong where. */
export const parseBaseline = (text: string, path: string): BaselineFile | EvalError => {
  const invalid = (detail: string) => new EvalError({ reason: { _tag: "BaselineInvalid", path, detail } })
  const raw = readJsonText(text, "not JSON")
  if (!raw.ok) return invalid(raw.problem)
  const doc = raw.value as Partial<Record<keyof BaselineFile, unknown>> | null
  if (typeof doc !== "object" || doc === null || doc.kind !== "lait-eval-baseline") {
    return invalid("not a baseline written by 'lait eval --save-baseline'")
  }
  if (doc.version !== BASELINE_VERSION) {
    return invalid(`version ${JSON.stringify(doc.version)} is not supported (this lait reads version 1)`)
  }
  if (!isCount(doc.repeat) || !Array.isArray(doc.cases)) return invalid("expected 'repeat' and a 'cases' list")
  for (const [i, c] of (doc.cases as Array<Record<string, unknown>>).entries()) {
    const ok = typeof c === "object" && c !== null && isCount(c["case"]) && isCount(c["passed"]) &&
      isCount(c["total"]) && isCount(c["errors"]) && (c["passed"] as number) <= (c["total"] as number) &&
      typeof c["input"] === "string" && (c["name"] === undefined || typeof c["name"] === "string") &&
      (c["target"] === undefined || typeof c["target"] === "string")
    if (!ok) {
      return invalid(`cases[${i}]: expected {case, name?, target?, input, passed, total, errors} with passed <= total`)
    }
  }
  return doc as BaselineFile
}

export type ChangeStatus = "regressed" | "improved" | "unchanged" | "new" | "missing"

interface Counts {
  readonly passed: number
  readonly total: number
}

export interface CaseChange {
  /** This run's number for the case, else the baseline's (a missing case). */
  readonly case: number
  readonly name: string | undefined
  readonly target: string | undefined
  readonly status: ChangeStatus
  readonly before: Counts | undefined
  readonly after: Counts | undefined
  readonly pValue: number | undefined
}

export interface Comparison {
  readonly file: string
  readonly significance: number
  readonly cases: ReadonlyArray<CaseChange>
  readonly overall: {
    readonly before: Counts
    readonly after: Counts
    readonly pValue: number
    readonly status: "regressed" | "improved" | "unchanged"
  }
  readonly counts: Readonly<Record<ChangeStatus, number>>
  /** A case regressed, or the pooled runs did: what --fail-on-regression fails on. */
  readonly regression: boolean
  /** --fail-on-regression was given: the comparison decides the exit code. */
  readonly failOnRegression: boolean
}

const rate = (c: Counts) => (c.total === 0 ? 0 : c.passed / c.total)

const verdict = (before: Counts, after: Counts, significance: number) => {
  const pValue = fisherExact(before.passed, before.total - before.passed, after.passed, after.total - after.passed)
  const status = pValue >= significance
    ? "unchanged" as const
    : rate(after) < rate(before)
    ? "regressed" as const
    : "improved" as const
  return { pValue, status }
}

export interface CompareOptions {
  readonly file: string
  readonly significance: number
  /** With --shard, the baseline's cases of other shards are not missing. */
  readonly shard?: Shard | undefined
  readonly failOnRegression?: boolean | undefined
}

// A cell's key: its target (none for a single target) and its case.
const cellKey = (target: string | undefined, number: number, name: string | undefined) =>
  `${target ?? ""}\u0000${caseKey(number, name)}`

export const compareWithBaseline = (report: Report, baseline: BaselineFile, options: CompareOptions): Comparison => {
  const before = new Map(baseline.cases.map((c) => [cellKey(c.target, c.case, c.name), c] as const))
  const seen = new Set<string>()
  const changes: Array<CaseChange> = []
  const pooledBefore = { passed: 0, total: 0 }
  const pooledAfter = { passed: 0, total: 0 }
  for (const c of report.cases) {
    const { index, target } = c.outcome
    const name = caseName(c.outcome)
    const key = cellKey(target, index, name)
    const after = { passed: c.stats.passed, total: c.stats.total }
    const old = before.get(key)
    if (old === undefined) {
      changes.push({ case: index, name, target, status: "new", before: undefined, after, pValue: undefined })
      continue
    }
    seen.add(key)
    const prior = { passed: old.passed, total: old.total }
    pooledBefore.passed += prior.passed
    pooledBefore.total += prior.total
    pooledAfter.passed += after.passed
    pooledAfter.total += after.total
    changes.push({ case: index, name, target, before: prior, after, ...verdict(prior, after, options.significance) })
  }
  for (const old of baseline.cases) {
    const key = cellKey(old.target, old.case, old.name)
    const shard = options.shard
    if (seen.has(key) || (shard !== undefined && !inShard(caseKey(old.case, old.name), shard))) continue
    changes.push({
      case: old.case,
      name: old.name,
      target: old.target,
      status: "missing",
      before: { passed: old.passed, total: old.total },
      after: undefined,
      pValue: undefined
    })
  }
  const counts = { regressed: 0, improved: 0, unchanged: 0, new: 0, missing: 0 }
  for (const c of changes) counts[c.status]++
  const overall = {
    before: pooledBefore,
    after: pooledAfter,
    ...verdict(pooledBefore, pooledAfter, options.significance)
  }
  return {
    file: options.file,
    significance: options.significance,
    cases: changes,
    overall,
    counts,
    regression: counts.regressed > 0 || overall.status === "regressed",
    failOnRegression: options.failOnRegression === true
  }
}

/** Beyond any --repeat lait accepts (src/cli/evalRun.ts MAX_REPEAT). */
const MAX_RUNS = 10_000

/**
 * The fewest runs per case, on both sides, with which a single case can be significant at all: the
 * smallest n for which n of n against 0 of n (the largest change there is) has p < `significance`.
 */
export const minimumRunsPerCase = (significance: number): number | undefined => {
  for (let n = 1; n <= MAX_RUNS; n++) if (fisherExact(n, 0, 0, n) < significance) return n
  return undefined
}

/**
 * The `warning:` for a comparison in which no case can ever be significant, so that only the pooled
 * line can show a change: `before` runs per case in the baseline, `after` in this eval.
 */
export const fewRunsWarning = (before: number, after: number, significance: number): string | undefined => {
  if (before < 1 || after < 1 || fisherExact(before, 0, 0, after) < significance) return undefined
  const runs = before === after ? `${after} runs per case` : `${before} runs per case in the baseline and ${after} here`
  const minimum = minimumRunsPerCase(significance)
  const advice = minimum === undefined
    ? "lower --significance"
    : `use --repeat ${minimum} or more, for the baseline too`
  return `warning: with ${runs} no single case can reach p < ${significance}; ${advice} ` +
    "(only the pooled comparison of all cases can show a change)"
}

/** Why the comparison regressed, as the verdict line and the error say it. */
export const regressionText = (c: Comparison): string =>
  c.counts.regressed > 0
    ? `${c.counts.regressed} case(s) regressed significantly`
    : `all cases pooled regressed significantly, though no single case did`

const pct = (c: Counts) => `${c.passed}/${c.total} (${rustFixed(rate(c) * 100, 0)}%)`
/** `3/4 (75%)`: one side's counts as every report shows them. */
export const countsText = pct

/** What `lait: ...` says when --fail-on-regression fails the eval on `c`. */
export const regressionReason = (c: Comparison): EvalErrorReason => ({
  _tag: "Regressed",
  count: c.counts.regressed,
  file: c.file,
  significance: c.significance,
  ...(c.counts.regressed === 0 ? { pooled: `from ${pct(c.overall.before)} to ${pct(c.overall.after)}` } : {})
})
export const pText = (p: number) => (p < 0.0001 ? "p<0.0001" : `p=${rustFixed(p, 4)}`)
/** `<name>`, `[<target>]` after it when the eval compared targets. */
export const changeName = (c: CaseChange) =>
  `${(c.name ?? `case ${c.case}`).replace(/\s+/g, " ").trim()}${c.target === undefined ? "" : ` [${c.target}]`}`

export const comparisonText = (c: Comparison): string => {
  const lines = [
    `compared with baseline '${c.file}' (Fisher's exact test, two-sided, significant at p < ${c.significance}):`
  ]
  for (const change of c.cases) {
    const head = `  ${changeName(change)}: ${change.status}`
    if (change.status === "new") lines.push(`${head}  ${pct(change.after!)}`)
    else if (change.status === "missing") lines.push(`${head}  (baseline ${pct(change.before!)}; not in this run)`)
    else lines.push(`${head}  ${pct(change.before!)} -> ${pct(change.after!)}  ${pText(change.pValue!)}`)
  }
  const o = c.overall
  const n = c.counts
  lines.push(
    `  all: ${o.status}  ${pct(o.before)} -> ${pct(o.after)}  ${pText(o.pValue)}; ` +
      `${n.regressed} regressed, ${n.improved} improved, ${n.unchanged} unchanged, ${n.new} new, ${n.missing} missing`
  )
  const gate = c.failOnRegression ? (c.regression ? ", so the eval fails (--fail-on-regression)" : "") : ""
  lines.push(`  verdict: ${c.regression ? `regressed (${regressionText(c)})${gate}` : "no significant regression"}`)
  return lines.join("\n")
}

const float = (x: number) => new RustFloat(x)
const countsJson = (c: Counts | undefined) => (c === undefined ? null : { passed: c.passed, total: c.total })

/** The `baseline` member of the JSON report. */
export const comparisonValue = (c: Comparison): unknown => ({
    file: c.file,
    significance: float(c.significance),
    test: "fisher-exact-two-sided",
    cases: c.cases.map((change) => ({
      case: change.case,
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.target !== undefined ? { target: change.target } : {}),
      status: change.status,
      before: countsJson(change.before),
      after: countsJson(change.after),
      p_value: change.pValue === undefined ? null : float(change.pValue)
    })),
    overall: {
      status: c.overall.status,
      before: countsJson(c.overall.before),
      after: countsJson(c.overall.after),
      p_value: float(c.overall.pValue)
    },
    ...c.counts,
    regression: c.regression,
    fail_on_regression: c.failOnRegression
  })

/**
 * The JUnit report with one more testsuite, `baseline`: a testcase per compared case, failing when it
 * regressed; new and missing cases are skipped; `all cases (pooled)` when only the pooled runs
 * regressed. The totals on <testsuites> are updated to match.
 */
export const junitWithComparison = (xml: string, c: Comparison): string => {
  const body: Array<string> = []
  for (const change of c.cases) {
    const name = changeName(change)
    body.push(`    <testcase name="${xmlEscape(name)}" classname="baseline">`)
    if (change.status === "regressed") {
      const message = `regressed: ${pct(change.before!)} -> ${pct(change.after!)} (${pText(change.pValue!)})`
      body.push(`      <failure message="${xmlEscape(message)}" type="regressed"/>`)
    } else if (change.status === "new" || change.status === "missing") {
      body.push(`      <skipped message="${change.status}"/>`)
    } else {
      const counts = `${pct(change.before!)} -> ${pct(change.after!)}`
      body.push(`      <system-out>${change.status}: ${xmlEscape(counts)}</system-out>`)
    }
    body.push("    </testcase>")
  }
  // The pooled runs regressed though no case did: a failing testcase of its own, so that the suite
  // fails exactly when the comparison does.
  const pooledOnly = c.regression && c.counts.regressed === 0
  if (pooledOnly) {
    const o = c.overall
    const message = `regressed: ${pct(o.before)} -> ${pct(o.after)} (${pText(o.pValue)}), though no single case did`
    body.push(`    <testcase name="all cases (pooled)" classname="baseline">`)
    body.push(`      <failure message="${xmlEscape(message)}" type="regressed"/>`)
    body.push("    </testcase>")
  }
  const tests = c.cases.length + (pooledOnly ? 1 : 0)
  const failures = c.counts.regressed + (pooledOnly ? 1 : 0)
  const skipped = c.counts.new + c.counts.missing
  const suite = [
    `  <testsuite name="baseline" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}" ` +
    `time="0.000">`,
    `    <properties><property name="overall" value="${xmlEscape(
      `${c.overall.status}: ${pct(c.overall.before)} -> ${pct(c.overall.after)} (${pText(c.overall.pValue)})`
    )}"/></properties>`,
    ...body,
    "  </testsuite>"
  ].join("\n")
  const add = (name: string, extra: number) => (_: string, value: string) => `${name}="${Number(value) + extra}"`
  const withTotals = xml.replace(/^<testsuites [^>]*>/m, (open) =>
    open
      .replace(/tests="(\d+)"/, add("tests", tests))
      .replace(/failures="(\d+)"/, add("failures", failures))
      .replace(/skipped="(\d+)"/, add("skipped", skipped))
  )
  return withTotals.replace(/<\/testsuites>\s*$/, `${suite}\n</testsuites>`)
}
