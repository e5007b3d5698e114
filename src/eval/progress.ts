// Progress of a long eval on stderr (stdout carries only the report). On a terminal one status line
// is redrawn in place, `[12/200] runs done, 3 failed`, and erased at the end; elsewhere (CI logs,
// pipes) a redrawn line would be noise, so a plain line is written each time a case has finished.
import { Effect } from "effect"
import type { ProgressEvent } from "./runner.ts"
import { isTerminal } from "../platform/rawStdout.ts"
import { writeStderr } from "../platform/stdStreams.ts"

export interface EvalProgress {
  readonly start: (cases: number, repeat: number, concurrency: number, targets?: number) => Effect.Effect<void>
  readonly update: (event: ProgressEvent) => Effect.Effect<void>
  /** Clears the status line (terminal only). */
  readonly end: Effect.Effect<void>
}

export interface ProgressSink {
  readonly isTTY: boolean
  readonly write: (text: string) => void
}

let stderrIsTerminal: boolean | undefined

// Not `process.stderr`: building it (Node's stream machinery) cost milliseconds before an eval's
// first request. A write(2) while no stream exists, through the stream once one does.
export const stderrSink: ProgressSink = {
  get isTTY() {
    return stderrIsTerminal ??= isTerminal(2)
  },
  write: writeStderr
}

export const makeEvalProgress = (sink: ProgressSink = stderrSink): EvalProgress => {
  let drawn = false
  return {
    start: (cases, repeat, concurrency, targets = 1) =>
      Effect.sync(() => {
        if (sink.isTTY) return
        const across = targets > 1 ? ` x ${targets} target(s)` : ""
        sink.write(
          `eval: ${cases} case(s)${across} x ${repeat} run(s) = ${cases * targets * repeat} run(s), ` +
            `${concurrency} at a time\n`
        )
      }),
    update: (event) =>
      Effect.sync(() => {
        if (sink.isTTY) {
          drawn = true
          sink.write(`\r\x1b[K[${event.runsDone}/${event.runsTotal}] runs done, ${event.runsFailed} failed`)
          return
        }
        if (event.caseDone !== undefined) {
          const c = event.caseDone
          sink.write(
            `eval: case ${c.index}${c.target === undefined ? "" : ` [${c.target}]`} done: ${c.passed}/${c.total} ` +
              `passed [${event.runsDone}/${event.runsTotal}]\n`
          )
        }
      }),
    end: Effect.sync(() => {
      if (drawn) sink.write("\r\x1b[K")
      drawn = false
    })
  }
}
