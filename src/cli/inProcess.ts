// lait inside another program's process: the tests' runner (test/e2e/inProcess.ts) runs most command
// lines this way rather than spawning `bun src/main.ts` (docs/architecture.md#testing). The same
// paths as src/main.ts (the fast path's answers, the lean run and eval, the command tree) and the same
// outcome mapping (src/cli/outcome.ts), with the standard streams redirected (src/platform/rawStdout.ts)
// and without what belongs to a process: no signal handlers, no exit, no JSC re-exec. The caller
// owns the working directory and the environment, which are the process's.
import { processEnv } from "../config/environment.ts"
import { Effect } from "effect"
import { forgetApiKeyCmdKeys } from "../config/apiKeyCmd.ts"
import { forgetSecrets } from "../core/redaction.ts"
import { redirectStdio, type StdioRedirect, stdioRedirect } from "../platform/rawStdout.ts"
import { commandLineProgram } from "./commandLine.ts"
import { fastAnswer, printFastAnswer } from "./fastPath.ts"
import { reportExit, withStdConsole } from "./outcome.ts"

export interface InProcessOptions {
  /** Where fds 1 and 2 go and what stdin holds for this run. */
  readonly stdio: StdioRedirect
  /** Interrupts the run, as Ctrl-C interrupts the process's main fiber. */
  readonly signal?: AbortSignal
}

/**
 * What lait keeps for the life of its process, on purpose (one process is one run, or one server):
 * the secrets to mask (src/core/redaction.ts) and the keys `api_key_cmd` printed. A run here starts,
 * as a new process does, with neither, and leaves neither to the next.
 */
const forgetProcessState = (): void => {
  forgetSecrets()
  forgetApiKeyCmdKeys()
}

/** Runs the command line `args` (the arguments after `lait`); its exit code. One run at a time. */
export const runInProcess = async (
  args: ReadonlyArray<string>,
  { stdio, signal }: InProcessOptions
): Promise<number> => {
  redirectStdio(stdio)
  forgetProcessState()
  try {
    const env = processEnv()
    const answer = fastAnswer(args, env)
    if (answer !== undefined) return printFastAnswer(answer)
    const { program, ...outcome } = await commandLineProgram(args, env)
    const exit = await Effect.runPromiseExit(withStdConsole(program), signal === undefined ? {} : { signal })
    return reportExit(exit, outcome)
  } finally {
    // A run the caller gave up on may end during a later one: the later one's streams stay.
    if (stdioRedirect() === stdio) {
      forgetProcessState()
      redirectStdio(undefined)
    }
  }
}
