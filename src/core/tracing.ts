// The run's trace is made of ordinary Effect spans: a span is part of it when its annotations carry
// a TraceEntry (what kind of event it is and its label); everything else Effect traces (`Effect.fn`
// spans, HTTP clients) is ignored by the run's collector (src/trace/RunTracer.ts, an Effect Tracer
// provided per run). The helpers here create such spans through whatever Tracer is current, so the
// engine and the model client need no service of their own; outside a run, under Effect's own
// tracer, which records nothing, they make none.
import * as nodePath from "node:path"
import { Cause, Context, Effect, Exit, Tracer } from "effect"
import { errorClassOf, isLaitError, primaryError, renderChain } from "./errors.ts"
import type { Json } from "./json.ts"

/** What model and tool activity records. */
export type TraceOperation = "chat" | "execute_tool" | "compact"
/** The structure around it: the run (or a child workflow file) and its steps. */
export type SpanOperation = "invoke_workflow" | "step"
export type RecordedOperation = TraceOperation | SpanOperation

/** One finished span as a run's trace records it (src/trace/RunTracer.ts writes it, live export reads it). */
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

export interface TraceEntry {
  readonly operation: RecordedOperation
  readonly label: string
}

/** The span annotation that makes a span part of the run's trace. */
export const TraceEntry = Context.Reference<TraceEntry | undefined>("lait/core/tracing/TraceEntry", {
  defaultValue: () => undefined
})

/** The trace entry of a span (or of the options a Tracer gets to create one), if it has one. */
export const traceEntryOf = (span: { readonly annotations: Context.Context<never> }): TraceEntry | undefined =>
  Context.get(span.annotations, TraceEntry)

/** Attribute names shared by the code that writes trace events and the code that reads them. */
export const Attr = {
  errorType: "error.type",
  errorMessage: "error.message",
  requestModel: "gen_ai.request.model",
  providerName: "gen_ai.provider.name",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  operationName: "gen_ai.operation.name",
  toolName: "gen_ai.tool.name",
  toolArguments: "gen_ai.tool.arguments",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  serverAddress: "server.address",
  serverPort: "server.port",
  source: "lait.source",
  judge: "lait.judge",
  stepKind: "lait.step.kind",
  workflowPath: "lait.workflow.path"
} as const

export interface TraceSpanSpec {
  readonly operation: RecordedOperation
  readonly label: string
  readonly attributes?: Readonly<Record<string, Json>> | undefined
}

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
  // The general class, not the domain class: trace consumers see the names upstream writes.
  if (isLaitError(error)) return errorClassOf(error)
  return error instanceof Error ? error.name : "_OTHER"
}

/**
 * `error.type` and, unless the call was only interrupted, `error.message` (the text lait prints for
 * it), so a failed run's trace says what went wrong where.
 */
export const errorAttributesOf = (cause: Cause.Cause<unknown>): Readonly<Record<string, Json>> => {
  const type = errorTypeOf(cause)
  const error = primaryError(cause)
  return type === "cancelled" || error === undefined
    ? { [Attr.errorType]: type }
    : { [Attr.errorType]: type, [Attr.errorMessage]: renderChain(error) }
}

const errorAttributes = (exit: Exit.Exit<unknown, unknown>): Readonly<Record<string, Json>> =>
  Exit.isFailure(exit) ? errorAttributesOf(exit.cause) : {}

/**
 * Set (to the run's secret collection) when the trace records content (`--trace-content`): prompts,
 * answers, tool arguments and results. The spans that record content add the credentials they use
 * to `secrets`, and whoever writes the trace masks them all (src/trace/content.ts).
 */
export interface TraceContentCapture {
  readonly secrets: Set<string>
}

export const TraceContent = Context.Reference<TraceContentCapture | undefined>("lait/core/tracing/TraceContent", {
  defaultValue: () => undefined
})

/**
 * Set where the run's trace goes somewhere: a trace file, `--trace-dir`, live OTLP export (set by its
 * layer, src/trace/live/exporter.ts). Only a traced run's model requests carry trace-propagation
 * headers and ask a stream for its usage (src/model/tracePropagation.ts): otherwise nobody reads them.
 */
