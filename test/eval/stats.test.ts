import { describe, expect, test } from "bun:test"
import { caseStats, stabilityOf, suiteStats, wilsonInterval, Z_95 } from "../../src/eval/stats.ts"

const round4 = (x: number) => Math.round(x * 1e4) / 1e4

describe("Wilson score interval (95%)", () => {
  // Reference values: Wilson (1927), as tabulated by Newcombe (1998) and computed by R's
  // binom::binom.wilson / statsmodels proportion_confint(method="wilson").
  test.each([
    [4, 5, 0.3755, 0.9638],
    [1, 2, 0.0945, 0.9055],
    [0, 10, 0, 0.2775],
    [10, 10, 0.7225, 1],
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605]
  ])("%i of %i", (passed, total, lower, upper) => {
    const interval = wilsonInterval(passed, total)
    expect(round4(interval.lower)).toBe(lower)
    expect(round4(interval.upper)).toBe(upper)
  })

  test("the bounds are exactly 0 and 1 at the extremes (no floating-point residue)", () => {
    expect(wilsonInterval(0, 5).lower).toBe(0)
    expect(wilsonInterval(5, 5).upper).toBe(1)
  })

  test("nothing ran: the whole [0, 1]", () => {
    expect(wilsonInterval(0, 0)).toEqual({ lower: 0, upper: 1 })
  })

  test("z is the 0.975 normal quantile", () => {
    expect(Z_95).toBeCloseTo(1.959963984540054, 15)
  })

  test("the interval narrows as the sample grows at the same rate", () => {
    const small = wilsonInterval(4, 5)
    const large = wilsonInterval(80, 100)
    expect(large.upper - large.lower).toBeLessThan(small.upper - small.lower)
  })
})

describe("case statistics", () => {
  test("labels", () => {
    expect(stabilityOf(5, 5)).toBe("stable-pass")
    expect(stabilityOf(0, 5)).toBe("stable-fail")
    expect(stabilityOf(3, 5)).toBe("flaky")
    expect(stabilityOf(0, 0)).toBe("not-run")
  })

  test("pass@1 is the pass rate and pass^k needs all k runs to pass", () => {
    expect(caseStats(4, 5, 5, undefined)).toMatchObject({ passAt1: 0.8, passHatK: false, label: "flaky", accepted: false })
    expect(caseStats(5, 5, 5, undefined)).toMatchObject({ passAt1: 1, passHatK: true, label: "stable-pass", accepted: true })
  })

  test("pass^k is false when a budget stopped some of the k runs, even if all that ran passed", () => {
    expect(caseStats(3, 3, 5, undefined)).toMatchObject({ passHatK: false, label: "stable-pass", accepted: true })
  })

  test("--min-pass-rate accepts a flaky case at or above the rate, never a stable failure", () => {
    expect(caseStats(4, 5, 5, 0.8).accepted).toBe(true)
    expect(caseStats(3, 5, 5, 0.8).accepted).toBe(false)
    expect(caseStats(0, 5, 5, 0).accepted).toBe(false)
    expect(caseStats(1, 5, 5, 0).accepted).toBe(true)
  })

  test("suite aggregates", () => {
    const cases = [caseStats(5, 5, 5, 0.5), caseStats(3, 5, 5, 0.5), caseStats(0, 5, 5, 0.5), caseStats(0, 0, 5, 0.5)]
    expect(suiteStats(cases)).toEqual({
      cases: 4,
      fullyPassed: 1,
      accepted: 2,
      meanPassAt1: (1 + 0.6 + 0) / 3,
      passHatK: 1,
      stablePass: 1,
      flaky: 1,
      stableFail: 1,
      notRun: 1,
      errorCases: 0,
      errorRuns: 0
    })
  })
})
