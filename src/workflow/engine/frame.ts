// What every step family shares. A step list is run by threading a State — the current value, the
// file-wide progress counter and the values recorded by `id` — through each step, and a Flow says
// whether the list ended normally, by `break` (caught by the innermost loop) or by `stop` (caught by
// the running file). Everything a run owns (counter, $steps, the call stack of files, the cache of
// loaded children, cancellation) lives in these values and frames, never in module state, so any
// number of runs can share a process.
//
// Two kinds of cancellation exist. Interruption (Ctrl-C, a step's own `timeout`, a sibling branch
// failing, a child file's `timeout`) stops fibers and runs finalizers; the interrupted work reports
// nothing. The run-level cancel signal (the `lait run` deadline, or a caller's) is cooperative: work
// in flight observes it and fails with a typed message naming what was cut short, as upstream does.
import { Deferred, Effect } from "effect"
import type { Env } from "../../config/env.ts"
import { type AnyLaitError, InterruptedError, isLaitError, withContext } from "../../core/errors.ts"
import type { FileLoader } from "../../platform/FileLoader.ts"
import type { Json } from "../../core/json.ts"
import { evalJqOne, isTruthy } from "../../lang/jq.ts"
import type { ModelDefinition, Step, StepKind, Workflow, WorkflowDefaults } from "../../lang/model.ts"
import type { Answerer } from "../../platform/terminal.ts"
import type { LlmStepsService } from "../llmStep.ts"
import type { ProgressWriter } from "../progress.ts"
import type { RunState, Steps } from "./types.ts"

export type Flow = "continue" | "break" | "stop"

/**
 * `inputUnset`: the value is still the missing initial value of a run without one (RunOptions'
 * `unsetInput`); only a step that passes its input on unchanged (`write`, a skipped step, a `group`
 * that runs nothing) keeps it so. Never recorded in a checkpoint.
 */
export type State = RunState & { readonly inputUnset?: boolean }

/** The state with a value some step produced: whatever it is, it is set. */
export const withValue = (state: State, value: Json): State => ({
  value,
  counter: state.counter,
  steps: state.steps
})

export interface Outcome {
  readonly state: State
  readonly flow: Flow
}

/**
 * Concurrency inherited across files, so that a child file called from a parallel branch or a
 * concurrent for_each item still cannot `ask`, or `write` a fixed path from several items at once.
 */
export type Placement = "sequential" | "parallel" | "concurrent-items"

export type EngineEffect<A> = Effect.Effect<A, AnyLaitError, FileLoader>

/**
 * The top level of `lait run` under checkpoints: the steps before `from` are skipped (already run by
 * the run being resumed) and `after` is told of each one that ends normally.
 */
export interface TopLevel {
  readonly from: number
  readonly after?: ((completed: number, state: State) => Effect.Effect<void, AnyLaitError>) | undefined
}

/** `list`: where these steps are in the file (see src/lang/positions.ts); undefined for the top level. */
export type RunSteps = (
  steps: ReadonlyArray<Step>,
  initial: State,
  frame: Frame,
  list: string | undefined,
  top?: TopLevel
) => EngineEffect<Outcome>

/** One run in progress: its RunContext's values plus what the run itself owns. */
export interface ActiveRun {
  readonly cancel: Deferred.Deferred<void>
  readonly llm: LlmStepsService
  readonly registry: (name: string) => string | undefined
  readonly env: Env
  readonly answerer: Answerer
  /** The run's own working directory (RunContext's `cwd`); undefined: the process's. */
  readonly cwd: string | undefined
  /** Child files loaded during this run, by canonical path. */
  readonly children: Map<string, Workflow>
  /** RunOptions' `unsetInput`: how to give the run the initial value it lacks (undefined: it has one). */
  readonly unsetInput: string | undefined
  /**
   * The step-list interpreter (./flow.ts). Reached through the run so that the step families, which
   * run nested step lists, need not import the module that dispatches to them.
   */
  readonly runSteps: RunSteps
}

/** What is in effect for one file's steps. */
export interface Scope {
  readonly workflow: Workflow
  /** This file's `default:` over its callers', field by field. */
  readonly defaults: WorkflowDefaults
  readonly models: Readonly<Record<string, ReadonlyArray<ModelDefinition>>>
  readonly inputs: Readonly<Record<string, Json>>
  /** Canonical paths of the files on the call stack, this one last. */
  readonly activePaths: ReadonlyArray<string>
}

export interface Frame {
  readonly run: ActiveRun
  readonly scope: Scope
  readonly placement: Placement
  readonly progress: ProgressWriter
  /** `$loop`: `{index, item}` in a for_each body, `{index}` in while/until, else null. */
  readonly loop: Json
}

export type Kind<T extends StepKind["type"]> = Extract<StepKind, { readonly type: T }>

/**
 * A control-flow step kind (switch, for_each, while/until): its body runs as nested step lists, and the
 * outcome says whether the run goes on. Declared, not inferred: these recurse through `runSteps`.
 */
export type ControlStep<T extends StepKind["type"]> = (
  kind: Kind<T>,
  state: State,
  frame: Frame,
  label: string,
  position: string
) => EngineEffect<Outcome>

/**
 * Adds a context message above `cause`. An interruption stays an interruption (exit 5) however deep
 * it sits, as upstream's typed-interruption check sees through context; other classes keep theirs.
 */
export const wrap = (message: string) => (cause: unknown): AnyLaitError =>
  isLaitError(cause) && cause._tag === "InterruptedError"
    ? new InterruptedError({ message, cause })
    : withContext(message)(cause)

export const CANCELLED = "workflow execution was cancelled"

export const cancelledError = () => new InterruptedError({ message: CANCELLED })

export const isCancelled = (frame: Frame): boolean => Deferred.isDoneUnsafe(frame.run.cancel)

export const checkCancelled = (frame: Frame): Effect.Effect<void, InterruptedError> =>
  isCancelled(frame) ? Effect.fail(cancelledError()) : Effect.void

/** Runs `effect` until it ends or the run is cancelled, whichever is first; then it fails with `message`. */
export const observeCancel = <A, E, R>(
  frame: Frame,
  effect: Effect.Effect<A, E, R>,
  message: string
): Effect.Effect<A, E | InterruptedError, R> =>
  isCancelled(frame)
    ? Effect.fail(new InterruptedError({ message }))
    : Effect.raceFirst(
      effect,
      Effect.andThen(Deferred.await(frame.run.cancel), Effect.fail(new InterruptedError({ message })))
    )

export const jqVars = (frame: Frame, steps: Steps) => ({ steps, inputs: frame.scope.inputs, loop: frame.loop })

/** `unset`: the step's input is the missing initial value (State's `inputUnset`); templates see none. */
export const templateData = (frame: Frame, input: Json, steps: Steps, unset = false) => ({
  input: unset ? undefined : input,
  steps: steps as Record<string, Json>,
  inputs: frame.scope.inputs as Record<string, Json>,
  loop: frame.loop
})

export const evalFilter = (frame: Frame, filter: string, value: Json, steps: Steps) =>
  evalJqOne(filter, value, jqVars(frame, steps), "filter")

export const evalCondition = (frame: Frame, condition: string, value: Json, steps: Steps) =>
  Effect.map(evalJqOne(condition, value, jqVars(frame, steps), "condition"), isTruthy)
