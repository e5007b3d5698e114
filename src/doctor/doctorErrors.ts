// How `lait doctor` and `lait models --remote` fail, as one error class with a `reason`. Both print
// their findings first; the error is the one summary line after them. Exit codes are in core/errors.ts's
// table: 1 when doctor found a FAIL (CI reads it), 4 when a server could not be listed.
import { Data } from "effect"
import type { TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** `lait doctor`: `failed` of `total` checks ended FAIL. */
  ChecksFailed: { failed: number; total: number }
  /** `lait models --remote`: `failed` of `total` endpoints could not be listed (each said why on stderr). */
  ListFailed: { failed: number; total: number }
}
export type DoctorErrorReason = TaggedUnion<Reasons>

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

export class DoctorError extends Data.TaggedError("DoctorError")<{ readonly reason: DoctorErrorReason }> {
  override get message(): string {
    const { failed, total } = this.reason
    return this.reason._tag === "ChecksFailed"
      ? `${failed} of ${plural(total, "check")} failed`
      : `${failed} of ${plural(total, "endpoint")} could not be listed`
  }
}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly DoctorError: DoctorError
  }
}
