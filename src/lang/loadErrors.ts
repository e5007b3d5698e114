// Failures of loading a workflow and what it refers to (its YAML, inputs, schema and agent files), as
// one error class with a `reason`. `message` is the text lait has always printed; a workflow or agent
// file that is invalid as written exits 3 (core/errors.ts's table), the rest 1.
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
  Schema.TaggedStruct("AgentFileRead", { path, detail }),
  /** A static check failed; `detail` is its whole message, `file`/`line` where it points. */
  Schema.TaggedStruct("Invalid", {
    detail,
    file: Schema.optionalKey(path),
    line: Schema.optionalKey(Schema.Number),
    cause: Schema.optionalKey(Schema.Unknown)
  }),
  /** A `{file:}` schema the workflow refers to cannot be read, parsed, or is not an object. */
  Schema.TaggedStruct("SchemaFileUnusable", {
    where: Schema.String,
    path,
    problem: Schema.Literals(["read", "parse", "not-object"]),
    file: path,
    line: Schema.optionalKey(Schema.Number),
    cause: Schema.optionalKey(Schema.Unknown)
  }),
  /** The workflow at `path` did not load; `cause` is why (its exit code counts through the chain). */
  Schema.TaggedStruct("LoadFailed", { path, cause: Schema.Unknown }),
  /**
   * The workflow at `path` is invalid as written (`cause` says how); `shownLine` is the line the
   * message names, when the cause's own text does not already say where.
   */
  Schema.TaggedStruct("Rejected", {
    path,
    cause: Schema.Unknown,
    shownLine: Schema.optionalKey(Schema.Number),
    file: Schema.optionalKey(path),
    line: Schema.optionalKey(Schema.Number)
  }),
  /** An agent file's frontmatter field cannot be used as written; `detail` says why. */
  Schema.TaggedStruct("AgentField", { detail }),
  /** `detail` is the YAML parser's reason. */
  Schema.TaggedStruct("AgentFrontmatter", { detail }),
  Schema.TaggedStruct("AgentFileInvalid", { path, cause: Schema.Unknown })
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
    case "Invalid":
    case "AgentField":
      return reason.detail
    case "SchemaFileUnusable":
      return reason.problem === "not-object"
        ? `${reason.where}: JSON schema file '${reason.path}' must contain a JSON object`
        : `${reason.where}: failed to ${reason.problem} JSON schema file '${reason.path}'`
    case "LoadFailed":
      return `failed to load workflow '${reason.path}'`
    case "Rejected":
      return `failed to load workflow '${reason.path}'` +
        (reason.shownLine === undefined ? "" : ` (line ${reason.shownLine})`)
    case "AgentFrontmatter":
      return "failed to parse frontmatter"
    case "AgentFileInvalid":
      return `failed to parse agent file '${reason.path}'`
  }
}

export class WorkflowLoadError extends Schema.TaggedError<WorkflowLoadError>()("WorkflowLoadError", {
  reason: Reason
}) {
  constructor(props: { readonly reason: WorkflowLoadErrorReason }) {
    super(props)
    const reason = props.reason
    switch (reason._tag) {
      case "YamlSyntax":
      case "Invalid":
      case "SchemaFileUnusable":
      case "Rejected":
        locateError(this, reason.file, reason.line)
        break
      case "AgentFileInvalid":
        locateError(this, reason.path, undefined)
        break
      default:
        locateError(this, undefined, undefined)
    }
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
      case "AgentFrontmatter":
        return this.reason.detail
      case "Invalid":
      case "SchemaFileUnusable":
      case "LoadFailed":
      case "Rejected":
      case "AgentFileInvalid":
        return this.reason.cause
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
