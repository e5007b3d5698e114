// The record/replay group (docs/cassettes.md): how a command's model requests, and tool calls, are
// answered. Declared once here; each command composes the flags it takes, with its own words for what
// they record where that differs.
import { switchFlag, type SwitchFlagMaker, valueFlag, type ValueFlagMaker } from "./make.ts"

/** What `--record DIR` and `--replay DIR` say in one command's help. */
export interface RecordHelp {
  readonly record: string
  readonly replay: string
}

/** The words of `lait run`, `lait agent run`, `lait prompt run` and one-shot chat. */
export const runRecordHelp: RecordHelp = {
  record: "Save every model request/response as a cassette <DIR>/<key>.json",
  replay: "Answer model requests only from cassettes in DIR; never touch the network"
}

/** `--record DIR` and `--replay DIR`. */
export const recordFlags = (help: RecordHelp, make: ValueFlagMaker = valueFlag) => ({
  record: make("record", "DIR", help.record),
  replay: make("replay", "DIR", help.replay)
})

export const strictReplayFlag = (
  description = "With --replay, answer only from a cassette with the exact key (no other base URL's)",
  make: SwitchFlagMaker = switchFlag
) => make("strict-replay", description)

export const replayToolsFlag = (description: string) => switchFlag("replay-tools", description)

/** `--record-missing DIR`: replay what is recorded, record the rest. */
export const recordMissingFlag = valueFlag(
  "record-missing",
  "DIR",
  "Replay the requests that have a cassette in DIR; send and record the others"
)

/** `lait test`'s: each test file names its cassette directory (`replay:`), so these take none. */
export const recordIntoTestFlags = {
  record: switchFlag("record", "Run each workflow live, recording its answers into the file's 'replay:' directory"),
  recordMissing: switchFlag(
    "record-missing",
    "Like --record, but replay the requests already recorded and record only the others"
  )
}
