// Every error the tool reports travels as one of these tagged classes, or as a domain's own class with
// a `reason` (src/model/ModelError.ts). Each class's exit code is in one table (`exitCodeByTag`); the
// run's is derived from the whole cause chain (`exitCodeOf`), the way upstream lait does it: a
// YAML/validation error anywhere in the chain means 3, a model API error 4, a typed interruption at the top 5.
import { Cause, Data } from "effect"

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

/**
 * Each domain's own error class (`ModelError`, ...), added by its module with
 * `declare module "../core/errors.ts" { interface DomainErrors { ... } }`, so that every error lait
 * reports is one type here without this module importing the domains.
 */
export interface DomainErrors {}

export type AnyLaitError =
  | LaitError
  | UsageError
  | ValidationError
  | ModelApiError
  | InterruptedError
  | OutputError
  | DomainErrors[keyof DomainErrors]

/**
 * The exit code of every error class, and the one place they are assigned. A class whose reasons end
 * differently maps each reason's `_tag`.
 */
export const exitCodeByTag = {
  LaitError: ExitCode.general,
  OutputError: ExitCode.general,
  UsageError: ExitCode.usage,
  ValidationError: ExitCode.validation,
  ModelApiError: ExitCode.modelApi,
  InterruptedError: ExitCode.interrupted,
  ModelError: {
    Unreachable: ExitCode.modelApi,
    StreamBroken: ExitCode.modelApi,
    Timeout: ExitCode.modelApi,
    HttpStatus: ExitCode.modelApi,
    BadResponse: ExitCode.modelApi,
    ResponseTooLarge: ExitCode.modelApi,
    // A cassette is a local file: no model server was asked.
    CassetteMissing: ExitCode.general,
    CassetteInvalid: ExitCode.general,
    // Refused before any request, or after the answer: the server is not at fault.
    ResponsesUnsupported: ExitCode.general,
    EntryRefused: ExitCode.general
  },
  // An MCP timeout, or a server asked for after the run began to stop, is a typed interruption.
  McpError: { Timeout: ExitCode.interrupted, Stopping: ExitCode.interrupted },
  ToolError: ExitCode.general,
  FileError: ExitCode.general,
  ArgumentError: ExitCode.usage,
  // A step's or the workflow's timeout is a typed interruption.
  TraceError: ExitCode.general,
  WorkflowLoadError: {
    YamlSyntax: ExitCode.validation,
    Invalid: ExitCode.validation,
    SchemaFileUnusable: ExitCode.validation,
    Rejected: ExitCode.validation,
    AgentField: ExitCode.validation,
    AgentFrontmatter: ExitCode.validation,
    AgentFileInvalid: ExitCode.validation
  },
  StepError: { StepTimeout: ExitCode.interrupted, WorkflowTimeout: ExitCode.interrupted },
  JqError: ExitCode.general,
  TemplateError: ExitCode.general,
  SubagentError: ExitCode.general,
  // A skill file that is there but malformed is a validation failure, as an agent file's is.
  SkillError: { Invalid: ExitCode.validation },
  CommandError: ExitCode.general,
  CheckpointError: ExitCode.general,
  ServeError: { McpRequired: ExitCode.usage, TokenRequired: ExitCode.usage, TokenInvalid: ExitCode.usage },
  // A --since or N that cannot be used is the command line's fault.
  HistoryError: { BadSince: ExitCode.usage, IndexZero: ExitCode.usage },
  ChatError: ExitCode.general,
  AppError: ExitCode.general,
  // Whatever stopped `lait lint`, it is a validation outcome, as upstream.
  LintError: ExitCode.validation,
  // A FAIL of `lait doctor` is a general failure (as upstream); a server `models --remote` could not list, an API one.
  DoctorError: { ChecksFailed: ExitCode.general, ListFailed: ExitCode.modelApi },
  // Pruning another project's cassettes needs --allow-outside: the command line's to grant.
  TestError: { ParseFailed: ExitCode.validation, PruneOutside: ExitCode.usage },
  EvalError: {
    ParseFailed: ExitCode.validation,
    PromptSyntax: ExitCode.validation,
    CasesFileInvalid: ExitCode.validation,
    CasesFileExtension: ExitCode.validation,
    BaselineInvalid: ExitCode.validation,
    ReportInvalid: ExitCode.validation,
    // Server or setup errors are never the model's quality.
    RunsCouldNotRun: ExitCode.modelApi
  },
  // A schema file a step or a subagent refers to that cannot be used as written is a validation failure.
  SchemaError: { FileParse: ExitCode.validation, FileNotObject: ExitCode.validation },
  ConfigError: {
    ParseFailed: ExitCode.validation,
    Invalid: ExitCode.validation,
    EmptyModelId: ExitCode.validation,
    BothApiKeys: ExitCode.validation,
    ModelHeader: ExitCode.validation,
    EmptyDefinition: ExitCode.validation
  }
} as const satisfies Readonly<Record<string, ExitCode | Readonly<Record<string, ExitCode>>>>

