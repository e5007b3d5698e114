// The always-on, per-run trace collector (inventory §8.1–8.2): model requests (`chat`), tool calls
// (`execute_tool`) and compactions (`compact`), in recording order. Trajectory assertions of
// `lait test`/`lait eval` and `--trace-file` read from it; provide a fresh one per run context.
//
// Beyond upstream, every event carries `span_id`/`parent_span_id`, and the run itself
// (`invoke_workflow`) and each step (`step`) are recorded as spans around the events they contain.
// The trace file holds only the seed's events unless spans are asked for (`--trace-spans`); then
// it is a tree. The parent of whatever is recorded is the innermost span open on the recording
// fiber (a fiber-local reference, so parallel branches and concurrent for_each items each nest
// under their own step).
import { Cause, Context, Effect, Exit, Layer } from "effect"
import { errorClassOf, isLaitError, primaryError } from "../core/errors.ts"
import type { Json } from "../core/json.ts"
import { formatTimestamp, nanosOfDate } from "./time.ts"

/** What model and tool activity records (`events`). */
export type TraceOperation = "chat" | "execute_tool" | "compact"
/** The structure around it: the run (or a child workflow file) and its steps. */
export type SpanOperation = "invoke_workflow" | "step"
export type RecordedOperation = TraceOperation | SpanOperation

export interface RecordedEvent {
  readonly seq: number
  readonly operation: RecordedOperation
  readonly label: string
  /** RFC 3339, UTC. */
  readonly start: string
  readonly end: string
  readonly duration_ms: number
  /** Insertion order is kept (it is the order written to the file). */
  readonly attributes: Readonly<Record<string, Json>>
  /** 16 hex digits, unique within the run. */
  readonly span_id: string
  /** The enclosing span, or null at the root. */
  readonly parent_span_id: string | null
}

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
  /** Records one finished call under the innermost open span of the calling fiber. */
  readonly record: (event: TraceRecord) => Effect.Effect<void>
  /** The chat/execute_tool/compact events recorded so far, by `seq`. */
  readonly events: Effect.Effect<ReadonlyArray<TraceEvent>>
  /** Everything recorded so far, spans included, by `seq` (what `--trace-file --trace-spans` writes). */
  readonly all: Effect.Effect<ReadonlyArray<RecordedEvent>>
  /**
   * Runs `effect` as a span: what it records nests under it, and the span itself is recorded when
   * it ends (so after its children), with `error.type` when it failed or was interrupted.
   */
  readonly span: <A, E, R>(spec: SpanSpec, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

interface OpenSpan {
  /** The collector that opened it: another run's span is never a parent here. */
  readonly owner: object
  readonly id: string
}

/** The innermost span open on this fiber (inherited by forked fibers). */
export const CurrentSpan = Context.Reference<OpenSpan | undefined>("lait/trace/CurrentSpan", {
  defaultValue: () => undefined
})

const newSpanId = (): string => {
  const bytes = new Uint8Array(8)
  crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
}

export const isTraceOperation = (e: RecordedEvent): e is TraceEvent =>
  e.operation !== "invoke_workflow" && e.operation !== "step"

/**
 * The OTel `error.type` of a failed call: the HTTP status when there was one, `cancelled` for an
 * interruption, else the error class (LaitError, ModelApiError, InterruptedError, ...).
 */
export const errorTypeOf = (cause: Cause.Cause<unknown>): string => {
  if (Cause.hasInterruptsOnly(cause)) return "cancelled"
  const error = primaryError(cause)
  if (typeof error === "object" && error !== null && "status" in error && typeof error.status === "number") {
    return String(error.status)
  }
  if (isLaitError(error)) return errorClassOf(error)
  return error instanceof Error ? error.name : "_OTHER"
}

export const makeRunTracer = (): RunTracerService => {
  const recorded: Array<RecordedEvent> = []
  const owner = {}

  const push = (
    operation: RecordedOperation,
    label: string,
    start: Date,
    end: Date,
    attributes: Readonly<Record<string, Json>>,
    spanId: string,
    parent: OpenSpan | undefined
  ) => {
    recorded.push({
      seq: recorded.length,
      operation,
      label,
      start: formatTimestamp(nanosOfDate(start)),
      end: formatTimestamp(nanosOfDate(end)),
      duration_ms: Math.max(0, Math.trunc(end.getTime() - start.getTime())),
      attributes,
      span_id: spanId,
      parent_span_id: parent !== undefined && parent.owner === owner ? parent.id : null
    })
  }

  return {
    record: (e) =>
      Effect.flatMap(
        CurrentSpan,
        (parent) => Effect.sync(() => push(e.operation, e.label, e.start, e.end, e.attributes, newSpanId(), parent))
      ),
    events: Effect.sync(() => recorded.filter(isTraceOperation)),
    all: Effect.sync(() => [...recorded]),
    span: (spec, effect) =>
      Effect.flatMap(CurrentSpan, (parent) => {
        const id = newSpanId()
        const start = new Date()
        return effect.pipe(
          Effect.provideService(CurrentSpan, { owner, id }),
          Effect.onExit((exit) =>
            Effect.sync(() => {
              const attributes = Exit.isFailure(exit)
                ? { ...spec.attributes, "error.type": errorTypeOf(exit.cause) }
                : (spec.attributes ?? {})
              push(spec.operation, spec.label, start, new Date(), attributes, id, parent)
            })
          )
        )
      })
  }
}

export class RunTracer extends Context.Service<RunTracer, RunTracerService>()("lait/trace/RunTracer") {
  /** A fresh collector: provide one per run context (Layer.fresh when nesting). */
  static readonly layer = Layer.sync(RunTracer, makeRunTracer)
}

/** `effect` as a span of the RunTracer in context; just `effect` when there is none. */
export const withSpan = <A, E, R>(spec: SpanSpec, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    Effect.serviceOption(RunTracer),
    (tracer) => (tracer._tag === "Some" ? tracer.value.span(spec, effect) : effect)
  )
