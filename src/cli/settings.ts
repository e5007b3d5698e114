// The global flags' values (--config, --no-config, --no-env, -v, --cache) as the commands read them.
// A service of ours rather than effect/cli's GlobalFlag settings, so that what reads them (the config
// and model layers of `lait run`) loads without effect/cli: the command tree fills it from the parsed
// settings (src/cli/global.ts), the lean `lait run` path (src/cli/leanRun.ts) from its own parse.
import { Context, Effect } from "effect"
import type { ArgumentError } from "../core/usageErrors.ts"

export interface GlobalOptions {
  readonly configPath: string | undefined
  readonly noConfig: boolean
  readonly noEnv: boolean
  readonly verbosity: number
  /** undefined when neither --cache nor --no-cache was given. */
  readonly cache: boolean | undefined
}

/** Read when a command asks, as before: a conflict of two global flags fails the command that reads them. */
export class GlobalSettings extends Context.Service<GlobalSettings, {
  readonly options: Effect.Effect<GlobalOptions, ArgumentError>
}>()("lait/cli/GlobalSettings") {}

/** The global flags of this invocation, checked for conflicts. */
export const globalOptions: Effect.Effect<GlobalOptions, ArgumentError, GlobalSettings> = GlobalSettings.use(
  (settings) => settings.options
)
