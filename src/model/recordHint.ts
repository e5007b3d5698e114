// Which command line records what a replay lacks, for the replay-miss errors of model and tool
// cassettes (docs/record-replay.md#when-a-replay-misses). Only the running command knows it (`lait
// test` records with `--record-missing`, `lait eval` with `--record DIR`, one-shot chat takes the
// prompt), so each command provides its own around its handler; the replay layers read it on a miss.
// A module of its own, without Effect Schema or the replay layer, so that a command sets it for free.
import { Context } from "effect"

export interface RecordHint {
  /**
   * The command line that records into cassette directory `dir` what this run's replay lacks;
   * `tools`: tool cassettes too (for a command whose --record-missing leaves them out).
   */
  readonly command: (dir: string, tools: boolean) => string
  /** What the recording run must share with this one: `the same input and vars`. */
  readonly same: string
}

export const RecordHint = Context.Reference<RecordHint>("lait/model/RecordHint", {
  // Library use, outside any command: the workflow runner's form.
  defaultValue: () => ({ command: (dir) => `lait run --record ${dir}`, same: "the same workflow/input/vars" })
})
