// Failures of one-shot chat, sessions, named prompts and `lait compare` as one error class with a
// `reason`. The texts are upstream's; every reason exits 1 (core/errors.ts's table).
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** Chat with no --model, LLM_MODEL, prompt `model:` or default.model. */
  ModelRequired: {}
  /** `lait prompt run NAME` whose prompt names no model and no default.model is set. */
  PromptModelRequired: { name: string }
  /** One-shot chat (or `compare`) got neither a PROMPT nor piped input; `command` names which. */
  PromptRequired: { command: "chat" | "compare" | "prompt" }
  SessionName: { name: string }
  SessionMissing: { name: string }
  /** A line of a session file that is not a `{"role","content"}` record; `line` is 1-based. */
  SessionCorrupt: { path: string; line: number }
  /** `detail` is the OS's reason. */
  SessionIo: { path: string; detail: string; action: "write" | "read" | "delete" }
  /** A turn (or the REPL's /save) would make the session file longer than `--session` reads (`limit` bytes). */
  SessionFull: { name: string; path: string; limit: number }
  UnknownPrompt: { name: string; available: ReadonlyArray<string> }
  BadVar: { arg: string; problem: "no-equals" | "empty-key" }
  /** `detail`: why, as the FileError says it (`file contents exceed the configured read limit ...`). */
  SystemFile: { path: string; detail: string }
  /** `--json-schema FILE` that cannot be read; `detail` as for SystemFile. */
  JsonSchemaRead: { path: string; detail: string }
  /** `--json-schema FILE` that is not JSON, or not a JSON object. */
  JsonSchemaFile: { path: string; detail: string }
  /** `--json-schema`'s answer is not JSON (a fence removed); `detail` is an excerpt of it. */
  AnswerNotJson: { schema: string; detail: string }
  /** `--json-schema`'s answer does not match the schema; `detail` says where. */
  AnswerMismatch: { schema: string; detail: string }
  CompareTooFew: {}
  CompareFailed: { failed: number; total: number }
}
export type ChatErrorReason = TaggedUnion<Reasons>

const describe = (reason: ChatErrorReason): string => {
  switch (reason._tag) {
    case "ModelRequired":
      return "model is required; provide --model, set LLM_MODEL, or specify default.model in lait.config.yml"
    case "PromptModelRequired":
      return `model is required for prompt '${reason.name}'; set 'prompts.${reason.name}.model' or ` +
        "default.model in lait.config.yml"
    case "PromptRequired":
      return reason.command === "chat"
        ? "a PROMPT is required; provide one, pipe input via stdin, or use `lait run <FILE> <PROMPT>`"
        : reason.command === "compare"
        ? "a PROMPT is required; provide one or pipe input via stdin"
        : "an INPUT is required; provide one or pipe input via stdin"
    case "SessionName":
      return `invalid session name '${reason.name}'; session names may only contain letters, digits, '_', and '-'`
    case "SessionMissing":
      return `no such session '${reason.name}'`
    case "SessionCorrupt":
      return `invalid session file '${reason.path}' (line ${reason.line}): expected {"role","content"}`
    case "SessionIo":
      return `failed to ${reason.action} session file '${reason.path}'`
    case "SessionFull":
      return `session file '${reason.path}' would exceed the read limit of ${reason.limit} bytes, ` +
        `so --session could not read it back; continue in a new session, or delete this one with ` +
        `\`lait sessions delete ${reason.name}\``
    case "UnknownPrompt":
      return reason.available.length === 0
        ? `no prompt named '${reason.name}' is configured; add a 'prompts.${reason.name}:' entry to lait.config.yml`
        : `no prompt named '${reason.name}' is configured; configured prompts: ${reason.available.join(", ")}`
    case "BadVar":
      return reason.problem === "no-equals"
        ? `invalid '--var ${reason.arg}'; expected KEY=VALUE`
        : `invalid '--var ${reason.arg}'; the key must not be empty`
    case "SystemFile":
      return `failed to read system prompt file '${reason.path}'`
    case "JsonSchemaRead":
      return `failed to read JSON schema file '${reason.path}'`
    case "JsonSchemaFile":
      return `failed to parse JSON schema file '${reason.path}'`
    case "AnswerNotJson":
      return `the model's answer is not valid JSON for the JSON schema '${reason.schema}'`
    case "AnswerMismatch":
      return `the model's answer does not match the JSON schema '${reason.schema}'`
    case "CompareTooFew":
      return "`lait compare` requires at least two `--model` values"
    case "CompareFailed":
      return `${reason.failed} of ${reason.total} model(s) failed`
  }
}

export class ChatError extends ReasonError("ChatError", { describe }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly ChatError: ChatError
  }
}
