// The one-line excerpts errors quote outside text with (src/core/excerpt.ts).
import { expect, test } from "bun:test"
import { excerpt, isAbridged, quotedExcerpt } from "../../src/core/excerpt.ts"
import { editDistance, nearest } from "../../src/core/suggest.ts"

test("control characters are escaped, a backslash is not; long text is cut after whole characters", () => {
  expect(excerpt("a\nb\r\tc\u001b[31md\u2028 C:\\dir")).toBe("a\\nb\\r\\tc\\u001b[31md\\u2028 C:\\dir")
  expect(excerpt("😀".repeat(5), 3)).toBe("😀😀😀…")
  expect(excerpt("abc", 3)).toBe("abc")
  expect(excerpt("x".repeat(300))).toBe(`${"x".repeat(200)}…`)
  expect(excerpt("a\nb", Infinity)).toBe("a\\nb")
})

test("quotedExcerpt is a JSON string, the ellipsis outside its quotes", () => {
  expect(quotedExcerpt("say \"hi\"\n")).toBe("\"say \\\"hi\\\"\\n\"")
  expect(quotedExcerpt("abcdef", 3)).toBe("\"abc\"…")
  expect(JSON.parse(quotedExcerpt("a\u2028b"))).toBe("a\u2028b")
})

test("isAbridged: cut or escaped", () => {
  expect(isAbridged("plain")).toBe(false)
  expect(isAbridged("two\nlines")).toBe(true)
  expect(isAbridged("abcd", 3)).toBe(true)
})

test("nearest: a likely typo of a candidate, else nothing", () => {
  expect(editDistance("promt", "prompt")).toBe(1)
  expect(editDistance("qj", "jq")).toBe(1)
  const kinds = ["prompt", "agent", "run", "jq", "for_each", "parallel"]
  expect(["promt", "Prompt", "foreach", "paralel", "qj", "agnet"].map((w) => nearest(w, kinds)))
    .toEqual(["prompt", "prompt", "for_each", "parallel", "jq", "agent"])
  expect(nearest("steps", kinds)).toBeUndefined()
})
