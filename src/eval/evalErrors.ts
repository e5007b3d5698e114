// Failures of `lait eval` and `lait eval merge` (reading and parsing eval files, baselines and reports,
// the prompt target, the LLM judge, and the run's verdict) as one error class with a `reason`. `message`
// is the text lait has always printed; a file that is invalid as written exits 3 (core/errors.ts's
// table), runs that could not run 4, the rest 1.
import { causeExcept, ReasonError, type TaggedUnion } from "../core/reasonError.ts"
import { withLine } from "../core/errors.ts"

interface Reasons {
  /** `detail` is the reading failure, as rendered. */
  ReadFailed: { path: string; detail: string }
  /** `detail` says where and what (`cases[0]: unknown field 'x'`); `line` is 1-based. */
  ParseFailed: { path: string; detail: string; line?: number }
  /** `target.prompt` is not a valid template; `detail` is the template checker's message. */
  PromptSyntax: { file: string; detail: string }
  JudgeNoModel: {}
  /** `quoted` is the judge's answer as Rust's `{:?}` shows it; `detail` what is wrong with it, if known. */
  JudgeNotJson: { quoted: string; detail?: string }
  /** `--max-cost` stopped the run before `total - started` runs began. */
  BudgetReached: { budgetUsd: number; spentUsd: number; started: number; total: number }
  /** Some case did not pass; `minRate` is the pass rate a flaky case needs, when one was set. */
  CasesFailed: { minRate?: number }
  /** `cases: {file}` (docs/evals.md): unreadable, or invalid at `line` (1-based) when known. */
  CasesFileUnreadable: { path: string; detail: string }
  CasesFileExtension: { path: string; extension: string; expected: string }
  CasesFileInvalid: { path: string; detail: string; line?: number }
  /** `--format html -o PATH` (or any `-o`) could not be written; `detail` is the OS's reason. */
  ReportWriteFailed: { path: string; detail: string }
  /** `--baseline FILE` unreadable, or not a baseline (`detail` says where); `--save-baseline` unwritable. */
  BaselineReadFailed: { path: string; detail: string }
  BaselineInvalid: { path: string; detail: string }
  BaselineWriteFailed: { path: string; detail: string }
  /**
   * `--fail-on-regression`: `count` cases regressed against `file` at p < `significance`, or none did
   * and all cases pooled did, from `pooled` (`<before> -> <after>` as the report prints them).
   */
  Regressed: { count: number; file: string; significance: number; pooled?: string }
  /** Runs that could not run (server or setup errors) and no failure of the model's. */
  RunsCouldNotRun: { runs: number }
  /** `lait eval merge`: a report unreadable, not a JSON report, or not of the same suite (`detail`). */
  ReportReadFailed: { path: string; detail: string }
  ReportInvalid: { path: string; detail: string }
  MergeRefused: { detail: string }
}
export type EvalErrorReason = TaggedUnion<Reasons>

export const LLM_JUDGE_NO_MODEL = "llm_judge requires a `model:` (no default model is available in this eval context)"

const describe = (reason: EvalErrorReason): string => {
  switch (reason._tag) {
    case "ReadFailed":
      return `failed to read eval definition '${reason.path}'`
    case "ParseFailed":
      return `failed to parse eval definition '${reason.path}'`
    case "PromptSyntax":
      return `target.prompt: ${reason.detail}`
    case "JudgeNoModel":
      return LLM_JUDGE_NO_MODEL
    case "JudgeNotJson":
      return `failed to parse llm_judge response as JSON: ${reason.quoted}`
    case "BudgetReached":
      return `stopped at the --max-cost budget of $${reason.budgetUsd.toFixed(4)}: ` +
        `$${reason.spentUsd.toFixed(4)} spent on ${reason.started} of ${reason.total} run(s); ` +
        `${reason.total - reason.started} run(s) not started`
    case "CasesFileUnreadable":
      return `failed to read cases file '${reason.path}'`
    case "CasesFileExtension":
      return `cases file '${reason.path}': unknown extension '${reason.extension}'; expected one of: ${reason.expected}`
    case "CasesFileInvalid":
      return `${reason.path}${reason.line === undefined ? "" : `:${reason.line}`}: ${reason.detail}`
    case "ReportWriteFailed":
      return `failed to write the report to '${reason.path}'`
    case "BaselineReadFailed":
      return `failed to read baseline '${reason.path}'`
    case "BaselineInvalid":
      return `invalid baseline '${reason.path}'`
    case "BaselineWriteFailed":
      return `failed to write baseline '${reason.path}'`
    case "Regressed":
      return reason.count === 0 && reason.pooled !== undefined
        ? `the eval regressed against the baseline '${reason.file}': all cases pooled went ${reason.pooled} ` +
          `(Fisher's exact test, p < ${reason.significance}), though no single case did`
        : `${reason.count} eval case(s) regressed against the baseline '${reason.file}' ` +
          `(Fisher's exact test, p < ${reason.significance})`
    case "RunsCouldNotRun":
      return `${reason.runs} run(s) could not run (server or setup errors; see the report)`
    case "ReportReadFailed":
      return `failed to read eval report '${reason.path}'`
    case "ReportInvalid":
      return `invalid eval report '${reason.path}'`
    case "MergeRefused":
      return reason.detail
    case "CasesFailed":
      return reason.minRate === undefined
        ? "one or more eval cases did not fully pass"
        : `one or more eval cases did not pass (a flaky case needs a pass rate of at least ${reason.minRate})`
  }
}

const usualCause = causeExcept<EvalErrorReason>("PromptSyntax", "CasesFileInvalid", "MergeRefused")

/** Points at the eval file at fault and the problem's line. */
export class EvalError extends ReasonError("EvalError", {
  describe,
  cause: (reason) => reason._tag === "ParseFailed" ? withLine(reason.detail, reason.line) : usualCause(reason),
  locate: (reason) => {
    switch (reason._tag) {
      case "ParseFailed":
      case "CasesFileInvalid":
        return { file: reason.path, line: reason.line }
      case "CasesFileExtension":
        return { file: reason.path }
      case "PromptSyntax":
        return { file: reason.file }
      default:
        return undefined
    }
  }
}) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly EvalError: EvalError
  }
}
