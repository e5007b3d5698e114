// The `lait.config.yml` file model. It describes one file as written (values unexpanded, `default:`
// fields left absent when unset) because merging works field by field and must see what each file
// set. Decode with `decodeConfigFile` (unknown keys are rejected at every level).
import { Effect, Schema, SchemaIssue } from "effect"
import { CommandSpec, ModelMap, PositiveInt, ReasoningEffort, Temperature, TopP } from "./modelSchema.ts"
import { jsonSchemaDocument } from "../core/jsonSchemaDocument.ts"

export {
  CommandSpec,
  ModelApi,
  ModelDefinition,
  ModelMap,
  Pricing,
  Provider,
  ReasoningEffort
} from "./modelSchema.ts"

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Names = Schema.Array(Schema.String)
const StringMap = Schema.Record(Schema.String, Schema.String)

export const Compaction = Schema.Struct({
  trigger_rounds: Schema.optionalKey(
    PositiveInt.annotate({ description: "Compact when round % trigger_rounds == 0" })
  ),
  trigger_tokens: Schema.optionalKey(
    PositiveInt.annotate({ description: "Compact when the previous round's prompt_tokens reached this" })
  ),
  keep_last_n: NonNegativeInt.annotate({ description: "Messages kept verbatim after the summary (default 4)" })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(4))),
  model: Schema.optionalKey(
    Schema.String.annotate({ description: "Config alias or raw model id for the summary request" })
  )
})
export type Compaction = typeof Compaction.Type

export const DefaultSettings = Schema.Struct({
  model: Schema.optionalKey(Schema.String),
  reasoning_effort: Schema.optionalKey(ReasoningEffort),
  system: Schema.optionalKey(Schema.String.annotate({ description: "Fallback system prompt (chat only)" })),
  temperature: Schema.optionalKey(Temperature),
  top_p: Schema.optionalKey(TopP),
  max_tokens: Schema.optionalKey(PositiveInt),
  mcp: Schema.optionalKey(Names.annotate({ description: "mcp_servers names" })),
  max_tool_rounds: Schema.optionalKey(PositiveInt.annotate({ description: "Default 8" })),
  skills: Schema.optionalKey(Names),
  subagents: Schema.optionalKey(Names),
  tools: Schema.optionalKey(Names.annotate({ description: "tools names" })),
  render: Schema.optionalKey(Schema.Boolean),
  history: Schema.optionalKey(Schema.Boolean.annotate({ description: "Default true" })),
  cache: Schema.optionalKey(Schema.Boolean.annotate({ description: "Default false" })),
  cache_ttl: Schema.optionalKey(
    NonNegativeInt.annotate({ description: "Seconds; absent = cached responses never expire" })
  ),
  request_timeout: Schema.optionalKey(
    PositiveInt.annotate({
      description:
        "Seconds one HTTP attempt of a model request may take (default 300); LAIT_HTTP_TIMEOUT_MS overrides it"
    })
  ),
  compaction: Schema.optionalKey(Compaction),
  skill_progressive_disclosure: Schema.optionalKey(Schema.Boolean),
  trace_spans: Schema.optionalKey(
    Schema.Boolean.annotate({ description: "lait run --trace-file also writes the run and step spans (default false)" })
  ),
  trace_content: Schema.optionalKey(
    Schema.Boolean.annotate({
      description: "lait run --trace-file also writes prompts, answers and tool results, secrets masked (default false)"
    })
  )
})
export type DefaultSettings = typeof DefaultSettings.Type

export const DEFAULT_MAX_TOOL_ROUNDS = 8
export const DEFAULT_HISTORY = true
export const DEFAULT_CACHE = false

/** Exactly one of `command` (stdio) and `url` (streamable HTTP); checked after decoding. */
export const McpServer = Schema.Struct({
  command: Schema.optionalKey(Schema.String),
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(StringMap),
  cwd: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  headers: Schema.optionalKey(StringMap),
  allowed_tools: Schema.optionalKey(
    Names.annotate({ description: "Absent: every tool is allowed; []: every tool is denied" })
  )
})
export type McpServer = typeof McpServer.Type

export const PromptDefinition = Schema.Struct({
  template: Schema.String,
  model: Schema.optionalKey(Schema.String),
  vars: Schema.optionalKey(StringMap)
})
export type PromptDefinition = typeof PromptDefinition.Type

export const ToolPolicy = Schema.Struct({
  allow: Names.pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  deny: Names.pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))
}).annotate({ description: "Qualified tool-name patterns: '*', 'pre*', '*suf', '*mid*' or exact; deny wins" })
export type ToolPolicy = typeof ToolPolicy.Type

export const DEFAULT_TOOL_PARAMETERS: { readonly [k: string]: unknown } = { type: "object", properties: {} }

export const ShellTool = Schema.Struct({
  command: Schema.Array(Schema.String).check(Schema.isMinLength(1))
    .annotate({ description: "argv; each element is a template with `input` = the call arguments" }),
  description: Schema.optionalKey(Schema.String),
  parameters: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "JSON Schema of the arguments" })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(DEFAULT_TOOL_PARAMETERS))),
  timeout: PositiveInt.annotate({ description: "Seconds (default 30)" })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(30))),
  env: Schema.optionalKey(StringMap),
  cwd: Schema.optionalKey(Schema.String)
})
export type ShellTool = typeof ShellTool.Type

// Only the fields lait reads are typed; others pass through untouched.
export const Jev = Schema.StructWithRest(
  Schema.Struct({
    base_url: Schema.optionalKey(Schema.String),
    api_key: Schema.optionalKey(Schema.String),
    api_key_cmd: Schema.optionalKey(CommandSpec)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
export type Jev = typeof Jev.Type

export const ConfigFile = Schema.Struct({
  base_url: Schema.optionalKey(Schema.String.annotate({ description: "OpenAI-compatible endpoint; ${VAR} expanded" })),
  api_key: Schema.optionalKey(Schema.String.annotate({ description: "${VAR} expanded; exclusive with api_key_cmd" })),
  api_key_cmd: Schema.optionalKey(CommandSpec),
  default: Schema.optionalKey(DefaultSettings),
  models: Schema.optionalKey(ModelMap),
  mcp_servers: Schema.optionalKey(Schema.Record(Schema.String, McpServer)),
  skills: Schema.optionalKey(StringMap.annotate({ description: "name → skill file or directory (dir/SKILL.md)" })),
  agents: Schema.optionalKey(StringMap.annotate({ description: "name → agent Markdown file" })),
  prompts: Schema.optionalKey(Schema.Record(Schema.String, PromptDefinition)),
  workflows: Schema.optionalKey(StringMap.annotate({ description: "name → workflow file" })),
  tool_policy: Schema.optionalKey(ToolPolicy),
  tools: Schema.optionalKey(Schema.Record(Schema.String, ShellTool)),
  jev: Schema.optionalKey(Jev)
}).annotate({ title: "lait.config.yml" })
export type ConfigFile = typeof ConfigFile.Type

/** Decodes one parsed YAML value; unknown keys are errors at every level. */
export const decodeConfigFile = Schema.decodeUnknownExit(ConfigFile, { errors: "all", onExcessProperty: "error" })

/** A failed decode's issues, each with its path, as Standard Schema words them. */
export const configIssues = (issue: unknown) =>
  SchemaIssue.makeFormatterStandardSchemaV1()(issue as SchemaIssue.Issue).issues

/** The JSON Schema document for `lait schema config`. */
export const configJsonSchema = () => jsonSchemaDocument(ConfigFile)
