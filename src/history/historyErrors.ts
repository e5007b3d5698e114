// Failures of `lait history` and of finding the history file, as one error class with a `reason`.
// The texts are the original lait's. A value given on the command line that cannot be used is a
// usage error (exit 2); the rest exit 1 (core/errors.ts's table).
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** Neither XDG_DATA_HOME nor HOME (nor USERPROFILE) says where the history file is. */
  NoHome: {}
  BadSince: { value: string }
  IndexZero: {}
  NotFound: { index: number }
  /** The file exists but could not be read; `detail` is the OS's reason. */
  ReadFailed: { path: string; detail: string }
  /** An append failed; `detail` is the OS's reason. Recording only warns with it. */
  WriteFailed: { path: string; detail: string }
}
export type HistoryErrorReason = TaggedUnion<Reasons>

const describe = (reason: HistoryErrorReason): string => {
  switch (reason._tag) {
    case "NoHome":
      return "failed to determine the home directory (HOME/USERPROFILE is not set) to locate the history file"
    case "BadSince":
      return `invalid --since '${reason.value}'; expected a date (2026-09-01), an RFC 3339 timestamp, ` +
        "or a duration like 30m/12h/7d/2w"
    case "IndexZero":
      return "history index must be at least 1"
    case "NotFound":
      return `no history entry numbered ${reason.index}`
    case "ReadFailed":
      return `failed to read '${reason.path}'`
    case "WriteFailed":
      return `failed to write to '${reason.path}'`
  }
}

export class HistoryError extends ReasonError("HistoryError", { describe }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly HistoryError: HistoryError
  }
}
