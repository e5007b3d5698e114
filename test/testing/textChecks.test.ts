// The pure parts of the added assertions (docs/testing.md#assertions): the bounded edit distance, the
// unit counts of `length`, and how a `script` command line splits into words.
import { describe, expect, test } from "bun:test"
import { scriptArgv, splitCommandLine } from "../../src/testing/scriptAssertion.ts"
import { boundedLevenshtein, checkText } from "../../src/testing/textChecks.ts"

describe("boundedLevenshtein", () => {
  test("is exact up to max and max + 1 beyond it, by code point", () => {
    expect(boundedLevenshtein("kitten", "sitting", 3)).toBe(3)
    expect(boundedLevenshtein("kitten", "sitting", 2)).toBe(3)
    expect(boundedLevenshtein("", "abc", 5)).toBe(3)
    expect(boundedLevenshtein("naïve 🙂", "naive 🙂", 1)).toBe(1)
    expect(boundedLevenshtein("a".repeat(100_000), "a".repeat(99_999) + "b", 1)).toBe(1)
    expect(boundedLevenshtein("short", "a much longer text", 3)).toBe(4)
  })
})

describe("length", () => {
  test("counts code points or blank-separated words", () => {
    expect(checkText({ type: "length", max: 2 }, "🙂🙂")).toBeUndefined()
    expect(checkText({ type: "length", max: 2, unit: "words" }, "  one\ttwo\n")).toBeUndefined()
    expect(checkText({ type: "length", min: 3, unit: "words" }, "one two")).toEqual({
      message: "expected output of at least 3 words, got 2"
    })
  })
})

describe("splitCommandLine", () => {
  test("splits as a POSIX shell does, without expansions", () => {
    expect(splitCommandLine(`python3  check.py --name 'a b' "c \\"d\\" $HOME" e\\ f ''`)).toEqual([
      "python3",
      "check.py",
      "--name",
      "a b",
      `c "d" $HOME`,
      "e f",
      ""
    ])
    expect(splitCommandLine("sh -c 'oops")).toBe("unterminated single quote")
    expect(splitCommandLine(`say "hi`)).toBe("unterminated double quote")
    expect(scriptArgv("   ")).toBe("the command is empty")
    expect(scriptArgv(["node", "judge.mjs"])).toEqual(["node", "judge.mjs"])
  })
})
