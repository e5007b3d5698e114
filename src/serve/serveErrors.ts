// Failures of `lait serve --mcp` as one error class with a `reason`: the server's own start-up
// (`McpRequired` and the token's are usage errors, exit 2; the others exit 1) and a tool call's arguments, which
// become the text of that call's MCP tool error rather than stopping the server.
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** `lait serve` without `--mcp`, its only mode. */
  McpRequired: {}
  /** `--http` on a non-loopback `address` without a token: anyone reaching it could run the tools. */
  TokenRequired: { address: string }
  /** A token that could never be sent in an `Authorization: Bearer` header; its value is never shown. */
  TokenInvalid: { source: "--token <TOKEN>" | "LAIT_SERVE_TOKEN" }
  /** `address` as given to `--http`; `detail` is the OS's reason. */
  ListenFailed: { address: string; detail: string }
  /** `what` names the argument (`arguments`, `'inputs'`); `detail` says what it was. */
  ArgumentsInvalid: { what: string; detail: string }
  /** A workflow without `inputs:` was called without `input`. */
  MissingInput: {}
}
export type ServeErrorReason = TaggedUnion<Reasons>

const describe = (reason: ServeErrorReason): string => {
  switch (reason._tag) {
    case "McpRequired":
      return "'lait serve' currently only supports '--mcp'; see docs/serve.md"
    case "TokenRequired":
      return `--http ${reason.address} is not a loopback address, and anyone who can reach it could run the ` +
        "served tools: set a token with --token TOKEN or LAIT_SERVE_TOKEN (see docs/serve.md)"
    case "TokenInvalid":
      return `the token of ${reason.source} must be one word of printable characters (no spaces)`
    case "ListenFailed":
      return `failed to listen on ${reason.address}`
    case "ArgumentsInvalid":
      return `workflow tool call ${reason.what} must be a JSON object`
    case "MissingInput":
      return "workflow tool call is missing the required 'input' field"
  }
}

export class ServeError extends ReasonError("ServeError", { describe }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly ServeError: ServeError
  }
}
