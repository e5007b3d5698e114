import { describe, expect, test } from "bun:test"
import { hitsIn } from "../hardening/secrets-util.ts"
import { containsAnySecret, containsSecret, headerSecrets, maskedKey, redactSecret, redactSecrets } from "../../src/core/secrets.ts"

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

test("the key percent-encoded (either hex case, any mix, `+` for a space) is masked", () => {
  const encoded = encodeURIComponent(KEY)
  expect(encoded).not.toBe(KEY)
  expect(redactSecret(`?api-key=${encoded}&x=1`, KEY)).toBe("?api-key=<redacted>&x=1")
  expect(redactSecret(`k=${encoded.toLowerCase()}`, KEY)).toBe("k=<redacted>")
  expect(redactSecret(`k=${encodeURI(KEY)}`, KEY)).toBe("k=<redacted>")
  expect(redactSecret("k=my+pass+word!", "my pass word!")).toBe("k=<redacted>")
  expect(containsSecret(JSON.stringify({ url: `https://h/?key=${encoded}` }), KEY)).toBe(true)
})

test("the key base64-encoded at any offset of a larger blob, in both alphabets, is masked", () => {
  for (const prefix of ["", "u", "us", "user:"]) {
    for (const alphabet of ["base64", "base64url"] as const) {
      const blob = Buffer.from(`${prefix}${KEY}-tail`).toString(alphabet)
      const text = `{"error":"bad credentials: Basic ${blob}"}`
      expect(containsSecret(text, KEY)).toBe(true)
      expect(redactSecret(text, KEY)).toContain("<redacted>")
      // No alignment of the key's encoding is left in the blob.
      expect(hitsIn(KEY, "redacted", redactSecret(text, KEY))).toEqual([])
    }
  }
  // Short keys are not searched for in base64 (their encodings are too short to be telling).
  expect(redactSecret(Buffer.from("abcd").toString("base64"), "abcd")).toBe("YWJjZA==")
})

test("redactSecrets masks several secrets, the longer first; containsAnySecret finds any", () => {
  expect(redactSecrets("a=sk-long-secret b=long-secret", ["long-secret", "sk-long-secret"])).toBe("a=<redacted> b=<redacted>")
  expect(containsAnySecret("x sk-other-1 y", [undefined, "sk-none-000", "sk-other-1"])).toBe(true)
  expect(containsAnySecret("x y", ["sk-none-000"])).toBe(false)
  expect(headerSecrets(["Bearer sk-abcdefgh", " plain-value ", "Basic ab"])).toEqual([
    "Bearer sk-abcdefgh",
    "sk-abcdefgh",
    "plain-value",
    "Basic ab"
  ])
})

describe("maskedKey", () => {
  test("shows a long key's last four characters only, and a short key not at all", () => {
    expect(maskedKey("sk-proj-abcdefghijklmnopqrstuvwxyz")).toBe("…wxyz")
    expect(maskedKey("sk-1234567890123456")).toBe("<redacted>")
    expect(maskedKey("abc")).toBe("<redacted>")
  })
})

test("JSON text inside a JSON string (an OTLP attribute holding messages) is masked at every depth", () => {
  const secret = "sk-nest/ed+12345678"
  const escaped = JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/")
  const inner = JSON.stringify([{ role: "assistant", content: `key ${escaped}` }])
  const outer = JSON.stringify({ stringValue: inner })
  const masked = redactSecret(outer, secret)
  expect(masked).not.toContain("nest")
  expect(JSON.parse(JSON.parse(masked).stringValue)[0].content).toBe("key <redacted>")
})
