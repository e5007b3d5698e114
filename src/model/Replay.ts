// The replay layer: answers only from the cassettes `<dir>/<key>.json` and never touches the network.
// A miss first looks for the one recording that differs only in the base URL (src/model/cassette/
// moved.ts) and replays it with a note, unless StrictReplay; otherwise it names the closest recording
// and where it differs (src/model/cassette/diff.ts). In repeat i of an eval, `<key>.r<i>.json` answers
// when it exists (src/model/cassette/repeat.ts). Every file read is reported to CassetteUse.
import { Console, Effect } from "effect"
import { causeDetail } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { traceChat } from "./chatSpan.ts"
import type { ModelCall, ModelClientService } from "./call.ts"
import { cassetteProblem } from "./cassette/format.ts"
import { callKey, keyInputOf } from "./cassette/key.ts"
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

export const makeReplay = (dir: string): Effect.Effect<ModelClientService, never, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    const strict = yield* StrictReplay
    return {
      complete: Effect.fnUntraced(function*(call: ModelCall) {
        let path = yield* replayFile(dir, callKey(call), yield* CassetteRepeat)
        const exact = yield* files.exists(path)
        // Only a miss searches the directory: a replay that finds its files never loads the search.
        const search = exact
          ? undefined
          : yield* Effect.promise(() => Promise.all([import("./cassette/moved.ts"), import("./cassette/diff.ts")]))
        const moved = search === undefined ? [] : yield* search[0].movedRecordings(dir, keyInputOf(call))
        const requested = displayUrl(call.endpoints[0].baseUrl)
        if (moved.length === 1 && !strict) {
          path = moved[0]!.path
          yield* Console.error(`note: replayed ${path} recorded for ${moved[0]!.recordedUrl} (requested ${requested})`)
        } else if (!exact) {
          const hint = moved.length > 0
            ? movedHint(moved, requested)
            : yield* search![1].closestRecording(dir, keyInputOf(call))
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
        }
        const use = yield* CassetteUse
        use.used(path)
        const invalid = (stage: "read" | "parse", problem: string) =>
          new ModelError({ reason: new CassetteInvalid({ path, stage, problem }) })
        const text = yield* files.readText(path).pipe(
          // The loader's message names the path again; only its reason goes after ours.
          Effect.mapError((e) => invalid("read", causeDetail(e)))
        )
        const cassette = (yield* Effect.promise(() => import("./cassette/schema.ts"))).decodeCassette(text)
        if (cassette === undefined) return yield* invalid("parse", cassetteProblem(text))
        // Nothing was asked of a server here: the file is at fault (exit 1, not a model API error's 4).
        const read = yield* readCompletion(cassette.response, call.endpoints[0], "replay")
        if ("problem" in read) return yield* invalid("parse", recordedProblem(read.problem))
        yield* recordUsage(call.label, read.result)
        yield* noteFinish(call, read.result)
        yield* emitWhole(read.result)
        return read.result
      }, (effect, call) => traceChat(call, "replay", Effect.provideService(effect, FileLoader, files)))
    }
  })
