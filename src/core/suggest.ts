// "did you mean ...?" for a misspelt name: the candidate closest to it by edit distance (an
// adjacent swap counts as one edit, as in `promt`/`prompt` or `jq`/`qj`), when it is close enough
// to be a likely typo rather than another word.

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export const editDistance = (a: string, b: string): number => {
  const rows = a.length + 1
  const cols = b.length + 1
  const d: Array<Array<number>> = Array.from(
    { length: rows },
    (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0))
  )
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

/**
 * The candidate nearest to `word` (case-insensitively), if it is within a third of the longer
 * word's length (at least one edit): `promt` → `prompt`, `for-each` → `for_each`, `foo` → none.
 * The first of equally near candidates wins.
 */
export const nearest = (word: string, candidates: ReadonlyArray<string>): string | undefined => {
  const lower = word.toLowerCase()
  let best: { readonly name: string; readonly distance: number } | undefined
  for (const name of candidates) {
    const distance = editDistance(lower, name.toLowerCase())
    const limit = Math.max(1, Math.floor(Math.max(word.length, name.length) / 3))
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance }
  }
  return best?.name
}
