// --shard K/N: the N shards of any suite are disjoint and together the whole suite, a file's shard
// depends only on its path relative to the working directory, and K/N is checked.
import { describe, expect, test } from "bun:test"
import { fnv1a, inShard, parseShard, shardKey, shardOf } from "../../src/testing/shard.ts"

const suite = Array.from({ length: 200 }, (_, i) => `tests/group-${i % 7}/case-${String(i).padStart(3, "0")}.yml`)

describe("parseShard", () => {
  test("K/N with 1 <= K <= N", () => {
    expect(parseShard("1/4")).toEqual({ index: 1, count: 4 })
    expect(parseShard("4/4")).toEqual({ index: 4, count: 4 })
    expect(parseShard(" 2 / 3 ")).toEqual({ index: 2, count: 3 })
    for (const bad of ["0/4", "5/4", "1/0", "0/0", "-1/4", "1", "1/", "/4", "a/b", "1.5/4", "1/4/2", "99999999999999999999/1"]) {
      expect(parseShard(bad)).toBeUndefined()
    }
  })
})

describe("sharding", () => {
  test("FNV-1a is the standard 32-bit one", () => {
    // Published test vectors.
    expect(fnv1a("")).toBe(0x811c9dc5)
    expect(fnv1a("a")).toBe(0xe40c292c)
    expect(fnv1a("foobar")).toBe(0xbf9cf968)
  })

  test("the N shards are disjoint and their union is the suite, in suite order", () => {
    for (const n of [1, 2, 3, 4, 7]) {
      const parts = Array.from({ length: n }, (_, k) => inShard(suite, { index: k + 1, count: n }, "/work"))
      expect(parts.flat().sort()).toEqual([...suite].sort())
      expect(new Set(parts.flat()).size).toBe(suite.length)
      for (const part of parts) expect(part).toEqual(suite.filter((f) => part.includes(f)))
    }
    // A real hash spreads 200 files over 4 shards without starving one.
    const sizes = [1, 2, 3, 4].map((k) => inShard(suite, { index: k, count: 4 }, "/work").length)
    expect(Math.min(...sizes)).toBeGreaterThan(30)
  })

  test("a file's shard depends on its path relative to the working directory, however it was spelled", () => {
    const cwd = "/work/repo"
    for (const spelling of ["tests/a.yml", "./tests/a.yml", "tests//a.yml", "/work/repo/tests/a.yml", "tests/x/../a.yml"]) {
      expect(shardKey(spelling, cwd)).toBe("tests/a.yml")
    }
    expect(shardKey("../other/tests/a.yml", cwd)).toBe("../other/tests/a.yml")
    expect(shardOf("./tests/a.yml", 4, cwd)).toBe(shardOf("/work/repo/tests/a.yml", 4, cwd))
    // The same tree checked out elsewhere (another CI machine) gives the same shards.
    expect(suite.map((f) => shardOf(`/ci/a/${f}`, 4, "/ci/a"))).toEqual(suite.map((f) => shardOf(f, 4, "/home/me/repo")))
  })
})

describe("balance", () => {
  test("paths that differ only in a few characters still spread over every shard", () => {
    // FNV-1a's low bits see only the low bits of each byte: `hash % 4` would put all of these in 2 shards.
    const paths = ["a", "c", "e", "g", "i", "k", "m", "o", "q", "s", "u", "w"].flatMap((x) =>
      ["a", "c", "e", "g"].map((y) => `tests/${x}${y}.yml`)
    )
    const byLowBits = new Set(paths.map((p) => fnv1a(p) % 4))
    expect(byLowBits.size).toBeLessThan(4)
    const sizes = [1, 2, 3, 4].map((k) => inShard(paths, { index: k, count: 4 }, "/").length)
    expect(sizes.every((n) => n > 0)).toBe(true)
  })
})
