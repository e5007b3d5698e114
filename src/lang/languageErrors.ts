// Failures of the workflow language's expressions: jq filters (JqError), templates (TemplateError) and
// JSON Schemas (SchemaError), each one class with a `reason`. `message` is the text lait has always
// printed; a schema file that cannot be used as written exits 3 (core/errors.ts's table), the rest 1.
import { Schema } from "effect"

const text = Schema.String
/** Where a filter is used (`condition`, `filter`, ...), as the message names it. */
const what = Schema.String
const filter = Schema.String

const quote = (value: string): string => JSON.stringify(value)

const JqReason = Schema.suspend(() => Schema.Union([
  /** The engine could not start; `cause` is why. */
  Schema.TaggedStruct("EngineUnavailable", { cause: Schema.Unknown }),
  Schema.TaggedStruct("EngineStopped", { cause: Schema.Unknown }),
  /** The syntax checker's whole message (`failed to parse jq filter ...`, or a limit it passed). */
  Schema.TaggedStruct("Syntax", { detail: text }),
  /** jq stopped with an error; `problem` is its reason, as shown. */
  Schema.TaggedStruct("Failed", { what, filter, problem: text }),
  Schema.TaggedStruct("NoOutput", { what, filter }),
  Schema.TaggedStruct("ManyOutputs", { what, filter, count: Schema.Number }),
  /** A limit or encoding problem (`cause`, a JqError) while running `filter`. */
  Schema.TaggedStruct("InFilter", { what, filter, cause: Schema.Unknown }),
  Schema.TaggedStruct("OutputCount", { limit: Schema.Number }),
  Schema.TaggedStruct("OutputBytes", { limit: Schema.Number }),
  Schema.TaggedStruct("OutputNotJson", { detail: text }),
  /** `subject` is the value at fault (`jq input`, `jq '$steps'`, `jq output`). */
  Schema.TaggedStruct("TooDeep", { subject: text, limit: Schema.Number }),
  Schema.TaggedStruct("TooLarge", { subject: text, limit: Schema.Number })
]))
export type JqErrorReason = typeof JqReason.Type

const describeJq = (reason: JqErrorReason): string => {
  switch (reason._tag) {
    case "EngineUnavailable":
      return "failed to load the jq engine"
    case "EngineStopped":
      return "the jq engine stopped unexpectedly"
    case "Syntax":
      return reason.detail
    case "Failed":
      return `jq ${reason.what} ${quote(reason.filter)} failed: ${reason.problem}`
    case "NoOutput":
      return `jq ${reason.what} ${quote(reason.filter)} produced no output; expected exactly one value`
    case "ManyOutputs":
      return `jq ${reason.what} ${quote(reason.filter)} produced ${reason.count} outputs; expected exactly one value ` +
        "(wrap a stream in '[...]' to collect it into an array)"
    case "InFilter":
      return `jq ${reason.what} ${quote(reason.filter)}`
    case "OutputCount":
      return `jq produced more than ${reason.limit} outputs, the configured limit`
    case "OutputBytes":
      return `jq rendered output exceeds the configured limit of ${reason.limit} bytes`
    case "OutputNotJson":
      return `jq produced output that is not JSON: ${reason.detail}`
    case "TooDeep":
      return `${reason.subject} exceeds the configured nesting limit of ${reason.limit}`
    case "TooLarge":
      return `${reason.subject} exceeds the configured limit of ${reason.limit} bytes`
  }
}

/** Every reason exits 1. */
export class JqError extends Schema.TaggedError<JqError>()("JqError", { reason: JqReason }) {
  override get message(): string {
    return describeJq(this.reason)
  }

  /** What `renderChain` prints after the message. */
  override get cause(): unknown {
    return "cause" in this.reason ? this.reason.cause : undefined
  }
}

const TemplateReason = Schema.suspend(() => Schema.Union([
  /** `detail` is the parser's reason. */
  Schema.TaggedStruct("Parse", { source: text, detail: text }),
  /** `detail` is the helper's or Handlebars' failure, on one line. */
  Schema.TaggedStruct("Render", { source: text, detail: text })
]))
export type TemplateErrorReason = typeof TemplateReason.Type

/** Every reason exits 1. */
export class TemplateError extends Schema.TaggedError<TemplateError>()("TemplateError", { reason: TemplateReason }) {
  override get message(): string {
    return `failed to ${this.reason._tag === "Parse" ? "parse" : "render"} template: ${quote(this.reason.source)}`
  }

  /** What `renderChain` prints after the message. */
  override get cause(): unknown {
    return this.reason.detail
  }
}

const SchemaReason = Schema.suspend(() => Schema.Union([
  /** `label` names the schema's use (`output`, `steps[0].output_schema`, ...); `detail` is the compiler's reason. */
  Schema.TaggedStruct("Invalid", { label: text, detail: text }),
  /** A value does not match; `detail` is every failure, as rendered (`inputs.n must be of type integer ...`). */
  Schema.TaggedStruct("Mismatch", { detail: text }),
  /** A schema file a step or a subagent refers to is not YAML/JSON; `detail` is the parser's reason. */
  Schema.TaggedStruct("FileParse", { path: text, detail: text }),
  Schema.TaggedStruct("FileNotObject", { label: text, path: text })
]))
export type SchemaErrorReason = typeof SchemaReason.Type

const describeSchema = (reason: SchemaErrorReason): string => {
  switch (reason._tag) {
    case "Invalid":
      return `${reason.label}: invalid JSON Schema: ${reason.detail}`
    case "Mismatch":
      return reason.detail
    case "FileParse":
      return `failed to parse schema file '${reason.path}'`
    case "FileNotObject":
      return `${reason.label}: schema file '${reason.path}' must hold a JSON object`
  }
}

export class SchemaError extends Schema.TaggedError<SchemaError>()("SchemaError", { reason: SchemaReason }) {
  override get message(): string {
    return describeSchema(this.reason)
  }

  /** What `renderChain` prints after the message. */
  override get cause(): unknown {
    return this.reason._tag === "FileParse" ? this.reason.detail : undefined
  }
}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly JqError: JqError
    readonly TemplateError: TemplateError
    readonly SchemaError: SchemaError
  }
}
