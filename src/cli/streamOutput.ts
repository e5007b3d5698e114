// `lait PROMPT --stream` (docs/repl.md#streaming): the answer's text goes to stdout piece by piece as
// the model client hands it over, the reasoning to stderr with --show-reasoning. However the turn
// ends (done, failed, Ctrl-C) a newline ends what was printed, so the shell prompt starts on a line
// of its own and the text shown stays.
import { Effect } from "effect"
import { StreamSink } from "../model/streamSink.ts"
import { stderrStream, stdoutStream } from "../platform/stdStreams.ts"

export interface StreamedOutput {
  readonly provide: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const streamToStdout = (flags: { readonly showReasoning: boolean; readonly quiet: boolean }): StreamedOutput => {
  let last = "\n"
  let reasoning = false
  const write = (stream: NodeJS.WriteStream, text: string) => Effect.sync(() => void stream.write(text))
  const sink = StreamSink.of((delta) => {
    if (delta._tag === "Reasoning") {
      if (!flags.showReasoning || flags.quiet) return Effect.void
      const head = reasoning ? "" : "Reasoning:\n"
      reasoning = true
      return write(stderrStream(), head + delta.text)
    }
    // The reasoning (on stderr) ends with a blank line before the answer starts.
    const endReasoning = reasoning ? write(stderrStream(), "\n\n") : Effect.void
    reasoning = false
    last = delta.text
    return Effect.andThen(endReasoning, write(stdoutStream(), delta.text))
  })
  return {
    provide: (effect) =>
      effect.pipe(
        Effect.provideService(StreamSink, sink),
        Effect.ensuring(Effect.suspend(() => (last.endsWith("\n") ? Effect.void : write(stdoutStream(), "\n"))))
      )
  }
}
