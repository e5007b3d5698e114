// `lait eval --trace-dir DIR` (docs/traces.md#tests-and-evals): each (case, repeat) run's trace, its
// judges' `chat` events included, in a file of its own. The run context the runner builds for a pair
// writes it when it closes (src/trace/RunTracer.ts KeepTrace), so the runner only marks the pair.
import { Context, Effect, Fiber } from "effect"
import { TraceContent } from "../core/tracing.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { checkTraceDir, configSecrets, evalTraceName, makeTraceDir, type TraceDir, traceDirNote } from "../trace/dir.ts"
import { KeepTrace } from "../trace/RunTracer.ts"
import type { EvalCase } from "./schema.ts"

export interface EvalTraceSetup {
  readonly dir: TraceDir
  /** How many cases and repeats the eval has: file numbers are padded to their width. */
  readonly caseCount: number
  readonly repeat: number
}

/** Set by `lait eval --trace-dir` around the whole eval. */
export const EvalTraces = Context.Reference<EvalTraceSetup | undefined>("lait/eval/EvalTraces", {
  defaultValue: () => undefined
})

// Cases named with `name:` keep the name in the file name.
const caseName = (evalCase: EvalCase): string | undefined => (evalCase.named ? evalCase.name : undefined)

/**
 * One (case, repeat) run, given as the effect that builds its run context and runs it: under
 * `--trace-dir` its trace goes to `case-<i>[-<name>].repeat-<r>.jsonl`, however the run ends.
 */
export const withRunTrace = <A, E, R>(
  /** `target`: the target's name when the eval compares several (`targets:`). */
  run: { readonly caseIndex: number; readonly repeatIndex: number; readonly target?: string | undefined },
  evalCase: EvalCase,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.service(EvalTraces), (setup) => {
    if (setup === undefined) return effect
    const name = evalTraceName({ ...run, caseCount: setup.caseCount, repeat: setup.repeat, name: caseName(evalCase) })
    return effect.pipe(
      Effect.provideService(KeepTrace, setup.dir.keep(name)),
      // Outside the run context, where the judge takes its context from.
      Effect.provideService(TraceContent, setup.dir.capture)
    )
  })

export interface EvalTraceFlags {
  readonly dir: string
  /** `--trace-spans`/`--trace-content` when given; else `default.trace_spans`/`trace_content`. */
  readonly spans: boolean | undefined
  readonly content: boolean | undefined
  readonly caseCount: number
  readonly repeat: number
}

/**
 * `lait eval --trace-dir`: DIR checked now, before any run, so a DIR that cannot hold the files costs
 * nothing; then what to wrap the whole eval in, so that its runs keep their traces there (and the
 * note says so at the end, after Ctrl-C too).
 */
export const evalTraces = (flags: EvalTraceFlags) =>
  Effect.map(setUp(flags), (setup) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    // In a fiber of its own, which Ctrl-C interrupts and awaits: the runs it forked are stopped, and
    // have written their files, before the note counts them.
    Effect.scoped(Effect.flatMap(Effect.forkScoped(effect), Fiber.join)).pipe(
      Effect.ensuring(traceDirNote(setup.dir)),
      Effect.provideService(EvalTraces, setup)
    ))

const setUp = (flags: EvalTraceFlags) =>
  Effect.gen(function*() {
    yield* checkTraceDir(flags.dir)
    const { config, env } = yield* LaitConfig
    const dir = yield* makeTraceDir({
      dir: flags.dir,
      spans: flags.spans ?? config.default?.trace_spans ?? false,
      content: flags.content ?? config.default?.trace_content ?? false,
      secrets: configSecrets(config, env)
    })
    return { dir, caseCount: flags.caseCount, repeat: flags.repeat } satisfies EvalTraceSetup
  })
