// Failures of subagents (agent files called as tools) as one error class with a `reason`. `message` is
// the text lait has always printed; every reason exits 1 (core/errors.ts's table).
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** The name is not under the config's `agents:`. */
  Unknown: { name: string }
  /** `detail` is the OS's reason. */
  ResolvePathFailed: { path: string; detail: string }
  Duplicate: { name: string }
  /** `path` is the real path of the agent file already running. */
  Cycle: { name: string; path: string }
  TooDeep: { name: string; max: number }
  /** `detail` is the JSON parser's reason. */
  ArgumentsNotJson: { detail: string }
  MissingInput: {}
}
export type SubagentErrorReason = TaggedUnion<Reasons>

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

export class SubagentError extends ReasonError("SubagentError", { describe }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly SubagentError: SubagentError
  }
}
