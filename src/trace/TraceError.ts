// Failures of reading, writing and exporting trace files, as one error class with a `reason`.
// `message` is the text lait has always printed; every reason exits 1.
import { Schema } from "effect"

const path = Schema.String
const detail = Schema.String

// Suspended: the members are built when the first such error is made rather than in every process that
// loads this module, `lait --version` included (bench/README.md, start-up).
const Reason = Schema.suspend(() => Schema.Union([
  Schema.TaggedStruct("ReadFailed", { path, detail }),
  /** `line` is the 1-based line of the JSONL file. */
  Schema.TaggedStruct("EventInvalid", { path, line: Schema.Number, detail }),
  Schema.TaggedStruct("WriteFailed", { path, detail }),
  /** A `--trace-dir` that could not hold trace files. */
  Schema.TaggedStruct("DirUnusable", { path, detail }),
  /** `header` as shown (a credential past its first `=` cut off). */
  Schema.TaggedStruct("HeaderMalformed", { header: Schema.String }),
  /** A `${VAR}` in the header's value could not be expanded; `detail` says why. */
  Schema.TaggedStruct("HeaderValue", { name: Schema.String, detail }),
  /** The request did not get an answer; `url` and `detail` are redacted. */
  Schema.TaggedStruct("SendFailed", { url: Schema.String, detail }),
  /** The collector answered with a status other than 2xx; `status` as shown, `detail` redacted. */
  Schema.TaggedStruct("Rejected", { url: Schema.String, status: Schema.String, detail })
]))
export type TraceErrorReason = typeof Reason.Type

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
        (reason.detail === "" ? "" : `: ${reason.detail}`)
  }
}

export class TraceError extends Schema.TaggedError<TraceError>()("TraceError", { reason: Reason }) {
  override get message(): string {
    return describe(this.reason)
  }

  /** What `renderChain` prints after the message. */
  override get cause(): unknown {
    switch (this.reason._tag) {
      case "ReadFailed":
      case "EventInvalid":
      case "WriteFailed":
      case "DirUnusable":
      case "HeaderValue":
      case "SendFailed":
        return this.reason.detail
      default:
        return undefined
    }
  }
}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly TraceError: TraceError
  }
}
