// Where a run's progress lines (`[n] label`, `    -> ...`, the `==>` banner) go. They are stderr for
// `lait run`, but a test of the engine, or `lait test` running files side by side, needs to capture
// or drop them per run, so the sink is a service and the engine never writes to stderr itself.
import { Context, Effect, Layer } from "effect"
import { writeStderr } from "../platform/stdStreams.ts"

export interface ProgressService {
  /** One complete line, without its trailing newline. */
  readonly line: (text: string) => Effect.Effect<void>
}

export class Progress extends Context.Service<Progress, ProgressService>()("lait/workflow/Progress") {
  static readonly layerStderr = Layer.succeed(
    Progress,
    Progress.of({ line: (text) => Effect.sync(() => writeStderr(`${text}\n`)) })
  )

  /** Appends every line to `lines` (tests, and callers that print the log later). */
  static readonly layerCapture = (lines: Array<string>) =>
    Layer.succeed(Progress, Progress.of({ line: (text) => Effect.sync(() => void lines.push(text)) }))

  static readonly layerSilent = Layer.succeed(Progress, Progress.of({ line: () => Effect.void }))
}

/**
 * A progress sink bound to a prefix. A parallel branch writes `[name] `, an item of a concurrent
 * for_each `[item-i] `, a child workflow four more spaces; the prefixes nest.
 */
export class ProgressWriter {
  constructor(
    private readonly sink: ProgressService,
    readonly prefix: string = ""
  ) {}

  line(text: string): Effect.Effect<void> {
    return this.sink.line(`${this.prefix}${text}`)
  }

  /** A `    -> ...` detail line under the current step. */
  detail(text: string): Effect.Effect<void> {
    return this.sink.line(`${this.prefix}    -> ${text}`)
  }

  /** A line without the prefix (an `ask` question is addressed to the user, not part of the log). */
  raw(text: string): Effect.Effect<void> {
    return this.sink.line(text)
  }

  nested(extra: string): ProgressWriter {
    return new ProgressWriter(this.sink, `${this.prefix}${extra}`)
  }
}

/** The writer for a run's top level, from the Progress service in context. */
export const topLevelWriter: Effect.Effect<ProgressWriter, never, Progress> = Progress.useSync(
  (sink) => new ProgressWriter(sink)
)
