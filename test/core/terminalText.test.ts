import { describe, expect, test } from "bun:test"
import { escapeControls } from "../../src/core/terminalText.ts"

describe("escapeControls", () => {
  test("C0, DEL and C1 controls become \\uXXXX; printable text of any script stays", () => {
    expect(escapeControls("a\u001b[31mb\u0007\u007f\u0085\u009b2J\u0000")).toBe(
      "a\\u001b[31mb\\u0007\\u007f\\u0085\\u009b2J\\u0000"
    )
    expect(escapeControls("naïve 日本語 — \u00a0ok")).toBe("naïve 日本語 — \u00a0ok")
  })

  test("newline and tab are escaped in a one-line field and kept with keepLines; CR never is kept", () => {
    expect(escapeControls("a\nb\tc\rd")).toBe("a\\nb\\tc\\rd")
    expect(escapeControls("a\nb\tc\rd", { keepLines: true })).toBe("a\nb\tc\\rd")
  })
})
