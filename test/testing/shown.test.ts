// How `lait test` shows a JSON output and a tool's arguments in a failure (src/testing/shown.ts).
import { describe, expect, test } from "bun:test"
import { callArgumentsBlock, jsonOutputBlock, SHOWN_LINE_CHARS, SHOWN_LINES } from "../../src/testing/shown.ts"

describe("jsonOutputBlock", () => {
  test("an object or array is indented; numbers and strings stay exactly as spelled", () => {
    const output = `{"n":12345678901234567890,"f":1.50,"s":"a {b} [c], \\"d\\": e","e":{},"l":[ ],"x":[1,{"y":null}]}`
    expect(jsonOutputBlock(output)).toBe([
      "",
      "  {",
      "    \"n\": 12345678901234567890,",
      "    \"f\": 1.50,",
      "    \"s\": \"a {b} [c], \\\"d\\\": e\",",
      "    \"e\": {},",
      "    \"l\": [],",
      "    \"x\": [",
      "      1,",
      "      {",
      "        \"y\": null",
      "      }",
      "    ]",
      "  }"
    ].join("\n"))
  })

  test("anything else is left to the quoted form", () => {
    for (const output of ["plain text", "42", "\"a string\"", "true", "{not json", "[1,"]) {
      expect(jsonOutputBlock(output)).toBeUndefined()
    }
  })

  test("long outputs are cut with a note of how much", () => {
    const items = Array.from({ length: 100 }, (_, i) => i)
    const lines = jsonOutputBlock(JSON.stringify(items))!.split("\n").slice(1)
    expect(lines).toHaveLength(SHOWN_LINES + 1)
    expect(lines.at(-2)).toBe("    38,")
    expect(lines.at(-1)).toBe(`  … (${102 - SHOWN_LINES} more lines cut)`)
    const long = jsonOutputBlock(JSON.stringify({ text: "x".repeat(500) }))!.split("\n")[2]!
    // The line before it is cut is `  "text": "xxx…x"`, 512 characters.
    expect(long).toBe(`    "text": "${"x".repeat(SHOWN_LINE_CHARS - 11)}… (${512 - SHOWN_LINE_CHARS} more characters cut)`)
  })
})

describe("callArgumentsBlock", () => {
  test("one line per call, as recorded; at most ten", () => {
    expect(callArgumentsBlock(["{\"a\": 1}", "{\n  \"b\": 2\n}\n", undefined])).toBe(
      "\n  {\"a\": 1}\n  { \"b\": 2 }\n  (no arguments recorded)"
    )
    const many = callArgumentsBlock(Array.from({ length: 12 }, (_, i) => `{"i":${i}}`)).split("\n").slice(1)
    expect(many).toHaveLength(11)
    expect(many.at(-1)).toBe("  … (2 more calls cut)")
  })
})
