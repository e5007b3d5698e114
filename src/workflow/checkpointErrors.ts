// Why a checkpointed run (`lait run --checkpoint/--resume`, `lait runs`) cannot be saved, read or
// resumed, as one error class with a `reason`. The texts are upstream's; every reason exits 1.
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** A run id that could name a file outside `.lait/runs` (`../x`, `a/b`) or nothing at all. */
  InvalidRunId: { runId: string }
  NotFound: { runId: string }
  /** The file could not be read, or is not a checkpoint (`detail` says why). */
  Unreadable: { path: string; detail: string }
  /** A checkpoint without `format: 2`: written before workflow values were typed. */
  OldFormat: { path: string }
  WorkflowMismatch: { runId: string; recorded: string; given: string }
  AlreadyCompleted: { runId: string }
  /** The workflow now has fewer top-level steps than the run had completed. */
  TooFewSteps: { runId: string; completed: number; recorded: number; current: number }
  /** A top-level step at or before the resume point has another id (or position) than when recorded. */
  StepsChanged: { runId: string }
  SaveFailed: { path: string; detail: string }
  /** `<id>.json` holds another run's id: resuming it would write over that run's file. */
  IdMismatch: { path: string; runId: string; recorded: string }
  /** Another lait (`pid`) is resuming the run; `lock` is its lock file. */
  Locked: { runId: string; pid: number; lock: string }
  /** `.lait/runs` holds a symbolic link where a checkpoint should be. */
  Symlink: { path: string }
}
export type CheckpointErrorReason = TaggedUnion<Reasons>

const describe = (reason: CheckpointErrorReason): string => {
  switch (reason._tag) {
    case "InvalidRunId":
      return `invalid run id '${reason.runId}'; run ids may only contain letters, digits, '_', and '-'`
    case "NotFound":
      return `no such checkpointed run '${reason.runId}'`
    case "Unreadable":
      return `failed to parse checkpoint file '${reason.path}'`
    case "OldFormat":
      return `checkpoint file '${reason.path}' was written by an older version of lait and cannot be resumed; ` +
        "start a fresh run"
    case "WorkflowMismatch":
      return `run '${reason.runId}' was checkpointed against workflow '${reason.recorded}', not '${reason.given}'; ` +
        "pass the same FILE to resume it"
    case "AlreadyCompleted":
      return `run '${reason.runId}' already completed; nothing to resume`
    case "TooFewSteps":
      return `run '${reason.runId}' was checkpointed after completing ${reason.completed} of ${reason.recorded} ` +
        `top-level step(s), but the current workflow only has ${reason.current}; resuming would replay recorded ` +
        "state into a step list that no longer has that many steps. Start a fresh run instead."
    case "StepsChanged":
      return `run '${reason.runId}' was checkpointed against a different sequence of top-level steps than the ` +
        "current workflow (one of the already-completed steps changed); resuming would replay recorded state " +
        "into the wrong steps. Start a fresh run instead."
    case "SaveFailed":
      return `failed to save checkpoint to '${reason.path}'`
    case "IdMismatch":
      return `checkpoint file '${reason.path}' holds run ${JSON.stringify(reason.recorded)}, not '${reason.runId}'; ` +
        "it cannot be resumed"
    case "Locked":
      return `run '${reason.runId}' is being resumed by another lait (pid ${reason.pid}); wait for it to end, ` +
        `or remove '${reason.lock}' if no lait is running`
    case "Symlink":
      return `refusing to follow symbolic link '${reason.path}'`
  }
}

export class CheckpointError extends ReasonError("CheckpointError", { describe }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly CheckpointError: CheckpointError
  }
}
