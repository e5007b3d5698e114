import { describe, expect, test } from "bun:test"
import { parseYamlDocument } from "../../src/core/yamlDocument.ts"
import { parseYamlValue } from "../../src/core/yamlTree.ts"
import { yamlErrorMessage } from "../../src/core/yamlErrors.ts"

const firstError = (text: string) => {
  const error = parseYamlDocument(text).errors[0]
  if (error === undefined) throw new Error("expected a parse error")
  return yamlErrorMessage(error)
}

describe("yamlErrorMessage", () => {
  test("a second document gets serde_yaml's wording, not the yaml package's API advice", () => {
    expect(firstError("a: 1\n---\nb: 2\n")).toBe(
      "deserializing from YAML containing more than one document is not supported at line 2, column 1"
    )
  })

  test("10 000 levels of nesting read as a recursion limit, not the engine's stack overflow", () => {
    const message = firstError(`x: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`)
    expect(message).toMatch(/^recursion limit exceeded: the YAML is nested too deeply at line 1, column \d+$/)
  })

  test("other errors keep their first line, without the source excerpt and trailing colon", () => {
    expect(firstError("a:\n\t- b\n")).toBe("Tabs are not allowed as indentation at line 2, column 1")
  })
})

describe("a repeated key", () => {
  const all = (text: string) => parseYamlDocument(text).errors.map(yamlErrorMessage)

  test("is named as upstream names it: strings quoted, numbers bare, booleans in backticks, null", () => {
    expect(firstError("a: 1\na: 2\n")).toBe("duplicate entry with key \"a\" at line 2, column 1")
    expect(firstError("1: a\n1: b\n")).toBe("duplicate entry with key 1 at line 2, column 1")
    expect(firstError("true: a\ntrue: b\n")).toBe("duplicate entry with key `true` at line 2, column 1")
    expect(firstError("~: a\nnull: b\n")).toBe("duplicate entry with null key at line 2, column 1")
    expect(firstError("\"tab\\there\": a\n\"tab\\there\": b\n")).toBe(
      "duplicate entry with key \"tab\\there\" at line 2, column 1"
    )
  })

  test("each repeat names its own key, in block and flow mappings", () => {
    expect(all("a: 1\nb: {x: 1, x: 2}\na: 3\nc:\n  y: 1\n  y: 2\n")).toEqual([
      "duplicate entry with key \"x\" at line 2, column 11",
      "duplicate entry with key \"a\" at line 3, column 1",
      "duplicate entry with key \"y\" at line 6, column 3"
    ])
  })

  test("keys that only look alike are not repeats", () => {
    expect(all("1: a\n\"1\": b\nA: c\na: d\n")).toEqual([])
  })

  test("parseYamlValue throws the one-line message", () => {
    expect(() => parseYamlValue("type: object\ntype: string\n")).toThrow(
      new Error("duplicate entry with key \"type\" at line 2, column 1")
    )
    expect(parseYamlValue("type: object\n")).toEqual({ type: "object" })
  })
})
