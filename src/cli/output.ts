// How lait prints. Every result a command prints goes through `writeStdout`/`printLine`, so a write
// that fails (a full disk, `ulimit -f`, a closed stdout) is a tagged OutputError: main prints
// `lait: failed to write output: <reason>` and exits 1, or exits quietly (141) when the reader of a
// pipe went away. Also how effect/cli's help, version and usage errors reach the user: help asked for
// goes to stdout, a usage error is one `lait: ...` line on stderr, colour only on a TTY.
import { Console, Effect, Layer } from "effect"
import { CliOutput } from "effect/cli"
import { OutputError } from "../core/errors.ts"
import { errnoOf } from "../platform/FileLoader.ts"
import { stdoutWasClosed } from "../platform/files.ts"
import { osReason } from "../core/osError.ts"

// A failed write reaches the write's callback (below), and Bun emits it as an 'error' event as well,
// which with no listener would end the process from the event loop with a stack trace.
process.stdout.on("error", () => {})
process.stderr.on("error", () => {})

const outputError = (error: unknown) =>
  new OutputError({ message: "failed to write output", cause: osReason(error), errno: errnoOf(error) })

// Sticky: after a failure the stream drops later writes without an error, so every later write fails
// the same way instead of pretending to succeed.
let failure: OutputError | undefined

/**
 * Writes `text` to stdout and waits until the OS took it (Bun's stdout is asynchronous on pipes), so
 * the outcome of the write is known before the command goes on or exits.
 */
export const writeStdout = (text: string): Effect.Effect<void, OutputError> =>
  Effect.callback<void, OutputError>((resume) => {
    failure ??= stdoutWasClosed() ? outputError({ code: "EBADF" }) : undefined
    if (failure !== undefined) return resume(Effect.fail(failure))
    process.stdout.write(text, (error) => {
      if (error !== null && error !== undefined) failure ??= outputError(error)
      resume(failure === undefined ? Effect.void : Effect.fail(failure))
    })
  })

/** `text` and a newline on stdout. */
export const printLine = (text: string): Effect.Effect<void, OutputError> => writeStdout(`${text}\n`)

export const useColor = (stream: { readonly isTTY?: boolean }): boolean =>
  stream.isTTY === true && process.env["NO_COLOR"] === undefined && process.env["TERM"] !== "dumb"

export const formatter = (colors: boolean) => CliOutput.defaultFormatter({ colors })

const usageHint = (commandPath: ReadonlyArray<string>) => `see '${commandPath.join(" ")} --help'`

export const PresenterLayer = Layer.mergeAll(
  CliOutput.layer(formatter(useColor(process.stdout))),
  CliOutput.layerPresenter({
    // The presenter may not fail; a failed write still reaches main, as a defect.
    present: (event) =>
      Effect.gen(function*() {
        switch (event._tag) {
          case "Help": {
            // "Implicit" help means a command group was called with nothing to do: the usage goes
            // to stderr and the invocation is a usage error (main maps it to exit 2).
            if (event.reason === "Requested") {
              yield* printLine(formatter(useColor(process.stdout)).formatHelpDoc(event.helpDoc))
            } else {
              yield* Console.error(formatter(useColor(process.stderr)).formatHelpDoc(event.helpDoc))
            }
            return
          }
          case "InvalidInvocation": {
            const first = event.errors[0]
            const message = first === undefined ? "invalid invocation" : first.message.split("\n")[0]
            yield* Console.error(`lait: ${message} (${usageHint(event.commandPath)})`)
            return
          }
          case "Version":
            yield* printLine(`${event.name} ${event.version}`)
        }
      }).pipe(Effect.orDie)
  })
)
