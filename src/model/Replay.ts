// The replay layer: answers only from the cassettes `<dir>/<key>.json` and never touches the network.
// A miss first looks for the one recording that differs only in the base URL (src/model/cassette/
// moved.ts) and replays it with a note, unless StrictReplay; otherwise it names the closest recording
// and where it differs (src/model/cassette/diff.ts). In repeat i of an eval, `<key>.r<i>.json` answers
// when it exists (src/model/cassette/repeat.ts). Every file read is reported to CassetteUse. A file
// read once is kept decoded until it changes (src/model/cassette/memo.ts).
import { Console, Effect } from "effect"
import { causeDetail } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { traceChat } from "./chatSpan.ts"
import type { Endpoint, ModelCall, ModelClientService, ModelResult } from "./call.ts"
import { cassetteProblem } from "./cassette/format.ts"
import { callKey, keyInputOf } from "./cassette/key.ts"
import { type FileVersion, makeCassetteMemo } from "./cassette/memo.ts"
import type { Cassette } from "./cassette/schema.ts"
import type { MovedRecording } from "./cassette/moved.ts"
import { CassetteUse } from "./cassette/used.ts"
import { CassetteRepeat, replayFile } from "./cassette/repeat.ts"
import { noteFinish, readCompletion, recordedProblem, recordUsage } from "./completion.ts"
import { CassetteInvalid, CassetteMissing, ModelError } from "./ModelError.ts"
import { RecordHint } from "./recordHint.ts"
import { StrictReplay } from "./strictReplay.ts"
import { emitWhole } from "./streamSink.ts"
import { displayUrl } from "../core/urls.ts"

const movedHint = (moved: ReadonlyArray<MovedRecording>, requested: string): string => {
  const list = moved.map((m) => `'${m.path}' (recorded for ${m.recordedUrl})`).join(", ")
  return moved.length === 1
    ? `${list} matches everything but the base URL (requested ${requested}), and --strict-replay refuses it`
    : `${moved.length} recordings match everything but the base URL (requested ${requested}): ${list}; ` +
      "lait cannot tell which one to replay"
}

/** A cassette read once, and what it answered the endpoint that last asked (the same for every call). */
interface Kept {
  readonly cassette: Cassette
  answered?: { readonly endpoint: Endpoint; readonly result: ModelResult }
}

export const makeReplay = (dir: string): Effect.Effect<ModelClientService, never, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    const strict = yield* StrictReplay
    const memo = makeCassetteMemo<Kept>()
    const versionAt = files.statIfAny

    /** No file for the call's key: the one recording made for another base URL, or a miss. */
    const elsewhere = Effect.fnUntraced(function*(call: ModelCall, path: string) {
      // Only a miss searches the directory: a replay that finds its files never loads the search.
      const [moved, diff] = yield* Effect.promise(() =>
        Promise.all([import("./cassette/moved.ts"), import("./cassette/diff.ts")])
      )
      const recordings = yield* moved.movedRecordings(dir, keyInputOf(call))
      const requested = displayUrl(call.endpoints[0].baseUrl)
      if (recordings.length === 1 && !strict) {
        const found = recordings[0]!
        yield* Console.error(`note: replayed ${found.path} recorded for ${found.recordedUrl} (requested ${requested})`)
        return { path: found.path, version: yield* versionAt(found.path) }
      }
      const hint = recordings.length > 0
        ? movedHint(recordings, requested)
        : yield* diff.closestRecording(dir, keyInputOf(call))
      const record = yield* RecordHint
      return yield* new ModelError({
        reason: new CassetteMissing({
          path,
          dir,
          modelId: call.endpoints[0].modelId,
          record: { command: record.command(dir, false), same: record.same },
          ...(hint === undefined ? {} : { hint })
        })
      })
    })

    /** Reads and decodes the file (again, when it changed), and keeps what it answers. */
    const readAnswer = Effect.fnUntraced(function*(call: ModelCall, path: string, version: FileVersion | undefined) {
      const endpoint = call.endpoints[0]
      const invalid = (stage: "read" | "parse", problem: string) =>
        new ModelError({ reason: new CassetteInvalid({ path, stage, problem }) })
      let entry = version === undefined ? undefined : memo.get(path, version)
      if (entry === undefined) {
        const text = yield* files.readText(path).pipe(
          // The loader's message names the path again; only its reason goes after ours.
          Effect.mapError((e) => invalid("read", causeDetail(e)))
        )
        const cassette = (yield* Effect.promise(() => import("./cassette/schema.ts"))).decodeCassette(text)
        if (cassette === undefined) return yield* invalid("parse", cassetteProblem(text))
        entry = { cassette }
        if (version !== undefined) memo.set(path, version, entry, text.length)
      }
      // Nothing was asked of a server here: the file is at fault (exit 1, not a model API error's 4).
      const read = yield* readCompletion(entry.cassette.response, endpoint, "replay")
      if ("problem" in read) return yield* invalid("parse", recordedProblem(read.problem))
      entry.answered = { endpoint, result: read.result }
      return read.result
    })

    /** The file's answer: what it answered this endpoint before while it is unchanged, else read. */
    const answerOf = (call: ModelCall, path: string, version: FileVersion | undefined) => {
      const answered = version === undefined ? undefined : memo.get(path, version)?.answered
      if (answered?.endpoint === call.endpoints[0]) return Effect.succeed(answered.result)
      return readAnswer(call, path, version)
    }

    return {
      complete: Effect.fnUntraced(function*(call: ModelCall) {
        const path = yield* replayFile(files, dir, callKey(call), yield* CassetteRepeat)
        const version = yield* versionAt(path)
        const found = version !== undefined
          ? { path, version }
          : yield* Effect.provideService(elsewhere(call, path), FileLoader, files)
        ;(yield* CassetteUse).used(found.path)
        const result = yield* answerOf(call, found.path, found.version)
        yield* recordUsage(call.label, result)
        yield* noteFinish(call, result)
        yield* emitWhole(result)
        return result
      }, (effect, call) => traceChat(call, "replay", effect))
    }
  })
