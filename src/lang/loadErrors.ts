// Failures of loading a workflow and what it refers to (its YAML, inputs, schema and agent files), as
// one error class with a `reason`. `message` is the text lait has always printed; a workflow or agent
// file that is invalid as written exits 3 (core/errors.ts's table), the rest 1.
import { causeExcept, ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** The parser's message already says where (`at line L, column C`); `line` is for `lait lint`. */
  YamlSyntax: { file: string; detail: string; line?: number }
  /** `declared` is empty when the workflow has no `inputs:`. */
  UnknownInput: { key: string; declared: ReadonlyArray<string> }
  MissingInput: { name: string; description?: string }
  InitialNotJson: { detail: string }
  /** `detail` is the whole reading failure, as rendered. */
  SchemaFileRead: { path: string; detail: string }
  SchemaFileParse: { path: string; detail: string }
  AgentFileRead: { path: string; detail: string }
  /** A static check failed; `detail` is its whole message, `file`/`line` where it points. */
  Invalid: { detail: string; file?: string; line?: number; cause?: unknown }
  /** A `{file:}` schema the workflow refers to cannot be read, parsed, or is not an object. */
  SchemaFileUnusable: {
    where: string
    path: string
    problem: "read" | "parse" | "not-object"
    file: string
    line?: number
    cause?: unknown
  }
  /** The workflow at `path` did not load; `cause` is why (its exit code counts through the chain). */
  LoadFailed: { path: string; cause: unknown }
  /**
   * The workflow at `path` is invalid as written (`cause` says how); `shownLine` is the line the
   * message names, when the cause's own text does not already say where.
   */
  Rejected: { path: string; cause: unknown; shownLine?: number; file?: string; line?: number }
  /** An agent file's frontmatter field cannot be used as written; `detail` says why. */
  AgentField: { detail: string }
  /** `detail` is the YAML parser's reason. */
  AgentFrontmatter: { detail: string }
  AgentFileInvalid: { path: string; cause: unknown }
}
export type WorkflowLoadErrorReason = TaggedUnion<Reasons>

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

const usualCause = causeExcept<WorkflowLoadErrorReason>("YamlSyntax", "AgentField")

/** Points at the workflow file at fault and the problem's line, for `lait lint`. */
export class WorkflowLoadError extends ReasonError("WorkflowLoadError", {
  describe,
  // A static check's message is its detail; what caused it, when anything did, follows.
  cause: (reason) => reason._tag === "Invalid" ? reason.cause : usualCause(reason),
  locate: (reason) => {
    switch (reason._tag) {
      case "YamlSyntax":
      case "Invalid":
      case "SchemaFileUnusable":
      case "Rejected":
        return reason
      case "AgentFileInvalid":
        return { file: reason.path }
      default:
        return undefined
    }
  }
}) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly WorkflowLoadError: WorkflowLoadError
  }
}
