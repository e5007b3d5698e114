// What the engine hands a `prompt:`/`agent:` step and what the LlmSteps service (./LlmSteps.ts)
// must do with it: apart from the service, whose layer loads the implementation (./modelSteps.ts)
// that needs these too, so that the implementation does not import the module that loads it.
import type { Effect } from "effect"
import type { AnyLaitError } from "../core/errors.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import type { Json } from "../core/json.ts"
import type { ModelDefinition, Step, StepKind, Workflow, WorkflowDefaults } from "../lang/model.ts"
import type { ProgressWriter } from "./progress.ts"

export type PromptKind = Extract<StepKind, { readonly type: "prompt" }>
export type AgentKind = Extract<StepKind, { readonly type: "agent" }>
export type PromptStep = Step & { readonly kind: PromptKind }
export type AgentStep = Step & { readonly kind: AgentKind }

/** Where a model step's model can be set, for `model is required` messages (run and dry run alike). */
export const stepModelPlaces = (
  hasAgent: boolean
): ReadonlyArray<string> => [
  "'model' on the step",
  ...(hasAgent ? ["its agent definition"] : []),
  "the workflow's default.model"
]

/** What a model step needs from the run it belongs to. Values are snapshots for this attempt. */
export interface LlmStepContext {
  /**
   * The step label (`id`, else `step-<position> (<kind>)`, see ./positions.ts); also the usage/trace
   * label of the request.
   */
  readonly label: string
  /**
   * The file the step belongs to: `dir` resolves agent paths and `{file:}` schemas, `agents:`/`schemas:`
   * are looked up here.
   */
  readonly workflow: Workflow
  /** This file's `default:` merged field by field over its callers' (`retry` as a whole block). */
  readonly defaults: WorkflowDefaults
  /** This file's `models:` aliases over its callers'. */
  readonly models: Readonly<Record<string, ReadonlyArray<ModelDefinition>>>
  /** Template/jq data: `steps` (ids recorded so far in this file), `inputs`, `loop` (null outside loops). */
  readonly steps: Readonly<Record<string, Json>>
  readonly inputs: Readonly<Record<string, Json>>
  readonly loop: Json
  /** Progress lines for this step (tool calls, fallbacks), already carrying the branch/child prefix. */
  readonly progress: ProgressWriter
  /**
   * Completes when the whole run is cancelled (the `lait run` deadline). A long request should race
   * it and fail with an InterruptedError. Ctrl-C and step timeouts arrive as fiber interruption instead.
   */
  readonly cancelled: Effect.Effect<void>
  /**
   * Set when the step's input is the missing initial value of a run given none (Engine's RunOptions
   * `unsetInput`): how to give it. Templates then see no `input`; printing it, or sending it as an
   * agent's user message, fails with StepError's `InputUnset` (src/workflow/unsetInput.ts).
   */
  readonly unsetInput?: string
}

/** What templates and requests of a model call read from its context. */
export type TemplateScope = Pick<LlmStepContext, "steps" | "inputs" | "loop" | "models" | "cancelled" | "unsetInput">

/**
 * `lait agent run`: one agent file run on its own, outside any workflow, with the config's `default:`
 * only (src/workflow/modelSteps.ts `runAgentFile`, beside the service's methods).
 */
export interface AgentFileRequest {
  /** The usage and trace label, and `agent '<label>'` in messages: the agent's name. */
  readonly label: string
  /** The user message: the INPUT text as given. */
  readonly userText: string
}

/** Methods may read files through FileLoader (agent files, schemas, attachments); the engine provides it. */
export interface LlmStepsService {
  /**
   * Runs the kind action of a `prompt:` step against its (already `input:`-transformed) value. The
   * result is a string, or parsed JSON when the step has an `output_schema`.
   *
   * Errors are printed as they are: unlike other step kinds the engine adds no `step '<label>'`
   * context, so an implementation prefixes its own messages the way upstream does
   * (`step '<label>': ...`, or `model is required for step '<label>'; ...`).
   */
  readonly runPrompt: (
    step: PromptStep,
    input: Json,
    ctx: LlmStepContext
  ) => Effect.Effect<Json, AnyLaitError, FileLoader>
  /** The same for an `agent:` step; the user message is the text form of `input`. */
  readonly runAgent: (
    step: AgentStep,
    input: Json,
    ctx: LlmStepContext
  ) => Effect.Effect<Json, AnyLaitError, FileLoader>
}
