import { describe, expect, test } from "bun:test"
import {
  compactJson,
  formatFloat,
  fromJs,
  JsonSyntaxError,
  parseJson,
  prettyJson,
  TraceNumber,
  TraceObject,
  toJs
} from "../../src/trace/json.ts"

const number = (text: string) => {
  const v = parseJson(text)
  if (!(v instanceof TraceNumber)) throw new Error(`not a number: ${text}`)
  return v
}

describe("numbers keep serde_json's kinds", () => {
  test("integer lexemes are exact integers up to u64", () => {
    expect(number("5").integer).toBe(5n)
    expect(number("-7").asI64).toBe(-7n)
    expect(number("18446744073709551615").integer).toBe(18446744073709551615n)
    expect(number("18446744073709551615").asI64).toBeUndefined()
    expect(number("18446744073709551615").asU64).toBe(18446744073709551615n)
    expect(number("9223372036854775807").asI64).toBe(9223372036854775807n)
    expect(number("-9223372036854775808").asI64).toBe(-9223372036854775808n)
  })

  test("fractions, exponents, -0 and out-of-range integers are floats", () => {
    expect(number("5.0").integer).toBeUndefined()
    expect(number("5.0").text).toBe("5.0")
    expect(number("1E2").text).toBe("100.0")
    expect(number("-0").text).toBe("-0.0")
    expect(number("18446744073709551616").integer).toBeUndefined()
    expect(number("18446744073709551616").text).toBe("1.8446744073709552e19")
    expect(number("-9223372036854775809").text).toBe("-9.223372036854776e18")
    expect(number("0.10").text).toBe("0.1")
  })

  test("floats print as Rust's ryu does", () => {
    expect(formatFloat(1)).toBe("1.0")
    expect(formatFloat(0)).toBe("0.0")
    expect(formatFloat(1.5)).toBe("1.5")
    expect(formatFloat(123.456)).toBe("123.456")
    expect(formatFloat(1e15)).toBe("1000000000000000.0")
    expect(formatFloat(1e16)).toBe("1e16")
    expect(formatFloat(1.25e20)).toBe("1.25e20")
    expect(formatFloat(0.0001)).toBe("0.0001")
    expect(formatFloat(0.00001)).toBe("0.00001")
    expect(formatFloat(0.000001)).toBe("1e-6")
    expect(formatFloat(-2.5e-7)).toBe("-2.5e-7")
    expect(formatFloat(0.1 + 0.2)).toBe("0.30000000000000004")
  })

  test("JS numbers recorded in memory: safe integers stay integers", () => {
    expect(compactJson(fromJs({ a: 3, b: 0.5, c: 2 ** 53 }))).toBe("{\"a\":3,\"b\":0.5,\"c\":9007199254740992.0}")
  })
})

describe("objects", () => {
  test("keys keep file order, integer-like keys included", () => {
    const v = parseJson("{\"b\":1,\"2\":2,\"a\":3,\"1\":4}")
    expect(v).toBeInstanceOf(TraceObject)
    expect((v as TraceObject).entries.map(([k]) => k)).toEqual(["b", "2", "a", "1"])
    expect(compactJson(v)).toBe("{\"b\":1,\"2\":2,\"a\":3,\"1\":4}")
  })

  test("a repeated key keeps its first place and its last value", () => {
    expect(compactJson(parseJson("{\"a\":1,\"b\":2,\"a\":3}"))).toBe("{\"a\":3,\"b\":2}")
  })
})

describe("strings", () => {
  test("escapes are decoded, surrogate pairs joined", () => {
    expect(parseJson("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"")).toBe("a\"b\\c/d\b\f\n\r\té😀")
  })

  test("control characters must be escaped, and are escaped on output", () => {
    expect(() => parseJson("\"a\tb\"")).toThrow(JsonSyntaxError)
    expect(compactJson("a\tb\u0001")).toBe("\"a\\tb\\u0001\"")
  })

  test("a lone surrogate escape is rejected", () => {
    expect(() => parseJson("\"\\ud800\"")).toThrow("unexpected end of hex escape")
    expect(() => parseJson("\"\\udc00\"")).toThrow("lone leading surrogate in hex escape")
  })
})

describe("syntax errors name the column", () => {
  test.each([
    ["", "EOF while parsing a value at column 1"],
    ["{", "EOF while parsing an object at column 2"],
    ["{\"a\" 1}", "expected `:` at column 6"],
    ["[1 2]", "expected `,` or `]` at column 4"],
    ["{\"a\":1} x", "trailing characters at column 9"],
    ["01", "invalid number at column 2"],
    ["1.", "invalid number at column 2"],
    ["nul", "expected value at column 1"],
    ["1e999", "number out of range at column 1"],
    ["\"\\x\"", "invalid escape at column 3"]
  ])("%j", (text, message) => {
    expect(() => parseJson(text)).toThrow(message)
  })

  test("nesting deeper than 128 is an error, not a stack overflow", () => {
    expect(() => parseJson(`${"[".repeat(200)}${"]".repeat(200)}`)).toThrow("recursion limit exceeded")
    expect(toJs(parseJson(`${"[".repeat(100)}${"]".repeat(100)}`))).toBeArray()
  })
})

describe("output", () => {
  test("compact and pretty forms match serde_json", () => {
    const v = parseJson("{\"a\":[1,2.5,{\"b\":null}],\"e\":{},\"f\":[],\"g\":true}")
    expect(compactJson(v)).toBe("{\"a\":[1,2.5,{\"b\":null}],\"e\":{},\"f\":[],\"g\":true}")
    expect(prettyJson(v)).toBe(
      "{\n  \"a\": [\n    1,\n    2.5,\n    {\n      \"b\": null\n    }\n  ],\n  \"e\": {},\n  \"f\": [],\n  \"g\": true\n}"
    )
  })
})
