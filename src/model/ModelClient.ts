// The single choke point for every model request: the service, and its layers as statics.
//   layerLive    — HTTP to the OpenAI-compatible endpoints, retries, then fallbacks in order (Live.ts)
//   layerCache   — `.lait/cache/<key>.json` in front of another ModelClient; hits skip usage (Cache.ts)
//   layerRecord  — writes every answer of another ModelClient as `<dir>/<key>.json` (Record.ts)
//   layerReplay  — answers only from `<dir>/<key>.json`; never touches the network (Replay.ts)
//   layerRecordMissing — Replay where a cassette exists, else Record of another ModelClient (RecordMissing.ts)
// Per-run accounting (RunUsage) is required per call, so one client serves concurrent runs; each call
// is one `chat` span (./chatSpan.ts, created by the layer that answered), which the run's Tracer records.
import { Context, Layer } from "effect"
import type { HttpClient } from "effect/http"
import type { FileLoader } from "../platform/FileLoader.ts"
import { type CacheOptions, makeCache } from "./Cache.ts"
import type { ModelClientService } from "./call.ts"
import { type LiveOptions, makeLive } from "./Live.ts"
import { makeRecord } from "./Record.ts"
import { makeRecordMissing } from "./RecordMissing.ts"
import { makeReplay } from "./Replay.ts"

export type { CacheOptions } from "./Cache.ts"
export type { Endpoint, ModelCall, ModelClientService, ModelResult, Source } from "./call.ts"
export type { LiveOptions } from "./Live.ts"

export class ModelClient extends Context.Service<ModelClient, ModelClientService>()("lait/model/ModelClient") {
  static readonly layerLive = (options: LiveOptions = {}): Layer.Layer<ModelClient, never, HttpClient.HttpClient> =>
    Layer.effect(ModelClient, makeLive(options))

  /** Decorates the ModelClient it is provided with. */
  static readonly layerCache = (options: CacheOptions): Layer.Layer<ModelClient, never, ModelClient | FileLoader> =>
    Layer.effect(ModelClient, ModelClient.use((inner) => makeCache(inner, options)))

  /** Decorates the ModelClient it is provided with. */
  static readonly layerRecord = (dir: string): Layer.Layer<ModelClient, never, ModelClient | FileLoader> =>
    Layer.effect(ModelClient, ModelClient.use((inner) => makeRecord(inner, dir)))

  /** Decorates the ModelClient it is provided with (asked only for requests without a cassette). */
  static readonly layerRecordMissing = (dir: string): Layer.Layer<ModelClient, never, ModelClient | FileLoader> =>
    Layer.effect(ModelClient, ModelClient.use((inner) => makeRecordMissing(inner, dir)))

  static readonly layerReplay = (dir: string): Layer.Layer<ModelClient, never, FileLoader> =>
    Layer.effect(ModelClient, makeReplay(dir))
}
