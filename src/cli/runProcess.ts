// Runs a command's program as the process, through the platform's `runMain` (src/platform/runMain.ts):
// it starts the main fiber and interrupts it on Ctrl-C (SIGINT) or SIGTERM; the teardown here maps the
// outcome to an exit code and prints the one-line error (src/cli/outcome.ts, shared with the tests'
// in-process runner, src/cli/inProcess.ts). On top of the runner, lait's own shutdown handling:
// SIGHUP (a closed terminal) stops it too; the first of the three prints upstream's wording and
// interrupts the fiber, so finalizers run (temp files removed, children and their process groups
// killed, MCP servers stopped); a second one, of any of the three, exits at once. Either way the exit
// code is 128 + the first signal's number: 130, 143 or 129.
// src/main.ts imported earlySignals before anything else, so signals that arrive while the modules
// load are already being remembered. src/main.ts runs the command tree's program (src/cli/app.ts) and
// the lean `lait run` and `lait eval` paths' (src/cli/leanProgram.ts) alike with it; no effect/cli here.
import { SHUTDOWN_SIGNALS, type ShutdownSignal, takeEarlySignals } from "../core/earlySignals.ts"
import { Effect, Exit, type Fiber } from "effect"
import { signalExitCode } from "../core/errors.ts"
import { runMain } from "../platform/runMain.ts"
import { stderrStream, stdoutStream, streamsBuilt, writeStderr } from "../platform/stdStreams.ts"
import { type CommandLineProgram, reportExit, withStdConsole } from "./outcome.ts"

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

export const runProgram = ({ program, ...outcome }: CommandLineProgram): void => {
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
    return withStdConsole(program)
  })

  const exitCode = (exit: Exit.Exit<unknown, unknown>): number =>
    stopping !== undefined ? signalExitCode[stopping] : reportExit(exit, outcome)

  runMain(main, {
    // The error is reported above, as one line, not logged with its cause.
    disableErrorReporting: true,
    // Not the runner's `onExit`: on success it leaves the process to end when its event loop empties
    // (a kept-alive connection or a lingering child would hold lait open), and on failure it exits
    // before stdout and stderr have drained (a piped report would be cut short).
    teardown: (exit) => flushAndExit(exitCode(exit))
  })
}
