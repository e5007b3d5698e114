// Failures of loading a workflow and what it refers to (its YAML, inputs, schema and agent files), as
// one error class with a `reason`. `message` is the text lait has always printed; YAML that does not
// parse exits 3 (core/errors.ts's table), the rest 1.
import { Schema } from "effect"
import { locateError } from "../core/errors.ts"

const path = Schema.String
const detail = Schema.String

// Suspended: the members are built when the first such error is made rather than in every process that
// loads this module, `lait --version` included (bench/README.md, start-up).
const Reason = Schema.suspend(() => Schema.Union([
  /** The parser's message already says where (`at line L, column C`); `line` is for `lait lint`. */
  Schema.TaggedStruct("YamlSyntax", { file: path, detail, line: Schema.optionalKey(Schema.Number) }),
  /** `declared` is empty when the workflow has no `inputs:`. */
  Schema.TaggedStruct("UnknownInput", { key: Schema.String, declared: Schema.Array(Schema.String) }),
  Schema.TaggedStruct("MissingInput", { name: Schema.String, description: Schema.optionalKey(Schema.String) }),
  Schema.TaggedStruct("InitialNotJson", { detail }),
  /** `detail` is the whole reading failure, as rendered. */
  Schema.TaggedStruct("SchemaFileRead", { path, detail }),
  Schema.TaggedStruct("SchemaFileParse", { path, detail }),
  Schema.TaggedStruct("AgentFileRead", { path, detail })
]))
export type WorkflowLoadErrorReason = typeof Reason.Type

const describe = (reason: WorkflowLoadErrorReason): string => {
  switch (reason._tag) {
    case "YamlSyntax":
      return reason.detail
    case "UnknownInput":
      return reason.declared.length === 0
        ? `input '${reason.key}' was provided, but the workflow declares no 'inputs:'`
        : `unknown input '${reason.key}'; the workflow declares: ${reason.declared.join(", ")}`
    case "MissingInput":
      return `missing required input '${reason.name}'` +
        (reason.description === undefined ? "" : ` (${reason.description})`)
    case "InitialNotJson":
      return "the initial input must be JSON matching the workflow's 'input_schema'"
    case "SchemaFileRead":
      return `failed to read JSON schema file '${reason.path}'`
    case "SchemaFileParse":
      return `failed to parse JSON schema file '${reason.path}'`
    case "AgentFileRead":
      return `failed to read agent file '${reason.path}'`
  }
}

export class WorkflowLoadError extends Schema.TaggedError<WorkflowLoadError>()("WorkflowLoadError", {
  reason: Reason
}) {
  constructor(props: { readonly reason: WorkflowLoadErrorReason }) {
    super(props)
    const located = props.reason._tag === "YamlSyntax" ? props.reason : undefined
    locateError(this, located?.file, located?.line)
  }

  /** The workflow file at fault and the problem's line, for `lait lint`. */
  declare readonly file: string | undefined
  declare readonly line: number | undefined

  override get message(): string {
    return describe(this.reason)
  }

  /** What `renderChain` prints after the message. */
  override get cause(): unknown {
    switch (this.reason._tag) {
      case "InitialNotJson":
      case "SchemaFileRead":
      case "SchemaFileParse":
      case "AgentFileRead":
        return this.reason.detail
      default:
        return undefined
    }
  }
}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly WorkflowLoadError: WorkflowLoadError
  }
}
