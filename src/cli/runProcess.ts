// Runs a command's program as the process, through the platform's `runMain` (src/platform/runMain.ts):
// it starts the main fiber and interrupts it on Ctrl-C (SIGINT) or SIGTERM; the teardown here maps the
// outcome to an exit code by the table of src/core/errors.ts and prints the one-line error. On top of
// the runner, lait's own shutdown handling: SIGHUP (a closed terminal) stops it too; the first of the
// three prints upstream's wording and interrupts the fiber, so finalizers run (temp files removed,
// children and their process groups killed, MCP servers stopped); a second one, of any of the three,
// exits at once. Either way the exit code is 128 + the first signal's number: 130, 143 or 129.
// src/main.ts imported earlySignals before anything else, so signals that arrive while the modules
// load are already being remembered. Used by the command tree (src/cli/app.ts) and the lean `lait run`
// and `lait eval` paths (src/cli/leanProgram.ts) alike; no effect/cli here.
import { SHUTDOWN_SIGNALS, type ShutdownSignal, takeEarlySignals } from "../core/earlySignals.ts"
import { Cause, Console, Effect, Exit, type Fiber } from "effect"
import { redactingConsole } from "../core/redaction.ts"
import {
  causeChain,
  ExitCode,
  exitCodeOf,
  isBrokenPipe,
  primaryError,
  renderChain,
  signalExitCode
} from "../core/errors.ts"
import { wholeTextOf } from "../core/excerpt.ts"
import { escapeControls } from "../core/terminalText.ts"
import { runMain } from "../platform/runMain.ts"
import { stderrStream, stdoutStream, streamsBuilt, writeStderr } from "../platform/stdStreams.ts"

export const flushAndExit = (code: number): void => {
  // Without streams every write was synchronous: nothing is queued.
  if (!streamsBuilt()) return process.exit(code)
  let pending = 2
  const done = () => {
    if (--pending === 0) process.exit(code)
  }
  stdoutStream().write("", done)
  stderrStream().write("", done)
}

/** The signals the platform's runner itself answers by interrupting the main fiber. */
const RUNNER_SIGNALS: ReadonlyArray<ShutdownSignal> = ["SIGINT", "SIGTERM"]

export interface RunProgramOptions {
  /** -v count: -v adds what the error quotes as an excerpt, whole; -vv the failure's cause. */
  readonly verbosity: number
  /** effect/cli's parse problems: it printed the usage line (or help) already; exit 2. */
  readonly isUsageError: (error: unknown) => boolean
}

export const runProgram = (program: Effect.Effect<void, unknown>, { verbosity, isUsageError }: RunProgramOptions) => {
  // Ctrl-C keeps upstream's wording; the terminal has just echoed ^C, hence the leading newline.
  const named = (signal: ShutdownSignal) => (signal === "SIGINT" ? "Ctrl-C" : signal)
  let stopping: ShutdownSignal | undefined
  const onSignal = (fiber: Fiber.Fiber<unknown, unknown>, signal: ShutdownSignal, early: boolean) => {
    if (stopping === undefined) {
      stopping = signal
      writeStderr(
        signal === "SIGINT"
          ? "\nlait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...\n"
          : `lait: received ${signal}, stopping (a second signal exits immediately)...\n`
      )
      // The runner interrupts the fiber on SIGINT and SIGTERM itself; a second interruption would cut
      // the first one's finalizers short (a tool's process group waiting to be killed).
      if (early || !RUNNER_SIGNALS.includes(signal)) fiber.interruptUnsafe()
    } else {
      writeStderr(
        signal === stopping
          ? `lait: received a second ${named(signal)}; exiting immediately\n`
          : `lait: received ${named(signal)} while stopping; exiting immediately\n`
      )
      // No finalizers run from here; the process-wide exit hooks kill the children's process groups.
      process.exit(signalExitCode[stopping])
    }
  }

  const main = Effect.withFiber((fiber) => {
    // Before the runner's own listeners, so that the message comes before anything the interruption prints.
    for (const signal of SHUTDOWN_SIGNALS) process.prependListener(signal, () => onSignal(fiber, signal, false))
    // Signals caught while the modules loaded count as if they came now (the program has not run yet).
    for (const signal of takeEarlySignals()) onSignal(fiber, signal, true)
    // Console.error and Console.log mask secrets like every other write (src/core/redaction.ts).
    return Effect.provideService(program, Console.Console, redactingConsole(globalThis.console))
  })

  const exitCode = (exit: Exit.Exit<unknown, unknown>): number => {
    if (stopping !== undefined) return signalExitCode[stopping]
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

  runMain(main, {
    // The error is reported above, as one line, not logged with its cause.
    disableErrorReporting: true,
    // Not the runner's `onExit`: on success it leaves the process to end when its event loop empties
    // (a kept-alive connection or a lingering child would hold lait open), and on failure it exits
    // before stdout and stderr have drained (a piped report would be cut short).
    teardown: (exit) => flushAndExit(exitCode(exit))
  })
}
