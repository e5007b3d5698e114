// The record layer: writes every answer of another ModelClient as the cassette `<dir>/<key>.json`
// (`<key>.r<i>.json` in repeat i of an eval: ./cassette/repeat.ts).
import { Effect } from "effect"
import { FileLoader } from "../platform/FileLoader.ts"
import type { ModelCall, ModelClientService } from "./call.ts"
import { assertNoSecret, cassetteBody } from "./cassette/format.ts"
import { callKey } from "./cassette/key.ts"
import { CassetteRepeat, cassetteFile } from "./cassette/repeat.ts"

/** Decorates `inner`. */
export const makeRecord = (
  inner: ModelClientService,
  dir: string
): Effect.Effect<ModelClientService, never, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    return {
      complete: Effect.fnUntraced(function*(call: ModelCall) {
        const result = yield* inner.complete(call)
        const path = cassetteFile(dir, callKey(call), yield* CassetteRepeat)
        const body = yield* cassetteBody(call, result, `cassette '${path}'`)
        yield* assertNoSecret(body, result.endpoint, `cassette '${path}'`)
        yield* files.writeAtomic(path, body)
        return result
      })
    }
  })
