// Failures of the tools domain: McpError for MCP servers and their tools, ToolError for the tool loop,
// shell tools, tool names and --approve-tools. The `reason` says what went wrong, so callers can
// `catchReason("McpError", "Timeout", ...)` instead of matching text; `message` is the one line the
// user reads. An MCP timeout, and a server asked for while the run is ending, are typed interruptions
// (exit 5), which context wrapping keeps as it keeps an InterruptedError; every other reason exits 1.
import { noCause, ReasonError, type TaggedUnion } from "../core/reasonError.ts"

/** How the running command records a missing cassette: its command line, and what must stay the same. */
interface RecordWith {
  readonly command: string
  readonly same: string
}

interface Reasons {
  UnknownServer: { server: string }
  /** `mcp_servers.<name>` cannot be used as written (both or neither of command/url, a `${VAR}` unset, ...). */
  InvalidConfig: { server: string; detail: string }
  SpawnFailed: { server: string; command: string; detail: string }
  /** The handshake failed: the server exited, broke the protocol, refused, or could not be reached. */
  InitFailed: { server: string; detail: string }
  /** No answer within the I/O timeout, to the handshake (no `tool`) or to a call of `tool`. */
  Timeout: { server: string; timeoutMs: number; tool?: string }
  /** The run's scope closed before the server could start. */
  Stopping: { server: string }
  ListFailed: { server: string; detail: string }
  /** The servers of one request offer more tools together than lait accepts. */
  TooManyTools: { limit: number }
  NameCollision: { qualified: string; server: string; tool: string; otherServer: string; otherTool: string }
  NotAllowed: { server: string; tool: string }
  ArgumentsNotJson: { qualified: string; detail: string }
  ArgumentsNotObject: { qualified: string; got: string }
  /** The call failed: the connection broke, the answer was not an MCP result, the server returned an error. */
  CallFailed: { server: string; tool: string; detail: string }
}
export type McpErrorReason = TaggedUnion<Reasons>

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

/** A message shows its reason's detail itself. */
export class McpError extends ReasonError("McpError", { describe, cause: noCause }) {
  /** A typed interruption (exit 5) rather than a failure (exit 1). */
  get interrupted(): boolean {
    return this.reason._tag === "Timeout" || this.reason._tag === "Stopping"
  }
}

type ToolSource = "mcp" | "subagent" | "shell" | "skill"
const article: Record<ToolSource, string> = {
  mcp: "an MCP tool",
  subagent: "a subagent",
  shell: "a shell tool",
  skill: "a skill tool"
}

interface ToolReasons {
  /** A tool call's arguments (shell tools) are not JSON. */
  ArgumentsNotJson: { detail: string }
  ArgumentsNotObject: { got: string }
  /** A shell tool's command outlived its `timeout:`; `argv` as upstream prints it. */
  CommandTimeout: { seconds: number; argv: string }
  UnknownTool: { name: string }
  DuplicateTool: { name: string }
  /** `kind` names what was qualified (`MCP tool`, `shell tool`, `subagent tool`). */
  NameTooLong: { kind: string; qualified: string; prefix: string; name: string; limit: number }
  /** Two tool sources offer the same qualified name; `first` is the one sent first. */
  NameCollision: { name: string; first: ToolSource; second: ToolSource }
  NoTerminal: { tool: string }
  UnrecognizedAnswer: { tool: string; answer: string }
  MaxRounds: { max: number }
  /** `--replay-tools` found no recorded result for a call; `hint` names the closest recording. */
  CassetteMissing: {
    tool: string
    /** The call's arguments, compact and shortened. */
    arguments: string
    occurrence: number
    path: string
    dir: string
    hint?: string
    /** The running command's way to record it (src/model/recordHint.ts); absent: `lait run`'s. */
    record?: RecordWith
  }
  /** `--replay-tools` found no recorded tool list for an MCP server. */
  ListCassetteMissing: { server: string; path: string; dir: string; record?: RecordWith }
  CassetteInvalid: { path: string; problem: string }
  /** A recorded result that could not be read back (or serialised) is not written. */
  CassetteUnwritable: { path: string; problem: string }
}
export type ToolErrorReason = TaggedUnion<ToolReasons>

const recordCommand = (reason: { readonly dir: string; readonly record?: RecordWith | undefined }) =>
  reason.record?.command ?? `lait run --record ${reason.dir}`

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
        `${reason.arguments}) at '${reason.path}'; run \`${recordCommand(reason)}\` first ` +
        `against ${reason.record?.same ?? "the same workflow/input/vars"}, or drop --replay-tools ` +
        "(replay_tools) to run the tools live" + (reason.hint === undefined ? "" : `; ${reason.hint}`)
    case "ListCassetteMissing":
      return `no recorded tool list for MCP server '${reason.server}' at '${reason.path}'; run ` +
        `\`${recordCommand(reason)}\` first against a workflow that uses it, or drop --replay-tools ` +
        "(replay_tools) to start the server"
    case "CassetteInvalid":
      return `failed to parse tool cassette '${reason.path}': ${reason.problem}`
    case "CassetteUnwritable":
      return `refusing to write tool cassette '${reason.path}': ${reason.problem}`
  }
}

/** Every reason exits 1; a message shows its reason's detail itself. */
export class ToolError extends ReasonError("ToolError", { describe: describeTool, cause: noCause }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly McpError: McpError
    readonly ToolError: ToolError
  }
}
