// Failures of `lait test` itself (finding, reading and parsing test files, and the suite's verdict) as
// one error class with a `reason`. `message` is the text lait has always printed; a test file that is
// invalid as written exits 3 (core/errors.ts's table), a prune outside the project 2, the rest 1.
import { causeExcept, ReasonError, type TaggedUnion } from "../core/reasonError.ts"
import { withLine } from "../core/errors.ts"

interface Reasons {
  /** A path given on the command line cannot be examined; `detail` is the OS's reason. */
  TargetUnreadable: { path: string; detail: string }
  TargetSymlink: { path: string }
  TargetNotFile: { path: string }
  /** `listed` is the paths searched, as shown. */
  NoFiles: { listed: string }
  FilterMatchedNone: { filter: string; found: number }
  /** `detail` is the reading failure, as rendered. */
  ReadFailed: { path: string; detail: string }
  /** `detail` says where and what (`tests[0]: unknown field 'x'`); `line` is 1-based. */
  ParseFailed: { path: string; detail: string; line?: number }
  /** `workdir:`/`fixtures:` (docs/testing.md#working-directory); `detail` is the OS's reason. */
  WorkdirUnusable: { path: string; detail: string }
  WorkdirNotDirectory: { path: string }
  TempWorkdirFailed: { detail: string }
  FixtureCopyFailed: { path: string; detail: string }
  /** Two fixtures with the same base name. */
  FixtureClash: { earlier: string; fixture: string; name: string }
  /** `lait cassettes prune` with tests that did not pass in replay. */
  PruneRefused: { failing: number; total: number }
  /** `lait cassettes prune --delete` with a `replay:` directory outside the project; `detail` names it. */
  PruneOutside: { detail: string; more: number }
  /** An `ask:` step tried to read an answer during a test. */
  NoStdin: {}
  /** `errors`: files that could not run (docs/testing.md#pass-fail-and-error). */
  SuiteFailed: { failed: number; errors: number; total: number }
}
export type TestErrorReason = TaggedUnion<Reasons>

const moreOutside = (more: number): string =>
  more === 0 ? "" : ` (and ${more} more replay ${more === 1 ? "directory" : "directories"} outside it)`

const describe = (reason: TestErrorReason): string => {
  switch (reason._tag) {
    case "TargetUnreadable":
      return `failed to read test target '${reason.path}'`
    case "TargetSymlink":
      return `test target '${reason.path}' is a symbolic link; pass a regular file or directory`
    case "TargetNotFile":
      return `test target '${reason.path}' is not a regular file or directory`
    case "NoFiles":
      return `no test files found in ${reason.listed}`
    case "FilterMatchedNone":
      return `--filter '${reason.filter}' matched none of the ${reason.found} test file(s) found`
    case "ReadFailed":
      return `failed to read test definition '${reason.path}'`
    case "ParseFailed":
      return `failed to parse test definition '${reason.path}'`
    case "WorkdirUnusable":
      return `failed to use workdir '${reason.path}'`
    case "WorkdirNotDirectory":
      return `workdir '${reason.path}' is not a directory`
    case "TempWorkdirFailed":
      return "failed to create a temporary working directory"
    case "FixtureCopyFailed":
      return `failed to copy fixture '${reason.path}'`
    case "FixtureClash":
      return `fixtures '${reason.earlier}' and '${reason.fixture}' would both be copied to '${reason.name}'`
    case "PruneRefused":
      return `refusing to prune: ${reason.failing} of ${reason.total} test file(s) did not pass in replay, so ` +
        "which cassettes they use is unknown; nothing was deleted"
    case "PruneOutside":
      return `refusing to prune: ${reason.detail}${moreOutside(reason.more)}; ` +
        "pass --allow-outside to prune there too; nothing was deleted"
    case "NoStdin":
      return "lait test never reads answers from stdin"
    case "SuiteFailed":
      // Without errors, upstream's exact line.
      return reason.errors === 0
        ? `${reason.failed} of ${reason.total} test file(s) failed`
        : reason.failed === 0
        ? `${reason.errors} of ${reason.total} test file(s) could not run`
        : `${reason.failed} of ${reason.total} test file(s) failed and ${reason.errors} could not run`
  }
}

const usualCause = causeExcept<TestErrorReason>("PruneOutside")

/** Points at the test file at fault and the problem's line. */
export class TestError extends ReasonError("TestError", {
  describe,
  cause: (reason) => reason._tag === "ParseFailed" ? withLine(reason.detail, reason.line) : usualCause(reason),
  locate: (reason) => reason._tag === "ParseFailed" ? { file: reason.path, line: reason.line } : undefined
}) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly TestError: TestError
  }
}
