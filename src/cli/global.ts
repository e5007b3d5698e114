// Flags valid on either side of any subcommand (effect/cli global flags), and the built-ins we keep.
// `-v` is verbosity here, as in the original lait; the version flag is `-V`/`--version`.
import { Effect, Layer, Option } from "effect"
import { CliConfig, Flag, GlobalFlag } from "effect/cli"
import { bareSwitchFlag, valueFlag } from "./flags/make.ts"

import { ArgumentError } from "../core/usageErrors.ts"
import { printLine } from "./output.ts"
import { type GlobalOptions, GlobalSettings } from "./settings.ts"

export { type GlobalOptions, globalOptions } from "./settings.ts"

export const Verbose = GlobalFlag.Setting("verbose")({
  flag: Flag.Boolean("verbose").pipe(
    Flag.withAlias("v"),
    Flag.withDescription("Debug logs to stderr (-vv adds full request/response JSON); LAIT_LOG overrides"),
    Flag.atLeast(0)
  )
})

export const ConfigPath = GlobalFlag.Setting("config")({
  flag: valueFlag("config", "PATH", "Load exactly this config file (no upward search, no global config)")
})

export const NoConfig = GlobalFlag.Setting("no-config")({
  flag: bareSwitchFlag("no-config", "Load no lait.config.yml and no global config")
})

export const NoEnv = GlobalFlag.Setting("no-env")({
  flag: bareSwitchFlag("no-env", "Do not load .env from the current directory")
})

export const Cache = GlobalFlag.Setting("cache")({
  flag: Flag.Boolean("cache").pipe(
    Flag.withDescription("Turn the response cache on (--cache) or off (--no-cache), overriding default.cache"),
    Flag.optional
  )
})

const Version = GlobalFlag.Action({
  flag: Flag.Boolean("version").pipe(
    Flag.withAlias("V"),
    Flag.withDescription("Print the version and the commit it was built from (--json: also target and build date)"),
    Flag.withDefault(false)
  ),
  // src/main.ts passes the finished line (text or JSON) as the runner's version.
  run: (_, context) => printLine(context.version).pipe(Effect.orDie)
})

export const globalFlags = [Verbose, ConfigPath, NoConfig, NoEnv, Cache] as const

export const CliConfigLayer = CliConfig.layer({ builtIns: [GlobalFlag.Help, Version, GlobalFlag.Completions] })

/** The global flags' settings as parsed by effect/cli, checked for conflicts. */
const fromFlags = Effect.gen(function*() {
  const configPath = Option.getOrUndefined(yield* ConfigPath)
  const noConfig = yield* NoConfig
  if (configPath !== undefined && noConfig) {
    return yield* new ArgumentError({ reason: { _tag: "Conflict", flag: "--config <PATH>", other: "--no-config" } })
  }
  return {
    configPath,
    noConfig,
    noEnv: yield* NoEnv,
    verbosity: (yield* Verbose).length,
    cache: Option.getOrUndefined(yield* Cache)
  } satisfies GlobalOptions
})

/**
 * GlobalSettings from the settings effect/cli provides to a command's handler; read, as before, only
 * when the command asks for them.
 */
export const globalSettingsLayer = Layer.effect(
  GlobalSettings,
  Effect.map(Effect.context<Effect.Services<typeof fromFlags>>(), (context) =>
    GlobalSettings.of({ options: Effect.provideContext(fromFlags, context) }))
)
