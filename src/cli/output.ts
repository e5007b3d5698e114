// How effect/cli's help, version and usage errors reach the user: help asked for goes to stdout, a
// usage error is one `lait: ...` line on stderr (stdout carries results only), colour only on a TTY.
import { Console, Effect, Layer } from "effect"
import { CliOutput } from "effect/cli"

export const useColor = (stream: { readonly isTTY?: boolean }): boolean =>
  stream.isTTY === true && process.env["NO_COLOR"] === undefined && process.env["TERM"] !== "dumb"

const formatter = (colors: boolean) => CliOutput.defaultFormatter({ colors })

const usageHint = (commandPath: ReadonlyArray<string>) => `see '${commandPath.join(" ")} --help'`

export const PresenterLayer = Layer.mergeAll(
  CliOutput.layer(formatter(useColor(process.stdout))),
  CliOutput.layerPresenter({
    present: (event) =>
      Effect.gen(function*() {
        switch (event._tag) {
          case "Help": {
            // "Implicit" help means a command group was called with nothing to do: the usage goes
            // to stderr and the invocation is a usage error (main maps it to exit 2).
            if (event.reason === "Requested") {
              yield* Console.log(formatter(useColor(process.stdout)).formatHelpDoc(event.helpDoc))
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
            yield* Console.log(`${event.name} ${event.version}`)
        }
      })
  })
)
