// Failures of the workflow language's expressions: jq filters (JqError), templates (TemplateError) and
// JSON Schemas (SchemaError), each one class with a `reason`. `message` is the text lait has always
// printed; a schema file that cannot be used as written exits 3 (core/errors.ts's table), the rest 1.
import { isAbridged, quotedExcerpt, type WholeText, wholeText } from "../core/excerpt.ts"
import { causeExcept, ReasonError, type TaggedUnion } from "../core/reasonError.ts"

const quote = (value: string): string => JSON.stringify(value)

/** `what` is where a filter is used (`condition`, `filter`, ...), as the message names it. */
interface JqReasons {
  /** The engine could not start; `cause` is why. */
  EngineUnavailable: { cause: unknown }
  EngineStopped: { cause: unknown }
  /** The syntax checker's whole message (`failed to parse jq filter ...`, or a limit it passed). */
  Syntax: { detail: string }
  /** jq stopped with an error; `problem` is its reason, as shown. */
  Failed: { what: string; filter: string; problem: string }
  NoOutput: { what: string; filter: string }
  ManyOutputs: { what: string; filter: string; count: number }
  /** A limit or encoding problem (`cause`, a JqError) while running `filter`. */
  InFilter: { what: string; filter: string; cause: unknown }
  OutputCount: { limit: number }
  OutputBytes: { limit: number }
  OutputNotJson: { detail: string }
  /** `subject` is the value at fault (`jq input`, `jq '$steps'`, `jq output`). */
  TooDeep: { subject: string; limit: number }
  TooLarge: { subject: string; limit: number }
}
export type JqErrorReason = TaggedUnion<JqReasons>

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
export class JqError extends ReasonError("JqError", {
  describe: describeJq,
  cause: causeExcept("Syntax", "OutputNotJson")
}) {}

interface TemplateReasons {
  /** `detail` is the parser's reason. */
  Parse: { source: string; detail: string }
  /**
   * `detail` is the helper's or Handlebars' failure, on one line; `missing` the path as written
   * (`input.x`) when the failure is a reference to something that does not exist.
   */
  Render: { source: string; detail: string; missing?: string }
}
export type TemplateErrorReason = TaggedUnion<TemplateReasons>

const describeTemplate = (reason: TemplateErrorReason): string =>
  `failed to ${reason._tag === "Parse" ? "parse" : "render"} template: ${quotedExcerpt(reason.source)}`

/** Every reason exits 1. A long template is quoted as an excerpt; -v prints it whole. */
export class TemplateError extends ReasonError("TemplateError", { describe: describeTemplate }) {
  get [wholeText](): WholeText | undefined {
    return isAbridged(this.reason.source) ? { what: "the template", text: this.reason.source } : undefined
  }
}

interface SchemaReasons {
  /** `label` names the schema's use (`output`, `steps[0].output_schema`, ...); `detail` is the compiler's reason. */
  Invalid: { label: string; detail: string }
  /** A value does not match; `detail` is every failure, as rendered (`inputs.n must be of type integer ...`). */
  Mismatch: { detail: string }
  /** A schema file a step or a subagent refers to is not YAML/JSON; `detail` is the parser's reason. */
  FileParse: { path: string; detail: string }
  FileNotObject: { label: string; path: string }
}
export type SchemaErrorReason = TaggedUnion<SchemaReasons>

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

export class SchemaError extends ReasonError("SchemaError", {
  describe: describeSchema,
  cause: causeExcept("Invalid", "Mismatch")
}) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly JqError: JqError
    readonly TemplateError: TemplateError
    readonly SchemaError: SchemaError
  }
}
