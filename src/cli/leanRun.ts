// The lean `lait run`: a command line src/cli/leanArgs.ts read as a plain run calls the same handler
// (src/cli/runWorkflow.ts) with the same options, services, global settings, logging and process
// handling (src/cli/runProcess.ts) as the command tree does, without loading effect/cli or building
// and parsing its command tree: that was about a fifth of a short `lait run`.
import { Effect, Layer, Option } from "effect"
import { FetchHttpClient } from "effect/http"
import { FileLoader } from "../platform/FileLoader.ts"
import type { LeanRunArgs } from "./leanArgs.ts"
import { levelFor, loggingLayer } from "./logging.ts"
import { runProgram } from "./runProcess.ts"
import { provideRunServices } from "./runServices.ts"
import { GlobalSettings } from "./settings.ts"
import { type RunOptions, runWorkflow } from "./runWorkflow.ts"

const optional = <A>(value: A | undefined): Option.Option<A> =>
  value === undefined ? Option.none() : Option.some(value)

/** The options effect/cli would parse from the same command line. */
export const runOptionsOf = (args: LeanRunArgs): RunOptions => {
  type Name = Parameters<LeanRunArgs["booleans"]["has"]>[0]
  const flag = (name: Name) => args.booleans.has(name)
  // An optional boolean given is Some(true); not given, None.
  const optionalFlag = (name: Name) => (flag(name) ? Option.some(true) : Option.none())
  return {
    file: args.file,
    prompt: optional(args.prompt),
    input: args.input,
    output: optional(args.strings.output),
    json: flag("json"),
    record: optional(args.strings.record),
    replay: optional(args.strings.replay),
    strictReplay: flag("strict-replay"),
    replayTools: flag("replay-tools"),
    recordMissing: optional(args.strings["record-missing"]),
    traceFile: optional(args.strings["trace-file"]),
    traceContent: optionalFlag("trace-content"),
    showUsage: flag("show-usage"),
    approveTools: false,
    noHistory: flag("no-history"),
    dryRun: flag("dry-run"),
    traceSpans: optionalFlag("trace-spans"),
    checkpoint: flag("checkpoint"),
    resume: optional(args.strings.resume)
  }
}

export const leanRun = (args: LeanRunArgs): void => {
  const settings = GlobalSettings.of({
    options: Effect.succeed({
      configPath: args.strings.config,
      noConfig: args.booleans.has("no-config"),
      noEnv: args.booleans.has("no-env"),
      verbosity: args.verbosity,
      cache: args.booleans.has("cache") ? true : args.booleans.has("no-cache") ? false : undefined
    })
  })
  const program = provideRunServices(runOptionsOf(args), runWorkflow(runOptionsOf(args))).pipe(
    Effect.provideService(GlobalSettings, settings),
    // Of the command tree's AppLayer, only what a run needs (the type says so): not the runtime's file
    // system, child process, stdio and terminal services, which effect/cli asks for (their modules,
    // node:crypto among them, cost milliseconds to evaluate).
    Effect.provide(Layer.mergeAll(FetchHttpClient.layer, FileLoader.layer)),
    Effect.provide(loggingLayer(levelFor(args.verbosity, process.env["LAIT_LOG"])))
  )
  // No usage errors on this path: whatever effect/cli would reject never comes here.
  runProgram(program, { verbosity: args.verbosity, isUsageError: () => false })
}
