// Failures of reading, writing and exporting trace files, as one error class with a `reason`.
// `message` is the text lait has always printed; every reason exits 1.
import { excerpt, isAbridged, type WholeText, wholeText } from "../core/excerpt.ts"
import { causeExcept, ReasonError, type TaggedUnion } from "../core/reasonError.ts"

/** The longest part of an error body repeated in the message (an HTML error page is not useful). */
const MAX_BODY_IN_MESSAGE = 500

interface Reasons {
  ReadFailed: { path: string; detail: string }
  /** `line` is the 1-based line of the JSONL file. */
  EventInvalid: { path: string; line: number; detail: string }
  WriteFailed: { path: string; detail: string }
  /** A `--trace-dir` that could not hold trace files. */
  DirUnusable: { path: string; detail: string }
  /** `header` as shown (a credential past its first `=` cut off). */
  HeaderMalformed: { header: string }
  /** A `${VAR}` in the header's value could not be expanded; `detail` says why. */
  HeaderValue: { name: string; detail: string }
  /** The request did not get an answer; `url` and `detail` are redacted. */
  SendFailed: { url: string; detail: string }
  /**
   * The collector answered with a status other than 2xx; `status` as shown, `detail` its whole answer,
   * redacted (the message shows an excerpt, -v all of it).
   */
  Rejected: { url: string; status: string; detail: string }
}
export type TraceErrorReason = TaggedUnion<Reasons>

const describe = (reason: TraceErrorReason): string => {
  switch (reason._tag) {
    case "ReadFailed":
      return `failed to read trace file '${reason.path}'`
    case "EventInvalid":
      return `failed to parse trace event on line ${reason.line} of '${reason.path}'`
    case "WriteFailed":
      return `failed to write trace file '${reason.path}'`
    case "DirUnusable":
      return `cannot write traces into '${reason.path}'`
    case "HeaderMalformed":
      return `--header '${reason.header}' must be NAME=VALUE`
    case "HeaderValue":
      return `--header '${reason.name}'`
    case "SendFailed":
      return `failed to send spans to '${reason.url}'`
    case "Rejected":
      return `OTLP endpoint '${reason.url}' answered ${reason.status}` +
        (reason.detail === "" ? "" : `: ${excerpt(reason.detail, MAX_BODY_IN_MESSAGE)}`)
  }
}

export class TraceError extends ReasonError("TraceError", { describe, cause: causeExcept("Rejected") }) {
  /** A collector's answer the message cut or escaped, for -v (src/core/excerpt.ts). */
  get [wholeText](): WholeText | undefined {
    return this.reason._tag === "Rejected" && isAbridged(this.reason.detail, MAX_BODY_IN_MESSAGE)
      ? { what: "the collector's answer", text: this.reason.detail }
      : undefined
  }
}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly TraceError: TraceError
  }
}
