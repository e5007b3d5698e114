// `lait config show [--json]`, and `configLayer`: the one way commands load the config from the
// global flags (--config, --no-config, --no-env).
import { Console, Effect, Layer } from "effect"
import { Command, Flag } from "effect/cli"
import { LaitConfig } from "../config/LaitConfig.ts"
import { redactedConfig } from "../config/redacted.ts"
import { globalOptions } from "./global.ts"
import { printLine } from "./output.ts"

/**
 * LaitConfig for this invocation. `waitForWriter`: commands that may take a while anyway wait
 * (cancellably) for a writer on a FIFO config, e.g. `--config <(decrypt lait.config.yml)`;
 * synchronous ones (lint, listings) fail at once instead.
 */
export const configLayer = (options?: { readonly waitForWriter?: boolean }) =>
  Layer.effectDiscard(
    Effect.flatMap(LaitConfig, ({ files }) =>
      Effect.logDebug(
        files.length === 0 ? "config: no file loaded" : `config: loaded ${files.map((f) => `'${f}'`).join(", ")}`
      ))
  ).pipe(
    Layer.provideMerge(
      LaitConfig.layerFrom(
        Effect.map(globalOptions, (g) => ({
          cwd: process.cwd(),
          configPath: g.configPath,
          noConfig: g.noConfig,
          noEnv: g.noEnv,
          waitForWriter: options?.waitForWriter ?? false
        })).pipe(Effect.tap((o) =>
          Effect.logDebug(
            `settings: cwd='${o.cwd}' config=${o.configPath === undefined ? "(search)" : `'${o.configPath}'`} ` +
              `no-config=${o.noConfig} no-env=${o.noEnv}`
          )
        ))
      )
    )
  )

const show = Command.make(
  "show",
  {
    json: Flag.Boolean("json").pipe(Flag.withDescription("Print JSON instead of YAML"), Flag.withDefault(false))
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
  Command.provide(configLayer({ waitForWriter: true }))
)

export const configCommand = Command.make("config").pipe(
  Command.withDescription("Inspect the configuration"),
  Command.withSubcommands([show])
)
