// The `assert:` vocabulary (./assertions.ts) as an Effect Schema: it decodes the YAML (unknown fields
// rejected at every level) and emits the JSON Schema for editors. Optional fields also accept an
// explicit `null`, as upstream's serde defaults do.
import { Schema } from "effect"
import type { Assertion, StepOutputAssertion } from "./assertions.ts"

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
