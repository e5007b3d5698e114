// `lait config show [--json]`.
import { Console, Effect } from "effect"
import { Command } from "effect/cli"
import { switchFlag } from "./flags/make.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { redactedConfig } from "../config/redacted.ts"
import { configLayer } from "./configLayer.ts"
import { printLine } from "./output.ts"

export { configLayer } from "./configLayer.ts"

const show = Command.make(
  "show",
  {
    json: switchFlag("json", "Print JSON instead of YAML")
  },
  Effect.fn("cli.config.show")(function*({ json }) {
    const { config, files } = yield* LaitConfig
    if (files.length === 0) yield* Console.error("note: no config file loaded")
    for (const file of files) yield* Console.error(`note: loaded config '${file}'`)
    const shown = redactedConfig(config)
    if (json) {
      yield* printLine(JSON.stringify(shown, null, 2))
    } else {
      const yaml = yield* Effect.promise(() => import("yaml"))
      yield* printLine(yaml.stringify(shown).trimEnd())
    }
  })
).pipe(
  Command.withDescription(
    "Print the merged configuration (files on stderr, api keys, header and env values, URL credentials redacted)"
  ),
  // A listing, so it never waits on a FIFO (`.env` or --config) with no writer: it fails at once.
  // `--config <(decrypt ...)` still works: the shell's pipe has its writer from the start.
  Command.provide(configLayer())
)

export const configCommand = Command.make("config").pipe(
  Command.withDescription("Inspect the configuration"),
  Command.withSubcommands([show])
)
