// Every error the tool reports travels as one of these tagged classes. The exit code is derived from
// the whole cause chain in one place (`exitCodeOf`), the way upstream lait does it: a YAML/validation
// error anywhere in the chain means 3, a model API error means 4, a typed interruption at the top 5.
import { Cause, Data } from "effect"
import type { McpError, ToolError } from "./toolErrors.ts"

export const ExitCode = {
  ok: 0,
  general: 1,
  usage: 2,
  validation: 3,
  modelApi: 4,
  interrupted: 5,
  // A shutdown signal ends the run as 128 + its number, the way shells report a process it killed.
  sighup: 129,
  ctrlC: 130,
  /** stdout's reader went away (`lait ... | head -1`): the status a shell shows for a SIGPIPE death. */
  brokenPipe: 141,
  sigterm: 143
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** The exit code of a run stopped by `signal`; it overrides every other code. */
export const signalExitCode = {
  SIGHUP: ExitCode.sighup,
  SIGINT: ExitCode.ctrlC,
  SIGTERM: ExitCode.sigterm
} as const satisfies Record<string, ExitCode>

interface ErrorFields {
  readonly message: string
  readonly cause?: unknown
}

/** A general failure (exit 1). `cause` continues the chain printed after `: `. */
export class LaitError extends Data.TaggedError("LaitError")<ErrorFields> {}

/** Bad command-line usage (exit 2). */
export class UsageError extends Data.TaggedError("UsageError")<ErrorFields> {}

/**
 * YAML syntax, schema or static-check failure (exit 3). `file`/`line` locate it when known (1-based
 * line), for `lait lint` and editor-style messages.
 */
export class ValidationError extends Data.TaggedError("ValidationError")<
  ErrorFields & { readonly file?: string; readonly line?: number }
> {}

/** The model server answered with an error or could not be reached (exit 4). */
export class ModelApiError extends Data.TaggedError("ModelApiError")<ErrorFields & { readonly status?: number }> {}

/** A typed cancellation or timeout that ended the run (exit 5). */
export class InterruptedError extends Data.TaggedError("InterruptedError")<ErrorFields> {}

/**
 * Writing the command's output to stdout failed (exit 1). `errno` is kept so that a reader that went
 * away (EPIPE) can end the process quietly instead of as an error.
 */
export class OutputError
  extends Data.TaggedError("OutputError")<ErrorFields & { readonly errno?: string | undefined }>
{}

export type AnyLaitError = LaitError | UsageError | ValidationError | ModelApiError | InterruptedError | OutputError
  | McpError
  | ToolError

const laitTags = new Set([
  "LaitError",
  "UsageError",
  "ValidationError",
  "ModelApiError",
  "InterruptedError",
  "OutputError",
  "McpError",
  "ToolError"
])

export const isLaitError = (u: unknown): u is AnyLaitError =>
  typeof u === "object" && u !== null && "_tag" in u && laitTags.has((u as { _tag: string })._tag)

/** Walks `cause` links: the error itself first, then what caused it. */
export const causeChain = (error: unknown): ReadonlyArray<unknown> => {
  const chain: Array<unknown> = []
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current !== undefined && current !== null && !seen.has(current)) {
    seen.add(current)
    chain.push(current)
    current = typeof current === "object" && "cause" in current ? (current as { cause?: unknown }).cause : undefined
  }
  return chain
}

const messageOf = (u: unknown): string => {
  if (typeof u === "string") return u
  if (typeof u === "object" && u !== null && "message" in u && typeof u.message === "string") return u.message
  return String(u)
}

/** `outer: inner: innermost`, skipping empty and repeated messages. */
export const renderChain = (error: unknown): string => {
  const parts: Array<string> = []
  for (const link of causeChain(error)) {
    const text = messageOf(link).trim()
    if (text.length > 0 && parts[parts.length - 1] !== text) parts.push(text)
  }
  return parts.length > 0 ? parts.join(": ") : "unknown error"
}

/** A typed cancellation or timeout: exit 5 at the top of a chain. */
const isInterruption = (u: unknown): boolean =>
  isLaitError(u) && (u._tag === "InterruptedError" || (u._tag === "McpError" && u.interrupted))

export const exitCodeOf = (error: unknown): ExitCode => {
  const chain = causeChain(error)
  const tagOf = (u: unknown) => (isLaitError(u) ? u._tag : undefined)
  if (isInterruption(chain[0])) return ExitCode.interrupted
  if (chain.some((u) => tagOf(u) === "ValidationError")) return ExitCode.validation
  if (chain.some((u) => tagOf(u) === "ModelApiError")) return ExitCode.modelApi
  if (tagOf(chain[0]) === "UsageError") return ExitCode.usage
  return ExitCode.general
}

/** stdout's reader is gone: nothing is left to tell, so lait exits quietly (ExitCode.brokenPipe). */
export const isBrokenPipe = (error: unknown): boolean =>
  causeChain(error).some((u) => isLaitError(u) && u._tag === "OutputError" && u.errno === "EPIPE")

/** The error of a failed cause, or undefined when it only holds interruptions. */
export const primaryError = (cause: Cause.Cause<unknown>): unknown => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return failure.error
  const defect = cause.reasons.find(Cause.isDieReason)
  return defect?.defect
}

/** Wraps `cause` under a new top message, keeping its exit-code class (validation stays validation). */
export const withContext = (message: string) => (cause: unknown): AnyLaitError => {
  if (isLaitError(cause)) {
    switch (cause._tag) {
      case "ValidationError":
        return new ValidationError({ message, cause })
      case "ModelApiError":
        return new ModelApiError({ message, cause })
      case "UsageError":
        return new UsageError({ message, cause })
      // An MCP timeout stays an interruption, as the engine's and the subagents' wrapping keep an
      // InterruptedError; any other MCP failure is a general one.
      case "McpError":
        return cause.interrupted ? new InterruptedError({ message, cause }) : new LaitError({ message, cause })
      default:
        return new LaitError({ message, cause })
    }
  }
  return new LaitError({ message, cause })
}
