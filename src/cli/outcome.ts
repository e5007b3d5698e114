// What a command line's run ends with, whoever runs it: the lait process (src/cli/runProcess.ts) or
// a test's process running lait inside it (src/cli/inProcess.ts). The program of a command line
// with what its outcome needs, the Console it writes through, and the outcome as an exit code by the
// table of src/core/errors.ts with the one-line `lait: ...` error on stderr.
import { Cause, Console, Effect, Exit } from "effect"
import { redactingConsole } from "../core/redaction.ts"
import { causeChain, ExitCode, exitCodeOf, isBrokenPipe, primaryError, renderChain } from "../core/errors.ts"
import { wholeTextOf } from "../core/excerpt.ts"
import { escapeControls } from "../core/terminalText.ts"
import { stdConsole, writeStderr } from "../platform/stdStreams.ts"

/** A command line made ready to run: by the command tree (src/cli/app.ts) or a lean path (leanProgram.ts). */
export interface CommandLineProgram {
  readonly program: Effect.Effect<void, unknown>
  /** -v count: -v adds what the error quotes as an excerpt, whole; -vv the failure's cause. */
  readonly verbosity: number
  /** effect/cli's parse problems: it printed the usage line (or help) already; exit 2. */
  readonly isUsageError: (error: unknown) => boolean
}

/** The program with the Console it writes through: Console.error masks secrets like every other write. */
export const withStdConsole = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(program, Console.Console, redactingConsole(stdConsole()))

/** The exit code of a run that ended with `exit`, its error (if any) printed on stderr first. */
export const reportExit = (
  exit: Exit.Exit<unknown, unknown>,
  { isUsageError, verbosity }: Omit<CommandLineProgram, "program">
): number => {
  if (Exit.isSuccess(exit)) return ExitCode.ok
  const error = primaryError(exit.cause)
  if (error === undefined) return ExitCode.ctrlC
  // The reader of stdout went away (`lait ... | head -1`): quiet, like any other filter in a pipe.
  if (isBrokenPipe(error)) return ExitCode.brokenPipe
  // effect/cli already printed the usage line (or help); parse problems are usage errors.
  if (isUsageError(error)) return ExitCode.usage
  // The error is one line; what it quotes as an excerpt comes whole before it with -v.
  if (verbosity >= 1) {
    for (const link of causeChain(error)) {
      const whole = wholeTextOf(link)
      if (whole !== undefined) writeStderr(`note: ${whole.what}, whole:\n${whole.text}\n`)
    }
  }
  // The message can quote a file's contents or a path (a checkpoint's workflow, a YAML value): its
  // control characters are shown escaped, never sent to the terminal.
  writeStderr(`lait: ${escapeControls(renderChain(error), { keepLines: true })}\n`)
  if (verbosity >= 2) writeStderr(`${Cause.pretty(exit.cause)}\n`)
  return exitCodeOf(error)
}
