// Entry point. `lait --version` and `lait --help` are answered at once (src/cli/fastPath.ts), a plain
// `lait run` or `lait eval` goes to its handler without effect/cli (src/cli/leanArgs.ts reads it with
// the flags generated from the command tree; src/cli/leanRun.ts, leanEval.ts); every
// other command line loads the CLI (src/cli/app.ts) with `import()` (src/cli/commandLine.ts chooses),
// so that nothing the answers do not need is evaluated before them; src/cli/runProcess.ts runs the
// program as the process. Keep the static imports here light: test/bench/startup-graph.test.ts
// checks that the command tree and Effect stay out of them.
// First import on purpose: it catches a signal that arrives while the others are still loading.
import { earlySignalArrived, takeEarlySignals } from "./core/earlySignals.ts"
import { fastAnswer, printFastAnswer } from "./cli/fastPath.ts"
import { tuneJsc } from "./platform/jscTuning.ts"

// 128 + the signal's number, as src/core/errors.ts's signalExitCode (not imported: it loads Effect).
const signalExitCode = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const

const args = process.argv.slice(2)
// The one read of the environment outside src/platform and src/config: this path may not load them.
const env = process.env
const answer = fastAnswer(args, env)
if (answer !== undefined) {
  const code = printFastAnswer(answer)
  const [signal] = takeEarlySignals()
  process.exit(signal === undefined ? code : signalExitCode[signal])
} else {
  tuneJsc(args, earlySignalArrived)
  const [{ commandLineProgram }, { runProgram }] = await Promise.all([
    import("./cli/commandLine.ts"),
    import("./cli/runProcess.ts")
  ])
  runProgram(await commandLineProgram(args, env))
}
