// `prompt:` and `agent:` steps: the engine hands their kind action to the LlmSteps service with a
// snapshot of the run (src/workflow/LlmSteps.ts says what an implementation must do).
import { Deferred } from "effect"
import type { Json } from "../../core/json.ts"
import type { Step } from "../../lang/model.ts"
import type { Steps } from "../Engine.ts"
import type { AgentStep, LlmStepContext, PromptStep } from "../LlmSteps.ts"
import type { EngineEffect, Frame } from "./frame.ts"

const llmContext = (frame: Frame, steps: Steps, label: string): LlmStepContext => ({
  label,
  workflow: frame.scope.workflow,
  defaults: frame.scope.defaults,
  models: frame.scope.models,
  steps,
  inputs: frame.scope.inputs,
  loop: frame.loop,
  progress: frame.progress,
  cancelled: Deferred.await(frame.run.cancel)
})

/** Errors are the service's own, without the `step '<label>'` context other kinds get (see LlmSteps). */
export const runModelStep = (step: Step, input: Json, steps: Steps, frame: Frame, label: string): EngineEffect<Json> =>
  step.kind.type === "prompt"
    ? frame.run.llm.runPrompt(step as PromptStep, input, llmContext(frame, steps, label))
    : frame.run.llm.runAgent(step as AgentStep, input, llmContext(frame, steps, label))
