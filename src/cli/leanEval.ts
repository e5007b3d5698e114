// The lean `lait eval`: a command line src/cli/leanArgs.ts read as a plain eval calls the same
// handler (src/cli/evalRun.ts) with the same options, services, global settings, logging and process
// handling (src/cli/runProcess.ts) as the command tree does, without loading effect/cli or building
// and parsing its command tree: that was most of the time before an eval's first request.
import { Option } from "effect"
import {
  DEFAULT_JOBS,
  DEFAULT_SIGNIFICANCE,
  type EvalOptions,
  provideEvalServices,
  runEvalCommand
} from "./evalRun.ts"
import type { LeanEvalArgs } from "./leanArgs.ts"
import { runLeanProgram } from "./leanProgram.ts"

/** The options effect/cli would parse from the same command line. */
export const evalOptionsOf = (args: LeanEvalArgs): EvalOptions => {
  const string = (name: keyof LeanEvalArgs["strings"]) => Option.fromUndefinedOr(args.strings[name])
  const flag = (name: Parameters<LeanEvalArgs["booleans"]["has"]>[0]) => args.booleans.has(name)
  // An optional boolean given is Some(true); not given, None.
  const optionalFlag = (name: Parameters<LeanEvalArgs["booleans"]["has"]>[0]) =>
    flag(name) ? Option.some(true) : Option.none()
  return {
    file: args.file,
    repeat: args.numbers.repeat ?? 1,
    format: args.format ?? "text",
    output: string("output"),
    minPassRate: Option.fromUndefinedOr(args.numbers["min-pass-rate"]),
    maxCost: Option.fromUndefinedOr(args.numbers["max-cost"]),
    showUsage: flag("show-usage"),
    dryRun: flag("dry-run"),
    record: string("record"),
    replay: string("replay"),
    strictReplay: flag("strict-replay"),
    traceDir: string("trace-dir"),
    traceSpans: optionalFlag("trace-spans"),
    traceContent: optionalFlag("trace-content"),
    jobs: args.numbers.jobs ?? DEFAULT_JOBS,
    shard: string("shard"),
    baseline: string("baseline"),
    saveBaseline: string("save-baseline"),
    significance: args.numbers.significance ?? DEFAULT_SIGNIFICANCE,
    failOnRegression: flag("fail-on-regression")
  }
}

export const leanEval = (args: LeanEvalArgs): void => {
  const options = evalOptionsOf(args)
  runLeanProgram(provideEvalServices(options, runEvalCommand(options)), args)
}
