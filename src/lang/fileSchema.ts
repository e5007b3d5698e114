// The workflow file (version 2) as written in YAML, for `lait schema workflow` and editors.
// The key tables below are the single source of truth for which keys each mapping accepts: the
// loader (src/lang/load/*) builds its "unknown field ...; X accept: ..." checks from the same
// tables, and the Effect Schema structs are generated from them, so the two cannot drift apart.
// Semantic rules the JSON Schema cannot express (unique ids, placement of break/stop/ask/write,
// jq/template syntax, schema references) are enforced by the loader only.
import { Schema } from "effect"
import { ModelMap, ReasoningEffort } from "../config/schema.ts"
import {
  AGENT_FILE_KEYS,
  AGENT_KEYS,
  CASE_KEYS,
  DEFAULT_KEYS,
  KIND_KEYS,
  KIND_REQUIRED,
  type KindKey,
  LLM_KEYS,
  NAME_PATTERN,
  RETRY_KEYS,
  SCHEMA_NAME_PATTERN,
  stepAcceptedKeys,
  TOP_LEVEL_KEYS,
  type TopLevelKey
} from "./fileKeys.ts"
import { jsonSchemaDocument } from "../core/jsonSchemaDocument.ts"

export * from "./fileKeys.ts"

const INPUT_KEYS_NOTE = "any JSON Schema keywords; 'default' makes the input optional"

// ---------------------------------------------------------------------------------------------
// Effect Schema

const describe = (description: string) => <S extends Schema.Top>(self: S): S["Rebuild"] =>
  self.annotate({ description })

const Name = Schema.String.check(Schema.isPattern(NAME_PATTERN)).pipe(
  describe("A letter or '_' followed by letters, digits, '_' or '-'")
)
const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Jq = Schema.String.pipe(describe("A jq expression (exactly one output)"))
const Template = Schema.String.pipe(describe("A Handlebars template (strict, no HTML escaping)"))
const Strings = Schema.Array(Schema.String)
const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
const FileRef = Schema.Struct({
  file: Schema.String.pipe(describe("A JSON Schema file, relative to the file that references it"))
})
const SchemaRef = Schema.Union([
  Schema.String.pipe(describe("A name defined under 'schemas:'")),
  FileRef,
  JsonObject.pipe(describe("An inline JSON Schema"))
])

const pick = <K extends string>(
  keys: ReadonlyArray<K>,
  schemas: { readonly [P in K]: Schema.Top },
  required: ReadonlyArray<K> = []
) => {
  const fields: Record<string, Schema.Top> = {}
  for (const key of keys) fields[key] = required.includes(key) ? schemas[key] : Schema.optionalKey(schemas[key])
  return Schema.Struct(fields)
}

const Retry = pick(RETRY_KEYS, {
  max_attempts: PositiveInt.pipe(describe("Attempts in total, including the first")),
  delay_seconds: NonNegativeInt.pipe(describe("Wait before the first retry (default 0)")),
  backoff: Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)).pipe(
    describe("Multiplier applied to the wait (default 1)")
  )
}, ["max_attempts"])

const llmFieldSchemas = {
  model: Schema.String.pipe(describe("A model alias or a raw model id")),
  reasoning_effort: ReasoningEffort,
  temperature: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 2 })),
  top_p: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })),
  max_tokens: PositiveInt,
  mcp: Strings.pipe(describe("mcp_servers names")),
  max_tool_rounds: PositiveInt,
  skills: Strings,
  subagents: Strings,
  tools: Strings.pipe(describe("tools names"))
} satisfies { readonly [K in (typeof LLM_KEYS)[number]]: Schema.Top }

interface StepShape {
  readonly [key: string]: unknown
}
const StepList: Schema.Codec<ReadonlyArray<StepShape>> = Schema.Array(
  Schema.suspend((): Schema.Codec<StepShape> => Step).annotate({ identifier: "Step" })
).check(Schema.isMinLength(1)).annotate({ identifier: "Steps", description: "A non-empty list of steps" })

const Case = pick(CASE_KEYS, { when: Jq, steps: StepList }, CASE_KEYS)

