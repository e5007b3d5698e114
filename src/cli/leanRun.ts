// The lean `lait run`: a command line src/cli/leanArgs.ts read as a plain run calls the same handler
// (src/cli/runWorkflow.ts) with the same options, services, global settings, logging and process
// handling (src/cli/runProcess.ts) as the command tree does, without loading effect/cli or building
// and parsing its command tree: that was about a fifth of a short `lait run`.
import { Option } from "effect"
import type { LeanRunArgs } from "./leanArgs.ts"
import { provideRunServices } from "./runServices.ts"
import { type RunOptions, runWorkflow } from "./runWorkflow.ts"
import { runLeanProgram } from "./leanProgram.ts"

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
  const options = runOptionsOf(args)
  runLeanProgram(provideRunServices(options, runWorkflow(options)), args)
}
