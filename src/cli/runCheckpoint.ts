// The `lait run` side of checkpoints: checking that `--resume ID` fits this invocation, and recording a
// checkpointed run — after every top-level step, as `completed` at the end, and on failure or
// interruption with a note saying how to resume it. The file format is src/workflow/checkpoint.ts.
import { Console, Effect } from "effect"
import { CheckpointError } from "../workflow/checkpointErrors.ts"
import { renderChain } from "../core/errors.ts"
import type { Json } from "../core/json.ts"
import type { Workflow } from "../lang/model.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { RunState } from "../workflow/engine/types.ts"
import type { Checkpoint, RunStatus } from "../workflow/checkpoint.ts"

type CheckpointModule = typeof import("../workflow/checkpoint.ts")

const samePath = (a: string, b: string): Effect.Effect<boolean, never, FileLoader> =>
  a === b ? Effect.succeed(true) : FileLoader.use((files) =>
    Effect.all([files.realPath(a), files.realPath(b)]).pipe(
      Effect.map(([realA, realB]) => realA === realB),
      Effect.orElseSucceed(() => false)
    ))

/**
 * The checkpoint `--resume ID` names, once it is known to belong to `target` (FILE as resolved) and
 * not to have completed. Checked before the workflow is even loaded, as upstream does. The run's lock
 * is taken first and held for the scope, so a second resume cannot read the state this one is about
 * to move on from.
 */
export const openResume = (module: CheckpointModule, runId: string, target: string) =>
  Effect.gen(function*() {
    yield* module.loadCheckpoint(runId)
    yield* module.lockRun(runId)
    const checkpoint = yield* module.loadCheckpoint(runId)
    if (!(yield* samePath(checkpoint.workflow_path, target))) {
      const recorded = checkpoint.workflow_path
      return yield* new CheckpointError({
        reason: { _tag: "WorkflowMismatch", runId: checkpoint.run_id, recorded, given: target }
      })
    }
    if (checkpoint.status === "completed") {
      return yield* new CheckpointError({ reason: { _tag: "AlreadyCompleted", runId: checkpoint.run_id } })
    }
    return checkpoint
  })

/** Refuses a workflow whose finished steps changed, warns about later changes, prints the banner. */
export const announceResume = (module: CheckpointModule, checkpoint: Checkpoint, workflow: Workflow) =>
  Effect.gen(function*() {
    const labels = module.topLevelLabels(workflow)
    const warning = yield* module.checkResumable(labels, checkpoint)
    if (warning !== undefined) yield* Console.error(`warning: ${warning}`)
    // Every step done: the run failed in the workflow's `output:` (or stopped before it was saved as
    // completed), and only that is left.
    const from = checkpoint.completed_index >= labels.length
      ? `after its last step (${labels.length}/${labels.length}): only the workflow's output is left`
      : `from step ${checkpoint.completed_index + 1}/${labels.length}`
    yield* Console.error(`==> resuming run '${checkpoint.run_id}' ${from}`)
  })

export interface RecorderOptions {
  readonly runId: string
  /** FILE as given on the command line, for the note's `lait run <FILE> --resume <id>`. */
  readonly requested: string
  readonly workflowPath: string
  readonly workflow: Workflow
  readonly initial: Json
  readonly inputs: Readonly<Record<string, Json>>
  /** Where the run starts: a resumed checkpoint's place, else before the first step. */
  readonly completed: number
  readonly state: RunState
}

/**
 * Saves a run's progress; one per `lait run --checkpoint` (or `--resume`). A checkpoint that cannot be
 * saved (no space, or one lait could not read back) never fails the run: it is a `warning:` (the first
 * time), and the failure note offers a resume only when the file holds the run's latest state.
 */
export const checkpointRecorder = (module: CheckpointModule, options: RecorderOptions) => {
  const labels = module.topLevelLabels(options.workflow)
  let completed = options.completed
  let state = options.state
  let current = false
  let warned = false
  const save = (status: RunStatus) =>
    write(status).pipe(
      Effect.tap(() => Effect.sync(() => void (current = true))),
      Effect.catch((e) => {
        current = false
        if (warned) return Effect.void
        warned = true
        return Console.error(`warning: failed to save checkpoint for run '${options.runId}': ${renderChain(e)}`)
      })
    )
  const write = (status: RunStatus) =>
    module.saveCheckpoint({
      format: module.CHECKPOINT_FORMAT,
      run_id: options.runId,
      workflow_path: options.workflowPath,
      initial_input: options.initial,
      inputs: options.inputs,
      top_level_labels: labels,
      completed_index: completed,
      counter: state.counter,
      current_value: state.value,
      steps_outputs: state.steps,
      status
    })
  return {
    /** For the engine's `afterTopLevelStep`: the run stays `failed` until it completes. */
    afterStep: (done: number, after: RunState): Effect.Effect<void> =>
      Effect.suspend(() => {
        completed = done
        state = after
        return save("failed")
      }),
    /** After the workflow's `output:`, before anything is printed. */
    completed: Effect.suspend(() => save("completed")),
    /**
     * The run failed or was interrupted: the last completed step's state is saved (again, or for the
     * first time when the first step failed) and the note says how to resume. The run's own error
     * stays what lait reports; a checkpoint that cannot be saved only adds a warning, and no note.
     */
    failed: Effect.suspend(() => save("failed")).pipe(
      Effect.andThen(Effect.suspend(() =>
        current
          ? Console.error(
            `note: run checkpointed as '${options.runId}'; ` +
              `resume with \`lait run ${options.requested} --resume ${options.runId}\``
          )
          : Effect.void
      ))
    )
  }
}
