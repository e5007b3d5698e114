// Failures of the tools domain: McpError for MCP servers and their tools, ToolError for the tool loop,
// shell tools, tool names and --approve-tools. The `reason` says what went wrong, so callers can
// `catchReason("McpError", "Timeout", ...)` instead of matching text; `message` is the one line the
// user reads. An MCP timeout, and a server asked for while the run is ending, are typed interruptions
// (exit 5), which context wrapping keeps as it keeps an InterruptedError; every other reason exits 1.
import { Schema } from "effect"

const server = Schema.String

// Suspended: the members are built when the first such error is made rather than in every process that
// loads this module, `lait --version` included (bench/README.md, start-up).
const Reason = Schema.suspend(() => Schema.Union([
  Schema.TaggedStruct("UnknownServer", { server }),
  /** `mcp_servers.<name>` cannot be used as written (both or neither of command/url, a `${VAR}` unset, ...). */
  Schema.TaggedStruct("InvalidConfig", { server, detail: Schema.String }),
  Schema.TaggedStruct("SpawnFailed", { server, command: Schema.String, detail: Schema.String }),
  /** The handshake failed: the server exited, broke the protocol, refused, or could not be reached. */
  Schema.TaggedStruct("InitFailed", { server, detail: Schema.String }),
  /** No answer within the I/O timeout, to the handshake (no `tool`) or to a call of `tool`. */
  Schema.TaggedStruct("Timeout", { server, timeoutMs: Schema.Number, tool: Schema.optionalKey(Schema.String) }),
  /** The run's scope closed before the server could start. */
  Schema.TaggedStruct("Stopping", { server }),
  Schema.TaggedStruct("ListFailed", { server, detail: Schema.String }),
  /** The servers of one request offer more tools together than lait accepts. */
  Schema.TaggedStruct("TooManyTools", { limit: Schema.Number }),
  Schema.TaggedStruct("NameCollision", {
    qualified: Schema.String,
    server,
    tool: Schema.String,
    otherServer: Schema.String,
    otherTool: Schema.String
  }),
  Schema.TaggedStruct("NotAllowed", { server, tool: Schema.String }),
  Schema.TaggedStruct("ArgumentsNotJson", { qualified: Schema.String, detail: Schema.String }),
  Schema.TaggedStruct("ArgumentsNotObject", { qualified: Schema.String, got: Schema.String }),
  /** The call failed: the connection broke, the answer was not an MCP result, the server returned an error. */
  Schema.TaggedStruct("CallFailed", { server, tool: Schema.String, detail: Schema.String })
]))
export type McpErrorReason = typeof Reason.Type

/** `base: detail`, or `base` alone when there is no detail (as an error chain renders an empty cause). */
const withDetail = (base: string, detail: string): string => {
  const text = detail.trim()
  return text.length === 0 || text === base ? base : `${base}: ${text}`
}

const seconds = (ms: number): string => `${ms / 1000}s`

const describe = (reason: McpErrorReason): string => {
  switch (reason._tag) {
    case "UnknownServer":
      return `unknown MCP server '${reason.server}'; define it under 'mcp_servers:' in lait.config.yml`
    case "InvalidConfig":
      return withDetail(`MCP server '${reason.server}'`, reason.detail)
    case "SpawnFailed":
      return withDetail(`failed to spawn MCP server '${reason.server}' (command '${reason.command}')`, reason.detail)
    case "InitFailed":
      return withDetail(`failed to initialize MCP server '${reason.server}'`, reason.detail)
    case "Timeout":
      return reason.tool === undefined
        ? `timed out after ${seconds(reason.timeoutMs)} while initializing MCP server '${reason.server}'`
        : `MCP server '${reason.server}' timed out after ${seconds(reason.timeoutMs)} ` +
          `while running tool '${reason.tool}'`
    case "Stopping":
      return `MCP server '${reason.server}' was not started: the run is ending`
    case "ListFailed":
      return withDetail(`failed to list tools for MCP server '${reason.server}'`, reason.detail)
    case "TooManyTools":
      return `MCP server tool list exceeds the cumulative limit of ${reason.limit} tools`
    case "NameCollision":
      return `MCP tool name collision: '${reason.server}'.'${reason.tool}' and ` +
        `'${reason.otherServer}'.'${reason.otherTool}' both qualify to '${reason.qualified}'`
    case "NotAllowed":
      return `MCP server '${reason.server}' does not allow calling tool '${reason.tool}' (not listed in its ` +
        "'allowed_tools' in lait.config.yml); add it there if this call should be permitted"
    case "ArgumentsNotJson":
      return withDetail(`failed to parse arguments for tool call '${reason.qualified}' as JSON`, reason.detail)
    case "ArgumentsNotObject":
      return `arguments for tool call '${reason.qualified}' must be a JSON object, got ${reason.got}`
    case "CallFailed":
      return withDetail(`MCP server '${reason.server}' failed while running tool '${reason.tool}'`, reason.detail)
  }
}

export class McpError extends Schema.TaggedError<McpError>()("McpError", { reason: Reason }) {
  override get message(): string {
    return describe(this.reason)
  }

  /** A typed interruption (exit 5) rather than a failure (exit 1). */
  get interrupted(): boolean {
    return this.reason._tag === "Timeout" || this.reason._tag === "Stopping"
  }
}

