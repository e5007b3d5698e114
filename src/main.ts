// Entry point: parse, run, map the outcome to an exit code, and own Ctrl-C.
// First Ctrl-C: interrupt the running fiber (finalizers run: temp files removed, children killed).
// Second Ctrl-C: exit 130 at once. Any Ctrl-C makes the exit code 130.
// First import on purpose: it catches a Ctrl-C that arrives while the others are still loading.
import { takeEarlySigints } from "./core/earlySigint.ts"
import { Cause, Effect, Exit, Layer } from "effect"
import { CliError, Command } from "effect/cli"
import { ExitCode, exitCodeOf, isBrokenPipe, primaryError, renderChain } from "./core/errors.ts"
import { CliConfigLayer } from "./cli/global.ts"
import { countVerbosity, levelFor, loggingLayer } from "./cli/logging.ts"
import { PresenterLayer } from "./cli/output.ts"
import { root } from "./cli/root.ts"
import { PlatformLayer } from "./platform.ts"
import { VERSION } from "./version.ts"

const argv = process.argv.slice(2)
const verbosity = countVerbosity(argv)

const flushAndExit = (code: number): void => {
  let pending = 2
  const done = () => {
    if (--pending === 0) process.exit(code)
  }
  process.stdout.write("", done)
  process.stderr.write("", done)
}

const usageConflict = (args: ReadonlyArray<string>): string | undefined => {
  const before = args.includes("--") ? args.slice(0, args.indexOf("--")) : args
  if (before.includes("--cache") && before.includes("--no-cache")) {
    return "the argument '--cache' cannot be used with '--no-cache'"
  }
  if (before.includes("--no-config") && before.some((a) => a === "--config" || a.startsWith("--config="))) {
    return "the argument '--config <PATH>' cannot be used with '--no-config'"
  }
  return undefined
}

const conflict = usageConflict(argv)
if (conflict !== undefined) {
  process.stderr.write(`lait: ${conflict}\n`)
  flushAndExit(ExitCode.usage)
} else {
  const program = Command.runWith(root, { version: VERSION })(argv).pipe(
    Effect.provide(Layer.mergeAll(PlatformLayer, CliConfigLayer, PresenterLayer)),
    Effect.provide(loggingLayer(levelFor(verbosity, process.env["LAIT_LOG"])))
  )

  let sigints = 0
  const fiber = Effect.runFork(program)

  const onSigint = () => {
    sigints++
    if (sigints === 1) {
      process.stderr.write("\nlait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...\n")
      fiber.interruptUnsafe()
    } else {
      process.stderr.write("lait: received a second Ctrl-C; exiting immediately\n")
      process.exit(ExitCode.ctrlC)
    }
  }
  process.on("SIGINT", onSigint)
  // Ctrl-Cs caught while the modules loaded count as if they came now (the fiber has not run yet).
  for (let early = takeEarlySigints(); early > 0; early--) onSigint()

  fiber.addObserver((exit) => {
    if (sigints > 0) return flushAndExit(ExitCode.ctrlC)
    if (Exit.isSuccess(exit)) return flushAndExit(ExitCode.ok)
    const error = primaryError(exit.cause)
    if (error === undefined) return flushAndExit(ExitCode.ctrlC)
    // The reader of stdout went away (`lait ... | head -1`): quiet, like any other filter in a pipe.
    if (isBrokenPipe(error)) return flushAndExit(ExitCode.brokenPipe)
    if (CliError.isCliError(error)) {
      // effect/cli already printed the usage line (or help); parse problems are usage errors.
      return flushAndExit(ExitCode.usage)
    }
    process.stderr.write(`lait: ${renderChain(error)}\n`)
    if (verbosity >= 2) process.stderr.write(`${Cause.pretty(exit.cause)}\n`)
    flushAndExit(exitCodeOf(error))
  })
}