/** Every step-level field's schema, keyed by name; each kind's struct picks its keys from the tables. */
const stepFieldSchemas: { readonly [key: string]: Schema.Top } = {
  id: Name,
  when: Jq.pipe(describe("jq condition on the incoming value; a falsy result skips the step")),
  input: Jq.pipe(describe("jq computing the value the step acts on (default '.')")),
  output: Jq.pipe(describe("jq mapping the step's result to its value")),
  retry: Retry,
  timeout: PositiveInt.pipe(describe("Seconds per attempt")),
  on_error: StepList,
  prompt: Template.pipe(describe("The user message")),
  system: Template,
  files: Schema.Array(Template).pipe(describe("Text files appended to the prompt (relative to the CWD)")),
  images: Schema.Array(Template).pipe(describe("Local image paths or http(s) URLs")),
  input_schema: SchemaRef,
  output_schema: SchemaRef,
  schema_name: Schema.String.check(Schema.isPattern(SCHEMA_NAME_PATTERN)),
  ...llmFieldSchemas,
  agent: Schema.String.pipe(describe("An 'agents:' name, an agent .md path, or a lait.config.yml agents name")),
  run: Schema.Array(Template).check(Schema.isMinLength(1)).pipe(describe("argv; the program first; no shell")),
  env: Schema.Record(Schema.String, Schema.String).pipe(
    describe("Allowlist: the child sees only these variables (${VAR} expanded)")
  ),
  cwd: Schema.String.pipe(describe("Working directory of the child (${VAR} expanded)")),
  workflow: Schema.String.pipe(describe("A .yml/.yaml path (or one containing '/'), or a workflows: name")),
  with: Jq.pipe(describe("jq producing the child's inputs object")),
  jq: Jq,
  ask: Template.pipe(describe("The question")),
  choices: Schema.Array(Schema.NonEmptyString).check(Schema.isMinLength(1)),
  default: Schema.String,
  multiline: Schema.Boolean,
  write: Template.pipe(describe("Path (relative to the CWD) that receives the input's text form")),
  group: StepList,
  switch: Schema.Array(Case).check(Schema.isMinLength(1)),
  else: StepList,
  parallel: Schema.Record(Name, StepList).pipe(describe("Branch name → steps")),
  for_each: Jq.pipe(describe("jq producing the array to iterate")),
  steps: StepList,
  max_concurrency: PositiveInt.pipe(describe("Default 1")),
  while: Jq,
  until: Jq,
  max_iterations: PositiveInt,
  stop: Schema.Literal(true),
  break: Schema.Literal(true)
}

const fieldSchema = (key: string): Schema.Top => {
  const schema = stepFieldSchemas[key]
  if (schema === undefined) throw new Error(`fileSchema: no schema for step field '${key}'`)
  return schema
}

const kindStruct = (kind: KindKey) => {
  const required = new Set<string>([kind, ...(KIND_REQUIRED[kind] ?? [])])
  const fields: Record<string, Schema.Top> = {}
  for (const key of stepAcceptedKeys(kind)) {
    fields[key] = required.has(key) ? fieldSchema(key) : Schema.optionalKey(fieldSchema(key))
  }
  return Schema.Struct(fields).pipe(describe(`A '${kind}' step`))
}

const Step = Schema.Union(KIND_KEYS.map(kindStruct)).annotate({
  description: "A step: exactly one kind key plus that kind's fields"
}) as unknown as Schema.Codec<StepShape>

const Defaults = pick(DEFAULT_KEYS, {
  ...llmFieldSchemas,
  system: Template.pipe(describe("Default system prompt of prompt steps")),
  retry: Retry.pipe(describe("Applies to model-calling steps only")),
  timeout: PositiveInt.pipe(describe("Seconds per attempt; model-calling steps only"))
})

const InlineAgent = pick(
  AGENT_KEYS,
  {
    ...llmFieldSchemas,
    name: Schema.String,
    description: Schema.String,
    input_schema: SchemaRef,
    output_schema: SchemaRef,
    schema_name: Schema.String.check(Schema.isPattern(SCHEMA_NAME_PATTERN)),
    system: Template.pipe(describe("The system prompt (the body of an agent file)"))
  },
  ["system"]
)

const InlineOrFileSchema = Schema.Union([FileRef, JsonObject.pipe(describe("An inline JSON Schema"))])

/** The frontmatter as written; src/lang/agentFile.ts checks every parsed agent file against it. */
export const agentFileSchema = pick(AGENT_FILE_KEYS, {
  ...llmFieldSchemas,
  name: Schema.String,
  description: Schema.String,
  input_schema: InlineOrFileSchema.pipe(describe("Validates the agent's input")),
  output_schema: InlineOrFileSchema.pipe(describe("Turns on strict structured output")),
  schema_name: Schema.String.check(Schema.isPattern(SCHEMA_NAME_PATTERN))
}).annotate({ title: "lait agent file frontmatter" })

const InputDefinition = Schema.Union([
  Schema.String.pipe(describe("Shorthand for {type: <name>}")),
  Schema.Null,
  JsonObject.pipe(describe(INPUT_KEYS_NOTE))
])

const topLevelSchemas = {
  version: Schema.Literal(2).pipe(describe("Only version 2 is supported; may be omitted")),
  name: Schema.String,
  description: Schema.String,
  inputs: Schema.Record(Name, InputDefinition).pipe(describe("Named parameters, bound with --input KEY=VALUE")),
  input_schema: SchemaRef.pipe(describe("Schema of the initial value")),
  output: Jq.pipe(describe("jq over the last value, $steps and $inputs: the workflow's result")),
  timeout: PositiveInt.pipe(describe("Wall-clock seconds for the whole run")),
  default: Defaults,
  models: ModelMap,
  schemas: Schema.Record(Name, Schema.Union([FileRef, JsonObject])),
  agents: Schema.Record(Name, InlineAgent),
  steps: StepList
} satisfies { readonly [K in TopLevelKey]: Schema.Top }

/** The whole workflow file as written. */
export const workflowFileSchema = pick(TOP_LEVEL_KEYS, topLevelSchemas, ["steps"]).annotate({
  title: "lait workflow (version 2)"
})

/** JSON Schema (draft 2020-12) of an agent file's frontmatter, for `lait schema agent`. */
export const agentJsonSchema = () => jsonSchemaDocument(agentFileSchema)

/** JSON Schema (draft 2020-12) of a workflow file, for `lait schema workflow`. */
export const workflowJsonSchema = () => jsonSchemaDocument(workflowFileSchema)
