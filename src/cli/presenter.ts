// How effect/cli's help, version and usage errors reach the user: help asked for goes to stdout, a
// usage error is one `lait: ...` line on stderr, colour only on a TTY. Apart from src/cli/output.ts so
// that printing a result does not load effect/cli (the lean `lait run` path never does).
import { Console, Effect, Layer } from "effect"
import { CliOutput } from "effect/cli"
import { printLine, useColor } from "./output.ts"
import { stderrStream, stdoutStream } from "../platform/stdStreams.ts"

export const formatter = (colors: boolean) => CliOutput.defaultFormatter({ colors })

const usageHint = (commandPath: ReadonlyArray<string>) => `see '${commandPath.join(" ")} --help'`

export const PresenterLayer = Layer.mergeAll(
  CliOutput.layer(formatter(useColor(stdoutStream()))),
  CliOutput.layerPresenter({
    // The presenter may not fail; a failed write still reaches main, as a defect.
    present: (event) =>
      Effect.gen(function*() {
        switch (event._tag) {
          case "Help": {
            // "Implicit" help means a command group was called with nothing to do: the usage goes
            // to stderr and the invocation is a usage error (main maps it to exit 2).
            if (event.reason === "Requested") {
              yield* printLine(formatter(useColor(stdoutStream())).formatHelpDoc(event.helpDoc))
            } else {
              yield* Console.error(formatter(useColor(stderrStream())).formatHelpDoc(event.helpDoc))
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
