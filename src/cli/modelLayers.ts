// The one place that turns flags and config into a ModelClient stack:
//   --replay DIR          → Replay (never the network)
//   --record DIR          → Record ∘ Live (the cache is bypassed while recording)
//   --cache/default.cache → Cache ∘ Live
//   otherwise             → Live
import * as nodePath from "node:path"
import { Effect, Layer } from "effect"
import { UsageError } from "../core/errors.ts"
import { FileLoader } from "../core/FileLoader.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { ModelClient } from "../model/ModelClient.ts"
import { CACHE_DIR } from "./cache.ts"
import { globalOptions } from "./global.ts"

export interface ModelModeOptions {
  readonly record?: string | undefined
  readonly replay?: string | undefined
}

export const modelClientLayer = (options: ModelModeOptions) =>
  Layer.unwrap(
    Effect.gen(function*() {
      if (options.record !== undefined && options.replay !== undefined) {
        return yield* new UsageError({ message: "the argument '--record <DIR>' cannot be used with '--replay <DIR>'" })
      }
      const files = FileLoader.layer
      if (options.replay !== undefined) {
        yield* Effect.logDebug(`model: replaying from '${options.replay}'`)
        return ModelClient.layerReplay(options.replay).pipe(Layer.provide(files))
      }
      const live = ModelClient.layerLive()
      if (options.record !== undefined) {
        yield* Effect.logDebug(`model: recording to '${options.record}'`)
        return ModelClient.layerRecord(options.record).pipe(Layer.provide(live), Layer.provide(files))
      }
      const { config } = yield* LaitConfig
      const flags = yield* globalOptions
      if (flags.cache ?? config.default?.cache ?? false) {
        const dir = nodePath.resolve(CACHE_DIR)
        yield* Effect.logDebug(`model: response cache at '${dir}'`)
        return ModelClient.layerCache({ dir, ttl: config.default?.cache_ttl }).pipe(Layer.provide(live), Layer.provide(files))
      }
      return live
    })
  )
