// `lait test --shard K/N` (docs/testing.md#shards): every file belongs to exactly one of N shards, by a
// hash of its path relative to the working directory. The hash (32-bit FNV-1a of the UTF-8 bytes, with
// `/` separators, scaled to N) depends on nothing but that path, so every CI machine that checks out the same tree
// and runs from the same directory agrees, however the paths were spelled on the command line
// (`tests`, `./tests/`, an absolute path), and adding a file never moves the others.
import * as nodePath from "node:path"

export interface Shard {
  /** 1-based. */
  readonly index: number
  readonly count: number
}

/** `K/N` with 1 <= K <= N, else undefined. */
export const parseShard = (text: string): Shard | undefined => {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text)
  if (match === null) return undefined
  const index = Number(match[1])
  const count = Number(match[2])
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(count)) return undefined
  return index >= 1 && index <= count ? { index, count } : undefined
}

/** 32-bit FNV-1a. */
export const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

/** What a path is hashed as: relative to `cwd`, normalised, `/`-separated. */
export const shardKey = (file: string, cwd: string): string =>
  nodePath.relative(cwd, nodePath.resolve(cwd, file)).split(nodePath.sep).join("/")

/**
 * The 1-based shard of `file` among `count`: the hash scaled to [0, count) by its high bits. FNV-1a's
 * low bits depend only on the low bits of each byte, so `hash % 4` would split paths by little more
 * than the last bits of their characters; the high bits mix all of them.
 */
export const shardOf = (file: string, count: number, cwd: string): number =>
  Math.floor((fnv1a(shardKey(file, cwd)) / 2 ** 32) * count) + 1

/** The files of `files` that belong to `shard`, in their order. */
export const inShard = (files: ReadonlyArray<string>, shard: Shard, cwd: string): ReadonlyArray<string> =>
  files.filter((file) => shardOf(file, shard.count, cwd) === shard.index)