const ToolSource = Schema.Literals(["mcp", "subagent", "shell", "skill"])
const article: Record<typeof ToolSource.Type, string> = {
  mcp: "an MCP tool",
  subagent: "a subagent",
  shell: "a shell tool",
  skill: "a skill tool"
}

// Suspended like Reason above.
const ToolReason = Schema.suspend(() => Schema.Union([
  /** A tool call's arguments (shell tools) are not JSON. */
  Schema.TaggedStruct("ArgumentsNotJson", { detail: Schema.String }),
  Schema.TaggedStruct("ArgumentsNotObject", { got: Schema.String }),
  /** A shell tool's command outlived its `timeout:`; `argv` as upstream prints it. */
  Schema.TaggedStruct("CommandTimeout", { seconds: Schema.Number, argv: Schema.String }),
  Schema.TaggedStruct("UnknownTool", { name: Schema.String }),
  Schema.TaggedStruct("DuplicateTool", { name: Schema.String }),
  /** `kind` names what was qualified (`MCP tool`, `shell tool`, `subagent tool`). */
  Schema.TaggedStruct("NameTooLong", {
    kind: Schema.String,
    qualified: Schema.String,
    prefix: Schema.String,
    name: Schema.String,
    limit: Schema.Number
  }),
  /** Two tool sources offer the same qualified name; `first` is the one sent first. */
  Schema.TaggedStruct("NameCollision", { name: Schema.String, first: ToolSource, second: ToolSource }),
  Schema.TaggedStruct("NoTerminal", { tool: Schema.String }),
  Schema.TaggedStruct("UnrecognizedAnswer", { tool: Schema.String, answer: Schema.String }),
  Schema.TaggedStruct("MaxRounds", { max: Schema.Number }),
  /** `--replay-tools` found no recorded result for a call; `hint` names the closest recording. */
  Schema.TaggedStruct("CassetteMissing", {
    tool: Schema.String,
    /** The call's arguments, compact and shortened. */
    arguments: Schema.String,
    occurrence: Schema.Number,
    path: Schema.String,
    dir: Schema.String,
    hint: Schema.optionalKey(Schema.String)
  }),
  /** `--replay-tools` found no recorded tool list for an MCP server. */
  Schema.TaggedStruct("ListCassetteMissing", { server: Schema.String, path: Schema.String, dir: Schema.String }),
  Schema.TaggedStruct("CassetteInvalid", { path: Schema.String, problem: Schema.String }),
  /** A recorded result that could not be read back (or serialised) is not written. */
  Schema.TaggedStruct("CassetteUnwritable", { path: Schema.String, problem: Schema.String })
]))
export type ToolErrorReason = typeof ToolReason.Type

const describeTool = (reason: ToolErrorReason): string => {
  switch (reason._tag) {
    case "ArgumentsNotJson":
      return withDetail("tool call arguments must be a JSON object", reason.detail)
    case "ArgumentsNotObject":
      return `tool call arguments must be a JSON object, got ${reason.got}`
    case "CommandTimeout":
      return `command timed out after ${reason.seconds}s: ${reason.argv}`
    case "UnknownTool":
      return `unknown tool '${reason.name}'; define it under 'tools:' in lait.config.yml`
    case "DuplicateTool":
      return `duplicate tool name '${reason.name}' in 'tools:'`
    case "NameTooLong":
      return `${reason.kind} name '${reason.qualified}' (from '${reason.prefix}', '${reason.name}') is empty or ` +
        `exceeds OpenAI's ${reason.limit}-character function name limit`
    case "NameCollision":
      return `tool name collision: ${article[reason.first]} and ${article[reason.second]} both qualify to ` +
        `'${reason.name}'`
    case "NoTerminal":
      return `'--approve-tools' requires an interactive stdin to confirm calling '${reason.tool}', ` +
        "but stdin is not a terminal"
    case "UnrecognizedAnswer":
      return `unrecognized answer ${JSON.stringify(reason.answer)} to 'allow this call?' for tool ` +
        `'${reason.tool}'; expected 'y', 'n', or 'a'`
    case "MaxRounds":
      return `tool loop exceeded max_tool_rounds (${reason.max}) without the model producing a final response`
    case "CassetteMissing":
      return `no recorded tool cassette for tool '${reason.tool}' (call ${reason.occurrence} with arguments ` +
        `${reason.arguments}) at '${reason.path}'; run \`lait run --record ${reason.dir}\` first ` +
        "against the same workflow/input/vars, or drop --replay-tools (replay_tools) to run the tools live" +
        (reason.hint === undefined ? "" : `; ${reason.hint}`)
    case "ListCassetteMissing":
      return `no recorded tool list for MCP server '${reason.server}' at '${reason.path}'; run ` +
        `\`lait run --record ${reason.dir}\` first against a workflow that uses it, or drop --replay-tools ` +
        "(replay_tools) to start the server"
    case "CassetteInvalid":
      return `failed to parse tool cassette '${reason.path}': ${reason.problem}`
    case "CassetteUnwritable":
      return `refusing to write tool cassette '${reason.path}': ${reason.problem}`
  }
}

/** Every reason exits 1. */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", { reason: ToolReason }) {
  override get message(): string {
    return describeTool(this.reason)
  }
}
