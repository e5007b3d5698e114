// What the lean paths of `lait run` and `lait eval` (src/cli/leanRun.ts, leanEval.ts) share: the
// global settings read from their command line, the services of the command tree's AppLayer a run
// needs, logging, and the process handling of src/cli/runProcess.ts.
import { Effect } from "effect"
import { FileLoader } from "../platform/FileLoader.ts"
import { levelFor, withLogging } from "./logging.ts"
import { runProgram } from "./runProcess.ts"
import { GlobalSettings } from "./settings.ts"

/** The global flags a lean reader took from the command line. */
export interface LeanGlobals {
  readonly strings: { readonly config?: string | undefined }
  readonly booleans: ReadonlySet<string>
  readonly verbosity: number
}

/** Runs a command's program as the command tree would, from a command line a lean reader accepted. */
export const runLeanProgram = <E>(
  program: Effect.Effect<void, E, GlobalSettings | FileLoader>,
  args: LeanGlobals
): void => {
  const settings = GlobalSettings.of({
    options: Effect.succeed({
      configPath: args.strings.config,
      noConfig: args.booleans.has("no-config"),
      noEnv: args.booleans.has("no-env"),
      verbosity: args.verbosity,
      cache: args.booleans.has("cache") ? true : args.booleans.has("no-cache") ? false : undefined
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
    withLogging(levelFor(args.verbosity, process.env["LAIT_LOG"]))
  )
  // No usage errors on these paths: whatever effect/cli would reject never comes here.
  runProgram(provided, { verbosity: args.verbosity, isUsageError: () => false })
}
