// The replay layer's memory of cassettes it read (src/model/cassette/memo.ts): a file is read again
// once its version differs, and the budget of text forgets the ones read longest ago.
import { expect, test } from "bun:test"
import { makeCassetteMemo } from "../../../src/model/cassette/memo.ts"

const v = (over: Partial<{ dev: number; ino: number; size: number; mtimeMs: number }> = {}) => ({
  dev: 1,
  ino: 10,
  size: 100,
  mtimeMs: 1_765_000_000_000.25,
  ...over
})

test("the same version answers; any change of inode, size or time forgets the entry", () => {
  const memo = makeCassetteMemo<string>()
  memo.set("a.json", v(), "first", 100)
  expect(memo.get("a.json", v())).toBe("first")
  expect(memo.get("b.json", v())).toBeUndefined()
  for (const changed of [{ ino: 11 }, { size: 101 }, { mtimeMs: 1_765_000_000_000.5 }, { dev: 2 }]) {
    memo.set("a.json", v(), "first", 100)
    expect(memo.get("a.json", v(changed))).toBeUndefined()
    // Forgotten, not only refused: the old version does not come back either.
    expect(memo.get("a.json", v())).toBeUndefined()
  }
})

test("the version is copied: a Stats object changed later does not change what was kept", () => {
  const memo = makeCassetteMemo<string>()
  const stat = v()
  memo.set("a.json", stat, "kept", 10)
  stat.size = 999
  expect(memo.get("a.json", v())).toBe("kept")
})

test("past the budget the ones read longest ago are forgotten; one larger than the budget is never kept", () => {
  const memo = makeCassetteMemo<string>(250)
  memo.set("1.json", v(), "one", 100)
  memo.set("2.json", v(), "two", 100)
  expect(memo.get("1.json", v())).toBe("one")
  memo.set("3.json", v(), "three", 100)
  expect(memo.get("1.json", v())).toBeUndefined()
  expect(memo.get("2.json", v())).toBe("two")
  expect(memo.get("3.json", v())).toBe("three")
  memo.set("big.json", v(), "big", 251)
  expect(memo.get("big.json", v())).toBeUndefined()
  expect(memo.get("3.json", v())).toBe("three")
  // Setting a path again replaces its entry and its share of the budget.
  memo.set("3.json", v({ size: 5 }), "three again", 150)
  expect(memo.get("3.json", v({ size: 5 }))).toBe("three again")
  expect(memo.get("2.json", v())).toBe("two")
})
