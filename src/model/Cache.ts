// The cache layer: `.lait/cache/<key>.json` in front of another ModelClient. A hit answers without a
// request and adds no tokens to the run's usage; any unreadable, stale or bad entry is a miss. The
// entries are private files reached without following symlinks (platform/privateState.ts): a `.lait`,
// `.lait/cache` or entry that is a link fails the request instead, since answering from (or writing
// into) wherever it points is not what `--cache` means.
import { Console, Effect } from "effect"
import * as nodePath from "node:path"
import { FileLoader } from "../platform/FileLoader.ts"
import * as State from "../platform/privateState.ts"
import { recordChat } from "./chatSpan.ts"
import type { Endpoint, ModelCall, ModelClientService } from "./call.ts"
import { assertNoSecret, nowRfc3339 } from "./cassette/format.ts"
import { entryBody } from "./cassette/entryText.ts"
import { callKey } from "./cassette/key.ts"
import { interpret, noteFinish } from "./completion.ts"
import { RunUsage } from "./RunUsage.ts"
import { emitWhole } from "./streamSink.ts"

export interface CacheOptions {
  readonly dir: string
  /** Seconds; undefined = never expires. */
  readonly ttl?: number | undefined
}

/** Decorates `inner`. */
export const makeCache = (
  inner: ModelClientService,
  options: CacheOptions
): Effect.Effect<ModelClientService, never, FileLoader> =>
  Effect.gen(function*() {
    const loader = yield* FileLoader
    // The entry's schema (and Effect Schema) loads with the first entry read.
    const decode = (text: string) =>
      Effect.promise(() => import("./cassette/schema.ts")).pipe(Effect.map((s) => s.decodeCachedEntry(text)))
    const lookup = (path: string, endpoint: Endpoint) =>
      State.readPrivateText(path).pipe(
        Effect.provideService(FileLoader, loader),
        Effect.flatMap(decode),
        Effect.flatMap((entry) => {
          if (entry === undefined) return Effect.succeed(undefined)
          const created = Date.parse(entry.created_at)
          if (Number.isNaN(created)) return Effect.succeed(undefined)
          const age = (Date.now() - created) / 1000
          if (age < 0 || (options.ttl !== undefined && Math.floor(age) > options.ttl)) {
            return Effect.succeed(undefined)
          }
          return interpret(entry.response, endpoint, "cache").pipe(Effect.orElseSucceed(() => undefined))
        }),
        // Any read problem is a miss: the cache is an optimisation, never a reason to fail.
        Effect.orElseSucceed(() => undefined)
      )
    return {
      complete: Effect.fnUntraced(function*(call: ModelCall) {
        const path = nodePath.join(options.dir, `${callKey(call)}.json`)
        const started = new Date()
        yield* State.refuseLinkedPath(path)
        const hit = yield* lookup(path, call.endpoints[0])
        if (hit !== undefined) {
          yield* recordChat(call, hit, started)
          yield* RunUsage.use((u) => u.recordCacheHit)
          yield* Console.error(`note: cache hit for ${call.label}`)
          yield* noteFinish(call, hit)
          yield* emitWhole(hit)
          return hit
        }
        const result = yield* inner.complete(call)
        yield* entryBody({ created_at: nowRfc3339() }, result.raw, "a cache entry").pipe(
          Effect.tap((body) => assertNoSecret(body, result.endpoint, "a cache entry")),
          Effect.flatMap((body) => Effect.try({ try: () => State.writePrivateFile(path, body), catch: (e) => e })),
          Effect.catch((e) => Effect.logDebug(`cache write skipped: ${e instanceof Error ? e.message : String(e)}`))
        )
        return result
      })
    }
  })
