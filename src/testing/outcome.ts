// What one test file came to (docs/testing.md#pass-fail-and-error). FAIL: the workflow ran and did the
// wrong thing — an assertion did not hold, or a step failed (a command's exit status, a jq error, a
// timeout, an answer that breaks its schema). ERROR: the workflow could not run, so the test says
// nothing about it — the test file or its workdir/fixtures, loading the workflow or its input, a
// missing or unreadable cassette (model or tool), a model or MCP server that could not be reached or started, the
// configuration, or a defect in lait itself.
import { causeChain, errorLocation, isLaitError, renderChain } from "../core/errors.ts"
import type { Check } from "./AssertionEvaluator.ts"
import type { TestDefinition } from "./testFile.ts"

export type TestStatus = "pass" | "fail" | "error"

export interface TestOutcome {
  /** As given or discovered. */
  readonly file: string
  readonly status: TestStatus
  /** `assertion k: …` lines, or the single error chain when the workflow failed or could not run. */
  readonly failures: ReadonlyArray<string>
  readonly durationMs: number
  /** Under `--record`/`--record-missing`, when the run completed: its answers, recorded live or replayed. */
  readonly recorded?: { readonly live: number; readonly replayed: number }
  /** Set when the run completed: what `--update` works from. */
  readonly evaluated?: {
    readonly text: string
    readonly definition: TestDefinition
    readonly checks: ReadonlyArray<Check>
  }
  /** The `workdir: temp` directory left in place by `--keep-workdirs` (the file did not pass). */
  readonly keptWorkdir?: string
  /** The trace file written for it (`--trace-dir`). */
  readonly trace?: string
  /** Where the error of a file that failed or could not run points (a file that does not load), if anywhere. */
  readonly at?: { readonly file: string; readonly line: number }
}

/** An error from before the workflow started: whatever it is, nothing ran. */
export class NotRun {
  constructor(readonly error: unknown) {}
}

export const notRun = (error: unknown): NotRun => new NotRun(error)

// MCP reasons that mean the server was never usable, as opposed to a tool call that went wrong.
const MCP_NOT_STARTED = new Set(["UnknownServer", "InvalidConfig", "SpawnFailed", "InitFailed", "ListFailed"])
// A tool cassette that is missing or unreadable under replay_tools: like a model cassette's, the
// recording is at fault, not the workflow.
const TOOL_CASSETTE_UNUSABLE = new Set(["CassetteMissing", "ListCassetteMissing", "CassetteInvalid"])

/** Whether an error from inside the run means the run could not happen rather than that it failed. */
const couldNotRun = (error: unknown): boolean =>
  !isLaitError(error) ||
  causeChain(error).some((link) => {
    if (!isLaitError(link)) return false
    switch (link._tag) {
      case "ModelError":
      case "ModelApiError":
      case "ConfigError":
      case "WorkflowLoadError":
        return true
      case "ToolError":
        return TOOL_CASSETTE_UNUSABLE.has(link.reason._tag)
      case "McpError":
        return MCP_NOT_STARTED.has(link.reason._tag) ||
          (link.reason._tag === "Timeout" && link.reason.tool === undefined)
      default:
        return false
    }
  })

/** The outcome of a file whose run ended in `error` (a NotRun from before the run started). */
export const errorOutcome = (file: string, error: unknown, durationMs: number): TestOutcome => {
  const setup = error instanceof NotRun
  const cause = setup ? error.error : error
  const at = errorLocation(cause)
  return {
    file,
    status: setup || couldNotRun(cause) ? "error" : "fail",
    failures: [renderChain(cause)],
    durationMs,
    ...(at === undefined ? {} : { at })
  }
}
