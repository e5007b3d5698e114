// The always-on, per-run trace collector (inventory §8.1–8.2): model requests (`chat`), tool calls
// (`execute_tool`) and compactions (`compact`), in recording order. Trajectory assertions of
// `lait test`/`lait eval` and `--trace-file` read from it; provide a fresh one per run context.
import { Context, Effect, Layer } from "effect"
import type { Json } from "../core/json.ts"

export type TraceOperation = "chat" | "execute_tool" | "compact"

export interface TraceEvent {
  readonly seq: number
  readonly operation: TraceOperation
  readonly label: string
  /** RFC 3339, UTC. */
  readonly start: string
  readonly end: string
  readonly duration_ms: number
  /** Insertion order is kept (it is the order written to the file). */
  readonly attributes: Readonly<Record<string, Json>>
}

export interface TraceRecord {
  readonly operation: TraceOperation
  readonly label: string
  readonly start: Date
  readonly end: Date
  readonly attributes: Readonly<Record<string, Json>>
}

export interface RunTracerService {
  readonly record: (event: TraceRecord) => Effect.Effect<void>
  /** Everything recorded so far, by `seq`. */
  readonly events: Effect.Effect<ReadonlyArray<TraceEvent>>
}

export const makeRunTracer = (): RunTracerService => {
  const events: Array<TraceEvent> = []
  return {
    record: (e) =>
      Effect.sync(() => {
        events.push({
          seq: events.length,
          operation: e.operation,
          label: e.label,
          start: e.start.toISOString(),
          end: e.end.toISOString(),
          duration_ms: Math.max(0, Math.trunc(e.end.getTime() - e.start.getTime())),
          attributes: e.attributes
        })
      }),
    events: Effect.sync(() => [...events])
  }
}

export class RunTracer extends Context.Service<RunTracer, RunTracerService>()("lait/trace/RunTracer") {
  /** A fresh collector: provide one per run context (Layer.fresh when nesting). */
  static readonly layer = Layer.sync(RunTracer, makeRunTracer)
}
