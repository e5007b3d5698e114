// What a run takes and gives (the Engine service's types, src/workflow/Engine.ts): kept in a module
// of their own so that the step families, which need them, do not import the service that loads them.
import type { Deferred, Effect } from "effect"
import type { AnyLaitError } from "../../core/errors.ts"
import type { Json } from "../../core/json.ts"

export type Steps = Readonly<Record<string, Json>>

/** Where a run stands between two top-level steps: what a checkpoint records and a resume restores. */
export interface RunState {
  readonly value: Json
  /** How many steps (nested ones included) have run: the next progress line's `[n]` is one more. */
  readonly counter: number
  readonly steps: Steps
}

export interface RunOptions {
  /**
   * What the file's own `timeout:` does. `"fail"` (the default; child files, `lait test`/`eval`):
   * the run fails with `workflow timed out after Ns ('timeout')`. `"cancel"` (`lait run`): a line
   * `lait: the workflow's 'timeout' (Ns) was exceeded; cancelling the run` goes to the progress sink
   * and the run is cancelled, so whatever was running fails with its own cancellation message.
   */
  readonly timeoutMode?: "fail" | "cancel"
  /** Cancels the run when completed (another deadline of the caller's). */
  readonly cancel?: Deferred.Deferred<void>
  /**
   * Resumes a checkpointed run: the first `completed` top-level steps are not run again, and the
   * rest start from `state` (`initial` is then only what the checkpoint recorded as the run's input).
   */
  readonly resume?: { readonly completed: number; readonly state: RunState }
  /**
   * Called after each top-level step ends normally, with how many top-level steps have completed and
   * the state after it (`lait run --checkpoint`). A failure fails the run.
   */
  readonly afterTopLevelStep?: (completed: number, state: RunState) => Effect.Effect<void, AnyLaitError>
  /**
   * Set when the run was given no initial value (`lait run` of a workflow with `inputs:` and no
   * PROMPT; `initial` is then null): until a step produces a value of its own, a template that
   * prints `input` fails, and its message ends with this text, which says how to give one. Block
   * helpers see such an `input` as missing (`{{#if input}}` is false).
   */
  readonly unsetInput?: string
}

export interface RunResult {
  /** The workflow's result: the last value, through the top-level `output:` when set. */
  readonly output: Json
  /** Values recorded by `id` in the top-level file (for trajectory assertions). */
  readonly steps: Steps
}
