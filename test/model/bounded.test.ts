// The pieces behind bounded model responses (the binary is driven by test/hardening/responses.test.ts):
// size and wait formatting, Retry-After parsing, and entry texts that survive any depth and size.
import { describe, expect, test } from "bun:test"
import { READ_LIMIT } from "../../src/platform/FileLoader.ts"
import { deeperThan, entryText, PRETTY_DEPTH, stringifyDeep, unreadableSize } from "../../src/model/cassette/entryText.ts"
import { formatBytes, formatWait } from "../../src/core/units.ts"
import { retryAfter, retryWarning } from "../../src/model/retry.ts"

describe("formatBytes and formatWait", () => {
  test("sizes", () => {
    expect([1, 1000, 1024, 1536, 1500, 16 * 1024 * 1024, 1024 ** 3, 3 * 1024 ** 3 / 2].map(formatBytes)).toEqual([
      "1 byte",
      "1000 bytes",
      "1 KiB",
      "1.5 KiB",
      "1.46 KiB",
      "16 MiB",
      "1 GiB",
      "1.5 GiB"
    ])
  })

  test("waits", () => {
    expect([0, 250, 999.6, 1000, 1500, 2049, 60_000].map(formatWait)).toEqual([
      "0 ms",
      "250 ms",
      "1000 ms",
      "1 s",
      "1.5 s",
      "2 s",
      "60 s"
    ])
  })
})

describe("retryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z")
  const h = (value: string) => ({ "retry-after": value })

  test("delay-seconds and HTTP dates on 429 and 503", () => {
    expect(retryAfter(503, h("2"), now)).toEqual({ millis: 2000 })
    expect(retryAfter(429, h(" 0 "), now)).toEqual({ millis: 0 })
    expect(retryAfter(429, h("Thu, 01 Jan 2026 00:00:05 GMT"), now)).toEqual({ millis: 5000 })
    // A date in the past means now.
    expect(retryAfter(503, h("Wed, 31 Dec 2025 23:59:00 GMT"), now)).toEqual({ millis: 0 })
  })

  test("capped at 60 s, keeping what was asked", () => {
    expect(retryAfter(503, h("3600"), now)).toEqual({ millis: 60_000, askedMillis: 3_600_000 })
    expect(retryAfter(429, h("Thu, 01 Jan 2026 01:00:00 GMT"), now)).toEqual({ millis: 60_000, askedMillis: 3_600_000 })
  })

  test("ignored on other statuses and when missing or unreadable", () => {
    expect(retryAfter(500, h("2"), now)).toBeUndefined()
    expect(retryAfter(408, h("2"), now)).toBeUndefined()
    expect(retryAfter(503, {}, now)).toBeUndefined()
    expect(retryAfter(503, h("soon"), now)).toBeUndefined()
    expect(retryAfter(503, h("-1"), now)).toBeUndefined()
    expect(retryAfter(503, h("1.5"), now)).toBeUndefined()
  })

  test("the warning", () => {
    const base = { reason: "r", saysHowLong: false, attempt: 1, attempts: 3, elapsedMillis: 10, waitMillis: 250 }
    expect(retryWarning(base)).toBe("warning: r (attempt 1/3); retrying in 250 ms")
    expect(retryWarning({ ...base, elapsedMillis: 1234 })).toBe("warning: r (attempt 1/3, after 1.2 s); retrying in 250 ms")
    expect(retryWarning({ ...base, elapsedMillis: 2000, saysHowLong: true })).toBe("warning: r (attempt 1/3); retrying in 250 ms")
    expect(retryWarning({ ...base, waitMillis: 2000, retryAfter: { millis: 2000 } })).toBe(
      "warning: r (attempt 1/3); retrying in 2 s (Retry-After)"
    )
    expect(retryWarning({ ...base, waitMillis: 60_000, retryAfter: { millis: 60_000, askedMillis: 90_000 } })).toBe(
      "warning: r (attempt 1/3); retrying in 60 s (Retry-After asked for 90 s; capped)"
    )
  })
})

describe("entry texts", () => {
  const nested = (depth: number): unknown => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`)

  test("stringifyDeep matches JSON.stringify, at any depth", () => {
    const value = JSON.parse(`{"a":[1,{"b":"x\\u0000\\"\\ud800","c":null,"d":true,"e":1.5e300}],"f":{},"g":[],"":-0}`)
    expect(stringifyDeep(value)).toBe(JSON.stringify(value))
    expect(stringifyDeep({ skip: undefined, keep: [undefined] })).toBe(JSON.stringify({ skip: undefined, keep: [undefined] }))
    for (const v of [null, 1, "s", [], {}]) expect(stringifyDeep(v)).toBe(JSON.stringify(v))
    const text = `${"[".repeat(300_000)}${"]".repeat(300_000)}`
    expect(stringifyDeep(JSON.parse(text))).toBe(text)
  })

  test("deeperThan", () => {
    expect(deeperThan(1, 0)).toBe(false)
    expect(deeperThan([], 0)).toBe(true)
    expect(deeperThan(nested(3), 3)).toBe(false)
    expect(deeperThan(nested(4), 3)).toBe(true)
    // object, array, object, object: four levels.
    expect(deeperThan({ a: [1, { b: {} }] }, 4)).toBe(false)
    expect(deeperThan({ a: [1, { b: { c: [] } }] }, 4)).toBe(true)
  })

  test("pretty up to PRETTY_DEPTH, compact below a pretty head beyond; both parse back", () => {
    const shallow = { choices: [{ message: { content: "x" } }] }
    const pretty = entryText({ created_at: "t" }, shallow)
    expect(pretty).toEqual({ text: `${JSON.stringify({ created_at: "t", response: shallow }, null, 2)}\n` })
    const deepValue = { extra: nested(PRETTY_DEPTH + 1) }
    const deep = entryText({ created_at: "t", request: { a: 1 } }, deepValue)
    if (!("text" in deep)) throw new Error(deep.problem)
    expect(deep.text).toStartWith('{\n  "created_at": "t",\n  "request": {\n    "a": 1\n  },\n  "response": {"extra":[[')
    expect(deep.text).toEndWith("]]}\n}\n")
    expect(JSON.parse(deep.text)).toEqual({ created_at: "t", request: { a: 1 }, response: deepValue })
  })

  test("unreadableSize: up to the read limit is fine, one byte more is not, counted in UTF-8", () => {
    expect(unreadableSize("x".repeat(READ_LIMIT))).toBeUndefined()
    expect(unreadableSize("x".repeat(READ_LIMIT + 1))).toBe(
      `it would be 16 MiB (${READ_LIMIT + 1} bytes), over the 16 MiB read limit, so it could never be read back`
    )
    // 2 UTF-16 units, 4 UTF-8 bytes each: 8 MiB of text is over the 16 MiB limit.
    const emoji = "😀".repeat(READ_LIMIT / 4 + 1)
    expect(unreadableSize(emoji)).toContain(`(${READ_LIMIT + 4} bytes)`)
  })
})
