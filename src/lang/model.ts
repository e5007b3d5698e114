// The parsed, statically checked workflow (version 2) that the engine runs. The loader
// (src/lang/load.ts) turns YAML into this; the engine (src/workflow/engine/) only reads it.
// Templates and jq filters are kept as source strings: both are syntax-checked at load time and
// compiled/cached by src/lang/template.ts and src/lang/jq.ts when used.
import type { Json, JsonObject } from "../core/json.ts"

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh"

/** Model settings a step, an agent or `default:` may set; each falls back independently (§2.9). */
export interface LlmSettings {
  readonly model?: string
  readonly reasoning_effort?: ReasoningEffort
  readonly temperature?: number
  readonly top_p?: number
  readonly max_tokens?: number
  readonly mcp?: ReadonlyArray<string>
  readonly max_tool_rounds?: number
  readonly skills?: ReadonlyArray<string>
  readonly subagents?: ReadonlyArray<string>
  readonly tools?: ReadonlyArray<string>
}

export interface RetryPolicy {
  /** Counts every attempt, ≥ 1. */
  readonly maxAttempts: number
  /** Default 0. */
  readonly delaySeconds: number
  /** Default 1.0; finite and ≥ 0. */
  readonly backoff: number
}

export interface WorkflowDefaults extends LlmSettings {
  /** Template; the default system prompt of prompt steps. */
  readonly system?: string
  /** Applies only to model-calling steps. */
  readonly retry?: RetryPolicy
  /** Seconds, per attempt; applies only to model-calling steps. */
  readonly timeout?: number
}

export type SchemaSource =
  | { readonly kind: "inline"; readonly schema: JsonObject }
  /** Absolute path (resolved against the directory of the file that referenced it). */
  | { readonly kind: "file"; readonly path: string }

export interface SchemaRef {
  /** The `schemas:` name when referenced by name (used as the default `schema_name`). */
  readonly name?: string
  readonly source: SchemaSource
}

export interface InputDefinition {
  readonly name: string
  /** `name: string` shorthand becomes `{type: string}`; `null` becomes `{}`. */
  readonly schema: JsonObject
  /** Present = optional input. Validated against `schema` at load time. */
  readonly default?: Json
  readonly description?: string
}

/** An agent: inline under `agents:` (with `system:`) or a Markdown file (frontmatter + body). */
export interface AgentDefinition extends LlmSettings {
  readonly name?: string
  readonly description?: string
  readonly inputSchema?: SchemaRef
  readonly outputSchema?: SchemaRef
  readonly schemaName?: string
  /** System prompt template (rendered with input, steps, inputs, loop). */
  readonly system: string
  /** Directory that `{file:}` schemas of this agent are relative to. */
  readonly dir: string
}

export type AgentRef =
  | { readonly kind: "inline"; readonly name: string; readonly definition: AgentDefinition }
  /** Absolute path to an agent `.md` file, loaded when the step runs. */
  | { readonly kind: "path"; readonly path: string }
  /** A `lait.config.yml` `agents:` name. */
  | { readonly kind: "registry"; readonly name: string }

export type WorkflowRef =
  /** `path` is absolute; `written` is the path as the file spells it (what `lait graph` shows). */
  | { readonly kind: "path"; readonly path: string; readonly written: string }
  | { readonly kind: "registry"; readonly name: string }

export interface Case {
  readonly when: string
  readonly steps: ReadonlyArray<Step>
}

export interface Branch {
  readonly name: string
  readonly steps: ReadonlyArray<Step>
}

export type StepKind =
  | {
    readonly type: "prompt"
    readonly prompt: string
    readonly system?: string
    readonly llm: LlmSettings
    readonly files: ReadonlyArray<string>
    readonly images: ReadonlyArray<string>
    readonly inputSchema?: SchemaRef
    readonly outputSchema?: SchemaRef
    readonly schemaName?: string
  }
  | {
    readonly type: "agent"
    readonly agent: AgentRef
    readonly llm: LlmSettings
    readonly files: ReadonlyArray<string>
    readonly images: ReadonlyArray<string>
  }
  | {
    readonly type: "run"
    /** Templates; argv[0] is the program (relative to the CWD). */
    readonly argv: ReadonlyArray<string>
    /** Allowlist: when set the child sees only these; values get ${VAR} expansion, no templates. */
    readonly env?: Readonly<Record<string, string>>
    /** ${VAR} expansion. */
    readonly cwd?: string
  }
  | { readonly type: "workflow"; readonly workflow: WorkflowRef; readonly with?: string }
  | { readonly type: "jq"; readonly filter: string }
  | {
    readonly type: "ask"
    readonly prompt: string
    readonly choices?: ReadonlyArray<string>
    readonly default?: string
    readonly multiline: boolean
  }
  /** Path template relative to the CWD. */
  | { readonly type: "write"; readonly path: string }
  | { readonly type: "group"; readonly steps: ReadonlyArray<Step> }
  | { readonly type: "switch"; readonly cases: ReadonlyArray<Case>; readonly else?: ReadonlyArray<Step> }
  | { readonly type: "parallel"; readonly branches: ReadonlyArray<Branch> }
  | {
    readonly type: "for_each"
    readonly items: string
    readonly steps: ReadonlyArray<Step>
    /** Default 1. */
    readonly maxConcurrency: number
  }
  | {
    readonly type: "while" | "until"
    readonly condition: string
    readonly steps: ReadonlyArray<Step>
    readonly maxIterations: number
  }
  | { readonly type: "stop" }
  | { readonly type: "break" }

