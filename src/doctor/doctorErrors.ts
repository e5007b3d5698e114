// How `lait doctor` and `lait models --remote` fail, as one error class with a `reason`. Both print
// their findings first; the error is the one summary line after them. Exit codes are in core/errors.ts's
// table: 1 when doctor found a FAIL (CI reads it), 4 when a server could not be listed.
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** `lait doctor`: `failed` of `total` checks ended FAIL. */
  ChecksFailed: { failed: number; total: number }
  /** `lait models --remote`: `failed` of `total` endpoints could not be listed (each said why on stderr). */
  ListFailed: { failed: number; total: number }
}
export type DoctorErrorReason = TaggedUnion<Reasons>

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

const describe = ({ _tag, failed, total }: DoctorErrorReason): string =>
  _tag === "ChecksFailed"
    ? `${failed} of ${plural(total, "check")} failed`
    : `${failed} of ${plural(total, "endpoint")} could not be listed`

export class DoctorError extends ReasonError("DoctorError", { describe }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly DoctorError: DoctorError
  }
}
