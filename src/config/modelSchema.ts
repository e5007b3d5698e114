// The model definitions of `lait.config.yml` (`models:`), which a workflow's own `models:` shares, and
// the value types they use. Apart from the rest of the config file model (./schema.ts, which re-exports
// them): the workflow loader decodes `models:` with these, and building the whole config schema cost
// every `lait run` milliseconds though only a config file needs it.
import { Schema } from "effect"
import { REASONING_EFFORTS } from "./reasoningEffort.ts"

export const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const NonNegative = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))
export const Temperature = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 2 }))
export const TopP = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))
const NotBlank = Schema.String.check(
  Schema.makeFilter((s: string) => s.trim().length > 0 || "must not be empty", { expected: "a non-empty string" })
)

export const ReasoningEffort = Schema.Literals(REASONING_EFFORTS)
export type ReasoningEffort = typeof ReasoningEffort.Type

export const ModelApi = Schema.Literals(["chat_completions", "responses"])
export type ModelApi = typeof ModelApi.Type

/** `api_key_cmd`: a string runs through `sh -c`; a list is an argv executed directly. */
export const CommandSpec = Schema.Union([
  Schema.String,
  Schema.Array(Schema.String).check(Schema.isMinLength(1))
]).annotate({ description: "A command line run with sh -c, or an argv list; its stdout is the API key" })
export type CommandSpec = typeof CommandSpec.Type

export const Provider = Schema.Struct({
  base_url: Schema.String,
  api_key: Schema.optionalKey(Schema.String),
  api_key_cmd: Schema.optionalKey(CommandSpec),
  headers: Schema.optionalKey(
    Schema.Record(Schema.String, Schema.String).annotate({
      description: "Extra HTTP headers of every request to this endpoint (values expand ${VAR}; masked like keys)"
    })
  )
})
export type Provider = typeof Provider.Type

export const Pricing = Schema.Struct({
  input_per_1m: NonNegative.annotate({ description: "USD per million prompt tokens" }),
  output_per_1m: NonNegative.annotate({ description: "USD per million completion tokens" })
})
export type Pricing = typeof Pricing.Type

export const ModelDefinition = Schema.Struct({
  provider: Provider,
  model_id: NotBlank,
  default_reasoning_effort: Schema.optionalKey(ReasoningEffort),
  default_temperature: Schema.optionalKey(Temperature),
  default_top_p: Schema.optionalKey(TopP),
  default_max_tokens: Schema.optionalKey(PositiveInt),
  pricing: Schema.optionalKey(Pricing),
  api: Schema.optionalKey(ModelApi)
})
export type ModelDefinition = typeof ModelDefinition.Type

/** alias → definitions; the first is the primary, the rest are fallbacks. Also a workflow's `models:`. */
export const ModelMap = Schema.Record(Schema.String, Schema.Array(ModelDefinition).check(Schema.isMinLength(1)))
export type ModelMap = typeof ModelMap.Type
