// Fisher's exact test against values worked out by hand (the hypergeometric weights of every table with
// the same margins, listed below each case) and against an independent exact computation in BigInt
// rationals for tables too large to list.
import { describe, expect, test } from "bun:test"
import { fisherExact, logFactorial } from "../../src/eval/fisher.ts"
import { passAtK } from "../../src/eval/stats.ts"

const choose = (n: number, k: number): bigint => {
  let r = 1n
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i)
  return r
}

/** The two-sided p-value as an exact fraction: sum of C(r1,x)C(r2,c1-x) no larger than the observed one. */
const referenceP = (a: number, b: number, c: number, d: number): number => {
  const r1 = a + b, r2 = c + d, c1 = a + c
  const weight = (x: number) => choose(r1, x) * choose(r2, c1 - x)
  const observed = weight(a)
  let sum = 0n
  for (let x = Math.max(0, c1 - r2); x <= Math.min(r1, c1); x++) if (weight(x) <= observed) sum += weight(x)
  const total = choose(r1 + r2, c1)
  // Scaled to keep 15 significant digits out of two big integers.
  const scale = 10n ** 30n
  return Number((sum * scale) / total) / 1e30
}

describe("fisherExact", () => {
  test("tea tasting [[3,1],[1,3]]: weights 1,16,36,16,1 of 70; the observed 16 and the four <= it sum to 34", () => {
    expect(fisherExact(3, 1, 1, 3)).toBeCloseTo(34 / 70, 12)
  })

  test("[[5,0],[1,4]]: weights 5,50,100,50,5 of 210 for a = 1..5; a = 5 and a = 1 give 10/210", () => {
    expect(fisherExact(5, 0, 1, 4)).toBeCloseTo(10 / 210, 12)
    expect(fisherExact(5, 0, 1, 4)).toBeLessThan(0.05)
  })

  test("[[10,0],[0,10]]: only the two extreme tables, 2 / C(20,10)", () => {
    expect(fisherExact(10, 0, 0, 10)).toBeCloseTo(2 / 184756, 15)
    expect(fisherExact(0, 10, 10, 0)).toBeCloseTo(2 / 184756, 15)
  })

  test("[[4,1],[3,2]]: weights 10,50,50,10 of 120 for a = 2..5; the observed 50 is the largest, p = 1", () => {
    expect(fisherExact(4, 1, 3, 2)).toBeCloseTo(1, 12)
  })

  test("empty rows or columns compare nothing: p = 1", () => {
    expect(fisherExact(0, 0, 3, 2)).toBe(1)
    expect(fisherExact(5, 0, 5, 0)).toBe(1)
    expect(fisherExact(0, 5, 0, 5)).toBe(1)
  })

  test("asymmetric and large tables match the exact rational computation", () => {
    for (const t of [[7, 3, 2, 8], [1, 9, 11, 3], [20, 0, 12, 8], [480, 20, 450, 50], [950, 50, 910, 90], [3, 0, 0, 2]]) {
      const [a, b, c, d] = t as [number, number, number, number]
      const expected = referenceP(a, b, c, d)
      expect(Math.abs(fisherExact(a, b, c, d) - expected)).toBeLessThan(1e-9 * Math.max(expected, 1e-6))
    }
  })

  test("log-factorials are exact to rounding", () => {
    expect(logFactorial(0)).toBe(0)
    expect(logFactorial(10)).toBeCloseTo(Math.log(3628800), 12)
    expect(logFactorial(170)).toBeCloseTo(Math.log(7.257415615307994e306), 9)
  })
})

describe("passAtK (unbiased estimator 1 - C(n-c,k)/C(n,k))", () => {
  test("values worked out from the binomials", () => {
    // n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(2, 5, 2)).toBeCloseTo(0.7, 12)
    // n=10, c=3, k=5: 1 - C(7,5)/C(10,5) = 1 - 21/252
    expect(passAtK(3, 10, 5)).toBeCloseTo(1 - 21 / 252, 12)
    // k = 1 is the pass rate
    expect(passAtK(3, 10, 1)).toBeCloseTo(0.3, 12)
    // n - c < k: some pass in every draw of k
    expect(passAtK(4, 5, 2)).toBe(1)
    expect(passAtK(0, 5, 3)).toBe(0)
  })

  test("undefined for k > n or nothing ran", () => {
    expect(passAtK(1, 3, 4)).toBeUndefined()
    expect(passAtK(0, 0, 1)).toBeUndefined()
  })

  test("large n without overflow", () => {
    // n = 10000, c = 1, k = 100: 1 - C(9999,100)/C(10000,100) = 1 - (10000-100)/10000 = 0.01
    expect(passAtK(1, 10000, 100)).toBeCloseTo(0.01, 12)
  })
})

describe("how few runs per case can never be significant (src/eval/baseline.ts)", () => {
  test("the minimum is the first n for which n/n against 0/n is below the significance: 2/C(2n, n)", async () => {
    const { fewRunsWarning, minimumRunsPerCase } = await import("../../src/eval/baseline.ts")
    // 3: 2/20 = 0.1; 4: 2/70 = 0.029; 5: 2/252 = 0.0079; 6: 2/924 = 0.0022.
    expect([0.05, 0.01, 0.005, 0.5].map(minimumRunsPerCase)).toEqual([4, 5, 6, 2])
    expect(fewRunsWarning(4, 4, 0.05)).toBeUndefined()
    // A long baseline gives a short run power: 3/3 against 0/10 is p = 0.0035.
    expect(fewRunsWarning(10, 3, 0.05)).toBeUndefined()
    expect(fewRunsWarning(2, 3, 0.05)).toBe(
      "warning: with 2 runs per case in the baseline and 3 here no single case can reach p < 0.05; " +
        "use --repeat 4 or more, for the baseline too (only the pooled comparison of all cases can show a change)"
    )
  })
})
