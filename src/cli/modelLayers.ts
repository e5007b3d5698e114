// The one place that turns flags and config into a ModelClient stack:
//   --replay DIR          → Replay (never the network; --strict-replay: exact keys only)
//   --record DIR          → Record ∘ Live (the cache is bypassed while recording)
//   --record-missing DIR  → RecordMissing ∘ Live (replayed where a cassette exists; no cache either)
//   --cache/default.cache → Cache ∘ Live
//   otherwise             → Live
// Live retries each endpoint before falling back: LAIT_HTTP_ATTEMPTS tries (default 3), waiting
// LAIT_HTTP_BACKOFF_MS (default 250) and doubling after each failure. Each try may take
// LAIT_HTTP_TIMEOUT_MS (else `default.request_timeout` seconds, else 300 s); a response body may be
// LAIT_MAX_RESPONSE_BYTES long (default 16 MiB, the file read limit).
import { Duration, Effect, Layer } from "effect"
import * as nodePath from "node:path"
import { LaitConfig } from "../config/LaitConfig.ts"
import type { Env } from "../config/env.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { type LiveOptions, ModelClient } from "../model/ModelClient.ts"
import { ModelHttp } from "../model/ModelHttp.ts"
import { StrictReplay } from "../model/strictReplay.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import { globalOptions } from "./settings.ts"

export interface ModelModeOptions {
  readonly record?: string | undefined
  readonly replay?: string | undefined
  readonly strictReplay?: boolean | undefined
  readonly recordMissing?: string | undefined
}

/** Where `--cache` keeps answers (`lait cache clear` empties it). */
export const CACHE_DIR = nodePath.join(".lait", "cache")

const envInteger = (env: Env, name: string, min: number, max: number) =>
  Effect.gen(function*() {
    const raw = env[name]
    if (raw === undefined || raw === "") return undefined
    const value = Number(raw.trim())
    if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
      return yield* new ArgumentError({ reason: { _tag: "EnvOutOfRange", name, raw, min, max } })
    }
    return value
  })

const liveOptions = Effect.gen(function*() {
  const { config, env } = yield* LaitConfig
  const attempts = yield* envInteger(env, "LAIT_HTTP_ATTEMPTS", 1, 10)
  const backoffMs = yield* envInteger(env, "LAIT_HTTP_BACKOFF_MS", 0, 60_000)
  const timeoutMs = yield* envInteger(env, "LAIT_HTTP_TIMEOUT_MS", 1, 86_400_000)
  const maxResponseBytes = yield* envInteger(env, "LAIT_MAX_RESPONSE_BYTES", 1, 1024 ** 3)
  const timeoutSeconds = config.default?.request_timeout
  const timeout = timeoutMs !== undefined
    ? Duration.millis(timeoutMs)
    : timeoutSeconds !== undefined
    ? Duration.seconds(timeoutSeconds)
    : undefined
  return {
    ...(attempts !== undefined ? { attempts } : {}),
    ...(backoffMs !== undefined ? { backoff: Duration.millis(backoffMs) } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
    ...(maxResponseBytes !== undefined ? { maxResponseBytes } : {})
  } satisfies LiveOptions
})

/** The live client over `fetch`, as every test of it runs it too (src/model/ModelClient.ts). */
const liveLayer = (options: LiveOptions): Layer.Layer<ModelClient> =>
  ModelClient.layerLive(options).pipe(Layer.provide(ModelHttp.layer))

export const modelClientLayer = (options: ModelModeOptions) =>
  Layer.unwrap(
    Effect.gen(function*() {
      if (options.record !== undefined && options.replay !== undefined) {
        const reason = { _tag: "Conflict", flag: "--record <DIR>", other: "--replay <DIR>" } as const
        return yield* new ArgumentError({ reason })
      }
      if (options.strictReplay === true && options.replay === undefined) {
        const reason = { _tag: "Requires", flag: "--strict-replay", needs: "--replay <DIR>" } as const
        return yield* new ArgumentError({ reason })
      }
      if (options.recordMissing !== undefined && (options.record !== undefined || options.replay !== undefined)) {
        const other = options.record !== undefined ? "--record <DIR>" : "--replay <DIR>"
        return yield* new ArgumentError({ reason: { _tag: "Conflict", flag: "--record-missing <DIR>", other } })
      }
      if (options.replay !== undefined) {
        yield* Effect.logDebug(`model: replaying from '${options.replay}'`)
        return ModelClient.layerReplay(options.replay).pipe(
          Layer.provide(Layer.succeed(StrictReplay, options.strictReplay === true))
        )
      }
      const live = liveLayer(yield* liveOptions)
      if (options.record !== undefined) {
        yield* Effect.logDebug(`model: recording to '${options.record}'`)
        return ModelClient.layerRecord(options.record).pipe(Layer.provide(live))
      }
      if (options.recordMissing !== undefined) {
        yield* Effect.logDebug(`model: replaying from '${options.recordMissing}', recording what it lacks`)
        return ModelClient.layerRecordMissing(options.recordMissing).pipe(Layer.provide(live))
      }
      const { config } = yield* LaitConfig
      const flags = yield* globalOptions
      if (flags.cache ?? config.default?.cache ?? false) {
        const dir = nodePath.resolve(CACHE_DIR)
        yield* Effect.logDebug(`model: response cache at '${dir}'`)
        return ModelClient.layerCache({ dir, ttl: config.default?.cache_ttl }).pipe(Layer.provide(live))
      }
      return live
    })
  )

/** What `lait test --record` / `--record-missing` record into each test file's own `replay:` directory. */
export type RecordingMode = "all" | "missing"

/**
 * The ModelClient of each test file under `lait test --record[-missing]`: one live client (with the
 * same retries and timeouts as `lait run`) shared by the suite, recording into the file's directory.
 */
export const recordingClients = (mode: RecordingMode) =>
  Effect.gen(function*() {
    const client = yield* Effect.provide(ModelClient.use(Effect.succeed), liveLayer(yield* liveOptions))
    const live = Layer.succeed(ModelClient, client)
    return (dir: string): Layer.Layer<ModelClient, never, FileLoader> =>
      (mode === "all" ? ModelClient.layerRecord(dir) : ModelClient.layerRecordMissing(dir)).pipe(Layer.provide(live))
  })
