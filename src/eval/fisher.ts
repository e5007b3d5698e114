// Fisher's exact test on a 2×2 table, two-sided, computed exactly: the probability under the null
// hypothesis (same pass rate before and after) of every table with the observed margins that is at
// most as likely as the observed one. Tables are weighed with log-factorials so that thousands of runs
// neither overflow nor lose the small tail probabilities that decide significance.

const logFactorials: Array<number> = [0]

/** ln(n!), from a table grown by summing logarithms (exact to rounding, unlike Stirling's series). */
export const logFactorial = (n: number): number => {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push(logFactorials[i - 1]! + Math.log(i))
  return logFactorials[n]!
}

const logChoose = (n: number, k: number) => logFactorial(n) - logFactorial(k) - logFactorial(n - k)

// Tables as likely as the observed one up to rounding count as "at most as likely" (R uses the same
// relative tolerance), or symmetric tables would drop out of the sum by a last-bit difference.
const RELATIVE_TOLERANCE = 1e-7

/**
 * Two-sided p-value of Fisher's exact test for the table
 *   [ a  b ]   (before: passed, failed)
 *   [ c  d ]   (after:  passed, failed)
 * 1 when a row or a column is empty (nothing to compare).
 */
export const fisherExact = (a: number, b: number, c: number, d: number): number => {
  const row1 = a + b
  const row2 = c + d
  const col1 = a + c
  const n = row1 + row2
  if (row1 === 0 || row2 === 0 || col1 === 0 || col1 === n) return 1
  const logDenominator = logChoose(n, col1)
  const logP = (x: number) => logChoose(row1, x) + logChoose(row2, col1 - x) - logDenominator
  const observed = logP(a) + Math.log1p(RELATIVE_TOLERANCE)
  let p = 0
  for (let x = Math.max(0, col1 - row2); x <= Math.min(row1, col1); x++) {
    const lp = logP(x)
    if (lp <= observed) p += Math.exp(lp)
  }
  return Math.min(1, p)
}
