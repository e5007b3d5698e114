import { describe, expect, test } from "bun:test"
import { parseDocument } from "yaml"
import { yamlErrorMessage } from "../../src/core/yamlErrors.ts"

const firstError = (text: string) => {
  const error = parseDocument(text, { prettyErrors: true, uniqueKeys: true }).errors[0]
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
    expect(firstError("a: 1\na: 2\n")).toBe("Map keys must be unique at line 2, column 1")
  })
})
