// Reliability statistics of an eval case over its repeats. A single success rate hides how sure we
// are of it: 4/5 and 80/100 both read 80%. So each case also gets
//   pass@1  — the chance one run passes, estimated as passed/total;
//   pass^k  — whether all k runs passed (what an agent that must succeed every time needs);
//   pass@k  — the chance that at least one of k runs passes, by the unbiased estimator
//            1 − C(n−c, k)/C(n, k) over the n runs that ran (c passed); defined for k ≤ n;
//   a Wilson score interval (95%) for the pass rate, which stays inside [0, 1] and is honest for
//            small k, unlike the normal approximation;
//   a label — stable-pass (all passed), stable-fail (none passed) or flaky (anything between);
//            `error` when no run could run at all (server unreachable, cassette missing, bad config).
// Runs that could not run say nothing about the model, so they are left out of every rate and counted
// on their own (`errors`).
// `--min-pass-rate R` accepts a flaky case whose rate is at least R; stable-fail is never accepted.

/** The 0.975 quantile of the standard normal distribution (two-sided 95%). */
export const Z_95 = 1.959963984540054

export type Stability = "stable-pass" | "flaky" | "stable-fail" | "not-run" | "error"

export interface Interval {
  readonly lower: number
  readonly upper: number
}

/** Wilson score interval for `passed` successes out of `total` trials; [0, 1] when nothing ran. */
export const wilsonInterval = (passed: number, total: number, z: number = Z_95): Interval => {
  if (total <= 0) return { lower: 0, upper: 1 }
  const p = passed / total
  const z2 = z * z
  const denominator = 1 + z2 / total
  const centre = p + z2 / (2 * total)
  const margin = z * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total))
  // At p = 0 (or 1) the bound is exactly 0 (or 1); floating point would leave a residue like 5e-17.
  return {
    lower: passed <= 0 ? 0 : Math.min(1, Math.max(0, (centre - margin) / denominator)),
    upper: passed >= total ? 1 : Math.min(1, Math.max(0, (centre + margin) / denominator))
  }
}

export const stabilityOf = (passed: number, total: number, errors = 0): Stability =>
  total === 0
    ? (errors > 0 ? "error" : "not-run")
    : passed === total
    ? "stable-pass"
    : passed === 0
    ? "stable-fail"
    : "flaky"

export interface CaseStats {
  readonly passed: number
  /** Runs that ran (fewer than k when a budget stopped the eval). */
  readonly total: number
  /** The repeat count asked for. */
  readonly k: number
  /** passed / total (0 when nothing ran). */
  readonly passAt1: number
  /** Every one of the k runs ran and passed. */
  readonly passHatK: boolean
  /** The unbiased pass@k estimate; undefined when fewer than k runs ran. */
  readonly passAtK: number | undefined
  /** Runs that could not run (not counted in `total`). */
  readonly errors: number
  readonly wilson: Interval
  readonly label: Stability
  /** Fully passed, or flaky with a rate of at least --min-pass-rate. */
  readonly accepted: boolean
}

export const caseStats = (
  passed: number,
  total: number,
  k: number,
  minPassRate: number | undefined,
  errors = 0
): CaseStats => {
  const label = stabilityOf(passed, total, errors)
  const passAt1 = total === 0 ? 0 : passed / total
  return {
    passed,
    total,
    k,
    passAt1,
    passHatK: total === k && passed === k,
    passAtK: passAtK(passed, total, k),
    errors,
    wilson: wilsonInterval(passed, total),
    label,
    accepted: label === "stable-pass" || (label === "flaky" && minPassRate !== undefined && passAt1 >= minPassRate)
  }
}

/**
 * 1 − C(n−c, k)/C(n, k), as the product 1 − Π_{i=n−c+1..n} (1 − k/i), which never forms a binomial
 * coefficient (they overflow long before n = 10 000). Undefined for k > n or n = 0.
 */
export const passAtK = (passed: number, total: number, k: number): number | undefined => {
  if (total <= 0 || k < 1 || k > total) return undefined
  if (total - passed < k) return 1
  let allFail = 1
  for (let i = total - passed + 1; i <= total; i++) allFail *= 1 - k / i
  return 1 - allFail
}

export interface SuiteStats {
  readonly cases: number
  readonly fullyPassed: number
  readonly accepted: number
  /** Mean pass@1 over the cases that ran (each case weighs the same). */
  readonly meanPassAt1: number
  readonly passHatK: number
  readonly stablePass: number
  readonly flaky: number
  readonly stableFail: number
  readonly notRun: number
  /** Cases where no run could run. */
  readonly errorCases: number
  /** Runs, over all cases, that could not run. */
  readonly errorRuns: number
}

/**
 * Whether no run of the suite could be scored because every one that ran errored (server or setup
 * errors): its pass rates are then no measurement, and the reports say so instead of 0.00.
 */
export const everyRunErrored = (s: SuiteStats): boolean =>
  s.errorRuns > 0 && s.stablePass + s.flaky + s.stableFail === 0

export const suiteStats = (cases: ReadonlyArray<CaseStats>): SuiteStats => {
  const ran = cases.filter((c) => c.total > 0)
  const count = (label: Stability) => cases.filter((c) => c.label === label).length
  return {
    cases: cases.length,
    fullyPassed: cases.filter((c) => c.total > 0 && c.passed === c.total).length,
    accepted: cases.filter((c) => c.accepted).length,
    meanPassAt1: ran.length === 0 ? 0 : ran.reduce((sum, c) => sum + c.passAt1, 0) / ran.length,
    passHatK: cases.filter((c) => c.passHatK).length,
    stablePass: count("stable-pass"),
    flaky: count("flaky"),
    stableFail: count("stable-fail"),
    notRun: count("not-run"),
    errorCases: count("error"),
    errorRuns: cases.reduce((sum, c) => sum + c.errors, 0)
  }
}
