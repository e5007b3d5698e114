// `lait serve --mcp --trace-file PATH`: the server never ends on its own, so every tool call's events
// are written as soon as it ends, whole: the first call's replace whatever PATH held (as `lait run`
// replaces its trace file), every later call's are appended. Each call's trace numbers its events from
// 0; here they are renumbered into one server-wide `seq` and tagged with the MCP tool that made them
// (`lait.serve.tool`). Only the next `seq` is kept, so memory stays flat however many calls are served.
import { Console, Effect, Semaphore } from "effect"
import { renderChain } from "../core/errors.ts"
import { appendWholeSync } from "../platform/append.ts"
import { describeOsError, type FileLoader, isStreamTarget } from "../platform/FileLoader.ts"
import { redactEvents } from "../trace/content.ts"
import { type FileEvent, type RunOutcome, toJsonl, traceFileEvents, writeTraceFile } from "../trace/file.ts"
import type { RecordedEvent } from "../trace/RunTracer.ts"
import { TraceError } from "../trace/TraceError.ts"

export interface ServeTrace {
  /**
   * Writes one finished call's events; a write failure is only a warning. `tool` tags them (undefined:
   * `lait proxy`, whose requests are each one `chat` event already).
   */
  readonly add: (
    tool: string | undefined,
    recorded: ReadonlyArray<RecordedEvent>,
    outcome: RunOutcome
  ) => Effect.Effect<void, never, FileLoader>
}

export const TOOL_ATTRIBUTE = "lait.serve.tool"

export const makeServeTrace = (path: string | undefined, secrets: ReadonlyArray<string>): Effect.Effect<ServeTrace> =>
  Effect.gen(function*() {
    if (path === undefined) return { add: () => Effect.void }
    let nextSeq = 0n
    // One writer at a time, so the file grows in the order the calls finished.
    const lock = yield* Semaphore.make(1)
    const write = (events: ReadonlyArray<FileEvent>, first: boolean) =>
      // The first write replaces the file atomically; a FIFO or a device is only ever appended to.
      first || isStreamTarget(path)
        ? writeTraceFile(path, events)
        : Effect.try({
          try: () => appendWholeSync(path, toJsonl(events)),
          catch: (e) => new TraceError({ reason: { _tag: "WriteFailed", path, detail: describeOsError(e) } })
        })
    return {
      add: (tool, recorded, outcome) =>
        lock.withPermit(Effect.gen(function*() {
          const tagged = tool === undefined
            ? recorded
            : recorded.map((e) => ({ ...e, attributes: { ...e.attributes, [TOOL_ATTRIBUTE]: tool } }))
          const events = traceFileEvents(redactEvents(tagged, secrets), { spans: false, outcome })
          if (events.length === 0) return
          const first = nextSeq === 0n
          const numbered = events.map((event, i) => ({ ...event, seq: nextSeq + BigInt(i) }))
          const written = yield* Effect.result(write(numbered, first))
          if (written._tag === "Success") nextSeq += BigInt(events.length)
          else yield* Console.error(`warning: ${renderChain(written.failure)}`)
        }))
    }
  })
