// Failures of subagents (agent files called as tools) as one error class with a `reason`. `message` is
// the text lait has always printed; every reason exits 1 (core/errors.ts's table).
import { Schema } from "effect"
import { describeReasons } from "./reasonError.ts"

const name = Schema.String

const Reason = Schema.suspend(() => Schema.Union([
  /** The name is not under the config's `agents:`. */
  Schema.TaggedStruct("Unknown", { name }),
  /** `detail` is the OS's reason. */
  Schema.TaggedStruct("ResolvePathFailed", { path: Schema.String, detail: Schema.String }),
  Schema.TaggedStruct("Duplicate", { name }),
  /** `path` is the real path of the agent file already running. */
  Schema.TaggedStruct("Cycle", { name, path: Schema.String }),
  Schema.TaggedStruct("TooDeep", { name, max: Schema.Number }),
  /** `detail` is the JSON parser's reason. */
  Schema.TaggedStruct("ArgumentsNotJson", { detail: Schema.String }),
  Schema.TaggedStruct("MissingInput", {})
]))
export type SubagentErrorReason = typeof Reason.Type

const describe = (reason: SubagentErrorReason): string => {
  switch (reason._tag) {
    case "Unknown":
      return `unknown subagent '${reason.name}'; define it under 'agents:' in lait.config.yml`
    case "ResolvePathFailed":
      return `failed to resolve agent file path '${reason.path}'`
    case "Duplicate":
      return `duplicate subagent name '${reason.name}' in 'subagents:'`
    case "Cycle":
      return `calling subagent '${reason.name}' would create a cycle ('${reason.path}' is already running)`
    case "TooDeep":
      return `calling subagent '${reason.name}' exceeded the maximum subagent nesting depth of ${reason.max}`
    case "ArgumentsNotJson":
      return "failed to parse subagent tool call arguments as JSON"
    case "MissingInput":
      return "subagent tool call is missing the required 'input' field"
  }
}

export class SubagentError extends Schema.TaggedError<SubagentError>()("SubagentError", { reason: Reason }) {}
describeReasons(SubagentError, describe)

declare module "./errors.ts" {
  interface DomainErrors {
    readonly SubagentError: SubagentError
  }
}
