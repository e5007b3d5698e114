// The entry of a run, behind the Engine service (src/workflow/Engine.ts): builds the run's context and
// the top-level frame, then runs the file.
import { Deferred, Effect } from "effect"
import type { AnyLaitError } from "../../core/errors.ts"
import type { FileLoader } from "../../platform/FileLoader.ts"
import type { Json } from "../../core/json.ts"
import type { Workflow } from "../../lang/model.ts"
import { LlmSteps } from "../LlmSteps.ts"
import { Progress, ProgressWriter } from "../progress.ts"
import { RunContext } from "../RunContext.ts"
import { canonicalize } from "./children.ts"
import { runDocument } from "./document.ts"
import { runSteps } from "./flow.ts"
import type { ActiveRun, Frame } from "./frame.ts"
import type { RunOptions, RunResult } from "./types.ts"

type RunRequirements = FileLoader | LlmSteps | Progress | RunContext

export const runWorkflow: (
  workflow: Workflow,
  initial: Json,
  inputs: Readonly<Record<string, Json>>,
  options?: RunOptions
) => Effect.Effect<RunResult, AnyLaitError, RunRequirements> = Effect.fnUntraced(function*(
  workflow: Workflow,
  initial: Json,
  inputs: Readonly<Record<string, Json>>,
  options?: RunOptions
) {
  const llm = yield* LlmSteps
  const progress = new ProgressWriter(yield* Progress)
  const context = yield* RunContext
  const canonical = yield* canonicalize(workflow.path)
  const run: ActiveRun = {
    cancel: options?.cancel ?? (yield* Deferred.make<void>()),
    llm,
    registry: context.workflowRegistry,
    env: context.env,
    answerer: context.answerer,
    cwd: context.cwd,
    children: new Map(),
    unsetInput: options?.unsetInput,
    runSteps
  }
  const frame: Frame = {
    run,
    scope: {
      workflow,
      defaults: workflow.defaults,
      models: workflow.models,
      inputs,
      activePaths: [canonical]
    },
    placement: "sequential",
    progress,
    loop: null
  }
  const checkpointed = options?.resume !== undefined || options?.afterTopLevelStep !== undefined
  // A resumed run starts from the state its checkpoint recorded, not from the initial value.
  const initialUnset = options?.unsetInput !== undefined && options.resume === undefined
  return yield* runDocument(
    workflow,
    initial,
    frame,
    options?.timeoutMode ?? "fail",
    checkpointed
      ? {
        start: options?.resume?.state ??
          { value: initial, counter: 0, steps: {}, ...(initialUnset ? { inputUnset: true } : {}) },
        top: { from: options?.resume?.completed ?? 0, after: options?.afterTopLevelStep }
      }
      : undefined,
    initialUnset
  )
})
