// The always-on, per-run trace collector (docs/traces.md#event-format): model requests (`chat`), tool calls
// (`execute_tool`) and compactions (`compact`), in recording order. Trajectory assertions of
// `lait test`/`lait eval` and `--trace-file` read from it; provide a fresh one per run context.
//
// It is an Effect Tracer (RunTracer.layer installs it as the run's `Tracer`), so the trace is made
// of the spans the run creates: those annotated as trace spans (src/core/tracing.ts) are recorded
// when they end, everything else (`Effect.fn` spans, ...) only links them together. Spans created
// outside the run go to whatever tracer is current there and are never seen here.
//
// Beyond upstream, every event carries `span_id`/`parent_span_id`, and the run itself
// (`invoke_workflow`) and each step (`step`) are recorded as spans around the events they contain.
// The trace file holds only the seed's events unless spans are asked for (`--trace-spans`); then
// it is a tree. The parent of an event is its nearest enclosing trace span, when that span belongs
// to this run (another run's span is never a parent).
import { Context, Effect, type Exit, Layer, Option, Tracer } from "effect"
import type { Json } from "../core/json.ts"
import {
  type RecordedEvent,
  recordSpan,
  type SpanOperation,
  type TraceEntry,
  traceEntryOf,
  type TraceOperation,
  traceSpan
} from "../core/tracing.ts"
import { type LiveSink, LiveSpans } from "./LiveSpans.ts"
import { formatMillis } from "./time.ts"

export type { RecordedEvent, RecordedOperation, SpanOperation, TraceOperation } from "../core/tracing.ts"
export { errorTypeOf, traceSpan as withSpan } from "../core/tracing.ts"

export interface TraceEvent extends RecordedEvent {
  readonly operation: TraceOperation
}

export interface TraceRecord {
  readonly operation: TraceOperation
  readonly label: string
  readonly start: Date
  readonly end: Date
  readonly attributes: Readonly<Record<string, Json>>
}

export interface SpanSpec {
  readonly operation: SpanOperation
  readonly label: string
  readonly attributes?: Readonly<Record<string, Json>>
}

export interface RunTracerService {
  /** The Effect Tracer that records the run's trace spans (RunTracer.layer installs it). */
  readonly tracer: Tracer.Tracer
  /** Records one finished call under the current span of the calling fiber. */
  readonly record: (event: TraceRecord) => Effect.Effect<void>
  /** The chat/execute_tool/compact events recorded so far, by `seq`. */
  readonly events: Effect.Effect<ReadonlyArray<TraceEvent>>
  /** Everything recorded so far, spans included, by `seq` (what `--trace-file --trace-spans` writes). */
  readonly all: Effect.Effect<ReadonlyArray<RecordedEvent>>
  /**
   * Runs `effect` as a span of this collector whatever the current Tracer (the engine's spans use
   * the current one): what it records nests under it, and the span itself is recorded when it ends
   * (so after its children), with `error.type` when it failed or was interrupted.
   */
  readonly span: <A, E, R>(spec: SpanSpec, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const isTraceOperation = (e: RecordedEvent): e is TraceEvent =>
  e.operation !== "invoke_workflow" && e.operation !== "step"

type SpanOptions = Parameters<Tracer.Tracer["span"]>[0]

/** A trace span of one collector: recorded when it ends. */
class RunSpan extends Tracer.NativeSpan {
  constructor(
    options: SpanOptions,
    readonly owner: object,
    readonly entry: TraceEntry,
    readonly parentId: string | null,
    private readonly onEnd: (span: RunSpan) => void
  ) {
    super(options)
  }

  override end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    super.end(endTime, exit)
    this.onEnd(this)
  }
}

// Events keep the millisecond times they always had; Effect's clock has nanoseconds.
const NANOS_PER_MILLI = 1_000_000n

/** A span this project's collectors record (what live export sends, and the parents it looks for). */
export const isRunSpan = (span: Tracer.AnySpan): boolean => span instanceof RunSpan

/** `live`: where each recorded span also goes as it ends (live export), if anywhere. */
export const makeRunTracer = (live?: LiveSink): RunTracerService => {
  const recorded: Array<RecordedEvent> = []
  const owner = {}

  /** The nearest enclosing trace span, when it is one of this run's. */
  const parentIdOf = (parent: Option.Option<Tracer.AnySpan>): string | null => {
    let span = Option.getOrUndefined(parent)
    while (span !== undefined) {
      if (span instanceof RunSpan) return span.owner === owner ? span.spanId : null
      if (traceEntryOf(span) !== undefined) return null
      span = span._tag === "Span" ? Option.getOrUndefined(span.parent) : undefined
    }
    return null
  }

  const push = (span: RunSpan) => {
    if (span.status._tag !== "Ended") return
    const start = span.status.startTime / NANOS_PER_MILLI
    const end = span.status.endTime / NANOS_PER_MILLI
    const event: RecordedEvent = {
      seq: recorded.length,
      operation: span.entry.operation,
      label: span.entry.label,
      start: formatMillis(start),
      end: formatMillis(end),
      duration_ms: end > start ? Number(end - start) : 0,
      attributes: Object.fromEntries(span.attributes) as Record<string, Json>,
      span_id: span.spanId,
      parent_span_id: span.parentId
    }
    recorded.push(event)
    live?.spanEnded(event, span)
  }

  const tracer = Tracer.make({
    span: (options) => {
      const entry = traceEntryOf(options)
      return entry === undefined
        ? new Tracer.NativeSpan(options)
        : new RunSpan(options, owner, entry, parentIdOf(options.parent), push)
    }
  })

  return {
    tracer,
    record: (e) => Effect.withTracer(recordSpan(e, e.start, e.end), tracer),
    events: Effect.sync(() => recorded.filter(isTraceOperation)),
    all: Effect.sync(() => [...recorded]),
    // Only the span itself is this collector's: what runs inside keeps the current tracer.
    span: (spec, effect) =>
      Effect.flatMap(Effect.tracer, (current) =>
        traceSpan(spec, Effect.withTracer(effect, current)).pipe(Effect.withTracer(tracer)))
  }
}

/** What becomes of a run's records when its run context closes, however the run ended. */
export type KeepTrace = (
  recorded: ReadonlyArray<RecordedEvent>,
  exit: Exit.Exit<unknown, unknown>
) => Effect.Effect<void>

/**
 * Set around a run context whose trace is kept in a file of its own (`lait test --trace-dir`, `lait
 * eval --trace-dir`): the collector built for that context hands it everything it recorded when the
 * context closes, so a run that failed or was interrupted keeps its trace too. The collector takes
 * the request for itself: nothing built inside the run sees it.
 */
export const KeepTrace = Context.Reference<KeepTrace | undefined>("lait/trace/KeepTrace", {
  defaultValue: () => undefined
})

export class RunTracer extends Context.Service<RunTracer, RunTracerService>()("lait/trace/RunTracer") {
  /**
   * A fresh collector, installed as the Tracer of what it is provided to: one per run context
   * (`Layer.fresh` or `{ local: true }` when nesting, or an enclosing run's collector is reused).
   */
  static readonly layer = Layer.effectContext(Effect.gen(function*() {
    const collector = makeRunTracer(yield* Effect.service(LiveSpans))
    const keep = yield* Effect.service(KeepTrace)
    if (keep !== undefined) {
      yield* Effect.addFinalizer((exit) => Effect.flatMap(collector.all, (recorded) => keep(recorded, exit)))
    }
    return Context.make(RunTracer, collector).pipe(
      Context.add(Tracer.Tracer, collector.tracer),
      Context.add(KeepTrace, undefined)
    )
  }))
}
