// The seam between the workflow engine and everything that talks to a model. The engine owns the
// common step protocol (`when`, `input`, retry/timeout, `output`, `on_error`, `$steps`) and hands the
// kind action of a `prompt:`/`agent:` step to this service (./llmStep.ts says what it is given and
// must do); src/workflow/modelSteps.ts renders the templates, resolves model settings (step → agent →
// workflow `default:` → config `default:`), calls ModelClient and parses structured output. Tests
// substitute their own layer.
import { Context, Effect, Layer } from "effect"
import type { LlmStepsService } from "./llmStep.ts"
import type { makeModelSteps } from "./modelSteps.ts"

export class LlmSteps extends Context.Service<LlmSteps, LlmStepsService>()("lait/workflow/LlmSteps") {
  /**
   * prompt/agent steps through ModelClient. Build it once per run context: it captures that run's
   * RunUsage (and the shared ModelClient, config and file loader).
   */
  static readonly layerModel = Layer.effect(
    LlmSteps,
    Effect.gen(function*() {
      // Loaded and built at the first prompt/agent step, not when the run starts: templates, Ajv, the
      // tool runtime and what they import are most of a run's module graph, and a workflow without
      // model steps never needs them. Built once (cached) from the services the layer was given, its
      // scope included, so MCP servers still stop when the run's layers close.
      const services = yield* Effect.context<ModelStepsRequirements>()
      const service = yield* Effect.cached(
        Effect.promise(() => import("./modelSteps.ts")).pipe(
          Effect.flatMap(({ makeModelSteps }) => makeModelSteps),
          Effect.provide(services)
        )
      )
      return LlmSteps.of({
        runPrompt: (step, input, ctx) => Effect.flatMap(service, (s) => s.runPrompt(step, input, ctx)),
        runAgent: (step, input, ctx) => Effect.flatMap(service, (s) => s.runAgent(step, input, ctx))
      })
    })
  )
}

type ModelStepsRequirements = Effect.Services<typeof makeModelSteps>