export const isLaitError = (u: unknown): u is AnyLaitError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" &&
  Object.hasOwn(exitCodeByTag, u._tag)

/** The exit code of one error on its own (its causes aside); undefined for anything not lait's. */
const ownExitCode = (u: unknown): ExitCode | undefined => {
  if (!isLaitError(u)) return undefined
  const entry: ExitCode | Readonly<Record<string, ExitCode>> = exitCodeByTag[u._tag]
  if (typeof entry === "number") return entry
  const reason = "reason" in u ? (u.reason as { readonly _tag?: unknown } | undefined)?._tag : undefined
  return (typeof reason === "string" ? entry[reason] : undefined) ?? ExitCode.general
}

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

/** What a wrapped failure (a FileError, say) adds to the message of the error that wraps it. */
export const causeDetail = (e: { readonly message: string; readonly cause?: unknown }): string =>
  e.cause === undefined ? e.message : renderChain(e.cause)

/**
 * A validation error anywhere in the chain means 3, then a model API error anywhere 4; an
 * interruption or a usage error counts only at the top.
 */
export const exitCodeOf = (error: unknown): ExitCode => {
  const codes = causeChain(error).map(ownExitCode)
  if (codes[0] === ExitCode.interrupted) return ExitCode.interrupted
  if (codes.includes(ExitCode.validation)) return ExitCode.validation
  if (codes.includes(ExitCode.modelApi)) return ExitCode.modelApi
  if (codes[0] === ExitCode.usage) return ExitCode.usage
  return ExitCode.general
}

type GeneralClass = "LaitError" | "UsageError" | "ValidationError" | "ModelApiError"

/** The general class of each exit code: what `withContext` wraps an error of that code in. */
const generalClassOf = (code: ExitCode | undefined): GeneralClass => {
  switch (code) {
    case ExitCode.validation:
      return "ValidationError"
    case ExitCode.modelApi:
      return "ModelApiError"
    case ExitCode.usage:
      return "UsageError"
    default:
      return "LaitError"
  }
}

/**
 * The class name an error reports as (a trace's `error.type`): its own for the general classes, else
 * the general class of its exit code, so that giving a domain its own class leaves traces as they were.
 */
export const errorClassOf = (error: AnyLaitError): string =>
  error._tag === "InterruptedError" || error._tag === "OutputError"
    ? error._tag
    : ownExitCode(error) === ExitCode.interrupted
    ? "InterruptedError"
    : generalClassOf(ownExitCode(error))

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
  // A domain's typed interruption (an MCP, step or workflow timeout) stays one, as the engine's and
  // the subagents' wrapping keep an InterruptedError.
  if (isLaitError(cause) && cause._tag !== "InterruptedError" && ownExitCode(cause) === ExitCode.interrupted) {
    return new InterruptedError({ message, cause })
  }
  // Context is domain-free (`step 'x'`, `workflow 'w'`), so it stays a general class: the one of its
  // cause's exit code, which keeps the code and a trace's `error.type`.
  switch (generalClassOf(ownExitCode(cause))) {
    case "ValidationError":
      return new ValidationError({ message, cause })
    case "ModelApiError":
      return new ModelApiError({ message, cause })
    case "UsageError":
      return new UsageError({ message, cause })
    case "LaitError":
      return new LaitError({ message, cause })
  }
}

/** `text (line N)`, or `text` when the line is not known: how a problem in a file names its line. */
export const withLine = (text: string, line: number | undefined): string =>
  line === undefined ? text : `${text} (line ${line})`

/**
 * Sets the `file` and `line` a domain error points at (for `lait lint`). Bun gives every Error its own
 * `line` (where it was constructed), which would hide a getter, so they are own properties.
 */
export const locateError = (error: object, file: string | undefined, line: number | undefined): void => {
  Object.defineProperty(error, "line", { value: line, configurable: true })
  Object.defineProperty(error, "file", { value: file, configurable: true })
}

/** The file and line an error points at (the outermost link of its chain that names both), if any. */
export const errorLocation = (error: unknown): { readonly file: string; readonly line: number } | undefined => {
  for (const link of causeChain(error)) {
    if (typeof link !== "object" || link === null || !("line" in link) || !("file" in link)) continue
    if (typeof link.line === "number" && typeof link.file === "string") return { file: link.file, line: link.line }
  }
  return undefined
}

/** The 1-based line an error carries (the outermost link of its chain that has one; see locateError). */
export const errorLine = (error: unknown): number | undefined => {
  for (const link of causeChain(error)) {
    if (typeof link === "object" && link !== null && "line" in link && typeof link.line === "number") return link.line
  }
  return undefined
}
