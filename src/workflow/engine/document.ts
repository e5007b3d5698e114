// One workflow file, top level or child: its steps (a `stop` ends them early), then its `output:`,
// all under its `timeout:` and one `invoke_workflow` trace span.
import { Effect } from "effect"
import type { Json } from "../../core/json.ts"
import { evalJqOne } from "../../lang/jq.ts"
import type { Workflow } from "../../lang/model.ts"
import { workflowSpan } from "../../core/tracing.ts"
import { type EngineEffect, type Frame, type State, type TopLevel, wrap } from "./frame.ts"
import { withFileTimeout } from "./policy.ts"
import type { RunResult } from "./types.ts"

const finishOutput = (workflow: Workflow, state: State, frame: Frame): EngineEffect<Json> =>
  workflow.output === undefined
    ? Effect.succeed(state.value)
    : evalJqOne(workflow.output, state.value, { steps: state.steps, inputs: frame.scope.inputs, loop: null }, "filter")
      .pipe(Effect.mapError(wrap("the workflow's 'output'")))

export const runDocument = (
  workflow: Workflow,
  initial: Json,
  frame: Frame,
  timeoutMode: "fail" | "cancel",
  resume?: { readonly start: State; readonly top: TopLevel },
  /** `initial` is the missing initial value of a run without one (see State's `inputUnset`). */
  initialUnset = false
): EngineEffect<RunResult> =>
  withFileTimeout(
    workflow.timeout,
    frame,
    timeoutMode,
    workflowSpan(
      workflow,
      Effect.gen(function*() {
        const outcome = yield* frame.run.runSteps(
          workflow.steps,
          resume?.start ?? { value: initial, counter: 0, steps: {}, ...(initialUnset ? { inputUnset: true } : {}) },
          frame,
          undefined,
          resume?.top
        )
        const output = yield* finishOutput(workflow, outcome.state, frame)
        return { output, steps: outcome.state.steps }
      })
    )
  )
