// Which cassette file answers a request in a given repeat of `lait eval --repeat N`.
//
// Repeat 0 (and every `lait run`/`lait test` request) uses `<key>.json`, the original lait's file.
// Repeat i > 0 records into a sibling `<key>.r<i>.json` rather than adding a `repeats` array to
// `<key>.json`: the repeats of a case run concurrently, and one file per repeat is written once,
// atomically, by that repeat alone (no read-modify-write between runs racing for the same file),
// while `<key>.json` stays exactly what the original writes and reads. A repeat without its own file
// replays `<key>.json`, so a recording with one answer per key (the original's, or a shorter
// --repeat) gives that answer to every repeat.
import { Context, Effect } from "effect"
import * as nodePath from "node:path"
import type { FileOps } from "../../platform/fileOps.ts"

/** The 0-based repeat the current run is (set per run by `lait eval`; 0 everywhere else). */
export const CassetteRepeat = Context.Reference<number>("lait/model/CassetteRepeat", { defaultValue: () => 0 })

/** Where a request's answer is recorded in repeat `repeat`. */
export const cassetteFile = (dir: string, key: string, repeat: number): string =>
  nodePath.join(dir, repeat > 0 ? `${key}.r${repeat}.json` : `${key}.json`)

/** Where it is replayed from: the repeat's own file when there is one, else `<key>.json`. */
export const replayFile = (
  files: FileOps,
  dir: string,
  key: string,
  repeat: number
): Effect.Effect<string> => {
  const own = cassetteFile(dir, key, repeat)
  if (repeat === 0) return Effect.succeed(own)
  return Effect.map(files.exists(own), (exists) => exists ? own : cassetteFile(dir, key, 0))
}
