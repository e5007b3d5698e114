// Live OTLP export (docs/traces.md#live-export): every trace span a run records is sent to the
// collector the OTEL_* environment names, as it ends, batched, over OTLP/HTTP JSON. Loaded only
// when that environment is set (src/trace/live/layer.ts).
//
// Effect's own exporter, not @effect/opentelemetry (4.1 with the OpenTelemetry SDK 2): a compiled lait
// with each was measured. The SDK made the binary 1.2 MB larger, a command that exports used ~20%
// more CPU and 5 MiB more memory to start, and its shutdown waited ~3 s even with nothing to send;
// its Tracer would also be replaced inside every run by the run's collector (RunTracer). Of Effect's
// exporter only the transport is used (OtlpExporter: batching, interval, retries of transient
// failures, the bounded flush at shutdown); the spans are encoded as `lait trace export` encodes them
// (src/trace/otlp.ts), since OtlpTracer sends every Effect span, under its Effect name.
//
// The tree: a run's spans keep the parents they have in the run (its collector's span ids), a run's
// root hangs under the `liveRoot` around it (a test file, an eval run), and each top span starts a
// trace of its own, so an eval's runs are separate traces though they share one process.
import { Console, Context, Duration, Effect, Exit, Layer, Option, Scope, type Tracer } from "effect"
import { FetchHttpClient, HttpBody, HttpClient, HttpClientError, type HttpClientRequest } from "effect/http"
import { OtlpExporter } from "effect/observability"
import { describeNetworkFailure } from "../../core/network.ts"
import { headerSecrets, redactSecrets } from "../../core/secrets.ts"
import { TraceWritten } from "../../core/tracing.ts"
import { displayUrl, urlCredentials } from "../../core/urls.ts"
import { VERSION } from "../../version.ts"
import { fromRecorded } from "../file.ts"
import { compactJson, fromJs } from "../json.ts"
import { type LiveRoot, LiveRootEntry, type LiveSink, LiveSpans } from "../LiveSpans.ts"
import { eventSpanFields, type OtlpAttribute, otlpRequest, otlpSpan, SPAN_KIND_INTERNAL, statusText } from "../otlp.ts"
import { isRunSpan } from "../RunTracer.ts"
import type { OtlpEnv } from "./env.ts"
import { registerSecrets } from "../../config/secrets.ts"
import { redact } from "../../core/redaction.ts"

const randomHex = (bytes: number): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("")

const isLiveRoot = (span: Tracer.Span): boolean => Context.get(span.annotations, LiveRootEntry) !== undefined

/** The nearest enclosing span that is exported too: a run's span or a live root. */
const exportedParent = (span: Tracer.Span): Tracer.Span | undefined => {
  let parent = Option.getOrUndefined(span.parent)
  while (parent !== undefined && parent._tag === "Span") {
    if (isRunSpan(parent) || isLiveRoot(parent)) return parent
    parent = Option.getOrUndefined(parent.parent)
  }
  return undefined
}

/** Trace ids by top span: children end first, so an id is made by whichever span asks first. */
const makeTraceIds = () => {
  const ids = new WeakMap<Tracer.Span, string>()
  const of = (span: Tracer.Span): string => {
    let id = ids.get(span)
    if (id === undefined) {
      const parent = exportedParent(span)
      id = parent === undefined ? randomHex(16) : of(parent)
      ids.set(span, id)
    }
    return id
  }
  return of
}

/** The failure the exporter retries: a POST that got no answer in time is a lost connection. */
const timedOut = (request: HttpClientRequest.HttpClientRequest, ms: number) =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.TransportError({ request, description: `no answer within ${ms} ms` })
  })

/**
 * The exporter, installed as the LiveSpans sink of what it is provided to. A failed export is one
 * `warning:` for the whole process (the exporter retries, then pauses); it never fails the command.
 * At exit the spans still buffered are sent, waiting at most `flushTimeoutMs`; after an interruption
 * (Ctrl-C, SIGTERM) lait does not wait at all.
 */
