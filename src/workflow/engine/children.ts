// `workflow:` steps: another file run as one step. Its path is resolved against the calling file (or
// looked up under `workflows:`), checked against the call stack for cycles and depth, loaded once per
// run, given its inputs and initial value, and run with the caller's placement and defaults beneath
// its own.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { StepError } from "../stepErrors.ts"
import { describeJsonType, isJsonObject, type Json } from "../../core/json.ts"
import { resolveInitial, resolveInputs } from "../../lang/inputs.ts"
import { loadWorkflow } from "../../lang/load.ts"
import { MAX_WORKFLOW_DEPTH, type Step, type Workflow, type WorkflowDefaults } from "../../lang/model.ts"
import { listAt, positionIn, stepLabel } from "../../lang/positions.ts"
import { loadSchemaRef } from "../../lang/schemaRef.ts"
import { FileLoader } from "../../platform/FileLoader.ts"
import { osErrorText } from "../../platform/process.ts"
import { runDocument } from "./document.ts"
import { type EngineEffect, evalFilter, type Frame, type Kind, observeCancel, type Placement, wrap } from "./frame.ts"
import { enterBranch } from "./parallel.ts"
import type { Steps } from "./types.ts"

export const canonicalize = (path: string): Effect.Effect<string, StepError, FileLoader> =>
  FileLoader.use((files) => files.realPath(path)).pipe(
    Effect.mapError((e) => new StepError({ reason: { _tag: "ResolvePathFailed", path, detail: osErrorText(e.os) } }))
  )

const definedEntries = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>

/** A child's `default:` over the caller's, field by field (`retry` being one field, it falls back whole). */
const mergeDefaults = (child: WorkflowDefaults, caller: WorkflowDefaults): WorkflowDefaults =>
  ({ ...definedEntries(caller), ...definedEntries(child) }) as WorkflowDefaults

/**
 * Rejects, before any of a child's steps run, an `ask` under concurrency or a fixed-path `write` in
 * concurrent items — restrictions the child inherits from where it is called.
 */
const checkPlacement: (
  steps: ReadonlyArray<Step>,
  placement: Placement,
  list?: string
) => Effect.Effect<void, StepError> = Effect.fnUntraced(
  function*(steps: ReadonlyArray<Step>, placement: Placement, list?: string) {
    if (placement === "sequential") return
    for (const [index, step] of steps.entries()) {
      const position = positionIn(list, index)
      const label = stepLabel(step, position)
      const kind = step.kind
      if (kind.type === "ask") {
        return yield* new StepError({ reason: { _tag: "AskConcurrent", step: label } })
      }
      if (kind.type === "write" && placement === "concurrent-items" && !kind.path.includes("{{")) {
        return yield* new StepError({ reason: { _tag: "WriteConcurrent", step: label } })
      }
      if (step.onError !== undefined) yield* checkPlacement(step.onError, placement, listAt(position, "on_error"))
      switch (kind.type) {
        case "group":
          yield* checkPlacement(kind.steps, placement, listAt(position))
          break
        case "switch":
          for (const [i, c] of kind.cases.entries()) {
            yield* checkPlacement(c.steps, placement, listAt(position, `case${i + 1}`))
          }
          if (kind.else !== undefined) yield* checkPlacement(kind.else, placement, listAt(position, "else"))
          break
        case "parallel":
          for (const b of kind.branches) {
            yield* checkPlacement(b.steps, enterBranch(placement), listAt(position, b.name))
          }
          break
        case "for_each":
          yield* checkPlacement(kind.steps, kind.maxConcurrency > 1 ? "concurrent-items" : placement, listAt(position))
          break
        case "while":
        case "until":
          yield* checkPlacement(kind.steps, placement, listAt(position))
          break
        default:
          break
      }
    }
  }
)

const loadChild: (canonical: string, frame: Frame) => EngineEffect<Workflow> = Effect.fnUntraced(
  function*(canonical: string, frame: Frame) {
    const cached = frame.run.children.get(canonical)
    if (cached !== undefined) return cached
    const child = yield* observeCancel(
      frame,
      loadWorkflow(canonical, { waitForWriter: true }),
      "nested workflow load was cancelled"
    )
    frame.run.children.set(canonical, child)
    return child
  }
)

/** `unset`: `input` is the missing initial value of the run, and so is the child's (see State's `inputUnset`). */
export const runChild: (
  kind: Kind<"workflow">,
  input: Json,
  steps: Steps,
  frame: Frame,
  unset: boolean
) => EngineEffect<Json> = Effect
  .fnUntraced(function*(kind: Kind<"workflow">, input: Json, steps: Steps, frame: Frame, unset: boolean) {
    const ref = kind.workflow
    let target: string
    if (ref.kind === "path") {
      target = nodePath.resolve(frame.scope.workflow.dir, ref.path)
    } else {
      const registered = frame.run.registry(ref.name)
      if (registered === undefined) {
        return yield* new StepError({ reason: { _tag: "UnregisteredWorkflow", name: ref.name } })
      }
      target = registered
    }
    // Cycles are found before the child is opened: a file that calls itself through a FIFO must
    // fail, not wait for a second writer.
    const canonical = yield* canonicalize(target)
    if (frame.scope.activePaths.includes(canonical)) {
      return yield* new StepError({ reason: { _tag: "WorkflowCycle", target, canonical } })
    }
    if (frame.scope.activePaths.length >= MAX_WORKFLOW_DEPTH) {
      return yield* new StepError({ reason: { _tag: "WorkflowTooDeep", max: MAX_WORKFLOW_DEPTH } })
    }
    const child = yield* loadChild(canonical, frame)
    const inChild = wrap(`workflow '${canonical}'`)
    yield* checkPlacement(child.steps, frame.placement).pipe(Effect.mapError(inChild))

    let provided: Array<[string, { readonly kind: "typed"; readonly value: Json }]> = []
    if (kind.with !== undefined) {
      const bound = yield* evalFilter(frame, kind.with, input, steps).pipe(Effect.mapError(wrap("'with'")))
      if (!isJsonObject(bound)) {
        return yield* new StepError({ reason: { _tag: "WithNotObject", got: describeJsonType(bound) } })
      }
      provided = Object.entries(bound).map(([name, value]) => [name, { kind: "typed", value }])
    }
    const inputs = yield* resolveInputs(child.inputs, provided).pipe(Effect.mapError(inChild))
    const schema = yield* loadSchemaRef(child.inputSchema).pipe(Effect.mapError(inChild))
    const initial = yield* resolveInitial(schema, { kind: "typed", value: input }).pipe(Effect.mapError(inChild))

    if (child.name !== undefined) {
      yield* frame.progress.detail(child.description === undefined ? child.name : `${child.name}: ${child.description}`)
    }
    const childFrame: Frame = {
      run: frame.run,
      scope: {
        workflow: child,
        defaults: mergeDefaults(child.defaults, frame.scope.defaults),
        models: { ...frame.scope.models, ...child.models },
        inputs,
        activePaths: [...frame.scope.activePaths, canonical]
      },
      placement: frame.placement,
      progress: frame.progress.nested("    "),
      loop: null
    }
    const result = yield* runDocument(child, initial, childFrame, "fail", undefined, unset && initial === null)
    return result.output
  })
