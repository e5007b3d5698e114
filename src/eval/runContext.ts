// The run context of one (case, repeat) run (src/eval/runner.ts): its own usage meter and trace
// collector, a RunContext whose judge is metered in them, and for a workflow target the engine and
// model steps. Built fresh for every run, so concurrent runs never see each other's events or tokens.
import { Context, Effect, Layer, Tracer } from "effect"
import { LaitConfig, type LaitConfigService } from "../config/LaitConfig.ts"
import { renderChain } from "../core/errors.ts"
import { ModelClient } from "../model/ModelClient.ts"
import { makeRunUsage, RunUsage } from "../model/RunUsage.ts"
import { LiveSpans } from "../trace/LiveSpans.ts"
import { KeepTrace, makeRunTracer, RunTracer } from "../trace/RunTracer.ts"
import { Engine } from "../workflow/Engine.ts"
import { LlmSteps } from "../workflow/LlmSteps.ts"
import { Progress } from "../workflow/progress.ts"
import { type JudgeService, RunContext } from "../workflow/RunContext.ts"
import { llmJudgeIn, makeLlmJudge } from "./judge.ts"
import { couldNotRun } from "./runError.ts"
import type { LoadedTarget } from "./target.ts"

/** The judge's failures of a run that mean it could not be judged (server errors), as rendered. */
export interface JudgeErrors {
  readonly rendered: Array<string>
}

/** The config's environment and registry, and a judge whose requests are metered in this run's usage. */
const judgedRunContext = (
  config: LaitConfigService,
  judge: JudgeService,
  judgeErrors: JudgeErrors
) =>
  RunContext.fromConfig(config, {
    judge: {
      score: (request) =>
        judge.score(request).pipe(
          Effect.tapError((e) => Effect.sync(() => void (couldNotRun(e) && judgeErrors.rendered.push(renderChain(e)))))
        )
    }
  })

const makeJudgedRunContext = (target: LoadedTarget, judgeErrors: JudgeErrors) =>
  Effect.gen(function*() {
    const config = yield* LaitConfig
    const client = yield* ModelClient
    const judge = yield* makeLlmJudge({ config, client, defaultModel: target.defaultModel })
    return judgedRunContext(config, judge, judgeErrors)
  })

// The model steps read the run context (its working directory); the judge meters into the run's usage.
// Provided `local`: layers built by an enclosing provide would otherwise be shared, and with them the
// usage and trace of another run.
const workflowRunServices = (target: LoadedTarget, judgeErrors: JudgeErrors) =>
  LlmSteps.layerModel.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Engine.layer,
        Progress.layerSilent,
        Layer.effect(RunContext, makeJudgedRunContext(target, judgeErrors))
      )
    ),
    Layer.provideMerge(Layer.mergeAll(RunUsage.layer, RunTracer.layer))
  )

/**
 * A model target needs no engine: its context is built directly rather than as layers, which for an
 * eval of thousands of runs cost more than the run's own request. The same services as
 * `RunUsage.layer` and `RunTracer.layer` (a `--trace-dir` file written however the run ends).
 */
const withPromptRunContext = <A, E, R>(
  target: LoadedTarget,
  judgeErrors: JudgeErrors,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, PromptRunServices> | LaitConfig | ModelClient> =>
  // Built in one synchronous step from the calling fiber: as a generator of services provided to
  // another, it cost a tenth of a model run's own work.
  Effect.withFiber((fiber) => {
    const collector = makeRunTracer(fiber.getRef(LiveSpans))
    const keep = fiber.getRef(KeepTrace)
    const services = Context.make(RunUsage, makeRunUsage()).pipe(
      Context.add(RunTracer, collector),
      Context.add(Tracer.Tracer, collector.tracer),
      Context.add(KeepTrace, undefined)
    )
    const outer = fiber.context as Context.Context<LaitConfig | ModelClient>
    const config = Context.getUnsafe(outer, LaitConfig)
    const client = Context.getUnsafe(outer, ModelClient)
    const judge = llmJudgeIn({ config, client, defaultModel: target.defaultModel }, services)
    const run = Effect.provideContext(
      effect,
      Context.add(services, RunContext, judgedRunContext(config, judge, judgeErrors))
    )
    return keep === undefined
      ? run
      : run.pipe(Effect.onExit((exit) => Effect.flatMap(collector.all, (recorded) => keep(recorded, exit))))
  })

type PromptRunServices = RunUsage | RunTracer | RunContext

/** A workflow target's run in a fresh run context of its own. */
export const inWorkflowRunContext = <A, E, R>(
  target: LoadedTarget,
  judgeErrors: JudgeErrors,
  run: Effect.Effect<A, E, R>
) =>
  Effect.provide(run, workflowRunServices(target, judgeErrors), { local: true })

/** A model target's run in a fresh run context of its own. */
export const inPromptRunContext = withPromptRunContext
