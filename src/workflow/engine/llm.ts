// `prompt:` and `agent:` steps: the engine hands their kind action to the LlmSteps service with a
// snapshot of the run (src/workflow/llmStep.ts says what an implementation must do).
import { Deferred } from "effect"
import type { Json } from "../../core/json.ts"
import type { Step } from "../../lang/model.ts"
import type { AgentStep, LlmStepContext, PromptStep } from "../llmStep.ts"
import type { EngineEffect, Frame } from "./frame.ts"
import type { Steps } from "./types.ts"

const llmContext = (frame: Frame, steps: Steps, label: string, unset: string | undefined): LlmStepContext => ({
  label,
  ...(unset === undefined ? {} : { unsetInput: unset }),
  workflow: frame.scope.workflow,
  defaults: frame.scope.defaults,
  models: frame.scope.models,
  steps,
  inputs: frame.scope.inputs,
  loop: frame.loop,
  progress: frame.progress,
  cancelled: Deferred.await(frame.run.cancel)
})

/**
 * Errors are the service's own, without the `step '<label>'` context other kinds get (see ../llmStep.ts).
 * `unset`: how to give the run its initial value, when `input` is that missing value.
 */
export const runModelStep = (
  step: Step,
  input: Json,
  steps: Steps,
  frame: Frame,
  label: string,
  unset: string | undefined
): EngineEffect<Json> =>
  step.kind.type === "prompt"
    ? frame.run.llm.runPrompt(step as PromptStep, input, llmContext(frame, steps, label, unset))
    : frame.run.llm.runAgent(step as AgentStep, input, llmContext(frame, steps, label, unset))
