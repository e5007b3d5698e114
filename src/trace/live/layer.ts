// How `lait run`, `lait test` and `lait eval` get live OTLP export: this layer reads the OTEL_*
// environment when the command starts and, only when it names a collector, loads the exporter
// (a dynamic import, so commands that export nothing never evaluate effect/observability).
import { Effect, Layer } from "effect"
import type { HttpClient } from "effect/http"
import { liveExportSettings } from "./env.ts"

export const liveExportLayer: Layer.Layer<never, never, HttpClient.HttpClient> = Layer.unwrap(
  Effect.suspend(() => {
    const settings = liveExportSettings(process.env)
    if (settings === undefined) return Effect.succeed(Layer.empty)
    return Effect.map(Effect.promise(() => import("./exporter.ts")), (exporter) => exporter.layer(settings))
  })
)
