// The trace-propagation headers (b3, traceparent) Effect's HTTP client adds to a request, for the
// model requests of a traced run (a trace file, --trace-dir, live OTLP export; docs/traces.md), which
// ModelHttp sends without that client (./ModelHttp.ts): servers and collectors join their traces to
// lait's through them; an untraced run sends none. Made as the client makes them: a client span
// under the current span, its name from the client's SpanNameGenerator, none when propagation is
// off. The client's settings are context references, which are found by key; the ones here have the
// client's keys and defaults, so whatever a caller provides for Effect's client applies here too,
// without loading the client.
import { Context, Effect, Tracer } from "effect"
import { TraceWritten } from "../core/tracing.ts"

/** What a settings function of the client is given: the request's method and URL. */
export interface PropagatedRequest {
  readonly method: string
  readonly url: string
}

/** The client's `HttpClient.TracerDisabledWhen`: no client span (so no headers) for these requests. */
export const TracerDisabledWhen = Context.Reference<(request: PropagatedRequest) => boolean>(
  "effect/http/HttpClient/TracerDisabledWhen",
  { defaultValue: () => () => false }
)

/** The client's `HttpClient.TracerPropagationEnabled`. */
export const TracerPropagationEnabled = Context.Reference<boolean>(
  "effect/http/HttpClient/TracerPropagationEnabled",
  { defaultValue: () => true }
)

/** The client's `HttpClient.SpanNameGenerator`. */
export const SpanNameGenerator = Context.Reference<(request: PropagatedRequest) => string>(
  "effect/http/HttpClient/SpanNameGenerator",
  { defaultValue: () => (request) => request.method }
)

/** Whether the current run's trace goes anywhere: a trace file or directory, or live OTLP export. */
export const runTraced: Effect.Effect<boolean> = Effect.withFiber((fiber) =>
  Effect.succeed(fiber.getRef(TraceWritten))
)

/** The headers of `span`, exactly as effect/http's `HttpTraceContext.toHeaders` writes them. */
const propagationHeaders = (span: Tracer.Span): Record<string, string> => ({
  b3: `${span.traceId}-${span.spanId}-${span.sampled ? "1" : "0"}${
    span.parent._tag === "Some" ? `-${span.parent.value.spanId}` : ""
  }`,
  traceparent: `00-${span.traceId.padStart(32, "0")}-${span.spanId}-${span.sampled ? "01" : "00"}`
})

/** The headers the HTTP client's span would add to `request` under the current settings (none: `{}`). */
export const tracePropagation = (request: PropagatedRequest): Effect.Effect<Record<string, string>> =>
  Effect.withFiber((fiber) => {
    const off = fiber.getRef(Tracer.DisablePropagation) || fiber.getRef(TracerDisabledWhen)(request)
    if (!fiber.getRef(TraceWritten) || off) {
      return Effect.succeed({})
    }
    return Effect.map(
      Effect.makeSpan(fiber.getRef(SpanNameGenerator)(request), { kind: "client" }),
      // The client makes its span when propagation is off too; only the headers are left out.
      (span) => (fiber.getRef(TracerPropagationEnabled) ? propagationHeaders(span) : {})
    )
  })
