// The replay layer: answers only from the cassettes `<dir>/<key>.json` and never touches the network.
// A miss names the closest recording and where it differs (src/model/cassette/diff.ts).
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { LaitError } from "../core/errors.ts"
import { FileLoader } from "../core/FileLoader.ts"
import { traceChat } from "../trace/chat.ts"
import type { ModelCall, ModelClientService } from "./call.ts"
import { closestRecording } from "./cassette/diff.ts"
import { Cassette, cassetteProblem } from "./cassette/format.ts"
import { callKey, keyInputOf } from "./cassette/key.ts"
import { readCompletion, recordedProblem, recordUsage } from "./completion.ts"

export const makeReplay = (dir: string): Effect.Effect<ModelClientService, never, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    const decode = Schema.decodeUnknownExit(Schema.fromJsonString(Cassette))
    return {
      complete: Effect.fn("ModelClient.replay")(function*(call: ModelCall) {
        const key = callKey(call)
        const path = nodePath.join(dir, `${key}.json`)
        if (!fs.existsSync(path)) {
          const primary = call.endpoints[0]
          const hint = closestRecording(dir, keyInputOf(call))
          return yield* new LaitError({
            message: `no recorded cassette for this request (model '${primary.modelId}') at '${path}'; ` +
              `run \`lait run --record ${dir}\` first against the same workflow/input/vars, ` +
              `or check that they still match this recording` + (hint === undefined ? "" : `; ${hint}`)
          })
        }
        const text = yield* files.readText(path).pipe(
          Effect.mapError((e) =>
            new LaitError({ message: `failed to read cassette '${path}'`, cause: e.cause ?? e.message })
          )
        )
        const exit = decode(text)
        if (exit._tag === "Failure") {
          return yield* new LaitError({
            message: `failed to parse cassette entry '${path}'`,
            cause: cassetteProblem(text)
          })
        }
        // Nothing was asked of a server here: the file is at fault (exit 1, not a model API error's 4).
        const read = readCompletion(exit.value.response, call.endpoints[0], "replay")
        if ("problem" in read) {
          return yield* new LaitError({
            message: `failed to parse cassette entry '${path}'`,
            cause: recordedProblem(read.problem)
          })
        }
        yield* recordUsage(call.label, read.result)
        return read.result
      }, (effect, call) => traceChat(call, "replay", effect))
    }
  })
