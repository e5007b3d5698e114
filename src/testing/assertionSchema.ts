// The `assert:` vocabulary (./assertions.ts) as an Effect Schema: it decodes the YAML (unknown fields
// rejected at every level) and emits the JSON Schema for editors. Optional fields also accept an
// explicit `null`, as upstream's serde defaults do.
import { Schema } from "effect"
import { describeYamlValue, valueAtPath } from "../core/schemaPath.ts"
import { type Assertion, ASSERTION_TYPES, type StepOutputAssertion } from "./assertions.ts"

const optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

const described = <S extends Schema.Top>(schema: S, description: string) => schema.annotate({ description })

export const EqualsSchema = Schema.Struct({
  type: Schema.Literal("equals"),
  value: described(Schema.String, "The whole output must be exactly this text")
})
export const ContainsSchema = Schema.Struct({
  type: Schema.Literal("contains"),
  value: described(Schema.String, "The output must contain this text")
})
export const JqSchema = Schema.Struct({
  type: Schema.Literal("jq"),
  expr: described(
    Schema.String,
    "A jq expression over the output (parsed as JSON when it is JSON text, else a JSON string); " +
      "it must produce exactly one truthy value"
  )
})
export const LlmJudgeSchema = Schema.Struct({
  type: Schema.Literal("llm_judge"),
  criteria: described(Schema.String, "What the judge model grades the output against"),
  model: optional(described(Schema.String, "Judge model (alias or id); default: the target's model")),
  threshold: optional(described(Schema.Finite, "Minimum score from 0.0 to 1.0 (default 0.7)"))
})
export const ToolCalledSchema = Schema.Struct({
  type: Schema.Literal("tool_called"),
  name: described(
    Schema.String,
    "Qualified tool name: tool__<name>, agent__<name>, <server>__<tool> (or mcp__<server>__<tool>)"
  ),
  min: optional(described(Count, "At least this many calls (default 1, or 0 when max is given)")),
  max: optional(described(Count, "At most this many calls")),
  args_jq: optional(described(Schema.String, "jq over a call's arguments; at least one call must satisfy it"))
})
export const UsageSchema = Schema.Struct({
  type: Schema.Literal("usage"),
  max_prompt_tokens: optional(Count),
  max_completion_tokens: optional(Count),
  max_total_tokens: optional(Count),
  max_cost_usd: optional(described(Schema.Finite, "Checked only when a model in the run has pricing:"))
})
export const StepOutputSchema: Schema.Codec<StepOutputAssertion> = Schema.Struct({
  type: Schema.Literal("step_output"),
  id: described(Schema.String, "The id of a top-level step of the workflow"),
  assert: Schema.Array(Schema.suspend((): Schema.Codec<Assertion> => AssertionSchema)).annotate({
    description: "Assertions on that step's own output; tool_called/usage still look at the whole run"
  })
})

export const AssertionSchema: Schema.Codec<Assertion> = Schema.Union([
  EqualsSchema,
  ContainsSchema,
  JqSchema,
  LlmJudgeSchema,
  ToolCalledSchema,
  UsageSchema,
  StepOutputSchema
]).annotate({ identifier: "Assertion", title: "assertion" })

type Segment = string | number

export interface IssueWording {
  /** Which keys the mapping at `parentPath` accepts, for an unknown-key message (or nothing to add). */
  readonly acceptedKeys: (parentPath: ReadonlyArray<Segment>) => string | undefined
  /** Whether the issue at `path` is an assertion item's union finding no member. */
  readonly isAssertionItem: (path: ReadonlyArray<Segment>, message: string) => boolean
  /** Whether a bare "Expected string" also says what was there instead. */
  readonly sayWhatWasThere: boolean
}

const knownTypes = ASSERTION_TYPES.join(", ")

/**
 * A schema issue in a file with `assert:` lists (a test file, an eval file) in the loader's words:
 * which key, what was expected; for an assertion item, what is wrong with its `type`.
 */
export const explainIssue = (
  raw: unknown,
  path: ReadonlyArray<Segment>,
  message: string,
  wording: IssueWording
): { at: ReadonlyArray<Segment>; text: string } => {
  const last = path.at(-1)
  const parentPath = path.slice(0, -1)
  if (message === "Expected no excess property" && typeof last === "string") {
    const accepted = wording.acceptedKeys(parentPath)
    return { at: parentPath, text: `unknown key '${last}'${accepted === undefined ? "" : `; ${accepted}`}` }
  }
  if (message === "Missing key" && typeof last === "string") {
    return { at: parentPath, text: `missing required key '${last}'` }
  }
  if (typeof last === "number" && wording.isAssertionItem(path, message)) {
    const item = valueAtPath(raw, path)
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return { at: path, text: `an assertion must be a mapping with a 'type', got ${describeYamlValue(item)}` }
    }
    const type = (item as { readonly type?: unknown }).type
    if (type === undefined) return { at: path, text: `missing required key 'type' (one of: ${knownTypes})` }
    return {
      at: [...path, "type"],
      text: typeof type === "string"
        ? `unknown assertion type '${type}'; expected one of: ${knownTypes}`
        : `'type' must be a string, got ${describeYamlValue(type)}; expected one of: ${knownTypes}`
    }
  }
  const text = message.length > 0 ? message[0]!.toLowerCase() + message.slice(1) : message
  // "Expected string" alone does not say what was there instead.
  if (wording.sayWhatWasThere && /^Expected [a-z]+$/.test(message)) {
    return { at: path, text: `${text}, got ${describeYamlValue(valueAtPath(raw, path))}` }
  }
  return { at: path, text }
}
