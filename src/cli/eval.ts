// `lait eval FILE`: run a workflow or a model+prompt target live against every case of an eval
// file, --repeat times, and report pass rates and reliability statistics (docs/evals.md).
// Evals measure the model as it is now, so responses are never served from the cache unless --cache
// is given on this command line (`default.cache` does not apply); --record/--replay make a run
// reproducible, judges included. The report is the only thing on stdout, or goes to `-o FILE`.
// `lait eval merge` (evalMerge.ts) combines the JSON reports of shards; writing the report, baselines
// and the exit code are in evalReport.ts.
import { Argument, Command, Flag } from "effect/cli"
import { switchFlag } from "./flags/make.ts"
import { showUsageFlag } from "./flags/output.ts"
import { recordFlags, strictReplayFlag } from "./flags/record.ts"
import { traceDirFlags } from "./flags/trace.ts"
import { evalMergeCommand, reportFlags, scaleFlags } from "./evalMerge.ts"
import { liveExportLayer } from "../trace/live/layer.ts"
import { evalConfigLayer, evalModelLayer, evalToolsLayer, MAX_REPEAT, runEvalCommand } from "./evalRun.ts"

export { MAX_JOBS, MAX_REPEAT } from "./evalRun.ts"

export const evalCommand = Command.make(
  "eval",
  {
    file: Argument.String("file").pipe(Argument.withDescription("Eval definition (target + cases)")),
    repeat: Flag.Int("repeat").pipe(
      Flag.withMetavar("N"),
      Flag.withDescription(`Run each case N times (0 behaves as 1, at most ${MAX_REPEAT}) and report its pass rate`),
      Flag.withDefault(1)
    ),
    ...reportFlags,
    maxCost: Flag.Finite("max-cost").pipe(
      Flag.withMetavar("USD"),
      Flag.withDescription("Stop starting runs once the cost from 'pricing:' would pass USD; exit 1"),
      Flag.optional
    ),
    showUsage: showUsageFlag("Print token usage (and cost, with pricing:) of all runs to stderr, by label"),
    dryRun: switchFlag("dry-run", "Print how many requests the eval would send (and their prompt cost, with pricing:)"),
    ...recordFlags({
      record:
        "Save every request/response (judges included) as a cassette <DIR>/<key>.json (<key>.r<i>.json in repeat i+1)",
      replay: "Answer every request from cassettes in DIR; never touch the network"
    }),
    strictReplay: strictReplayFlag(),
    ...traceDirFlags("Write each run's trace, its judges' calls included, to DIR/case-<i>.repeat-<r>.jsonl"),
    ...scaleFlags
  },
  runEvalCommand
).pipe(
  Command.withDescription("Run an eval definition live and report per-case pass rates and reliability"),
  // The same services, in the same order, as src/cli/evalRun.ts's provideEvalServices (the lean path).
  Command.provide((flags) => evalModelLayer(flags)),
  Command.provide((flags) => evalToolsLayer(flags)),
  Command.provide(evalConfigLayer),
  Command.provide(liveExportLayer),
  Command.withSubcommands([evalMergeCommand])
)
