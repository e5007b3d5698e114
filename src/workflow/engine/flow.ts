// Step lists and the protocol every step follows (`when`, retried/timed `input` → kind → `output`,
// `on_error`, recording under `id`), with the control steps that only steer the list: `group`,
// `switch`, `stop` and `break`. The other kinds are dispatched to their family's module.
import { Effect } from "effect"
import { errorLocation, locateError, renderChain } from "../../core/errors.ts"
import { StepError } from "../stepErrors.ts"
import type { Json } from "../../core/json.ts"
import type { Step } from "../../lang/model.ts"
import { listAt, positionIn, stepLabel } from "../../lang/positions.ts"
import { stepSpan } from "../../core/tracing.ts"
import { runAction } from "./actions.ts"
import {
  checkCancelled,
  type ControlStep,
  type EngineEffect,
  evalCondition,
  evalFilter,
  type Flow,
  type Frame,
  isCancelled,
  type Outcome,
  type State,
  type TopLevel,
  withValue,
  wrap
} from "./frame.ts"
import { runModelStep } from "./llm.ts"
import { runForEach, runLoop } from "./loops.ts"
import { runParallel } from "./parallel.ts"
import { withRetryAndTimeout } from "./policy.ts"
import type { Steps } from "./types.ts"

const record = (steps: Steps, id: string | undefined, value: Json): Steps =>
  id === undefined ? steps : { ...steps, [id]: value }

export const runSteps: (
  steps: ReadonlyArray<Step>,
  initial: State,
  frame: Frame,
  list: string | undefined,
  top?: TopLevel
) => EngineEffect<Outcome> = Effect.fnUntraced(
  function*(steps, initial, frame, list, top) {
    let state = initial
    for (const [index, step] of steps.entries()) {
      if (top !== undefined && index < top.from) continue
      const outcome = yield* runStep(step, state, frame, positionIn(list, index)).pipe(
        Effect.tapError((error) => Effect.sync(() => locateFailure(error, step, frame)))
      )
      state = outcome.state
      if (top?.after !== undefined) yield* top.after(index + 1, state)
      if (outcome.flow !== "continue") return { state, flow: outcome.flow }
    }
    return { state, flow: "continue" as Flow }
  }
)

/**
 * Points a failure at the innermost step it came from, in that step's own file (a child workflow's
 * step in the child), for what reports where (`lait test --format github`, docs/ci.md). An error that
 * already points somewhere (an inner step, a file that did not load) is left as it is.
 */
const locateFailure = (error: unknown, step: Step, frame: Frame): void => {
  if (typeof error !== "object" || error === null || step.line === undefined) return
  if (errorLocation(error) === undefined) locateError(error, frame.scope.workflow.path, step.line)
}

/** `when` → retried/timed unit (`input` → kind → `output`) → `on_error` → record under `id`. */
const runStep: (step: Step, incoming: State, frame: Frame, position: string) => EngineEffect<Outcome> = Effect
  .fnUntraced(function*(step, incoming, frame, position) {
    yield* checkCancelled(frame)
    const state: State = { ...incoming, counter: incoming.counter + 1 }
    // The counter says how many steps ran; the label must not depend on that (see src/lang/positions.ts).
    const label = stepLabel(step, position)
    if (step.when !== undefined) {
      const truthy = yield* evalCondition(frame, step.when, state.value, state.steps).pipe(
        Effect.mapError(wrap(`step '${label}': 'when'`))
      )
      if (!truthy) {
        yield* frame.progress.line(`[${state.counter}] ${label} (skipped)`)
        return { state, flow: "continue" as Flow }
      }
    }
    yield* frame.progress.line(`[${state.counter}] ${label}`)

    // All attempts of the step are one trace span; its on_error steps are spans of their own.
    const attempts = stepSpan(
      label,
      step.kind.type,
      withRetryAndTimeout(step, frame, label, runUnit(step, state, frame, label, position))
    )
    let outcome: Outcome
    if (step.onError === undefined) {
      outcome = yield* attempts
    } else {
      const attempt = yield* Effect.result(attempts)
      if (attempt._tag === "Success") {
        outcome = attempt.success
      } else {
        // A failure caused by cancelling the whole run must not be swallowed by a handler.
        if (isCancelled(frame)) return yield* Effect.fail(attempt.failure)
        const error = renderChain(attempt.failure)
        yield* frame.progress.detail(`step failed, running 'on_error': ${error}`)
        outcome = yield* runSteps(
          step.onError,
          { value: { error, input: state.value }, counter: state.counter, steps: state.steps },
          frame,
          listAt(position, "on_error")
        )
      }
    }
    return {
      state: { ...outcome.state, steps: record(outcome.state.steps, step.id, outcome.state.value) },
      flow: outcome.flow
    }
  })

