// The root help (`lait --help`) as effect/cli renders it from the real command tree, without and with
// colour, for build.ts to bake into the binary's fast path (src/cli/fastPath.ts).
//   bun src/cli/rootHelp.ts     prints {"plain": ..., "color": ...} as JSON
import { Effect, Layer } from "effect"
import { CliOutput, Command, type HelpDoc } from "effect/cli"
import { FileLoader } from "../platform/FileLoader.ts"
import { PlatformLayer } from "../platform/layer.ts"
import { VERSION } from "../version.ts"
import { CliConfigLayer } from "./global.ts"
import { formatter } from "./presenter.ts"
import { loadSubcommands, makeRoot } from "./root.ts"

export const renderRootHelp = async (): Promise<{ readonly plain: string; readonly color: string }> => {
  let doc: HelpDoc.HelpDoc | undefined
  // The presenter src/cli/presenter.ts installs formats the same event's document with `formatter`.
  const capture = CliOutput.layerPresenter({
    present: (event) =>
      Effect.sync(() => {
        if (event._tag === "Help" && event.reason === "Requested") doc = event.helpDoc
      })
  })
  await Effect.runPromise(
    Command.runWith(makeRoot(await loadSubcommands()), { version: VERSION })(["--help"]).pipe(
      Effect.provide(Layer.mergeAll(PlatformLayer, FileLoader.layer, CliConfigLayer, capture))
    )
  )
  if (doc === undefined) throw new Error("effect/cli presented no help for --help")
  return { plain: formatter(false).formatHelpDoc(doc), color: formatter(true).formatHelpDoc(doc) }
}

if (import.meta.main) process.stdout.write(`${JSON.stringify(await renderRootHelp())}\n`)
