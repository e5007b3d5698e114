// How `lait lint` fails, as one error class with a `reason`: it found errors, or could not do its job
// (a directory it cannot read, a config it cannot load). Either way the exit code is 3 (core/errors.ts's
// table), as upstream's.
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** `summary` is the line that counts what was found (`2 error(s) in 1 file(s)`, ...). */
  Findings: { summary: string }
  /** Lint itself failed; `error` is why, shown as its own message and cause. */
  Aborted: { error: unknown }
}
export type LintErrorReason = TaggedUnion<Reasons>

const messageOf = (u: unknown): string =>
  typeof u === "object" && u !== null && "message" in u && typeof u.message === "string" ? u.message : String(u)

export class LintError extends ReasonError("LintError", {
  describe: (reason: LintErrorReason) => reason._tag === "Findings" ? reason.summary : messageOf(reason.error),
  /**
   * What `renderChain` prints after the message: the failure's own cause, so that its chain reads as
   * it did, under this class's exit code.
   */
  cause: (reason) => {
    const error = reason._tag === "Aborted" ? reason.error : undefined
    return typeof error === "object" && error !== null && "cause" in error ? error.cause : undefined
  }
}) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly LintError: LintError
  }
}