export const TraceWritten = Context.Reference<boolean>("lait/core/tracing/TraceWritten", {
  defaultValue: () => false
})

/** `effect` marked as traced when `written`; never unmarked (live export may have marked it already). */
export const traceWritten = (written: boolean) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  written ? Effect.provideService(effect, TraceWritten, true) : effect

const spanOptions = (spec: TraceSpanSpec) => ({
  annotations: Context.make(TraceEntry, { operation: spec.operation, label: spec.label }),
  ...(spec.attributes !== undefined ? { attributes: spec.attributes } : {})
})

/**
 * `untraced` where nothing records spans (Effect's own tracer is current: no run collector, no live
 * export), else `traced()`: a request of `lait proxy` without a trace file, say, makes no spans nobody
 * reads (bench/README.md, issue 41).
 */
export const whenTraced = <A, E, R, R2>(
  untraced: Effect.Effect<A, E, R>,
  traced: () => Effect.Effect<A, E, R2>
): Effect.Effect<A, E, R | R2> =>
  Effect.withFiber<A, E, R | R2>((fiber) =>
    fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer ? untraced : traced()
  )

/**
 * `effect` as a span of the trace: the spans it creates nest under it, and it ends when `effect`
 * does. `attributesOnExit` (default: `error.type` when it failed or was interrupted) is added then.
 */
export const traceSpan = <A, E, R>(
  spec: TraceSpanSpec,
  effect: Effect.Effect<A, E, R>,
  attributesOnExit: (exit: Exit.Exit<A, E>) => Readonly<Record<string, Json>> = errorAttributes
): Effect.Effect<A, E, Exclude<R, Tracer.ParentSpan>> =>
  whenTraced(effect as Effect.Effect<A, E, Exclude<R, Tracer.ParentSpan>>, () =>
    Effect.useSpan(spec.operation, spanOptions(spec), (span) =>
      effect.pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            for (const [key, value] of Object.entries(attributesOnExit(exit))) span.attribute(key, value)
          })
        ),
        // No stack capture (an Error per span): lait never prints an error's span stack.
        Effect.withParentSpan(span, { captureStackTrace: false })
      )))

const nanosOfDate = (date: Date): bigint => BigInt(date.getTime()) * 1_000_000n

/**
 * A span of the trace that already happened (a cache hit, a denied tool call), with its own start
 * and end, under the current span, through the current Tracer.
 */
export const recordSpan = (spec: TraceSpanSpec, start: Date, end: Date): Effect.Effect<void> =>
  whenTraced(Effect.void, () => Effect.flatMap(
    Effect.all([Effect.tracer, Effect.option(Effect.currentParentSpan)]),
    ([tracer, parent]) =>
      Effect.sync(() => {
        const { annotations, attributes } = spanOptions(spec)
        const span = tracer.span({
          name: spec.operation,
          parent,
          annotations,
          links: [],
          startTime: nanosOfDate(start),
          kind: "internal",
          root: false,
          sampled: true
        })
        for (const [key, value] of Object.entries(attributes ?? {})) span.attribute(key, value)
        span.end(nanosOfDate(end), Exit.void)
      })
  ))

/** The root span's name: the file's `name:`, else its file name without the extension. */
export const workflowDisplayName = (workflow: { readonly name?: string | undefined; readonly path: string }): string =>
  workflow.name ?? nodePath.basename(workflow.path, nodePath.extname(workflow.path))

/** One workflow file's run (`lait run`'s root, or a `workflow:` step's child) as `invoke_workflow <name>`. */
export const workflowSpan = <A, E, R>(
  workflow: { readonly name?: string | undefined; readonly path: string },
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, Tracer.ParentSpan>> =>
  traceSpan(
    {
      operation: "invoke_workflow",
      label: workflowDisplayName(workflow),
      attributes: { [Attr.workflowPath]: workflow.path }
    },
    effect
  )

/** One step (all its attempts) under its progress label, which is also the label of its model calls. */
export const stepSpan = <A, E, R>(
  label: string,
  kind: string,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, Tracer.ParentSpan>> =>
  traceSpan({ operation: "step", label, attributes: { [Attr.stepKind]: kind } }, effect)
