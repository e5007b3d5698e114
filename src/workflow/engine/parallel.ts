// `parallel`: every branch runs at once on the same input, with a counter from 0 and its own copy of
// `$steps` (never merged back); the result is an object of the branches' values by name.
import { Effect } from "effect"
import type { Json } from "../../core/json.ts"
import { listAt } from "../../lang/positions.ts"
import type { EngineEffect, Frame, Kind, Placement, State } from "./frame.ts"

/** A branch's placement: inside concurrent items it stays that (the stricter of the two). */
export const enterBranch = (placement: Placement): Placement =>
  placement === "concurrent-items" ? placement : "parallel"

export const runParallel: (kind: Kind<"parallel">, state: State, frame: Frame, position: string) => EngineEffect<Json> =
  Effect.fnUntraced(function*(kind: Kind<"parallel">, state: State, frame: Frame, position: string) {
    yield* frame.progress.detail(`running ${kind.branches.length} branches concurrently`)
    const placement = enterBranch(frame.placement)
    const values = yield* Effect.forEach(
      kind.branches,
      (branch) =>
        Effect.map(
          frame.run.runSteps(branch.steps, { ...state, counter: 0 }, {
            ...frame,
            placement,
            progress: frame.progress.nested(`[${branch.name}] `)
          }, listAt(position, branch.name)),
          (outcome) => outcome.state.value
        ),
      { concurrency: "unbounded" }
    )
    const joined: Record<string, Json> = {}
    kind.branches.forEach((branch, index) => {
      joined[branch.name] = values[index]!
    })
    yield* frame.progress.detail("branches joined")
    return joined
  })
