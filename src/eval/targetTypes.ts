// The shapes of an eval's target once loaded and of one run of it (./target.ts), in a file of their
// own so that the runners of each kind (./target.ts, ./appTarget.ts) share them without importing
// each other.
import type { Endpoints } from "../config/endpoints.ts"
import type { Json, JsonObject } from "../core/json.ts"
import type { Workflow } from "../lang/model.ts"
import type { ExecTarget, HttpTarget } from "../proxy/execTarget.ts"
import type { TraceEvent } from "../trace/RunTracer.ts"

export type LoadedTarget =
  & {
    /** How reports name it: `name:`, else its workflow or model as written. */
    readonly name: string
  }
  & ({
    readonly kind: "workflow"
    /** As the user will recognise it: joined onto the eval file's directory. */
    readonly path: string
    readonly workflow: Workflow
    /** `target.inputs` resolved against the workflow's declarations. */
    readonly inputs: Readonly<Record<string, Json>>
    /** `target.inputs` as written: a case's own `inputs:` are resolved over them. */
    readonly givenInputs: Readonly<Record<string, Json>>
    readonly inputSchema: JsonObject | undefined
    /** What an `llm_judge` without `model:` uses: the workflow's default.model, else config's. */
    readonly defaultModel: string | undefined
  }
  | {
    readonly kind: "prompt"
    /** As written (an alias or a raw id); it names the usage label. */
    readonly model: string
    readonly template: string
    readonly endpoints: Endpoints
    /** `target.model` as written. */
    readonly defaultModel: string
  }
  | {
    readonly kind: "exec"
    readonly exec: ExecTarget
    /** The eval file's directory: where the app runs. */
    readonly dir: string
    readonly defaultModel: string | undefined
  }
  | { readonly kind: "http"; readonly http: HttpTarget; readonly defaultModel: string | undefined })

export interface TargetRun {
  /** The output's text form: what assertions read. */
  readonly output: string
  /** The workflow's `$steps` (empty for a model target). */
  readonly steps: Readonly<Record<string, Json>>
  /** An exec target's tool calls, which its app ran, not lait: added to the run's trajectory. */
  readonly toolEvents?: ReadonlyArray<TraceEvent>
}
