// The lean `lait eval`: a command line src/cli/leanArgs.ts read as a plain eval calls the same
// handler (src/cli/evalRun.ts) with the same input, services, global settings, logging and process
// handling (src/cli/runProcess.ts) as the command tree does, without loading effect/cli or building
// and parsing its command tree: that was most of the time before an eval's first request.
import { type EvalOptions, provideEvalServices, runEvalCommand } from "./evalRun.ts"
import type { LeanArgs } from "./leanArgs.ts"
import type { CommandLineProgram } from "./outcome.ts"
import { handlerInput, leanProgram } from "./leanProgram.ts"

export const leanEval = (args: LeanArgs): CommandLineProgram => {
  // The spec the input was read with is generated from src/cli/eval.ts, whose handler takes EvalOptions.
  const options = handlerInput(args) as unknown as EvalOptions
  return leanProgram(provideEvalServices(options, runEvalCommand(options)), args)
}
