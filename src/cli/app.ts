// The CLI behind src/main.ts: the program of a command line, parsed and run by effect/cli's command tree.
// src/main.ts runs it as the process (src/cli/runProcess.ts, which owns the shutdown signals), the
// tests' in-process runner inside theirs (src/cli/inProcess.ts); both map its outcome to the exit code
// by src/cli/outcome.ts.
import { Effect, Layer } from "effect"
import { CliError, Command } from "effect/cli"
import { CliConfigLayer } from "./global.ts"
import { countVerbosity, levelFor, loggingLayer } from "./logging.ts"
import { PresenterLayer } from "./presenter.ts"
import { lonePrompt, namedSubcommand, subcommandConflict } from "./chatFlags.ts"
import { mistypedSubcommand } from "./mistypedCommand.ts"
import { loadSubcommands, makeRoot, subcommandNames } from "./root.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { PlatformLayer } from "../platform/layer.ts"
import { versionLine } from "../version.ts"
import { logLevelSetting } from "../config/environment.ts"
import type { CommandLineProgram } from "./outcome.ts"
import { writeStderr } from "../platform/stdStreams.ts"

// Help, shell completions and the version describe the whole tree (or are answered at its root);
// any other command line that names a subcommand needs that one only (src/cli/root.ts).
const wholeTree = (args: ReadonlyArray<string>): boolean => {
  const before = args.includes("--") ? args.slice(0, args.indexOf("--")) : args
  return before.some((a) => ["--help", "-h", "--completions", "--version", "-V"].includes(a.split("=")[0]!))
}
const usageConflict = (args: ReadonlyArray<string>): string | undefined => {
  const before = args.includes("--") ? args.slice(0, args.indexOf("--")) : args
  if (before.includes("--cache") && before.includes("--no-cache")) {
    return "the argument '--cache' cannot be used with '--no-cache'"
  }
  if (before.includes("--no-config") && before.some((a) => a === "--config" || a.startsWith("--config="))) {
    return "the argument '--config <PATH>' cannot be used with '--no-config'"
  }
  const conflict = subcommandConflict(args, subcommandNames)
  if (conflict !== undefined || wholeTree(args)) return conflict
  // `lait tset`: a typo of a subcommand would otherwise be sent to the model as a (paid) prompt.
  const prompt = lonePrompt(args, subcommandNames)
  return prompt === undefined ? undefined : mistypedSubcommand(args, prompt, subcommandNames)
}

// Every service that lives as long as the process, provided once here. What is per run (usage, the
// tracer, model steps, a test file's replay client) is built by the command for each run.
const AppLayer = Layer.mergeAll(PlatformLayer, FileLoader.layer, CliConfigLayer, PresenterLayer)

/** A usage conflict found before the command tree: reported as its one line, exit 2. */
class UsageConflict {
  constructor(readonly message: string) {}
}

const isUsageError = (error: unknown): boolean => CliError.isCliError(error) || error instanceof UsageConflict

/** The program of the command line `argv` (the arguments after `lait`). */
export const cliProgram = async (argv: ReadonlyArray<string>): Promise<CommandLineProgram> => {
  const verbosity = countVerbosity(argv)
  const named = wholeTree(argv) ? undefined : namedSubcommand(argv, subcommandNames)
  const root = makeRoot(await loadSubcommands(named === undefined ? undefined : [named]))
  const conflict = usageConflict(argv)
  if (conflict !== undefined) {
    const report = Effect.sync(() => writeStderr(`lait: ${conflict}\n`))
    return { program: Effect.andThen(report, Effect.fail(new UsageConflict(conflict))), verbosity, isUsageError }
  }
  // effect/cli hands this string to the --version action (src/cli/global.ts), which prints it as is:
  // the whole line, so that `--version --json` can print JSON instead.
  const beforeDashes = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv
  const version = versionLine(beforeDashes.includes("--json"))
  const program = Command.runWith(root, { version })(argv).pipe(
    Effect.provide(AppLayer),
    Effect.provide(loggingLayer(levelFor(verbosity, logLevelSetting())))
  )
  return { program, verbosity, isUsageError }
}
