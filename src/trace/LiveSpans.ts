// Where a run's trace spans go as they end, besides the run's own collector: live OTLP export
// (src/trace/live/, docs/traces.md#live-export). Unset (the default) unless the environment names a
// collector, and then every RunTracer hands it each span it records. Kept apart from the exporter so
// that the collectors, `lait test` and `lait eval` depend on this small reference, never on the
// exporter, which is loaded only when it is wanted.
import { Clock, Context, Effect, type Exit, type Tracer } from "effect"
import type { Json } from "../core/json.ts"
import type { RecordedEvent } from "../core/tracing.ts"

export interface LiveSink {
  /** A run's trace span ended and was recorded as `event`. */
  readonly spanEnded: (event: RecordedEvent, span: Tracer.Span) => void
  /** A span made by `liveRoot` ended. */
  readonly rootEnded: (root: LiveRoot, span: Tracer.Span) => void
}

export const LiveSpans = Context.Reference<LiveSink | undefined>("lait/trace/LiveSpans", {
  defaultValue: () => undefined
})

/** What a `liveRoot` span is: `test` (one test file) or `eval_run` (one case and repeat of an eval). */
export interface LiveRoot {
  readonly operation: "test" | "eval_run"
  readonly label: string
}

/** Marks a span as a live root, so that the runs under it find it as their parent. */
export const LiveRootEntry = Context.Reference<LiveRoot | undefined>("lait/trace/LiveRootEntry", {
  defaultValue: () => undefined
})

/**
 * `effect` under a span of its own, exported live, that the run spans it contains are children of:
 * one trace per test file or eval run, though they share one process. Without live export it is
 * `effect` itself: neither the collectors nor trace files know these spans.
 */
export const liveRoot = <A, E, R>(
  root: LiveRoot,
  attributes: Readonly<Record<string, Json>>,
  effect: Effect.Effect<A, E, R>,
  attributesOnExit: (exit: Exit.Exit<A, E>) => Readonly<Record<string, Json>> = () => ({})
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.service(LiveSpans), (sink) => {
    if (sink === undefined) return effect
    return Effect.flatMap(
      Effect.makeSpan(root.operation, { annotations: Context.make(LiveRootEntry, root), attributes, root: true }),
      (span) =>
        effect.pipe(
          Effect.withParentSpan(span),
          Effect.onExit((exit) =>
            Effect.flatMap(Clock.currentTimeNanos, (now) =>
              Effect.sync(() => {
                for (const [key, value] of Object.entries(attributesOnExit(exit))) span.attribute(key, value)
                span.end(now, exit)
                sink.rootEnded(root, span)
              }))
          )
        )
    )
  })
