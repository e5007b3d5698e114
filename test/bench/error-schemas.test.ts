// The domain error classes are loaded by every lait process (several by `lait --version`). Building
// their `reason` unions (about a hundred tagged structs) when the modules were evaluated added ≈ 5 ms
// of CPU to every start-up, so each union is suspended until the first error of its class is made.
// These tests keep it that way, and check that a suspended reason is still validated and rendered.
import { describe, expect, test } from "bun:test"
import type { Schema } from "effect"
import { ConfigError } from "../../src/core/configErrors.ts"
import { FileError } from "../../src/core/fileErrors.ts"
import { StepError } from "../../src/core/stepErrors.ts"
import { McpError, ToolError } from "../../src/core/toolErrors.ts"
import { ArgumentError } from "../../src/core/usageErrors.ts"
import { WorkflowLoadError } from "../../src/lang/loadErrors.ts"
import { TraceError } from "../../src/trace/TraceError.ts"
import { CommandError } from "../../src/cli/commandErrors.ts"
import { SkillError } from "../../src/core/skillErrors.ts"
import { SubagentError } from "../../src/core/subagentErrors.ts"
import { EvalError } from "../../src/eval/evalErrors.ts"
import { JqError, SchemaError, TemplateError } from "../../src/lang/languageErrors.ts"
import { LintError } from "../../src/lint/lintErrors.ts"
import { ServeError } from "../../src/serve/serveErrors.ts"
import { TestError } from "../../src/testing/testErrors.ts"

const classes = {
  ConfigError,
  FileError,
  StepError,
  McpError,
  ToolError,
  ArgumentError,
  WorkflowLoadError,
  TraceError,
  CommandError,
  SubagentError,
  SkillError,
  EvalError,
  JqError,
  TemplateError,
  SchemaError,
  LintError,
  TestError,
  ServeError
}

describe("domain error reason schemas", () => {
  test.each(Object.keys(classes))("%s builds its reason union on first use", (name) => {
    const fields = (classes[name as keyof typeof classes] as unknown as { fields: Record<string, Schema.Top> }).fields
    expect(fields["reason"]?.ast._tag).toBe("Suspend")
  })

  test("a suspended reason is still validated and rendered", () => {
    expect(() => new FileError({ reason: { _tag: "Bogus" } as never })).toThrow("Schema validation failed")
    const error = new FileError({ reason: { _tag: "NotUtf8", path: "notes.txt" } })
    expect(error.message).toBe("failed to read 'notes.txt'")
    expect(error.detail).toBe("file contents were not valid UTF-8")
  })
})
