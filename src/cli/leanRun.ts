// The lean `lait run`: a command line src/cli/leanArgs.ts read as a plain run calls the same handler
// (src/cli/runWorkflow.ts) with the same input, services, global settings, logging and process
// handling (src/cli/runProcess.ts) as the command tree does, without loading effect/cli or building
// and parsing its command tree: that was about a third of a short `lait run`.
import type { LeanArgs } from "./leanArgs.ts"
import type { CommandLineProgram } from "./outcome.ts"
import { handlerInput, leanProgram } from "./leanProgram.ts"
import { provideRunServices } from "./runServices.ts"
import { type RunOptions, runWorkflow } from "./runWorkflow.ts"

export const leanRun = (args: LeanArgs): CommandLineProgram => {
  // The spec the input was read with is generated from src/cli/run.ts, whose handler takes RunOptions.
  const options = handlerInput(args) as unknown as RunOptions
  return leanProgram(provideRunServices(options, runWorkflow(options)), args)
}
