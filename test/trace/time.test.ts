import { describe, expect, test } from "bun:test"
import { formatClock, formatMillis, formatTimestamp, nanosOfDate, parseTimestamp, unixNanosText } from "../../src/trace/time.ts"
import { prng } from "../fixtures/prng.ts"

describe("parseTimestamp", () => {
  test("UTC with nanoseconds is exact", () => {
    expect(parseTimestamp("2024-05-01T12:00:00.123456789Z")).toBe(1714564800123456789n)
  })

  test("offsets are converted to UTC; `t`, a space and offsets without a colon are accepted", () => {
    expect(parseTimestamp("2024-05-01T21:00:00+09:00")).toBe(1714564800000000000n)
    expect(parseTimestamp("2024-05-01 07:30:00-0430")).toBe(1714564800000000000n)
    expect(parseTimestamp("2024-05-01t12:00:00z")).toBe(1714564800000000000n)
  })

  test("fraction digits past nanoseconds are dropped", () => {
    expect(parseTimestamp("1970-01-01T00:00:00.1234567899Z")).toBe(123456789n)
  })

  test("before the epoch", () => {
    expect(parseTimestamp("1969-12-31T23:59:59.5Z")).toBe(-500000000n)
  })

  test.each([
    "2024-05-01",
    "2024-05-01T12:00:00",
    "2024-02-30T00:00:00Z",
    "2023-02-29T00:00:00Z",
    "2024-13-01T00:00:00Z",
    "2024-05-01T24:00:00Z",
    "2024-05-01T12:60:00Z",
    "2024-05-01T12:00:00.Z",
    " 2024-05-01T12:00:00Z"
  ])("rejects %j", (text) => {
    expect(parseTimestamp(text)).toBeUndefined()
  })

  test("a leap day is valid", () => {
    expect(parseTimestamp("2024-02-29T00:00:00Z")).toBeDefined()
  })
})

describe("formatTimestamp (chrono's serde form)", () => {
  test.each([
    [1714564800000000000n, "2024-05-01T12:00:00Z"],
    [1714564800120000000n, "2024-05-01T12:00:00.120Z"],
    [1714564800000001000n, "2024-05-01T12:00:00.000001Z"],
    [1714564800000000001n, "2024-05-01T12:00:00.000000001Z"],
    [-500000000n, "1969-12-31T23:59:59.500Z"],
    [0n, "1970-01-01T00:00:00Z"]
  ])("%p → %s", (nanos, text) => {
    expect(formatTimestamp(nanos)).toBe(text)
    expect(parseTimestamp(text)).toBe(nanos)
  })

  test("a Date round-trips at millisecond precision", () => {
    const date = new Date("2026-03-04T05:06:07.089Z")
    expect(formatTimestamp(nanosOfDate(date))).toBe("2026-03-04T05:06:07.089Z")
  })
})

test("formatClock is %H:%M:%S%.3f in UTC, milliseconds truncated", () => {
  expect(formatClock(parseTimestamp("2024-05-01T14:03:11.204999999+00:00")!)).toBe("14:03:11.204")
  expect(formatClock(parseTimestamp("2024-05-01T23:03:11+09:00")!)).toBe("14:03:11.000")
})

test("unixNanosText is decimal, 0 outside i64 (as chrono's timestamp_nanos_opt)", () => {
  expect(unixNanosText(1714564800123456789n)).toBe("1714564800123456789")
  expect(unixNanosText(parseTimestamp("2300-01-01T00:00:00Z")!)).toBe("0")
})

describe("formatMillis", () => {
  test("is formatTimestamp of the same instant in nanoseconds, inside and outside the years a Date's ISO form covers", () => {
    const fixed = [
      0n, 1n, 999n, 1000n, 1_700_000_000_000n, 1_700_000_000_120n, 253_402_300_799_999n, 253_402_300_800_000n,
      -1n, -1000n, -62_167_219_200_000n, 8_640_000_000_000_000n
    ]
    const random = prng(24)
    const drawn = Array.from({ length: 2000 }, (_, i) => {
      const span = i % 2 === 0 ? 2 ** 41 : 2 ** 53
      return BigInt(Math.floor((random() * 2 - (i % 3 === 0 ? 1 : 0)) * span))
    })
    for (const millis of [...fixed, ...drawn]) expect(formatMillis(millis)).toBe(formatTimestamp(millis * 1_000_000n))
  })
})
