// The workflow engine as a service: `lait run`, `lait test` and `lait eval` run workflows through this
// tag, and src/workflow/engine/ holds the interpreter behind it, one module per step family. The
// interpreter never imports this module back (what a run takes and gives is in ./engine/types.ts),
// and no step family imports the dispatcher (./engine/flow.ts): a family that runs nested steps
// calls the run's own `runSteps` (./engine/frame.ts ActiveRun), so the modules form no cycle.
//
// A run's own services (LlmSteps, Progress, FileLoader, RunContext) stay requirements of `run` rather than being
// captured when the layer is built: `lait test` and `lait eval` provide them afresh around every run,
// and a captured copy would share one run's usage, trace and progress with the next.
import { Context, Effect, Layer } from "effect"
import type { AnyLaitError } from "../core/errors.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import type { Json } from "../core/json.ts"
import type { Workflow } from "../lang/model.ts"
import type { LlmSteps } from "./LlmSteps.ts"
import { Progress } from "./progress.ts"
import type { RunContext } from "./RunContext.ts"
import type { RunOptions, RunResult } from "./engine/types.ts"

export interface EngineService {
  /**
   * Runs a loaded workflow against `initial` with its resolved `inputs`. Progress goes to the Progress
   * service; prompt/agent steps go to LlmSteps; child files are read through FileLoader; the
   * environment, the `workflows:` registry and `ask:` answers come from RunContext.
   */
  readonly run: (
    workflow: Workflow,
    initial: Json,
    inputs: Readonly<Record<string, Json>>,
    options?: RunOptions
  ) => Effect.Effect<RunResult, AnyLaitError, FileLoader | LlmSteps | Progress | RunContext>
  /** `==> name: description` (or `==> name`); nothing for a file without a name. */
  readonly announce: (workflow: Workflow) => Effect.Effect<void, never, Progress>
}

const announce = (workflow: Workflow): Effect.Effect<void, never, Progress> =>
  workflow.name === undefined
    ? Effect.void
    : Progress.use((sink) =>
      sink.line(
        workflow.description === undefined ? `==> ${workflow.name}` : `==> ${workflow.name}: ${workflow.description}`
      )
    )

export class Engine extends Context.Service<Engine, EngineService>()("lait/workflow/Engine") {
  /** The interpreter is loaded when a run starts, so jq and templates stay out of every command's start-up. */
  static readonly layer = Layer.effect(
    Engine,
    Effect.promise(() => import("./engine/run.ts")).pipe(
      Effect.map(({ runWorkflow }) => Engine.of({ run: runWorkflow, announce }))
    )
  )
}
