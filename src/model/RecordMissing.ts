// The record-missing layer: a request that has a cassette in `<dir>` is replayed from it (no network,
// the file untouched); any other goes to the ModelClient below and its answer is recorded. This is
// how a cassette directory grows when a workflow gains a step, without re-recording (and paying for,
// and changing) the answers it already holds.
import { Effect } from "effect"
import { FileLoader } from "../platform/FileLoader.ts"
import type { ModelCall, ModelClientService } from "./call.ts"
import { callKey } from "./cassette/key.ts"
import { CassetteRepeat, replayFile } from "./cassette/repeat.ts"
import { makeRecord } from "./Record.ts"
import { makeReplay } from "./Replay.ts"

/** Decorates `inner` (the live client). */
export const makeRecordMissing = (
  inner: ModelClientService,
  dir: string
): Effect.Effect<ModelClientService, never, FileLoader> =>
  Effect.gen(function*() {
    const replay = yield* makeReplay(dir)
    const record = yield* makeRecord(inner, dir)
    const files = yield* FileLoader
    return {
      complete: Effect.fnUntraced(function*(call: ModelCall) {
        // Exactly the file a replay would read: what replays under --replay is never sent again.
        const recorded = yield* files.exists(yield* replayFile(files, dir, callKey(call), yield* CassetteRepeat))
        return yield* (recorded ? replay.complete(call) : record.complete(call))
      }, Effect.provideService(FileLoader, files))
    }
  })
