// The `assert:` vocabulary shared by `lait test` files and `lait eval` cases (docs/testing.md#assertions):
// its types and names. Its Effect Schema, which decodes the YAML and emits the JSON Schema for editors,
// is ./assertionSchema.ts, apart so that an eval whose assertions decode natively never evaluates it.
import type { Json } from "../core/json.ts"

export const ASSERTION_TYPES = [
  "equals",
  "contains",
  "jq",
  "llm_judge",
  "tool_called",
  "usage",
  "step_output",
  // Checks of the text, its JSON, measurements and the user's own scripts (docs/testing.md#assertions)
  "regex",
  "icontains",
  "starts_with",
  "contains_any",
  "contains_all",
  "is_json",
  "json_schema",
  "levenshtein",
  "length",
  "cost",
  "latency",
  "script"
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
  step_output: ["id", "assert"],
  regex: ["value"],
  icontains: ["value"],
  starts_with: ["value"],
  contains_any: ["value"],
  contains_all: ["value"],
  is_json: [],
  json_schema: ["value", "file"],
  levenshtein: ["value", "max"],
  length: ["min", "max", "unit"],
  cost: ["max"],
  latency: ["max"],
  script: ["command", "timeout"]
}

/** The key of the one assertion form without a `type`: `- not: {type: ..., ...}` negates the assertion it holds. */
export const NOT_KEY = "not"

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
/** `regex`, `icontains`, `starts_with`: one text to look for. */
export interface TextAssertion {
  readonly type: "regex" | "icontains" | "starts_with"
  readonly value: string
}
export interface ContainsListAssertion {
  readonly type: "contains_any" | "contains_all"
  readonly value: ReadonlyArray<string>
}
export interface IsJsonAssertion {
  readonly type: "is_json"
}
export interface JsonSchemaAssertion {
  readonly type: "json_schema"
  /** Exactly one of `value` (an inline schema) and `file` (relative to the definition file). */
  readonly value?: { readonly [key: string]: Json } | null
  readonly file?: string | null
}
export interface LevenshteinAssertion {
  readonly type: "levenshtein"
  readonly value: string
  readonly max: number
}
export interface LengthAssertion {
  readonly type: "length"
  readonly min?: number | null
  readonly max?: number | null
  readonly unit?: "characters" | "words" | null
}
export interface MeasuredAssertion {
  readonly type: "cost" | "latency"
  /** USD for `cost`, milliseconds for `latency`. */
  readonly max: number
}
export interface ScriptAssertion {
  readonly type: "script"
  /** A command line split into words as a shell would (without running one), or the argv itself. */
  readonly command: string | ReadonlyArray<string>
  readonly timeout?: number | null
}
export interface NotAssertion {
  readonly not: Assertion
}
/** Every assertion form but `not`: the ones with a `type`. */
export type TypedAssertion =
  | EqualsAssertion
  | ContainsAssertion
  | JqAssertion
  | LlmJudgeAssertion
  | ToolCalledAssertion
  | UsageAssertion
  | StepOutputAssertion
  | TextAssertion
  | ContainsListAssertion
  | IsJsonAssertion
  | JsonSchemaAssertion
  | LevenshteinAssertion
  | LengthAssertion
  | MeasuredAssertion
  | ScriptAssertion
export type Assertion = TypedAssertion | NotAssertion

export const isNot = (assertion: Assertion): assertion is NotAssertion => !("type" in assertion)

/** How reports name an assertion's kind: its type, `not <type>` for a negated one. */
export const assertionLabel = (assertion: Assertion): string =>
  isNot(assertion) ? `not ${assertionLabel(assertion.not)}` : assertion.type
