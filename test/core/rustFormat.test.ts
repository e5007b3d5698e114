import { describe, expect, test } from "bun:test"
import { rustDebugString, rustFixed } from "../../src/core/rustFormat.ts"

describe("rustDebugString (Rust {:?} of a str)", () => {
  test("escapes quotes, backslashes and the usual control characters", () => {
    expect(rustDebugString(`say "hi"\\ now`)).toBe(`"say \\"hi\\"\\\\ now"`)
    expect(rustDebugString("a\nb\tc\rd\0e")).toBe(`"a\\nb\\tc\\rd\\0e"`)
  })
  test("keeps single quotes and printable non-ASCII text as they are", () => {
    expect(rustDebugString("it's まだ途中です ✓ 😀")).toBe(`"it's まだ途中です ✓ 😀"`)
  })
  test("writes other unprintable characters as \\u{hex}", () => {
    expect(rustDebugString("\u001b[0m")).toBe(`"\\u{1b}[0m"`)
    expect(rustDebugString("\u007f")).toBe(`"\\u{7f}"`)
    expect(rustDebugString("a\u00a0b")).toBe(`"a\\u{a0}b"`)
    expect(rustDebugString("全角\u3000空白")).toBe(`"全角\\u{3000}空白"`)
    expect(rustDebugString("\u200b\ufeff")).toBe(`"\\u{200b}\\u{feff}"`)
    expect(rustDebugString("\u2028")).toBe(`"\\u{2028}"`)
    expect(rustDebugString("\u0008\u000c")).toBe(`"\\u{8}\\u{c}"`)
  })
  test("escapes combining (grapheme-extending) characters", () => {
    expect(rustDebugString("e\u0301")).toBe(`"e\\u{301}"`)
    expect(rustDebugString("❤\ufe0f")).toBe(`"❤\\u{fe0f}"`)
  })
  test("the empty string", () => {
    expect(rustDebugString("")).toBe(`""`)
  })
})

describe("rustFixed (Rust {:.N} of an f64)", () => {
  test("rounds the exact binary value, ties to even", () => {
    expect(rustFixed(0.125, 2)).toBe("0.12")
    expect(rustFixed(0.375, 2)).toBe("0.38")
    expect(rustFixed(2.5, 0)).toBe("2")
    expect(rustFixed(3.5, 0)).toBe("4")
    // 0.615 is really 0.61499999…, 1.005 is 1.00499999…
    expect(rustFixed(0.615, 2)).toBe("0.61")
    expect(rustFixed(1.005, 2)).toBe("1.00")
  })
  test("pads and keeps whole numbers", () => {
    expect(rustFixed(0.7, 2)).toBe("0.70")
    expect(rustFixed(1, 4)).toBe("1.0000")
    expect(rustFixed(0.0123456, 4)).toBe("0.0123")
    expect(rustFixed(0, 2)).toBe("0.00")
  })
  test("large values are written out, not in exponent notation", () => {
    expect(rustFixed(1e21, 1)).toBe("1000000000000000000000.0")
  })
  test("negative values keep their sign", () => {
    expect(rustFixed(-0.5, 2)).toBe("-0.50")
    expect(rustFixed(-0.001, 2)).toBe("-0.00")
  })
})
