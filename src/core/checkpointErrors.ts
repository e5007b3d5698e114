// Why a checkpointed run (`lait run --checkpoint/--resume`, `lait runs`) cannot be saved, read or
// resumed, as one error class with a `reason`. The texts are upstream's; every reason exits 1.
import { Schema } from "effect"

const runId = Schema.String
const path = Schema.String

// Suspended: the members are built when the first such error is made rather than in every process that
// loads this module, `lait --version` included (bench/README.md, start-up).
const Reason = Schema.suspend(() => Schema.Union([
  /** A run id that could name a file outside `.lait/runs` (`../x`, `a/b`) or nothing at all. */
  Schema.TaggedStruct("InvalidRunId", { runId }),
  Schema.TaggedStruct("NotFound", { runId }),
  /** The file could not be read, or is not a checkpoint (`detail` says why). */
  Schema.TaggedStruct("Unreadable", { path, detail: Schema.String }),
  /** A checkpoint without `format: 2`: written before workflow values were typed. */
  Schema.TaggedStruct("OldFormat", { path }),
  Schema.TaggedStruct("WorkflowMismatch", { runId, recorded: path, given: path }),
  Schema.TaggedStruct("AlreadyCompleted", { runId }),
  /** The workflow now has fewer top-level steps than the run had completed. */
  Schema.TaggedStruct("TooFewSteps", {
    runId,
    completed: Schema.Number,
    recorded: Schema.Number,
    current: Schema.Number
  }),
  /** A top-level step at or before the resume point has another id (or position) than when recorded. */
  Schema.TaggedStruct("StepsChanged", { runId }),
  Schema.TaggedStruct("SaveFailed", { path, detail: Schema.String }),
  /** `.lait/runs` holds a symbolic link where a checkpoint should be. */
  Schema.TaggedStruct("Symlink", { path })
]))
export type CheckpointErrorReason = typeof Reason.Type

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
    case "Symlink":
      return `refusing to follow symbolic link '${reason.path}'`
  }
}

export class CheckpointError extends Schema.TaggedError<CheckpointError>()("CheckpointError", { reason: Reason }) {
  override get message(): string {
    return describe(this.reason)
  }

  /** What `renderChain` prints after the message. */
  override get cause(): unknown {
    return this.reason._tag === "Unreadable" || this.reason._tag === "SaveFailed" ? this.reason.detail : undefined
  }
}

declare module "./errors.ts" {
  interface DomainErrors {
    readonly CheckpointError: CheckpointError
  }
}
