// Writing one run's trace file: `lait run --trace-file`, after the run succeeded, failed or was
// interrupted, and any runner that keeps one file per run. Kept apart from ./file.ts so that reading
// a trace (`lait trace show`) loads nothing of the configuration.
import { Console, Effect } from "effect"
import { redactEvents } from "./content.ts"
import { type RunOutcome, traceFileEvents, type TraceFileOptions, writeTraceFile } from "./file.ts"
import { type RecordedEvent, RunTracer } from "./RunTracer.ts"

export interface WriteOptions extends TraceFileOptions {
  /** Masked in every string of every event (src/trace/content.ts). */
  readonly secrets: Iterable<string>
}

const OUTCOME_NOTES: Record<RunOutcome, string> = {
  succeeded: "",
  failed: ", run failed",
  interrupted: ", run interrupted"
}

/**
 * One run's trace written to one file (`lait run --trace-file`, and any runner that keeps a file per
 * run): its events as `traceFileEvents` selects them, every secret masked (src/trace/content.ts),
 * then `note: trace written to '<p>' (<n> event[s][, run failed|interrupted])` on stderr.
 */
export const writeRecordedTrace = (
  path: string,
  recorded: ReadonlyArray<RecordedEvent>,
  options: WriteOptions
) =>
  Effect.gen(function*() {
    const written = yield* saveRecordedTrace(path, recorded, options)
    const count = `${written} event${written === 1 ? "" : "s"}`
    yield* Console.error(`note: trace written to '${path}' (${count}${OUTCOME_NOTES[options.outcome ?? "succeeded"]})`)
  })

/** The same without the note (a runner that writes many files says so once); the number of events. */
export const saveRecordedTrace = (
  path: string,
  recorded: ReadonlyArray<RecordedEvent>,
  options: WriteOptions
) =>
  Effect.gen(function*() {
    const events = traceFileEvents(redactEvents(recorded, options.secrets), options)
    yield* writeTraceFile(path, events)
    return events.length
  })

/** `lait run --trace-file PATH`: what the run's RunTracer recorded so far. */
export const writeRunTrace = (path: string, options: WriteOptions) =>
  Effect.flatMap(RunTracer.use((tracer) => tracer.all), (recorded) => writeRecordedTrace(path, recorded, options))

export { configSecrets } from "./content.ts"
export { checkTraceTarget } from "./file.ts"
