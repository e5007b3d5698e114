// Runs a command's program as the process: maps its outcome to an exit code and owns the shutdown
// signals. The first of Ctrl-C (SIGINT), SIGTERM (kill, docker stop, systemd, CI cancellation) or SIGHUP
// (a closed terminal) interrupts the running fiber: finalizers run (temp files removed, children and
// their process groups killed, MCP servers stopped). A second one, of any of the three, exits at
// once. Either way the exit code is 128 + the first signal's number: 130, 143 or 129.
// src/main.ts imported earlySignals before anything else, so signals that arrive while the modules
// load are already being remembered. Used by the command tree (src/cli/app.ts) and the lean `lait run`
// path (src/cli/leanRun.ts) alike; no effect/cli here.
import { SHUTDOWN_SIGNALS, type ShutdownSignal, takeEarlySignals } from "../core/earlySignals.ts"
import { Cause, Console, Effect, Exit } from "effect"
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

export interface RunProgramOptions {
  /** -v count: -v adds what the error quotes as an excerpt, whole; -vv the failure's cause. */
  readonly verbosity: number
  /** effect/cli's parse problems: it printed the usage line (or help) already; exit 2. */
  readonly isUsageError: (error: unknown) => boolean
}

export const runProgram = (program: Effect.Effect<void, unknown>, { verbosity, isUsageError }: RunProgramOptions) => {
  // Console.error and Console.log mask secrets like every other write (src/core/redaction.ts).
  const fiber = Effect.runFork(Effect.provideService(program, Console.Console, redactingConsole(globalThis.console)))

  // Ctrl-C keeps upstream's wording; the terminal has just echoed ^C, hence the leading newline.
  const named = (signal: ShutdownSignal) => (signal === "SIGINT" ? "Ctrl-C" : signal)
  let stopping: ShutdownSignal | undefined
  const onSignal = (signal: ShutdownSignal) => {
    if (stopping === undefined) {
      stopping = signal
      writeStderr(
        signal === "SIGINT"
          ? "\nlait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...\n"
          : `lait: received ${signal}, stopping (a second signal exits immediately)...\n`
      )
      fiber.interruptUnsafe()
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
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => onSignal(signal))
  // Signals caught while the modules loaded count as if they came now (the fiber has not run yet).
  for (const signal of takeEarlySignals()) onSignal(signal)

  fiber.addObserver((exit) => {
    if (stopping !== undefined) return flushAndExit(signalExitCode[stopping])
    if (Exit.isSuccess(exit)) return flushAndExit(ExitCode.ok)
    const error = primaryError(exit.cause)
    if (error === undefined) return flushAndExit(ExitCode.ctrlC)
    // The reader of stdout went away (`lait ... | head -1`): quiet, like any other filter in a pipe.
    if (isBrokenPipe(error)) return flushAndExit(ExitCode.brokenPipe)
    if (isUsageError(error)) {
      // effect/cli already printed the usage line (or help); parse problems are usage errors.
      return flushAndExit(ExitCode.usage)
    }
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
    flushAndExit(exitCodeOf(error))
  })
}
