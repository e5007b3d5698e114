// The `assert:` vocabulary (./assertions.ts) as an Effect Schema: it decodes the YAML (unknown fields
// rejected at every level) and emits the JSON Schema for editors. Optional fields also accept an
// explicit `null`, as upstream's serde defaults do.
import { Schema } from "effect"
import { describeYamlValue, valueAtPath } from "../core/schemaPath.ts"
import { type Assertion, ASSERTION_TYPES, NOT_KEY, type NotAssertion, type StepOutputAssertion } from "./assertions.ts"

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

const textCheck = <T extends "regex" | "icontains" | "starts_with">(type: T, description: string) =>
  Schema.Struct({ type: Schema.Literal(type), value: described(Schema.String, description) })
export const RegexSchema = textCheck(
  "regex",
  "A JavaScript regular expression (no flags) the output must match somewhere"
)
export const IContainsSchema = textCheck("icontains", "The output must contain this text, ignoring case")
export const StartsWithSchema = textCheck("starts_with", "The output must start with this text")
const textList = Schema.Array(Schema.String).check(Schema.isMinLength(1))
export const ContainsAnySchema = Schema.Struct({
  type: Schema.Literal("contains_any"),
  value: described(textList, "The output must contain at least one of these texts")
})
export const ContainsAllSchema = Schema.Struct({
  type: Schema.Literal("contains_all"),
  value: described(textList, "The output must contain every one of these texts")
})
export const IsJsonSchema = Schema.Struct({
  type: Schema.Literal("is_json").annotate({ description: "The whole output must be JSON text" })
})
export const JsonSchemaSchema = Schema.Struct({
  type: Schema.Literal("json_schema"),
  value: optional(described(Schema.Record(Schema.String, Schema.Json), "An inline JSON Schema (instead of file:)")),
  file: optional(
    described(Schema.String, "A JSON or YAML file holding the JSON Schema, relative to this file (instead of value:)")
  )
}).annotate({ description: "The output must be JSON text valid against the schema; exactly one of value: and file:" })
export const LevenshteinSchema = Schema.Struct({
  type: Schema.Literal("levenshtein"),
  value: described(Schema.String, "The text the output is compared with"),
  max: described(Count, "The most single-character edits (insert, delete, replace) allowed")
})
export const LengthSchema = Schema.Struct({
  type: Schema.Literal("length"),
  min: optional(described(Count, "At least this many units")),
  max: optional(described(Count, "At most this many units")),
  unit: optional(
    described(Schema.Literals(["characters", "words"]), "characters (default; Unicode code points) or words")
  )
})
export const CostSchema = Schema.Struct({
  type: Schema.Literal("cost"),
  max: described(
    Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)),
    "lait eval only: the most the target's run may cost, in USD (needs pricing:); skipped when replayed"
  )
})
export const LatencySchema = Schema.Struct({
  type: Schema.Literal("latency"),
  max: described(
    Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)),
    "lait eval only: the most the target's run may take, in milliseconds; skipped when replayed"
  )
})
export const ScriptSchema = Schema.Struct({
  type: Schema.Literal("script"),
  command: described(
    Schema.Union([Schema.NonEmptyString, Schema.Array(Schema.String).check(Schema.isMinLength(1))]),
    "A command line (split into words as a shell would, run without one) or its argv, started in this file's " +
      "directory; it reads {output, input, vars, case} as JSON on stdin and prints {pass, score, reason}"
  ),
  timeout: optional(described(Schema.Int.check(Schema.isGreaterThan(0)), "Seconds (default 30)"))
})
export const NotSchema: Schema.Codec<NotAssertion> = Schema.Struct({
  not: Schema.suspend((): Schema.Codec<Assertion> => AssertionSchema).annotate({
    description: "Any assertion: this one holds when that one does not"
  })
})

export const AssertionSchema: Schema.Codec<Assertion> = Schema.Union([
  EqualsSchema,
  ContainsSchema,
  JqSchema,
  LlmJudgeSchema,
  ToolCalledSchema,
  UsageSchema,
  StepOutputSchema,
  RegexSchema,
  IContainsSchema,
  StartsWithSchema,
  ContainsAnySchema,
  ContainsAllSchema,
  IsJsonSchema,
  JsonSchemaSchema,
  LevenshteinSchema,
  LengthSchema,
  CostSchema,
  LatencySchema,
  ScriptSchema,
  NotSchema
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

/** Whether `prefix` names an assertion: an item of an `assert:` or `default_assert:` list, or the `not:` of one. */
const isAssertionAt = (prefix: ReadonlyArray<Segment>): boolean =>
  typeof prefix.at(-1) === "number"
    ? prefix.at(-2) === "assert" || (prefix.length === 2 && prefix[0] === "default_assert")
    : prefix.at(-1) === NOT_KEY && prefix.length > 1 && isAssertionAt(prefix.slice(0, -1))

/**
 * The deepest assertion on the issue's path whose `type` is missing or unknown, said so. The union of
 * forms cannot say it: the `not:` form, the one without a `type`, answers for a mapping no other fits
 * ("unknown key 'type'").
 */
const badType = (
  raw: unknown,
  path: ReadonlyArray<Segment>
): { at: ReadonlyArray<Segment>; text: string } | undefined => {
  for (let end = path.length; end > 0; end--) {
    const at = path.slice(0, end)
    if (!isAssertionAt(at)) continue
    const item = valueAtPath(raw, at)
    // Missing (a `not:` the union looked for in an inner mapping): the mapping that holds it is the assertion.
    if (item === undefined) continue
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return end === path.length
        ? { at, text: `an assertion must be a mapping with a 'type', got ${describeYamlValue(item)}` }
        : undefined
    }
    if (NOT_KEY in item) return undefined
    const type = (item as { readonly type?: unknown }).type
    if (type === undefined) {
      return { at, text: `missing required key 'type' (one of: ${knownTypes})` }
    }
    if (typeof type !== "string") {
      const got = describeYamlValue(type)
      return { at: [...at, "type"], text: `'type' must be a string, got ${got}; expected one of: ${knownTypes}` }
    }
    if (!(ASSERTION_TYPES as ReadonlyArray<string>).includes(type)) {
      return { at: [...at, "type"], text: `unknown assertion type '${type}'; expected one of: ${knownTypes}` }
    }
    return undefined
  }
  return undefined
}

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
  const typeProblem = badType(raw, path)
  if (typeProblem !== undefined) return typeProblem
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
