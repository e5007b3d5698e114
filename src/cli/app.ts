// The CLI behind src/main.ts: parse, run, map the outcome to an exit code, and own the shutdown signals.
// The first of Ctrl-C (SIGINT), SIGTERM (kill, docker stop, systemd, CI cancellation) or SIGHUP (a
// closed terminal) interrupts the running fiber: finalizers run (temp files removed, children and
// their process groups killed, MCP servers stopped). A second one, of any of the three, exits at
// once. Either way the exit code is 128 + the first signal's number: 130, 143 or 129.
// src/main.ts imported earlySignals before anything else, so signals that arrive while this module's
// imports load are already being remembered.
import { SHUTDOWN_SIGNALS, type ShutdownSignal, takeEarlySignals } from "../core/earlySignals.ts"
import { Cause, Effect, Exit, Layer } from "effect"
import { CliError, Command } from "effect/cli"
import { CliConfigLayer } from "./global.ts"
import { countVerbosity, levelFor, loggingLayer } from "./logging.ts"
import { PresenterLayer } from "./output.ts"
import { namedSubcommand, subcommandConflict } from "./chatFlags.ts"
import { loadSubcommands, makeRoot, subcommandNames } from "./root.ts"
import { ExitCode, exitCodeOf, isBrokenPipe, primaryError, renderChain, signalExitCode } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { PlatformLayer } from "../platform/layer.ts"
import { versionLine } from "../version.ts"

const argv = process.argv.slice(2)
const verbosity = countVerbosity(argv)

// Help, shell completions and the version describe the whole tree (or are answered at its root);
// any other command line that names a subcommand needs that one only (src/cli/root.ts).
const wholeTree = (args: ReadonlyArray<string>): boolean => {
  const before = args.includes("--") ? args.slice(0, args.indexOf("--")) : args
  return before.some((a) => ["--help", "-h", "--completions", "--version", "-V"].includes(a.split("=")[0]!))
}
const named = wholeTree(argv) ? undefined : namedSubcommand(argv, subcommandNames)
const root = makeRoot(await loadSubcommands(named === undefined ? undefined : [named]))

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
  return subcommandConflict(args, subcommandNames)
}

// Every service that lives as long as the process, provided once here. What is per run (usage, the
// tracer, model steps, a test file's replay client) is built by the command for each run.
const AppLayer = Layer.mergeAll(PlatformLayer, FileLoader.layer, CliConfigLayer, PresenterLayer)

const conflict = usageConflict(argv)
if (conflict !== undefined) {
  process.stderr.write(`lait: ${conflict}\n`)
  flushAndExit(ExitCode.usage)
} else {
  // effect/cli hands this string to the --version action (src/cli/global.ts), which prints it as is:
  // the whole line, so that `--version --json` can print JSON instead.
  const beforeDashes = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv
  const version = versionLine(beforeDashes.includes("--json"))
  const program = Command.runWith(root, { version })(argv).pipe(
    Effect.provide(AppLayer),
    Effect.provide(loggingLayer(levelFor(verbosity, process.env["LAIT_LOG"])))
  )

  const fiber = Effect.runFork(program)

  // Ctrl-C keeps upstream's wording; the terminal has just echoed ^C, hence the leading newline.
  const named = (signal: ShutdownSignal) => (signal === "SIGINT" ? "Ctrl-C" : signal)
  let stopping: ShutdownSignal | undefined
  const onSignal = (signal: ShutdownSignal) => {
    if (stopping === undefined) {
      stopping = signal
      process.stderr.write(
        signal === "SIGINT"
          ? "\nlait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...\n"
          : `lait: received ${signal}, stopping (a second signal exits immediately)...\n`
      )
      fiber.interruptUnsafe()
    } else {
      process.stderr.write(
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
    if (CliError.isCliError(error)) {
      // effect/cli already printed the usage line (or help); parse problems are usage errors.
      return flushAndExit(ExitCode.usage)
    }
    process.stderr.write(`lait: ${renderChain(error)}\n`)
    if (verbosity >= 2) process.stderr.write(`${Cause.pretty(exit.cause)}\n`)
    flushAndExit(exitCodeOf(error))
  })
}
