// Failures of one-shot chat, sessions, named prompts and `lait compare` as one error class with a
// `reason`. The texts are upstream's; every reason exits 1 (core/errors.ts's table).
import { Schema } from "effect"
import { describeReasons } from "../core/reasonError.ts"

const Reason = Schema.suspend(() => Schema.Union([
  /** Chat with no --model, LLM_MODEL, prompt `model:` or default.model. */
  Schema.TaggedStruct("ModelRequired", {}),
  /** `lait prompt run NAME` whose prompt names no model and no default.model is set. */
  Schema.TaggedStruct("PromptModelRequired", { name: Schema.String }),
  /** One-shot chat (or `compare`) got neither a PROMPT nor piped input; `command` names which. */
  Schema.TaggedStruct("PromptRequired", { command: Schema.Literals(["chat", "compare", "prompt"]) }),
  Schema.TaggedStruct("SessionName", { name: Schema.String }),
  Schema.TaggedStruct("SessionMissing", { name: Schema.String }),
  /** A line of a session file that is not a `{"role","content"}` record; `line` is 1-based. */
  Schema.TaggedStruct("SessionCorrupt", { path: Schema.String, line: Schema.Number }),
  /** `detail` is the OS's reason. */
  Schema.TaggedStruct("SessionIo", {
    path: Schema.String,
    detail: Schema.String,
    action: Schema.Literals(["write", "read", "delete"])
  }),
  Schema.TaggedStruct("UnknownPrompt", { name: Schema.String, available: Schema.Array(Schema.String) }),
  Schema.TaggedStruct("BadVar", { arg: Schema.String, problem: Schema.Literals(["no-equals", "empty-key"]) }),
  Schema.TaggedStruct("SystemFile", { path: Schema.String, detail: Schema.String }),
  /** `--json-schema FILE` that cannot be read or is not a JSON object. */
  Schema.TaggedStruct("JsonSchemaFile", { path: Schema.String, detail: Schema.String }),
  Schema.TaggedStruct("CompareTooFew", {}),
  Schema.TaggedStruct("CompareFailed", { failed: Schema.Number, total: Schema.Number })
]))
export type ChatErrorReason = typeof Reason.Type

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
    case "JsonSchemaFile":
      return `failed to load JSON schema '${reason.path}'`
    case "CompareTooFew":
      return "`lait compare` requires at least two `--model` values"
    case "CompareFailed":
      return `${reason.failed} of ${reason.total} model(s) failed`
  }
}

export class ChatError extends Schema.TaggedError<ChatError>()("ChatError", { reason: Reason }) {}
describeReasons(ChatError, describe)

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly ChatError: ChatError
  }
}
