import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import {
  errorClassOf,
  ExitCode,
  exitCodeOf,
  InterruptedError,
  LaitError,
  ModelApiError,
  renderChain,
  UsageError,
  ValidationError,
  withContext
} from "../../src/core/errors.ts"
import { StepError } from "../../src/workflow/stepErrors.ts"
import { McpError, ToolError } from "../../src/tools/toolErrors.ts"

describe("error chains", () => {
  test("render outer to inner, joined by ': ', skipping repeats", () => {
    const inner = new ValidationError({ message: "steps[0]: unknown field 'x'" })
    const outer = new LaitError({ message: "failed to load workflow 'wf.yml'", cause: inner })
    expect(renderChain(outer)).toBe("failed to load workflow 'wf.yml': steps[0]: unknown field 'x'")
    expect(renderChain(new LaitError({ message: "a", cause: new LaitError({ message: "a" }) }))).toBe("a")
    expect(renderChain(new LaitError({ message: "read", cause: new Error("EIO") }))).toBe("read: EIO")
  })

  test("exit codes follow the whole chain", () => {
    expect(exitCodeOf(new LaitError({ message: "x" }))).toBe(ExitCode.general)
    expect(exitCodeOf(new UsageError({ message: "x" }))).toBe(ExitCode.usage)
    // A YAML/validation problem anywhere in the chain means 3, a model API error 4.
    expect(exitCodeOf(new LaitError({ message: "a", cause: new ValidationError({ message: "b" }) }))).toBe(3)
    expect(exitCodeOf(new LaitError({ message: "a", cause: new ModelApiError({ message: "503" }) }))).toBe(4)
    expect(exitCodeOf(new InterruptedError({ message: "timed out" }))).toBe(ExitCode.interrupted)
    // Interruption only counts at the top: a wrapped timeout is an ordinary failure.
    expect(exitCodeOf(new LaitError({ message: "a", cause: new InterruptedError({ message: "t" }) }))).toBe(1)
  })

  test("withContext keeps the class of what it wraps", () => {
    expect(withContext("loading")(new ValidationError({ message: "bad" }))._tag).toBe("ValidationError")
    expect(withContext("calling")(new ModelApiError({ message: "bad" }))._tag).toBe("ModelApiError")
    expect(withContext("x")(new Error("boom"))._tag).toBe("LaitError")
    expect(renderChain(withContext("loading config")(new Error("boom")))).toBe("loading config: boom")
  })
})

describe("McpError", () => {
  const timeout = new McpError({ reason: { _tag: "Timeout", server: "s", timeoutMs: 300_000, tool: "ping" } })
  const closed = new McpError({
    reason: { _tag: "CallFailed", server: "s", tool: "ping", detail: "MCP error -32000: Connection closed" }
  })

  test("its message is the line the user reads; an empty detail adds nothing", () => {
    expect(renderChain(timeout)).toBe("MCP server 's' timed out after 300s while running tool 'ping'")
    expect(renderChain(closed)).toBe("MCP server 's' failed while running tool 'ping': MCP error -32000: Connection closed")
    expect(new McpError({ reason: { _tag: "Timeout", server: "s", timeoutMs: 300 } }).message).toBe(
      "timed out after 0.3s while initializing MCP server 's'"
    )
    expect(new McpError({ reason: { _tag: "ListFailed", server: "s", detail: " " } }).message).toBe(
      "failed to list tools for MCP server 's'"
    )
  })

  test("a timeout is an interruption (exit 5), kept through context as an InterruptedError is; other reasons exit 1", () => {
    expect(exitCodeOf(timeout)).toBe(ExitCode.interrupted)
    const inStep = withContext("step 'a'")(timeout)
    expect({ tag: inStep._tag, code: exitCodeOf(inStep), line: renderChain(inStep) }).toEqual({
      tag: "InterruptedError",
      code: ExitCode.interrupted,
      line: "step 'a': MCP server 's' timed out after 300s while running tool 'ping'"
    })
    expect(exitCodeOf(new LaitError({ message: "a", cause: timeout }))).toBe(ExitCode.general)
    expect(exitCodeOf(closed)).toBe(ExitCode.general)
    expect(withContext("step 'a'")(closed)._tag).toBe("LaitError")
    expect(exitCodeOf(new McpError({ reason: { _tag: "Stopping", server: "s" } }))).toBe(ExitCode.interrupted)
  })

  test("callers handle a reason, not a message", async () => {
    const handled = await Effect.runPromise(
      Effect.fail(timeout).pipe(Effect.catchReason("McpError", "Timeout", (r) => Effect.succeed(r.timeoutMs)))
    )
    expect(handled).toBe(300_000)
  })
})

describe("ToolError", () => {
  test("its message is the line the user reads; every reason exits 1, under context too", () => {
    const collision = new ToolError({ reason: { _tag: "NameCollision", name: "x", first: "mcp", second: "shell" } })
    expect(renderChain(collision)).toBe("tool name collision: an MCP tool and a shell tool both qualify to 'x'")
    expect(new ToolError({ reason: { _tag: "ArgumentsNotJson", detail: "JSON Parse error" } }).message).toBe(
      "tool call arguments must be a JSON object: JSON Parse error"
    )
    expect(exitCodeOf(collision)).toBe(ExitCode.general)
    const inStep = withContext("step 'a'")(collision)
    expect({ tag: inStep._tag, code: exitCodeOf(inStep) }).toEqual({ tag: "LaitError", code: ExitCode.general })
  })
})

describe("step errors", () => {
  test("a step's or the workflow's timeout is a typed interruption, kept through context; the rest exit 1", () => {
    const timeout = new StepError({ reason: { _tag: "StepTimeout", step: "s", seconds: 1, attempt: 2, attempts: 2 } })
    expect(exitCodeOf(timeout)).toBe(ExitCode.interrupted)
    expect(errorClassOf(timeout)).toBe("InterruptedError")
    const inStep = withContext("workflow 'w'")(timeout)
    expect({ tag: inStep._tag, code: exitCodeOf(inStep), line: renderChain(inStep) }).toEqual({
      tag: "InterruptedError",
      code: ExitCode.interrupted,
      line: "workflow 'w': step 's' timed out after 1s (attempt 2/2)"
    })
    const exited = new StepError({
      reason: { _tag: "CommandExited", program: "false", status: "exit status: 1", stderr: "" }
    })
    expect({ code: exitCodeOf(exited), type: errorClassOf(exited), wrapped: withContext("x")(exited)._tag }).toEqual({
      code: ExitCode.general,
      type: "LaitError",
      wrapped: "LaitError"
    })
    const failed = new StepError({ reason: { _tag: "WriteFailed", path: "/o", detail: "permission denied" } })
    expect(renderChain(failed)).toBe("failed to write output to '/o': permission denied")
  })
})
