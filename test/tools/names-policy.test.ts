import { describe, expect, test } from "bun:test"
import { ToolError } from "../../src/tools/toolErrors.ts"
import { findCollision, qualifyToolName } from "../../src/tools/names.ts"
import { matchesPattern, policyAllows } from "../../src/tools/policy.ts"

describe("qualifyToolName", () => {
  test("prefix__name, other characters replaced by _", () => {
    expect(qualifyToolName("MCP tool", "filesystem", "read_file")).toBe("filesystem__read_file")
    expect(qualifyToolName("MCP tool", "my server", "tool.name")).toBe("my_server__tool_name")
    expect(qualifyToolName("MCP tool", "s", "日本")).toBe("s____")
    expect(qualifyToolName("shell tool", "tool", "get-sum")).toBe("tool__get-sum")
  })

  test("64 characters at most, without truncating", () => {
    expect(qualifyToolName("MCP tool", "server", "a".repeat(56))).toBe(`server__${"a".repeat(56)}`)
    const error = qualifyToolName("MCP tool", "server", "a".repeat(57))
    expect(error).toBeInstanceOf(ToolError)
    expect((error as ToolError).message).toBe(
      `MCP tool name 'server__${"a".repeat(57)}' (from 'server', '${"a".repeat(57)}') is empty or exceeds OpenAI's ` +
        "64-character function name limit"
    )
  })
})

describe("findCollision", () => {
  test("names the two sources in the order tools are sent", () => {
    expect(
      findCollision([
        { source: "mcp", names: ["tool__echo", "tool__x"] },
        { source: "subagent", names: ["agent__a"] },
        { source: "shell", names: ["tool__echo"] }
      ])?.message
    ).toBe("tool name collision: an MCP tool and a shell tool both qualify to 'tool__echo'")
    expect(
      findCollision([
        { source: "mcp", names: ["agent__helper"] },
        { source: "subagent", names: ["agent__helper"] },
        { source: "shell", names: [] }
      ])?.message
    ).toBe("tool name collision: an MCP tool and a subagent both qualify to 'agent__helper'")
    expect(
      findCollision([
        { source: "subagent", names: ["x"] },
        { source: "shell", names: ["x"] }
      ])?.message
    ).toBe("tool name collision: a subagent and a shell tool both qualify to 'x'")
  })

  test("no collision without a shared name", () => {
    expect(findCollision([{ source: "mcp", names: ["a__b"] }, { source: "shell", names: ["tool__b"] }])).toBeUndefined()
  })
})

describe("tool_policy", () => {
  test("pattern forms: *, *mid*, pre*, *suf, exact", () => {
    expect(matchesPattern("*", "anything")).toBe(true)
    expect(matchesPattern("*read*", "filesystem__read_file")).toBe(true)
    expect(matchesPattern("*read*", "filesystem__write_file")).toBe(false)
    expect(matchesPattern("filesystem__*", "filesystem__write_file")).toBe(true)
    expect(matchesPattern("filesystem__*", "tool__filesystem__x")).toBe(false)
    expect(matchesPattern("*_file", "filesystem__write_file")).toBe(true)
    expect(matchesPattern("*_file", "filesystem__write_files")).toBe(false)
    expect(matchesPattern("tool__echo", "tool__echo")).toBe(true)
    expect(matchesPattern("tool__echo", "tool__echo2")).toBe(false)
    // `*mid*` is a contains pattern, never a prefix pattern that starts with a literal '*'.
    expect(matchesPattern("*__*", "a__b")).toBe(true)
  })

  test("deny first; an empty allow allows all, a non-empty one requires a match", () => {
    expect(policyAllows(undefined, "x")).toBe(true)
    expect(policyAllows({ allow: [], deny: [] }, "x")).toBe(true)
    expect(policyAllows({ allow: [], deny: ["*write*"] }, "filesystem__write_file")).toBe(false)
    expect(policyAllows({ allow: ["filesystem__*"], deny: [] }, "filesystem__read_file")).toBe(true)
    expect(policyAllows({ allow: ["filesystem__*"], deny: [] }, "tool__echo")).toBe(false)
    expect(policyAllows({ allow: ["*"], deny: ["tool__rm"] }, "tool__rm")).toBe(false)
    expect(policyAllows({ allow: ["tool__rm"], deny: ["tool__*"] }, "tool__rm")).toBe(false)
  })
})
