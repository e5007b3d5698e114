// The single choke point for every model request: the service, and its layers as statics.
//   layerLive    — HTTP to the OpenAI-compatible endpoints through ModelHttp (./ModelHttp.ts: `fetch`
//                  in production and against test servers, in memory in unit tests), retries, then
//                  fallbacks in order (Live.ts)
//   layerCache   — `.lait/cache/<key>.json` in front of another ModelClient; hits skip usage (Cache.ts)
//   layerRecord  — writes every answer of another ModelClient as `<dir>/<key>.json` (Record.ts)
//   layerReplay  — answers only from `<dir>/<key>.json`; never touches the network (Replay.ts)
//   layerRecordMissing — Replay where a cassette exists, else Record of another ModelClient (RecordMissing.ts)
// Per-run accounting (RunUsage) is required per call, so one client serves concurrent runs; each call
// is one `chat` span (./chatSpan.ts, created by the layer that answered), which the run's Tracer records.
// Each layer loads its implementation when it is built: the command line declares them all, and a
// command that asks no model (`lait --version`, `lait lint`) must not pay for HTTP, cassettes or retries.
import { Context, Effect, Layer } from "effect"
import type { FileLoader } from "../platform/FileLoader.ts"
import type { CacheOptions } from "./Cache.ts"
import type { ModelClientService } from "./call.ts"
import type { LiveOptions } from "./Live.ts"
import { ModelHttp } from "./ModelHttp.ts"

export type { CacheOptions } from "./Cache.ts"
export type { Endpoint, ModelCall, ModelClientService, ModelResult, Source } from "./call.ts"
export type { LiveOptions } from "./Live.ts"

export class ModelClient extends Context.Service<ModelClient, ModelClientService>()("lait/model/ModelClient") {
  /**
   * Loaded and built on the first request: its retry and response-reading code are a run's to pay
   * only when it asks a model (a workflow of jq and `run` steps never does). Built once.
   */
  static readonly layerLive = (options: LiveOptions = {}): Layer.Layer<ModelClient, never, ModelHttp> =>
    Layer.effect(
      ModelClient,
      Effect.gen(function*() {
        const http = yield* ModelHttp
        const client = yield* Effect.cached(
          Effect.flatMap(Effect.promise(() => import("./Live.ts")), (m) => m.makeLive(options, http))
        )
        // Once built, calls go straight to it: the cached effect costs a few operations per request.
        let built: ModelClientService | undefined
        return ModelClient.of({
          complete: (call) =>
            built !== undefined ? built.complete(call) : Effect.flatMap(client, (c) => (built = c).complete(call))
        })
      })
    )

  /** Decorates the ModelClient it is provided with. */
  static readonly layerCache = (options: CacheOptions) =>
    decorator(() => import("./Cache.ts"), (m, inner) => m.makeCache(inner, options))

  /** Decorates the ModelClient it is provided with. */
  static readonly layerRecord = (dir: string) =>
    decorator(() => import("./Record.ts"), (m, inner) => m.makeRecord(inner, dir))

  /** Decorates the ModelClient it is provided with (asked only for requests without a cassette). */
  static readonly layerRecordMissing = (dir: string) =>
    decorator(() => import("./RecordMissing.ts"), (m, inner) => m.makeRecordMissing(inner, dir))

  static readonly layerReplay = (dir: string): Layer.Layer<ModelClient, never, FileLoader> =>
    Layer.effect(ModelClient, Effect.flatMap(Effect.promise(() => import("./Replay.ts")), (m) => m.makeReplay(dir)))
}

/**
 * A layer that decorates the ModelClient it is provided with: `load` imports the decorator's module
 * when the layer is built, `make` wraps the inner client with it.
 */
const decorator = <M>(
  load: () => Promise<M>,
  make: (module: M, inner: ModelClientService) => Effect.Effect<ModelClientService, never, FileLoader>
): Layer.Layer<ModelClient, never, ModelClient | FileLoader> =>
  Layer.effect(ModelClient, Effect.flatMap(Effect.promise(load), (m) => ModelClient.use((inner) => make(m, inner))))
