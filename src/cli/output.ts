// How lait prints. Every result a command prints goes through `writeStdout`/`printLine`, so a write
// that fails (a full disk, `ulimit -f`, a closed stdout) is a tagged OutputError: main prints
// `lait: failed to write output: <reason>` and exits 1, or exits quietly (141) when the reader of a
// pipe went away. How effect/cli's help, version and usage errors reach the user: src/cli/presenter.ts.
import { Effect } from "effect"
import { OutputError } from "../core/errors.ts"
import { errnoOf } from "../platform/FileLoader.ts"
import { osReason } from "../core/osError.ts"
import { colorAllowed } from "../config/environment.ts"
import { stdoutWasClosed, writeSync } from "../platform/rawStdout.ts"
import { stdoutStream, streamsBuilt } from "../platform/stdStreams.ts"

const outputError = (error: unknown) =>
  new OutputError({ message: "failed to write output", cause: osReason(error), errno: errnoOf(error) })

// Sticky: after a failure the stream drops later writes without an error, so every later write fails
// the same way instead of pretending to succeed.
let failure: OutputError | undefined

/**
 * Writes `text` to stdout and waits until the OS took it (Bun's stdout is asynchronous on pipes), so
 * the outcome of the write is known before the command goes on or exits. While no stream exists
 * (src/platform/stdStreams.ts), a synchronous write(2) does the same without building one.
 */
export const writeStdout = (text: string): Effect.Effect<void, OutputError> =>
  Effect.callback<void, OutputError>((resume) => {
    failure ??= stdoutWasClosed() ? outputError({ code: "EBADF" }) : undefined
    if (failure !== undefined) return resume(Effect.fail(failure))
    if (!streamsBuilt()) {
      try {
        writeSync(1, text)
      } catch (error) {
        failure ??= outputError(error)
      }
      return resume(failure === undefined ? Effect.void : Effect.fail(failure))
    }
    stdoutStream().write(text, (error) => {
      if (error !== null && error !== undefined) failure ??= outputError(error)
      resume(failure === undefined ? Effect.void : Effect.fail(failure))
    })
  })

/** `text` and a newline on stdout. */
export const printLine = (text: string): Effect.Effect<void, OutputError> => writeStdout(`${text}\n`)

export const useColor = (stream: { readonly isTTY?: boolean }): boolean =>
  stream.isTTY === true && colorAllowed()
