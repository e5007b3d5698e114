// How `lait run`, `lait test` and `lait eval` get live OTLP export: this layer looks at the OTEL_*
// environment when the command starts and, only when it names an endpoint, loads the parsing and the
// exporter (dynamic imports, so commands that export nothing never evaluate effect/observability),
// with the exporter's own HTTP client (so that they never evaluate effect/http's client either).
import { Effect, Layer } from "effect"
import { processEnv } from "../../config/environment.ts"

const ENDPOINTS = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]

export const liveExportLayer: Layer.Layer<never> = Layer.unwrap(
  Effect.suspend(() => {
    const environment = processEnv()
    if (!ENDPOINTS.some((name) => (environment[name] ?? "").trim() !== "")) return Effect.succeed(Layer.empty)
    return Effect.promise(() => Promise.all([import("./env.ts"), import("./exporter.ts")])).pipe(
      Effect.map(([env, exporter]) => {
        const settings = env.liveExportSettings(environment)
        return settings === undefined ? Layer.empty : exporter.layerFetch(settings)
      })
    )
  })
)
