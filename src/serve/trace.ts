// `lait serve --mcp --trace-file PATH`: the server never ends on its own, so the file is rewritten
// (atomically: a reader sees the previous version or the next, never half of one) after every tool
// call with every event of the calls so far. Each call's trace numbers its events from 0; here they
// are renumbered into one server-wide `seq` and tagged with the MCP tool that made them
// (`lait.serve.tool`).
import { Console, Effect, Semaphore } from "effect"
import { renderChain } from "../core/errors.ts"
import { redactEvents } from "../trace/content.ts"
import { type FileEvent, type RunOutcome, traceFileEvents, writeTraceFile } from "../trace/file.ts"
import type { RecordedEvent } from "../trace/RunTracer.ts"
import type { FileLoader } from "../platform/FileLoader.ts"

export interface ServeTrace {
  /** Adds one finished call's events and rewrites the file; a write failure is only a warning. */
  readonly add: (
    tool: string,
    recorded: ReadonlyArray<RecordedEvent>,
    outcome: RunOutcome
  ) => Effect.Effect<void, never, FileLoader>
}

export const TOOL_ATTRIBUTE = "lait.serve.tool"

export const makeServeTrace = (path: string | undefined, secrets: ReadonlyArray<string>): Effect.Effect<ServeTrace> =>
  Effect.gen(function*() {
    if (path === undefined) return { add: () => Effect.void }
    const events: Array<FileEvent> = []
    // One writer at a time, so the file always grows in the order the calls finished.
    const lock = yield* Semaphore.make(1)
    return {
      add: (tool, recorded, outcome) =>
        lock.withPermit(Effect.gen(function*() {
          const tagged = recorded.map((e) => ({ ...e, attributes: { ...e.attributes, [TOOL_ATTRIBUTE]: tool } }))
          for (const event of traceFileEvents(redactEvents(tagged, secrets), { spans: false, outcome })) {
            events.push({ ...event, seq: BigInt(events.length) })
          }
          yield* writeTraceFile(path, events).pipe(
            Effect.catch((e) => Console.error(`warning: ${renderChain(e)}`))
          )
        }))
    }
  })
