// The engine's two tracing hooks. Each is a no-op unless a RunTracer is in context, so the engine
// needs no new service and runs without a tracer (engine tests, `lait graph`) are unchanged.
import type { Effect } from "effect"
import * as nodePath from "node:path"
import type { Workflow } from "../lang/model.ts"
import { withSpan } from "./RunTracer.ts"

/** The root span's name: the file's `name:`, else its file name without the extension. */
export const workflowDisplayName = (workflow: Pick<Workflow, "name" | "path">): string =>
  workflow.name ?? nodePath.basename(workflow.path, nodePath.extname(workflow.path))

/** One workflow file's run (`lait run`'s root, or a `workflow:` step's child) as `invoke_workflow <name>`. */
export const workflowSpan = <A, E, R>(workflow: Workflow, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  withSpan(
    {
      operation: "invoke_workflow",
      label: workflowDisplayName(workflow),
      attributes: { "lait.workflow.path": workflow.path }
    },
    effect
  )

/** One step (all its attempts) under its progress label, which is also the label of its model calls. */
export const stepSpan = <A, E, R>(
  label: string,
  kind: string,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => withSpan({ operation: "step", label, attributes: { "lait.step.kind": kind } }, effect)
