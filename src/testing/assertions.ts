// The `assert:` vocabulary shared by `lait test` files and `lait eval` cases (docs/testing.md#assertions):
// its types and names. Its Effect Schema, which decodes the YAML and emits the JSON Schema for editors,
// is ./assertionSchema.ts, apart so that an eval whose assertions decode natively never evaluates it.

export const ASSERTION_TYPES = [
  "equals",
  "contains",
  "jq",
  "llm_judge",
  "tool_called",
  "usage",
  "step_output"
] as const
export type AssertionType = (typeof ASSERTION_TYPES)[number]

/** The field names each assertion type accepts besides `type`, in the order messages list them. */
export const ASSERTION_FIELDS: { readonly [K in AssertionType]: ReadonlyArray<string> } = {
  equals: ["value"],
  contains: ["value"],
  jq: ["expr"],
  llm_judge: ["criteria", "model", "threshold"],
  tool_called: ["name", "min", "max", "args_jq"],
  usage: ["max_prompt_tokens", "max_completion_tokens", "max_total_tokens", "max_cost_usd"],
  step_output: ["id", "assert"]
}

export interface EqualsAssertion {
  readonly type: "equals"
  readonly value: string
}
export interface ContainsAssertion {
  readonly type: "contains"
  readonly value: string
}
export interface JqAssertion {
  readonly type: "jq"
  readonly expr: string
}
export interface LlmJudgeAssertion {
  readonly type: "llm_judge"
  readonly criteria: string
  readonly model?: string | null
  readonly threshold?: number | null
}
export interface ToolCalledAssertion {
  readonly type: "tool_called"
  readonly name: string
  readonly min?: number | null
  readonly max?: number | null
  readonly args_jq?: string | null
}
export interface UsageAssertion {
  readonly type: "usage"
  readonly max_prompt_tokens?: number | null
  readonly max_completion_tokens?: number | null
  readonly max_total_tokens?: number | null
  readonly max_cost_usd?: number | null
}
export interface StepOutputAssertion {
  readonly type: "step_output"
  readonly id: string
  readonly assert: ReadonlyArray<Assertion>
}
export type Assertion =
  | EqualsAssertion
  | ContainsAssertion
  | JqAssertion
  | LlmJudgeAssertion
  | ToolCalledAssertion
  | UsageAssertion
  | StepOutputAssertion
