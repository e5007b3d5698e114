// What `lait proxy` accepts from an app (docs/apps.md#what-the-proxy-forwards): an OpenAI chat-completions
// body, read into the ChatRequest lait itself sends, so the cassette key is the one `lait run` would
// compute for the same request. A field lait cannot forward as the app meant it (`n`, `stop`, a
// non-strict response format, ...) is refused with a 400, never dropped: a recording made without it
// would replay answers to another question.
import { Schema, SchemaIssue } from "effect"
import type { ChatMessage, ChatRequest, ReasoningEffort, ResponseFormat, ToolDefinition } from "../model/types.ts"

const Text = Schema.String
const Part = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), text: Text }),
  Schema.Struct({ type: Schema.Literal("image_url"), image_url: Schema.Struct({ url: Text }) })
])
const ToolCall = Schema.Struct({
  id: Text,
  type: Schema.Literal("function"),
  function: Schema.Struct({ name: Text, arguments: Text })
})
// Extra keys of a message are ignored: an app that appends the answer's message object as it came
// (`refusal: null`, `annotations: []`) sends fields of the answer, not of the question.
const Message = Schema.Union([
  Schema.Struct({ role: Schema.Literal("system"), content: Text }),
  Schema.Struct({ role: Schema.Literal("user"), content: Schema.Union([Text, Schema.Array(Part)]) }),
  Schema.Struct({
    role: Schema.Literal("assistant"),
    content: Schema.optionalKey(Schema.NullOr(Text)),
    tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(ToolCall)))
  }),
  Schema.Struct({ role: Schema.Literal("tool"), content: Text, tool_call_id: Text })
])
const Tool = Schema.Struct({
  type: Schema.Literal("function"),
  function: Schema.Struct({
    name: Text,
    description: Schema.optionalKey(Text),
    parameters: Schema.optionalKey(Schema.Unknown),
    strict: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
  })
})
const Format = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text") }),
  Schema.Struct({
    type: Schema.Literal("json_schema"),
    json_schema: Schema.Struct({ name: Text, schema: Schema.Unknown, strict: Schema.Literal(true) })
  })
])
const Effort = Schema.Literals(["none", "minimal", "low", "medium", "high", "xhigh"])
const optionalNull = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

const Body = Schema.Struct({
  model: optionalNull(Text),
  messages: Schema.Array(Message).check(Schema.isMinLength(1)),
  tools: optionalNull(Schema.Array(Tool)),
  response_format: optionalNull(Format),
  temperature: optionalNull(Schema.Finite),
  top_p: optionalNull(Schema.Finite),
  max_tokens: optionalNull(Schema.Int),
  max_completion_tokens: optionalNull(Schema.Int),
  reasoning_effort: optionalNull(Effort),
  stream: optionalNull(Schema.Boolean),
  stream_options: optionalNull(Schema.Struct({ include_usage: Schema.optionalKey(Schema.Boolean) })),
  // Accepted only with the value that means what lait does anyway (checked below).
  n: optionalNull(Schema.Int),
  tool_choice: optionalNull(Schema.Unknown),
  parallel_tool_calls: optionalNull(Schema.Boolean),
  // Bookkeeping for the app's provider, with no effect on the answer.
  user: optionalNull(Text),
  store: optionalNull(Schema.Boolean),
  metadata: optionalNull(Schema.Unknown)
})
type Body = typeof Body.Type

const decode = Schema.decodeUnknownExit(Body, { errors: "first" })
const formatter = SchemaIssue.makeFormatterStandardSchemaV1()
const KNOWN = new Set(Object.keys(Body.fields))

export interface ProxyRequest {
  /** `model` as the app sent it, if it did. */
  readonly model: string | undefined
  readonly request: ChatRequest
  readonly stream: boolean
  /** `stream_options.include_usage`: a last chunk with the usage and no choices. */
  readonly includeUsage: boolean
}

const message = (m: Body["messages"][number]): ChatMessage => {
  if (m.role !== "assistant") return m
  const calls = m.tool_calls ?? []
  return {
    role: "assistant",
    ...(m.content === undefined ? {} : { content: m.content }),
    ...(calls.length > 0 ? { tool_calls: calls } : {})
  }
}

const tool = (t: Body["tools"] & ReadonlyArray<unknown>): ReadonlyArray<ToolDefinition> =>
  t.map(({ function: f }) => ({
    type: "function",
    function: {
      name: f.name,
      ...(f.description === undefined ? {} : { description: f.description }),
      ...(f.parameters === undefined ? {} : { parameters: f.parameters })
    }
  }))

/** A body lait can forward, or why not (the text of a 400 answer). */
export const readProxyRequest = (json: unknown): ProxyRequest | { readonly problem: string } => {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { problem: "the request body must be a JSON object" }
  }
  const unknown = Object.keys(json).filter((key) => !KNOWN.has(key) && (json as Record<string, unknown>)[key] !== null)
  if (unknown.length > 0) {
    return { problem: `lait proxy does not forward ${unknown.map((k) => `'${k}'`).join(", ")} (see docs/apps.md)` }
  }
  const exit = decode(json)
  if (exit._tag === "Failure") {
    const issue = exit.cause.reasons.find((r) => r._tag === "Fail")
    const first = issue === undefined ? undefined : formatter((issue.error as Schema.SchemaError).issue).issues[0]
    const path = first?.path ?? []
    const where = path.length === 0 ? "" : ` at '${path.map(String).join(".")}'`
    return { problem: `invalid request${where}: ${first?.message ?? "unreadable body"}` }
  }
  const body = exit.value
  if (body.n !== undefined && body.n !== null && body.n !== 1) return { problem: "lait proxy answers 'n': 1 only" }
  if (body.tool_choice !== undefined && body.tool_choice !== null && body.tool_choice !== "auto") {
    return { problem: "lait proxy forwards 'tool_choice': \"auto\" only (see docs/apps.md)" }
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined
  const format = body.response_format
  const request: ChatRequest = {
    messages: body.messages.map(message),
    tools: body.tools === undefined || body.tools === null ? [] : tool(body.tools),
    response_format: format === undefined || format === null || format.type === "text"
      ? null
      : format satisfies ResponseFormat,
    ...(body.reasoning_effort === undefined || body.reasoning_effort === null
      ? {}
      : { reasoning_effort: body.reasoning_effort satisfies ReasoningEffort }),
    ...(body.temperature === undefined || body.temperature === null ? {} : { temperature: body.temperature }),
    ...(body.top_p === undefined || body.top_p === null ? {} : { top_p: body.top_p }),
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens })
  }
  return {
    model: body.model === undefined || body.model === null || body.model === "" ? undefined : body.model,
    request,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true
  }
}
