// Failures of the configuration domain (config files, `.env`, `${VAR}` expansion, model endpoints,
// api_key_cmd) as one error class with a `reason`. `message` is the text lait has always printed; the
// exit code of each reason is in core/errors.ts's table: 3 for a file or definition that is invalid as
// written, 1 for the rest.
import { Schema } from "effect"
import { locateError } from "./errors.ts"

const path = Schema.String
/** The first problem's 1-based line, for `lait lint` and the `(line N)` of a message. */
const line = Schema.optionalKey(Schema.Number)

// Suspended: the members are built when the first such error is made rather than in every process that
// loads this module, `lait --version` included (bench/README.md, start-up).
const Reason = Schema.suspend(() => Schema.Union([
  Schema.TaggedStruct("ParseFailed", { path, detail: Schema.String, line }),
  Schema.TaggedStruct("Invalid", { path, detail: Schema.String, line }),
  /** The file could not be read; `detail` says why. */
  Schema.TaggedStruct("ReadFailed", { path, detail: Schema.String }),
  Schema.TaggedStruct("EmptyBaseUrl", {}),
  Schema.TaggedStruct("EmptyModelName", {}),
  /** `context` names the definition (`model definition "x"`, `...'s fallback entry #2`). */
  Schema.TaggedStruct("EmptyModelId", { context: Schema.String }),
  Schema.TaggedStruct("BothApiKeys", { context: Schema.String }),
  Schema.TaggedStruct("EmptyDefinition", { name: Schema.String }),
  /** api_key_cmd did not produce a key; `detail` is the whole line (it names the command's problem). */
  Schema.TaggedStruct("ApiKeyCmd", { detail: Schema.String }),
  /** `quoted` is the value as shown (JSON-quoted, or the redaction marker for a secret). */
  Schema.TaggedStruct("UnterminatedPlaceholder", { quoted: Schema.String }),
  Schema.TaggedStruct("BadPlaceholder", { name: Schema.String, quoted: Schema.String }),
  Schema.TaggedStruct("UnsetVariable", { name: Schema.String }),
  Schema.TaggedStruct("DotenvSyntax", { file: Schema.String, line: Schema.Number, detail: Schema.String }),
  /**
   * A step or subagent has no model; `places` are where one can be set, `why` says why no config file
   * offers a default.
   */
  Schema.TaggedStruct("ModelRequired", {
    subject: Schema.String,
    places: Schema.Array(Schema.String),
    why: Schema.optionalKey(Schema.String)
  }),
  /** `default.compaction` has no trigger (`key` absent), or a trigger below 1. */
  Schema.TaggedStruct("CompactionTrigger", { key: Schema.optionalKey(Schema.String) }),
  /** `mcp_servers.<server>` sets both or neither of `command` and `url`. */
  Schema.TaggedStruct("McpTransport", { server: Schema.String, problem: Schema.Literals(["both", "neither"]) }),
  Schema.TaggedStruct("McpHeader", { server: Schema.String, key: Schema.String })
]))
export type ConfigErrorReason = typeof Reason.Type

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
  }
}

export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", { reason: Reason }) {
  constructor(props: { readonly reason: ConfigErrorReason }) {
    super(props)
    const located = props.reason._tag === "ParseFailed" || props.reason._tag === "Invalid" ? props.reason : undefined
    locateError(this, located?.path, located?.line)
  }

  /** The configuration file at fault and the problem's line, for `lait lint`. */
  declare readonly file: string | undefined
  declare readonly line: number | undefined

  override get message(): string {
    return describe(this.reason)
  }

  /** What `renderChain` prints after the message: the problem in a configuration file. */
  override get cause(): unknown {
    switch (this.reason._tag) {
      case "ParseFailed":
      case "Invalid":
      case "ReadFailed":
        return this.reason.detail
      default:
        return undefined
    }
  }
}

declare module "./errors.ts" {
  interface DomainErrors {
    readonly ConfigError: ConfigError
  }
}
