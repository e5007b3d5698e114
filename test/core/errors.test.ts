import { describe, expect, test } from "bun:test"
import {
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
