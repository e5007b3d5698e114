// Which keys each mapping of a workflow (version 2) or agent file accepts, and the name patterns: the
// single source of truth for the loader (src/lang/load/*), whose "unknown field ...; X accept: ..."
// checks are built from these tables, and for the Effect Schema structs in ./fileSchema.ts, generated
// from the same tables so the two cannot drift apart. Kept apart from those structs: building them
// costs every `lait run` a few milliseconds, and only `lait schema`, lint and agent files need them.

export const TOP_LEVEL_KEYS = [
  "version",
  "name",
  "description",
  "inputs",
  "input_schema",
  "output",
  "timeout",
  "default",
  "models",
  "schemas",
  "agents",
  "steps"
] as const
export type TopLevelKey = (typeof TOP_LEVEL_KEYS)[number]

/** The keys that select a step's kind, in the order messages list them. */
export const KIND_KEYS = [
  "prompt",
  "agent",
  "run",
  "workflow",
  "jq",
  "ask",
  "write",
  "group",
  "switch",
  "parallel",
  "for_each",
  "while",
  "until",
  "stop",
  "break"
] as const
export type KindKey = (typeof KIND_KEYS)[number]

/** Fields every step may carry next to its kind key; `stop`/`break` take only the first four. */
export const COMMON_KEYS = ["id", "when", "input", "output", "retry", "timeout", "on_error"] as const
export const CONTROL_COMMON_KEYS = ["id", "when", "input", "output"] as const
export const TERMINAL_KINDS: ReadonlyArray<KindKey> = ["stop", "break"]

/** Model settings a prompt/agent step, an inline agent and `default:` may set. */
export const LLM_KEYS = [
  "model",
  "reasoning_effort",
  "temperature",
  "top_p",
  "max_tokens",
  "mcp",
  "max_tool_rounds",
  "skills",
  "subagents",
  "tools"
] as const

/** The kind-specific fields of each kind, besides the kind key and the common fields. */
export const KIND_FIELDS: { readonly [K in KindKey]: ReadonlyArray<string> } = {
  prompt: ["system", "files", "images", "input_schema", "output_schema", "schema_name", ...LLM_KEYS],
  agent: ["files", "images", ...LLM_KEYS],
  run: ["env", "cwd"],
  workflow: ["with"],
  jq: [],
  ask: ["choices", "default", "multiline"],
  write: [],
  group: [],
  switch: ["else"],
  parallel: [],
  for_each: ["steps", "max_concurrency"],
  while: ["steps", "max_iterations"],
  until: ["steps", "max_iterations"],
  stop: [],
  break: []
}

/** Fields a kind cannot do without (besides its kind key). */
export const KIND_REQUIRED: { readonly [K in KindKey]?: ReadonlyArray<string> } = {
  for_each: ["steps"],
  while: ["steps", "max_iterations"],
  until: ["steps", "max_iterations"]
}

/** Everything a step of `kind` accepts, in the order the unknown-field message lists it. */
export const stepAcceptedKeys = (kind: KindKey): ReadonlyArray<string> => [
  kind,
  ...(TERMINAL_KINDS.includes(kind) ? CONTROL_COMMON_KEYS : COMMON_KEYS),
  ...KIND_FIELDS[kind]
]

export const CASE_KEYS = ["when", "steps"] as const
export const RETRY_KEYS = ["max_attempts", "delay_seconds", "backoff"] as const
export const DEFAULT_KEYS = [
  "model",
  "reasoning_effort",
  "temperature",
  "top_p",
  "max_tokens",
  "system",
  "mcp",
  "max_tool_rounds",
  "skills",
  "subagents",
  "tools",
  "retry",
  "timeout"
] as const
/** An inline `agents:` entry: the agent-file frontmatter fields plus `system` (its body). */
export const AGENT_KEYS = [
  "name",
  "description",
  "model",
  "reasoning_effort",
  "temperature",
  "top_p",
  "max_tokens",
  "input_schema",
  "output_schema",
  "schema_name",
  "mcp",
  "max_tool_rounds",
  "skills",
  "subagents",
  "tools",
  "system"
] as const

/** Step ids, input, schema, agent and branch names: usable as `steps.<id>` and `$steps.<id>`.
 * (The `u` flag is what lets Effect copy a pattern into the generated JSON Schema.) */
export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/u
/** Structured Outputs schema names. */
export const SCHEMA_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/u
export const DEFAULT_SCHEMA_NAME = "structured_output"

/** An agent Markdown file's frontmatter: an inline agent's fields without `system` (the body plays it). */
export const AGENT_FILE_KEYS = AGENT_KEYS.filter((key): key is Exclude<(typeof AGENT_KEYS)[number], "system"> =>
  key !== "system"
)
