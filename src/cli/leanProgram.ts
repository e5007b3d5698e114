// What the lean paths of `lait run` and `lait eval` (src/cli/leanRun.ts, leanEval.ts) share: the
// command's input and the global settings as effect/cli would hand them over (src/cli/leanArgs.ts read
// them; absent optional values become Option.none() here), the services of the command tree's AppLayer
// a run needs, logging; run, as the command tree's program is, by src/main.ts (src/cli/runProcess.ts)
// or the tests' in-process runner (src/cli/inProcess.ts).
import { Effect, Option } from "effect"
import { FileLoader } from "../platform/FileLoader.ts"
import type { LeanArgs } from "./leanArgs.ts"
import { levelFor, withLogging } from "./logging.ts"
import { logLevelSetting } from "../config/environment.ts"
import type { CommandLineProgram } from "./outcome.ts"
import { GlobalSettings } from "./settings.ts"

const optionOf = (value: unknown) => (value === undefined ? Option.none() : Option.some(value))

/** The values a command tree handler is given: Options where effect/cli gives Options. */
export const handlerInput = (args: LeanArgs): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(args.input).map(([key, value]) => [key, args.optional.includes(key) ? optionOf(value) : value])
  )

/** A command's program as the command tree would run it, from a command line a lean reader accepted. */
export const leanProgram = <E>(
  program: Effect.Effect<void, E, GlobalSettings | FileLoader>,
  { globals }: LeanArgs
): CommandLineProgram => {
  const verbosity = (globals["verbose"] as ReadonlyArray<boolean>).length
  const settings = GlobalSettings.of({
    options: Effect.succeed({
      configPath: globals["config"] as string | undefined,
      noConfig: globals["no-config"] as boolean,
      noEnv: globals["no-env"] as boolean,
      verbosity,
      cache: globals["cache"] as boolean | undefined
    })
  })
  const provided = program.pipe(
    Effect.provideService(GlobalSettings, settings),
    // Of the command tree's AppLayer, only what a run needs (the type says so): not the runtime's file
    // system, child process, stdio and terminal services, which effect/cli asks for (their modules,
    // node:crypto among them, cost milliseconds to evaluate), nor an HTTP client: the live model
    // client and live export build theirs when they are first used (src/cli/modelLayers.ts). Provided
    // as services, not layers: nothing to build.
    Effect.provideService(FileLoader, FileLoader.live),
    withLogging(levelFor(verbosity, logLevelSetting()))
  )
  // No usage errors on these paths: whatever effect/cli would reject never comes here.
  return { program: provided, verbosity, isUsageError: () => false }
}
