// `--shard K/N`: the cases whose key hashes to K−1 modulo N. A case's key is its name (so that inserting
// a named case does not move the others between shards); an unnamed case's name is `case <position>`.
// With `targets:`, a shard runs its cases against every target. The
// hash depends on nothing but the key, so every machine computes the same split: the N shards are
// disjoint and together hold every case, and a report keeps each case's number in the whole file.

export interface Shard {
  /** 1-based. */
  readonly index: number
  readonly count: number
}

export const MAX_SHARDS = 10_000

/** `K/N` with 1 ≤ K ≤ N ≤ MAX_SHARDS, else undefined. */
export const parseShard = (text: string): Shard | undefined => {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim())
  if (match === null) return undefined
  const index = Number(match[1])
  const count = Number(match[2])
  return index >= 1 && count >= 1 && index <= count && count <= MAX_SHARDS ? { index, count } : undefined
}

/** What identifies a case across runs, baselines and shards. */
export const caseKey = (number: number, name: string | undefined): string => name ?? `case ${number}`

/** FNV-1a (32 bit) of the key's UTF-8 bytes. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193)
  return hash >>> 0
}

export const inShard = (key: string, shard: Shard): boolean => fnv1a(key) % shard.count === shard.index - 1

/** The 1-based numbers of the cases of `shard`, in file order. */
export const shardCaseNumbers = (
  cases: ReadonlyArray<{ readonly name: string }>,
  shard: Shard
): ReadonlyArray<number> =>
  cases.flatMap((c, i) => (inShard(caseKey(i + 1, c.name), shard) ? [i + 1] : []))

/**
 * What the JSON report of `--shard K/N` records, so that `lait eval merge` can tell that every shard
 * of the same eval is there exactly once (docs/evals.md#shards-and-merge).
 */
export interface ShardRecord {
  /** 1-based, as in `--shard K/N`. */
  readonly index: number
  readonly count: number
  /** The eval file as given. */
  readonly file: string
  /** SHA-256 (hex) of the eval file's bytes followed by its cases file's, when it names one. */
  readonly sha256: string
  /** How many cases the whole eval has (all shards together). */
  readonly cases: number
}