export const layer = (settings: OtlpEnv): Layer.Layer<never, never, HttpClient.HttpClient> =>
  Layer.effectContext(Effect.gen(function*() {
    for (const problem of settings.problems) yield* Console.error(`warning: ${problem}`)
    const url = displayUrl(settings.url)
    const secrets = [...headerSecrets(settings.headers.map(([, value]) => value)), ...urlCredentials(settings.url)]
    registerSecrets(secrets)
    let warned = false
    const warn = (detail: string) =>
      Effect.suspend(() => {
        if (warned) return Effect.void
        warned = true
        return Console.error(
          `warning: failed to export spans to '${url}': ${redactSecrets(detail, secrets)} ` +
            "(spans may be missing; later failures are not reported)"
        )
      })
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.transform((response, request) =>
        Effect.timeoutOrElse(response, {
          duration: Duration.millis(settings.requestTimeoutMs),
          orElse: () => Effect.fail(timedOut(request, settings.requestTimeoutMs))
        }).pipe(
          // Only the bounded flush at exit gives up on a request: the collector kept it too long.
          Effect.onInterrupt(() => warn(`no answer within the ${settings.flushTimeoutMs} ms lait waits at exit`))
        )
      ),
      HttpClient.tap((response) =>
        response.status >= 200 && response.status < 300 ? Effect.void : warn(statusText(response.status))
      ),
      HttpClient.tapError((error) =>
        warn(error.reason._tag === "TransportError" && error.reason.cause === undefined
          ? error.reason.description ?? "the connection failed"
          : describeNetworkFailure(error))
      )
    )

    // The exporter lives in a scope of its own so that an interrupted command can leave it behind.
    const exporterScope = yield* Scope.make()
    yield* Effect.addFinalizer((exit) =>
      Exit.hasInterrupts(exit)
        ? Effect.asVoid(Effect.forkDetach(Scope.close(exporterScope, exit)))
        : Scope.close(exporterScope, exit)
    )
    const resource = {
      serviceName: settings.serviceName,
      scopeVersion: VERSION,
      resourceAttributes: settings.resourceAttributes
    }
    const headers = Object.fromEntries(settings.headers)
    const exporter = yield* OtlpExporter.make({
      url: settings.url,
      headers: { "user-agent": `lait/${VERSION}`, ...headers },
      label: "OtlpTracer",
      exportInterval: Duration.millis(settings.scheduleDelayMs),
      maxBatchSize: settings.maxBatchSize,
      // Masked as the trace file is (src/core/redaction.ts): error messages and content hold what the run saw.
      body: (spans) => [
        HttpBody.text(redact(compactJson(otlpRequest(resource, spans))), "application/json"),
        Effect.void
      ],
      shutdownTimeout: Duration.millis(settings.flushTimeoutMs)
    }).pipe(
      Effect.provide(OtlpExporter.layerFlusher),
      Effect.provideService(HttpClient.HttpClient, client),
      Scope.provide(exporterScope)
    )

    const traceIdOf = makeTraceIds()
    const sink: LiveSink = {
      spanEnded: (event, span) => {
        exporter.push(otlpSpan({
          traceId: traceIdOf(span),
          spanId: span.spanId,
          parentSpanId: exportedParent(span)?.spanId,
          ...eventSpanFields(fromRecorded(event), true)
        }))
      },
      rootEnded: (root: LiveRoot, span) => {
        if (span.status._tag !== "Ended") return
        const attributes: Array<OtlpAttribute> = [["lait.label", root.label]]
        for (const [key, value] of span.attributes) attributes.push([key, fromJs(value)])
        exporter.push(otlpSpan({
          traceId: traceIdOf(span),
          spanId: span.spanId,
          parentSpanId: undefined,
          name: `${root.operation} ${root.label}`,
          kind: SPAN_KIND_INTERNAL,
          start: span.status.startTime,
          end: span.status.endTime,
          attributes,
          failed: Exit.isFailure(span.status.exit)
        }))
      }
    }
    // What is exported live is traced: model requests carry the propagation headers.
    return Context.add(Context.make(LiveSpans, sink), TraceWritten, true)
  }))

/** `layer` over its own fetch client, built with it: what ./layer.ts installs. */
export const layerFetch = (settings: OtlpEnv): Layer.Layer<never> =>
  layer(settings).pipe(Layer.provide(FetchHttpClient.layer))
