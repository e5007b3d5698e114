// The replay layer: answers only from the cassettes `<dir>/<key>.json` and never touches the network.
// A miss names the closest recording and where it differs (src/model/cassette/diff.ts). In repeat i
// of an eval, `<key>.r<i>.json` answers when it exists (src/model/cassette/repeat.ts).
import { Effect, Schema } from "effect"
import * as Files from "../platform/files.ts"
import { renderChain } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { traceChat } from "./chatSpan.ts"
import type { ModelCall, ModelClientService } from "./call.ts"
import { closestRecording } from "./cassette/diff.ts"
import { Cassette, cassetteProblem } from "./cassette/format.ts"
import { callKey, keyInputOf } from "./cassette/key.ts"
import { CassetteRepeat, replayFile } from "./cassette/repeat.ts"
import { readCompletion, recordedProblem, recordUsage } from "./completion.ts"
import { CassetteInvalid, CassetteMissing, ModelError } from "./ModelError.ts"

export const makeReplay = (dir: string): Effect.Effect<ModelClientService, never, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    const decode = Schema.decodeUnknownExit(Schema.fromJsonString(Cassette))
    return {
      complete: Effect.fn("ModelClient.replay")(function*(call: ModelCall) {
        const key = callKey(call)
        const path = replayFile(dir, key, yield* CassetteRepeat)
        if (!Files.exists(path)) {
          const hint = closestRecording(dir, keyInputOf(call))
          return yield* new ModelError({
            reason: new CassetteMissing({
              path,
              dir,
              modelId: call.endpoints[0].modelId,
              ...(hint === undefined ? {} : { hint })
            })
          })
        }
        const invalid = (stage: "read" | "parse", problem: string) =>
          new ModelError({ reason: new CassetteInvalid({ path, stage, problem }) })
        const text = yield* files.readText(path).pipe(
          // The loader's message names the path again; only its reason goes after ours.
          Effect.mapError((e) => invalid("read", e.cause === undefined ? e.message : renderChain(e.cause)))
        )
        const exit = decode(text)
        if (exit._tag === "Failure") return yield* invalid("parse", cassetteProblem(text))
        // Nothing was asked of a server here: the file is at fault (exit 1, not a model API error's 4).
        const read = readCompletion(exit.value.response, call.endpoints[0], "replay")
        if ("problem" in read) return yield* invalid("parse", recordedProblem(read.problem))
        yield* recordUsage(call.label, read.result)
        return read.result
      }, (effect, call) => traceChat(call, "replay", effect))
    }
  })