export type StepType = StepKind["type"]

export interface Step {
  /** Locator such as `steps[0].on_error[1].switch[0].steps[2] (id 'x')`, for messages. */
  readonly at: string
  /** 1-based line of the step's mapping in its file, when known. */
  readonly line?: number
  readonly id?: string
  /** jq */
  readonly when?: string
  /** jq, default `.` */
  readonly input?: string
  /** jq */
  readonly output?: string
  readonly retry?: RetryPolicy
  /** Seconds per attempt. */
  readonly timeout?: number
  readonly onError?: ReadonlyArray<Step>
  readonly kind: StepKind
}

/** One `models:` alias entry (same shape as lait.config.yml `models:`). */
export interface ModelDefinition {
  readonly provider: {
    readonly base_url: string
    readonly api_key?: string
    readonly api_key_cmd?: string | ReadonlyArray<string>
  }
  readonly model_id: string
  readonly default_reasoning_effort?: ReasoningEffort
  readonly default_temperature?: number
  readonly default_top_p?: number
  readonly default_max_tokens?: number
  readonly pricing?: { readonly input_per_1m: number; readonly output_per_1m: number }
  readonly api?: "chat_completions" | "responses"
}

/** Upstream's limit on `workflow:` nesting (files on the call stack); lint checks it statically. */
export const MAX_WORKFLOW_DEPTH = 32

export interface Workflow {
  /** Absolute path of the workflow file. */
  readonly path: string
  /** Its directory: `agent:`/`workflow:` paths and `{file:}` schemas are relative to it. */
  readonly dir: string
  readonly name?: string
  readonly description?: string
  /** Declaration order matters (resolution order, messages). */
  readonly inputs: ReadonlyArray<InputDefinition>
  readonly inputSchema?: SchemaRef
  /** jq over the last value, `$steps`, `$inputs`. */
  readonly output?: string
  /** Whole-file wall-clock seconds. */
  readonly timeout?: number
  readonly defaults: WorkflowDefaults
  readonly models: Readonly<Record<string, ReadonlyArray<ModelDefinition>>>
  readonly schemas: Readonly<Record<string, SchemaSource>>
  readonly agents: Readonly<Record<string, AgentDefinition>>
  readonly steps: ReadonlyArray<Step>
}

/** Child step lists of a step, with how they relate to it (for placement rules, ids, graphs). */
export type ChildKind = "on_error" | "group" | "case" | "loop_body" | "branch" | "concurrent_item"

export const childStepLists = (
  step: Step
): ReadonlyArray<{ readonly kind: ChildKind; readonly steps: ReadonlyArray<Step> }> => {
  const out: Array<{ kind: ChildKind; steps: ReadonlyArray<Step> }> = []
  if (step.onError !== undefined) out.push({ kind: "on_error", steps: step.onError })
  const k = step.kind
  switch (k.type) {
    case "group":
      out.push({ kind: "group", steps: k.steps })
      break
    case "switch":
      for (const c of k.cases) out.push({ kind: "case", steps: c.steps })
      if (k.else !== undefined) out.push({ kind: "case", steps: k.else })
      break
    case "parallel":
      for (const b of k.branches) out.push({ kind: "branch", steps: b.steps })
      break
    case "for_each":
      out.push({ kind: k.maxConcurrency >= 2 ? "concurrent_item" : "loop_body", steps: k.steps })
      break
    case "while":
    case "until":
      out.push({ kind: "loop_body", steps: k.steps })
      break
    default:
      break
  }
  return out
}

/** A setting's first defined value along a chain such as step → agent → workflow default → config default. */
export const pickSetting = <K extends keyof LlmSettings>(
  key: K,
  chain: ReadonlyArray<LlmSettings | undefined>
): LlmSettings[K] | undefined => {
  for (const layer of chain) {
    const value = layer?.[key]
    if (value !== undefined) return value
  }
  return undefined
}

/** The tools a request may use (MCP servers, subagents, shell tools, skills), each from its chain. */
export const pickToolNames = (chain: ReadonlyArray<LlmSettings | undefined>) => ({
  mcp: pickSetting("mcp", chain),
  subagents: pickSetting("subagents", chain),
  tools: pickSetting("tools", chain),
  skills: pickSetting("skills", chain)
})
