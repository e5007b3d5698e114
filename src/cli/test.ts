// `lait test PATH... [--format text|json|junit|github|markdown] [--filter TEXT] [--update] [-j N] [--shard K/N]
// [--watch] [--keep-workdirs] [--strict-replay] [--replay-tools] [--record | --record-missing]
// [--trace-dir DIR [--trace-spans] [--trace-content]]`: run test
// definition files against their recorded cassettes (never a model server; with --record, live into
// those cassettes) and report pass/fail/error per file. Results go to stdout; notes and the final
// `lait: <f> of <t> test file(s) failed` (exit 1) to stderr. Paths that hold no test file at all, like
// a --filter that matches none, are an error (exit 1); a shard that gets none of them is not.
import { Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { pathsArgument, switchFlag, valueFlag } from "./flags/make.ts"
import * as os from "node:os"
import { LaitConfig } from "../config/LaitConfig.ts"
import { traceWritten } from "../core/tracing.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { parseShard, type Shard } from "../testing/shard.ts"
import { RecordHint } from "../model/recordHint.ts"
import { StrictReplay } from "../model/strictReplay.ts"
import { liveExportLayer } from "../trace/live/layer.ts"
import type { SkippedFile } from "../testing/discovery.ts"
import { TestError } from "../testing/testErrors.ts"
import { configLayer } from "./config.ts"
import { formatFlag } from "./flags/output.ts"
import { recordIntoTestFlags, replayToolsFlag, strictReplayFlag } from "./flags/record.ts"
import { checkTraceDirFlags, traceDirFlags } from "./flags/trace.ts"
import { recordingClients, type RecordingMode } from "./modelLayers.ts"
import { printLine } from "./output.ts"
import { appendStepSummary, githubWorkspace, printAnnotations, readIfReadable } from "./ciOutput.ts"
import { testRecordHint } from "./recordHints.ts"
import { redact, redactMarkup } from "../core/redaction.ts"
import type { Watching } from "./testWatch.ts"

/** `-j` default: upstream's eight files at once (SUITE_CONCURRENCY, not imported to keep start-up light). */
const SUITE_JOBS = 8

/** `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`: every path given, as typed. */
export const listPaths = (paths: ReadonlyArray<string>): string => {
  const quoted = paths.map((p) => `'${p}'`)
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)!}`
}

/** One stderr note for the YAML files a directory walk skipped as not test files; `-v` names each. */
export const noteSkipped = (skipped: ReadonlyArray<SkippedFile>): Effect.Effect<void> =>
  skipped.length === 0 ? Effect.void : Effect.gen(function*() {
    yield* Console.error(`note: skipped ${skipped.length} YAML file(s) that are not test files (-v names them)`)
    for (const file of skipped) yield* Effect.logDebug(`test: skipped '${file.path}': ${file.kind}, not a test file`)
  })

/** The test files a command runs, as `lait test` and `lait cassettes prune` take them. */
export const testPathsArgument = pathsArgument(
  "Test files, or directories searched recursively for .yml/.yaml test files"
)

const testFlags = {
  paths: testPathsArgument,
  format: formatFlag(
    ["text", "json", "junit", "github", "markdown"],
    "text, json (one compact line), junit (JUnit XML for CI test reports), github (text and an annotation " +
      "per failure) or markdown"
  ),
  filter: valueFlag("filter", "TEXT", "Run only the test files whose path contains TEXT"),
  replayTools: replayToolsFlag("Answer tool calls from each file's tool cassettes, as 'replay_tools: true' does"),
  update: switchFlag(
    "update", "Rewrite each failing 'equals' value in place with the actual output, and say what changed"
  ),
  // Isolation and sharding (docs/testing.md#how-files-run)
  jobs: Flag.Int("jobs").pipe(
    Flag.withAlias("j"),
    Flag.withMetavar("N"),
    Flag.withDescription("Run up to N test files at once (default 8; 1 runs them one after another)"),
    Flag.withDefault(SUITE_JOBS)
  ),
  shard: valueFlag(
    "shard", "K/N", "Run only the K-th of N stable parts of the suite (by a hash of each file's path)"
  ),
  keepWorkdirs: switchFlag(
    "keep-workdirs", "Keep the 'workdir: temp' directory of each file that does not pass, and name it on stderr"
  ),
  strictReplay: strictReplayFlag(
    "Answer only from cassettes with the exact key (no recording made for another base URL)"
  ),
  ...recordIntoTestFlags,
  ...traceDirFlags("Write each test file's trace to DIR/<path with / as __>.jsonl (passing or not)"),
  watch: switchFlag(
    "watch", "Run the suite, then re-run each test file whose workflow, cassettes, fixtures or config change"
  )
}

type TestArgs = Command.Command.Config.Infer<typeof testFlags>

/** One run of the suite; under --watch, one round of it (./testWatch.ts picks its files). */
const runTests = Effect.fnUntraced(function*(
  {
    paths,
    format,
    filter,
    update,
    jobs,
    shard,
    keepWorkdirs,
    strictReplay,
    replayTools,
    record,
    recordMissing,
    traceDir,
    traceSpans,
    traceContent
  }: TestArgs,
  watching?: Watching
) {
  yield* checkTraceDirFlags({ traceDir, traceSpans, traceContent })
  if (jobs < 1) {
    return yield* new ArgumentError({
      reason: { _tag: "InvalidValue", flag: "--jobs <N>", value: String(jobs), expected: "an integer of at least 1" }
    })
  }
  let part: Shard | undefined
  if (Option.isSome(shard)) {
    const parsed = parseShard(shard.value)
    if (parsed === undefined) {
      return yield* new ArgumentError({
        reason: { _tag: "InvalidValue", flag: "--shard <K/N>", value: shard.value, expected: "K/N with 1 <= K <= N" }
      })
    }
    part = parsed
  }
  if (record && recordMissing) {
    return yield* new ArgumentError({ reason: { _tag: "Conflict", flag: "--record", other: "--record-missing" } })
  }
  const recording: RecordingMode | undefined = record ? "all" : recordMissing ? "missing" : undefined
  // Loaded on demand, so that other commands never pay for the engine, jq, YAML or Ajv.
  const suite = yield* Effect.promise(() => import("../testing/suite.ts"))

  // Discovery comes before the config, as upstream: a bad path is reported whatever the config holds.
  const { files: discovered, skipped } = yield* suite.findTestFiles(paths)
  yield* noteSkipped(skipped)
  // A suite that runs nothing must not pass: a green CI with zero tests hides a wrong path or layout.
  if (discovered.length === 0) {
    return yield* new TestError({ reason: { _tag: "NoFiles", listed: listPaths(paths) } })
  }
  const needle = Option.getOrUndefined(filter)
  const filtered = needle === undefined ? discovered : discovered.filter((file) => file.includes(needle))
  if (needle !== undefined && filtered.length === 0) {
    return yield* new TestError({ reason: { _tag: "FilterMatchedNone", filter: needle, found: discovered.length } })
  }
  const selected = part === undefined ? filtered : suite.inShard(filtered, part, process.cwd())
  const files = watching === undefined ? selected : watching.select(selected)
  // Under --watch, a change that matters to none of them: this round runs and reports nothing.
  if (files === undefined) return
  if (watching !== undefined) yield* watching.beforeRun(files)
  yield* Effect.logDebug(`test: ${files.length} test file(s): ${files.join(", ")}`)
  const tracesTo = Option.getOrUndefined(traceDir)
  const traceModule = tracesTo === undefined ? undefined : yield* Effect.promise(() => import("../trace/dir.ts"))
  // Before any test runs: a DIR that cannot hold the files would only be found out afterwards.
  if (traceModule !== undefined && tracesTo !== undefined) yield* traceModule.checkTraceDir(tracesTo)

  const startedAt = new Date()
  const started = performance.now()
  let outcomes = yield* Effect.gen(function*() {
    // Recording resolves models and endpoints from the config exactly as `lait run` does.
    const modelClient = recording === undefined ? undefined : yield* recordingClients(recording)
    const { config, env, files: configFiles } = yield* LaitConfig
    if (watching !== undefined) watching.onConfig(configFiles)
    const traces = traceModule === undefined || tracesTo === undefined
      ? undefined
      : yield* traceModule.makeTraceDir({
        dir: tracesTo,
        spans: Option.getOrUndefined(traceSpans) ?? config.default?.trace_spans ?? false,
        content: Option.getOrUndefined(traceContent) ?? config.default?.trace_content ?? false,
        secrets: traceModule.configSecrets(config, env)
      })
    return yield* suite.runTestSuite(files, {
      ...(modelClient === undefined || recording === undefined ? {} : { modelClient, recording }),
      ...(traces === undefined ? {} : { traces }),
      concurrency: jobs,
      keepWorkdirs,
      replayTools,
      keepPassed: false,
      ...(watching === undefined ? {} : { onInputs: watching.onInputs }),
      onProgress: (file, lines) =>
        Effect.forEach(lines, (line) => Effect.logDebug(`test '${file}': ${line}`), { discard: true })
    }).pipe(
      traceWritten(traces !== undefined),
      // Said on Ctrl-C too: the files of the tests that ran are there.
      Effect.ensuring(
        traces === undefined || traceModule === undefined ? Effect.void : traceModule.traceDirNote(traces)
      )
    )
  }).pipe(
    Effect.provideService(StrictReplay, strictReplay),
    Effect.provideService(RecordHint, testRecordHint(paths, Option.getOrUndefined(filter))),
    Effect.provide(Layer.mergeAll(configLayer({ waitForWriter: true }), suite.AssertionEvaluator.layer))
  )
  const totalMs = performance.now() - started

  if (update) {
    const results = yield* Effect.forEach(outcomes, suite.updateOutcome)
    for (const result of results) {
      yield* Effect.forEach(result.notes, (note) => Console.error(note), { discard: true })
    }
    outcomes = results.map((result) => result.outcome)
  }

  const report = format === "json"
    ? suite.jsonReport(outcomes)
    : format === "junit"
    ? suite.junitReport(outcomes, { totalMs, startedAt, hostname: os.hostname() })
    : format === "markdown"
    ? suite.testMarkdown(outcomes)
    : suite.textReport(outcomes)
  for (const outcome of outcomes) {
    if (outcome.keptWorkdir !== undefined) {
      yield* Console.error(`note: kept the working directory of '${outcome.file}': ${outcome.keptWorkdir}`)
    }
  }
  // Secrets masked (src/core/redaction.ts): reports are CI artifacts. XML needs the mask escaped.
  yield* printLine(format === "junit" ? redactMarkup(report) : redact(report))
  if (format === "github") {
    // The text of each file that did not run its assertions, for the line of its `workflow:`.
    const texts = new Map<string, string | undefined>()
    for (const o of outcomes) {
      if (o.status !== "pass" && o.evaluated === undefined) texts.set(o.file, yield* readIfReadable(o.file))
    }
    yield* printAnnotations(
      suite.testAnnotations(outcomes, { readText: (file) => texts.get(file), workspace: githubWorkspace() })
    )
  }
  yield* appendStepSummary(() => suite.testMarkdown(outcomes))

  const { failed, errors, total } = suite.tally(outcomes)
  if (failed > 0 || errors > 0) {
    return yield* new TestError({ reason: { _tag: "SuiteFailed", failed, errors, total } })
  }
})

export const testCommand = Command.make(
  "test",
  testFlags,
  Effect.fn("cli.test")(function*(args) {
    if (!args.watch) return yield* runTests(args)
    // Recording writes into the directories watched: every round would start the next.
    if (args.record || args.recordMissing) {
      const flag = args.record ? "--record" : "--record-missing"
      return yield* new ArgumentError({ reason: { _tag: "Conflict", flag: "--watch", other: flag } })
    }
    const { watchTests } = yield* Effect.promise(() => import("./testWatch.ts"))
    return yield* watchTests(args.paths, (watching) => runTests(args, watching))
  })
).pipe(
  Command.withDescription(
    "Run test files against recorded cassettes (no model calls unless --record[-missing]) and report pass/fail"
  ),
  Command.provide(liveExportLayer)
)
