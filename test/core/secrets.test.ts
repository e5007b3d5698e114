import { expect, test } from "bun:test"
import { containsSecret, redactSecret } from "../../src/core/secrets.ts"

const KEY = "sk-\"q\"\\b/1234"

test("the raw key and its JSON spellings (escaped quote/backslash, escaped slash) are masked", () => {
  expect(redactSecret(`raw ${KEY} end`, KEY)).toBe("raw <redacted> end")
  expect(redactSecret(JSON.stringify({ m: `bad ${KEY}` }), KEY)).toBe("{\"m\":\"bad <redacted>\"}")
  expect(redactSecret(JSON.stringify({ m: KEY }).replaceAll("/", "\\/"), KEY)).toBe("{\"m\":\"<redacted>\"}")
})

test("JSON that spells the key with \\u escapes is re-serialized with the key masked", () => {
  const text = `{ "error": { "message": "bad key ${JSON.stringify(KEY).slice(1, -1).replaceAll("\\\"", "\\u0022")}" } }`
  expect(text).not.toContain(JSON.stringify(KEY).slice(1, -1))
  expect(containsSecret(text, KEY)).toBe(true)
  expect(redactSecret(text, KEY)).toBe("{\"error\":{\"message\":\"bad key <redacted>\"}}")
})

test("text without the key, short keys and ignored values are left alone", () => {
  const body = "{ \"ok\": true }"
  expect(redactSecret(body, KEY)).toBe(body)
  expect(containsSecret(body, KEY)).toBe(false)
  expect(redactSecret("abc abc", "abc")).toBe("abc abc")
  expect(redactSecret("lm-studio", "lm-studio", ["lm-studio"])).toBe("lm-studio")
  expect(containsSecret("lm-studio", "lm-studio", ["lm-studio"])).toBe(false)
  expect(redactSecret("anything", undefined)).toBe("anything")
})
