// Failures of the configuration domain (config files, `.env`, `${VAR}` expansion, model endpoints,
// api_key_cmd) as one error class with a `reason`. `message` is the text lait has always printed; the
// exit code of each reason is in core/errors.ts's table: 3 for a file or definition that is invalid as
// written, 1 for the rest.
import { causeExcept, ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** `line`: the first problem's 1-based line, for `lait lint` and the `(line N)` of a message. */
  ParseFailed: { path: string; detail: string; line?: number }
  Invalid: { path: string; detail: string; line?: number }
  /** The file could not be read; `detail` says why. */
  ReadFailed: { path: string; detail: string }
  EmptyBaseUrl: {}
  EmptyModelName: {}
  /** `context` names the definition (`model definition "x"`, `...'s fallback entry #2`). */
  EmptyModelId: { context: string }
  BothApiKeys: { context: string }
  EmptyDefinition: { name: string }
  /** api_key_cmd did not produce a key; `detail` is the whole line (it names the command's problem). */
  ApiKeyCmd: { detail: string }
  /** `quoted` is the value as shown (JSON-quoted, or the redaction marker for a secret). */
  UnterminatedPlaceholder: { quoted: string }
  BadPlaceholder: { name: string; quoted: string }
  UnsetVariable: { name: string }
  DotenvSyntax: { file: string; line: number; detail: string }
  /**
   * A step or subagent has no model; `places` are where one can be set, `why` says why no config file
   * offers a default.
   */
  ModelRequired: { subject: string; places: ReadonlyArray<string>; why?: string }
  /** `default.compaction` has no trigger (`key` absent), or a trigger below 1. */
  CompactionTrigger: { key?: string }
  /** `mcp_servers.<server>` sets both or neither of `command` and `url`. */
  McpTransport: { server: string; problem: "both" | "neither" }
  McpHeader: { server: string; key: string }
  /** A model endpoint's header that cannot be sent; `context` names the definition (or `--header`). */
  ModelHeader: { context: string; problem: string }
}
export type ConfigErrorReason = TaggedUnion<Reasons>

/** `a or b`, `a, b, or c`. */
const alternatives = (items: ReadonlyArray<string>): string =>
  items.length <= 2 ? items.join(" or ") : `${items.slice(0, -1).join(", ")}, or ${items.at(-1)}`

const describe = (reason: ConfigErrorReason): string => {
  switch (reason._tag) {
    case "ParseFailed":
      return `failed to parse YAML configuration file '${reason.path}'`
    case "Invalid":
      return `invalid configuration file '${reason.path}'`
    case "ReadFailed":
      return `failed to read YAML configuration file '${reason.path}'`
    case "EmptyBaseUrl":
      return "base URL must not be empty"
    case "EmptyModelName":
      return "model name must not be empty"
    case "EmptyModelId":
      return `model_id in ${reason.context} must not be empty`
    case "BothApiKeys":
      return `${reason.context} sets both 'api_key' and 'api_key_cmd'; set exactly one`
    case "EmptyDefinition":
      return `model definition ${JSON.stringify(reason.name)} must contain at least one entry`
    case "ApiKeyCmd":
      return reason.detail
    case "UnterminatedPlaceholder":
      return `unterminated '\${' placeholder in ${reason.quoted}`
    case "BadPlaceholder":
      return `invalid environment variable placeholder '\${${reason.name}}' in ${reason.quoted} ` +
        "(must be alphanumeric/underscore)"
    case "UnsetVariable":
      return `environment variable '${reason.name}' referenced by '\${${reason.name}}' is not set`
    case "DotenvSyntax":
      return `failed to parse '${reason.file}' line ${reason.line}: ${reason.detail}`
    case "ModelRequired":
      return `model is required for ${reason.subject}${reason.why === undefined ? "" : ` (${reason.why})`}; ` +
        `set ${alternatives(reason.places)}`
    case "CompactionTrigger":
      return reason.key === undefined
        ? "default.compaction needs trigger_rounds or trigger_tokens"
        : `default.compaction.${reason.key} must be at least 1`
    case "McpTransport":
      return `mcp_servers.${reason.server} has ` +
        (reason.problem === "both" ? "both 'command' and 'url'" : "neither 'command' nor 'url'") +
        "; set exactly one (stdio vs. streamable HTTP)"
    case "McpHeader":
      return `mcp_servers.${reason.server} has an invalid header name or value for '${reason.key}'`
    case "ModelHeader":
      return `${reason.context} has a header that cannot be sent: ${reason.problem}`
  }
}

/** Points at the configuration file at fault and the problem's line, for `lait lint`. */
export class ConfigError extends ReasonError("ConfigError", {
  describe,
  cause: causeExcept("ApiKeyCmd", "DotenvSyntax"),
  locate: (reason) =>
    reason._tag === "ParseFailed" || reason._tag === "Invalid" ? { file: reason.path, line: reason.line } : undefined
}) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly ConfigError: ConfigError
  }
}