/** One attempt: `input` → the kind → `output`. */
const runUnit: (step: Step, state: State, frame: Frame, label: string, position: string) => EngineEffect<Outcome> =
  Effect.fnUntraced(function*(step, state, frame, label, position) {
    const input = step.input === undefined
      ? state.value
      : yield* evalFilter(frame, step.input, state.value, state.steps).pipe(
        Effect.mapError(wrap(`step '${label}': 'input'`))
      )
    const withInput: State = step.input === undefined ? state : withValue(state, input)
    // How to give the run its initial value, when this step's input is that missing value.
    const unset = withInput.inputUnset === true ? frame.run.unsetInput : undefined
    const kind = step.kind
    const continueWith = (value: Json): Outcome => ({ state: withValue(withInput, value), flow: "continue" })
    let outcome: Outcome
    switch (kind.type) {
      case "group":
        outcome = yield* runSteps(kind.steps, withInput, frame, listAt(position))
        break
      case "switch":
        outcome = yield* runSwitch(kind, withInput, frame, label, position)
        break
      case "parallel":
        outcome = continueWith(yield* runParallel(kind, withInput, frame, position))
        break
      case "for_each":
        outcome = yield* runForEach(kind, withInput, frame, label, position)
        break
      case "while":
      case "until":
        outcome = yield* runLoop(kind, withInput, frame, label, position)
        break
      case "stop":
        outcome = { state: withInput, flow: "stop" }
        break
      case "break":
        outcome = { state: withInput, flow: "break" }
        break
      case "prompt":
      case "agent":
        outcome = continueWith(yield* runModelStep(step, input, state.steps, frame, label, unset))
        break
      case "write":
        // Passes its input on as it is: still unset, if it was.
        yield* runAction(kind, input, state.steps, frame, label, unset)
        outcome = { state: withInput, flow: "continue" }
        break
      default:
        outcome = continueWith(yield* runAction(kind, input, state.steps, frame, label, unset))
    }
    // A `break`/`stop` that came up from inside this step ends it without its own `output:`.
    const ownResult = outcome.flow === "continue" || kind.type === "stop" || kind.type === "break"
    if (ownResult && step.output !== undefined) {
      const value = yield* evalFilter(frame, step.output, outcome.state.value, outcome.state.steps).pipe(
        Effect.mapError(wrap(`step '${label}': 'output'`))
      )
      return { state: withValue(outcome.state, value), flow: outcome.flow }
    }
    return outcome
  })

const runSwitch: ControlStep<"switch"> = Effect.fnUntraced(
  function*(kind, state, frame, label, position) {
    for (const [index, c] of kind.cases.entries()) {
      const matched = yield* evalCondition(frame, c.when, state.value, state.steps).pipe(
        Effect.mapError(wrap(`step '${label}': case ${index + 1} 'when'`))
      )
      if (matched) {
        yield* frame.progress.detail(`case ${index + 1} matched`)
        return yield* runSteps(c.steps, state, frame, listAt(position, `case${index + 1}`))
      }
    }
    if (kind.else === undefined) {
      return yield* new StepError({ reason: { _tag: "NoCaseMatched", step: label } })
    }
    yield* frame.progress.detail("no case matched, running 'else'")
    return yield* runSteps(kind.else, state, frame, listAt(position, "else"))
  }
)
