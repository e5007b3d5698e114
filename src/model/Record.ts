// The record layer: writes every answer of another ModelClient as the cassette `<dir>/<key>.json`.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { FileLoader } from "../platform/FileLoader.ts"
import type { ModelCall, ModelClientService } from "./call.ts"
import { assertNoSecret, cassetteBody } from "./cassette/format.ts"
import { callKey } from "./cassette/key.ts"

/** Decorates `inner`. */
export const makeRecord = (
  inner: ModelClientService,
  dir: string
): Effect.Effect<ModelClientService, never, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    return {
      complete: Effect.fn("ModelClient.record")(function*(call: ModelCall) {
        const result = yield* inner.complete(call)
        const path = nodePath.join(dir, `${callKey(call)}.json`)
        const body = yield* cassetteBody(call, result, `cassette '${path}'`)
        yield* assertNoSecret(body, result.endpoint, `cassette '${path}'`)
        yield* files.writeAtomic(path, body)
        return result
      })
    }
  })
