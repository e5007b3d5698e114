// `for_each` (one item after another, or up to `max_concurrency` at once) and `while`/`until`. A
// `break` in the body ends its innermost loop; a `stop` ends the file.
import { Effect } from "effect"
import { StepError } from "../stepErrors.ts"
import { describeJsonType, type Json } from "../../core/json.ts"
import { listAt } from "../../lang/positions.ts"
import { type ControlStep, evalCondition, evalFilter, type Flow, withValue, wrap } from "./frame.ts"

export const runForEach: ControlStep<"for_each"> = Effect.fnUntraced(
  function*(kind, state, frame, label, position) {
    const items = yield* evalFilter(frame, kind.items, state.value, state.steps).pipe(
      Effect.mapError(wrap(`step '${label}': 'for_each'`))
    )
    if (!Array.isArray(items)) {
      return yield* new StepError({ reason: { _tag: "ForEachNotArray", step: label, got: describeJsonType(items) } })
    }
    const list = items as ReadonlyArray<Json>
    const total = list.length

    if (kind.maxConcurrency > 1) {
      yield* frame.progress.detail(`iterating over ${total} item(s), up to ${kind.maxConcurrency} concurrently`)
      const values = yield* Effect.forEach(
        list,
        (item, index) =>
          Effect.map(
            frame.run.runSteps(kind.steps, { value: item, counter: 0, steps: state.steps }, {
              ...frame,
              placement: "concurrent-items",
              progress: frame.progress.nested(`[item-${index + 1}] `),
              loop: { index, item }
            }, listAt(position)),
            (outcome) => outcome.state.value
          ),
        { concurrency: kind.maxConcurrency }
      )
      return { state: withValue(state, values), flow: "continue" as Flow }
    }

    yield* frame.progress.detail(`iterating over ${total} item(s)`)
    const results: Array<Json> = []
    let counter = state.counter
    let steps = state.steps
    for (const [index, item] of list.entries()) {
      yield* frame.progress.detail(`item ${index + 1}/${total}`)
      const outcome = yield* frame.run.runSteps(kind.steps, { value: item, counter, steps }, {
        ...frame,
        loop: { index, item }
      }, listAt(position))
      counter = outcome.state.counter
      steps = outcome.state.steps
      if (outcome.flow === "stop") {
        return { state: { value: outcome.state.value, counter, steps }, flow: "stop" as Flow }
      }
      results.push(outcome.state.value)
      if (outcome.flow === "break") break
    }
    return { state: { value: results, counter, steps }, flow: "continue" as Flow }
  }
)

export const runLoop: ControlStep<"while" | "until"> = Effect.fnUntraced(
  function*(kind, initial, frame, label, position) {
    const keyword = kind.type
    const max = kind.maxIterations
    let state = initial
    for (let iteration = 0;; iteration++) {
      if (keyword === "while") {
        const holds = yield* evalCondition(frame, kind.condition, state.value, state.steps).pipe(
          Effect.mapError(wrap(`step '${label}': 'while'`))
        )
        if (!holds) return { state, flow: "continue" as Flow }
      }
      if (iteration >= max) {
        return yield* new StepError({ reason: { _tag: "MaxIterations", step: label, max, keyword } })
      }
      yield* frame.progress.detail(`iteration ${iteration + 1}/${max}`)
      const outcome = yield* frame.run.runSteps(
        kind.steps,
        state,
        { ...frame, loop: { index: iteration } },
        listAt(position)
      )
      state = outcome.state
      if (outcome.flow === "stop") return { state, flow: "stop" as Flow }
      if (outcome.flow === "break") return { state, flow: "continue" as Flow }
      if (keyword === "until") {
        const done = yield* evalCondition(frame, kind.condition, state.value, state.steps).pipe(
          Effect.mapError(wrap(`step '${label}': 'until'`))
        )
        if (done) return { state, flow: "continue" as Flow }
      }
    }
  }
)
