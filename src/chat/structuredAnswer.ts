// One-shot `--json-schema` (docs/chat.md#structured-output): the answer is checked as a workflow's
// `output_schema` checks a step's (src/workflow/modelSteps.ts): one surrounding Markdown fence is
// removed, the rest must be JSON, and it must match the schema. A server that ignores strict mode,
// or a model that wraps its JSON in a fence, must not pass for a structured answer.
import { Effect } from "effect"
import { renderChain } from "../core/errors.ts"
import { excerpt } from "../core/excerpt.ts"
import { type Json, type JsonObject, stripFence } from "../core/json.ts"
import { JsonTooDeep, parseJsonText } from "../core/jsonDepth.ts"
import type { ResponseFormat } from "../model/types.ts"
import { ChatError } from "./chatErrors.ts"

/**
 * The answer as printed: its JSON text without a fence. Fails with a ChatError (exit 1, as a
 * workflow's) when it is not JSON or does not match; `schemaFile` names the schema in the message.
 */
export const checkStructuredAnswer = (
  content: string,
  format: ResponseFormat,
  schemaFile: string
): Effect.Effect<string, ChatError> =>
  Effect.gen(function*() {
    const text = stripFence(content)
    const parsed = yield* Effect.try({
      try: () => parseJsonText(text) as Json,
      catch: (e) =>
        new ChatError({
          reason: {
            _tag: "AnswerNotJson",
            schema: schemaFile,
            detail: e instanceof JsonTooDeep ? e.message : excerpt(content)
          }
        })
    })
    // Ajv is loaded only for a chat that asks for structured output.
    const { checkJson } = yield* Effect.promise(() => import("../lang/jsonschema.ts"))
    const invalid = yield* checkJson(format.json_schema.schema as JsonObject, parsed, "answer")
    if (invalid !== undefined) {
      return yield* new ChatError({
        reason: { _tag: "AnswerMismatch", schema: schemaFile, detail: renderChain(invalid) }
      })
    }
    return text
  })
