// The Effect Schema decoder of an answer (ChatCompletion, ./types.ts), live, cached or recorded:
// loaded with `import()` on the first answer a run reads (./completion.ts), so that a run that asks
// no model never evaluates Effect Schema's modules for it.
import { Schema } from "effect"
import type { ChatCompletion } from "./types.ts"

const ResponseToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.optionalKey(Schema.String),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})

export const ChatCompletionSchema = Schema.Struct({
  choices: Schema.Array(
    Schema.Struct({
      message: Schema.Struct({
        role: Schema.optionalKey(Schema.String),
        content: Schema.optionalKey(Schema.NullOr(Schema.String)),
        reasoning_content: Schema.optionalKey(Schema.NullOr(Schema.String)),
        tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(ResponseToolCall)))
      }),
      finish_reason: Schema.optionalKey(Schema.NullOr(Schema.String))
    })
  ),
  // Read by readUsage (src/model/usage.ts): a bad count must not make the whole answer unreadable.
  usage: Schema.optionalKey(Schema.Unknown)
})

// The schema's type is ChatCompletion, both ways: a field added to one and not the other fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const sameType: Same<typeof ChatCompletionSchema.Type, ChatCompletion> = true
void sameType

const decode = Schema.decodeUnknownExit(ChatCompletionSchema)

/** `raw` decoded as a ChatCompletion, or undefined when it is not one. */
export const decodeCompletion = (raw: unknown): ChatCompletion | undefined => {
  const exit = decode(raw)
  return exit._tag === "Success" ? exit.value : undefined
}
