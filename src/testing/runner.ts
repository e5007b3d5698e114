// Running test files (docs/testing.md#how-files-run). Each file is one whole workflow run with its own run context —
// a replaying ModelClient over its cassette directory (stateless, so one per directory serves every
// file that replays from it), a fresh RunUsage and RunTracer, LlmSteps built
// for that context, a RunContext without a terminal or a judge, its own `$steps` — so files running
// side by side never see each other's tool calls or token counts, and its own working directory when
// it asks for one (./workdir.ts). At most eight files run at once (`-j`) and results keep the discovery
// order. A file whose workflow could not run (./outcome.ts says which errors) is an ERROR, one whose
// workflow failed or whose assertions did not hold a FAIL, each alone with its error chain or
// assertion lines as reasons; only a real interruption (Ctrl-C) stops the suite.
import { Cause, Context, Effect, Exit, Layer, type Scope, Tracer } from "effect"
import { LaitConfig } from "../config/LaitConfig.ts"
import { type AnyLaitError, primaryError, renderChain, withContext } from "../core/errors.ts"
import { Attr, TraceContent } from "../core/tracing.ts"
import { FileLoader, type FileLoaderService } from "../platform/FileLoader.ts"
import { type Json, textForm } from "../core/json.ts"
import { resolveInitial, resolveInputs } from "../lang/inputs.ts"
import { loadWorkflow } from "../lang/load.ts"
import { loadSchemaRef } from "../lang/schemaRef.ts"
import { ModelClient, type ModelClientService } from "../model/ModelClient.ts"
import { makeReplay } from "../model/Replay.ts"
import { makeRunUsage, RunUsage } from "../model/RunUsage.ts"
import type { Answerer } from "../platform/terminal.ts"
import { type ToolCassetteMode, ToolCassettes } from "../tools/cassette/mode.ts"
import { LiveSpans, liveRoot } from "../trace/LiveSpans.ts"
import { type TraceDir, testTraceNames } from "../trace/dir.ts"
import { KeepTrace, makeRunTracer, RunTracer, type TraceEvent } from "../trace/RunTracer.ts"
import { Engine, type EngineService } from "../workflow/Engine.ts"
import { LlmSteps } from "../workflow/LlmSteps.ts"
import { Progress } from "../workflow/progress.ts"
import { RunContext } from "../workflow/RunContext.ts"
import { AssertionEvaluator, failureLines } from "./AssertionEvaluator.ts"
import { joinPath, parentPath } from "./discovery.ts"
import { errorOutcome, NotRun, notRun, type TestOutcome } from "./outcome.ts"
import { TestError } from "./testErrors.ts"
import { parseTestDefinition, type TestDefinition } from "./testFile.ts"
import type { ExecTarget, HttpTarget } from "../proxy/execTarget.ts"
import { prepareWorkdir, removeWorkdir, type Workdir } from "./workdir.ts"

export type { TestOutcome, TestStatus } from "./outcome.ts"

/** Test files running at once by default (upstream's SUITE_CONCURRENCY; `lait test -j N` changes it). */
export const SUITE_CONCURRENCY = 8

/**
 * The requirements of the LlmSteps implementation a suite uses. The production one reads the config,
 * the replaying ModelClient, the file's RunUsage/RunTracer and its RunContext; tests substitute their own.
 */
export type LlmStepsRequirements = LaitConfig | ModelClient | FileLoader | RunUsage | RunTracer | RunContext

export interface SuiteOptions {
  readonly concurrency?: number
  /** Default: the real model steps (LlmSteps.layerModel), built once per file. */
  readonly llmSteps?: Layer.Layer<LlmSteps, AnyLaitError, LlmStepsRequirements>
  /** `lait test --replay-tools`: every file replays its tool calls, as with `replay_tools: true`. */
  readonly replayTools?: boolean
  /**
   * The ModelClient of a file, given its `replay:` directory. Default: replay only (never the network);
   * `lait test --record` gives one that records there. Set `recording` with it to count the answers
   * and to record (or, for `missing`, complete) the file's tool cassettes too.
   */
  readonly modelClient?: (replayDir: string) => Layer.Layer<ModelClient, never, FileLoader>
  readonly recording?: "all" | "missing"
  /** Called with each file's progress lines once it finished (for `-v`). */
  readonly onProgress?: (file: string, lines: ReadonlyArray<string>) => Effect.Effect<void>
  /**
   * Called once a file finished with what its run read (`lait test --watch`, docs/testing.md#watch-mode):
   * the file itself, its `replay:` directory, and every path read or copied through the FileLoader —
   * its workflow and the child workflows, agents, schemas and files the run opened, its fixtures.
   */
  readonly onInputs?: (file: string, inputs: ReadonlyArray<string>) => Effect.Effect<void>
  /** `--keep-workdirs`: a `workdir: temp` directory of a file that did not pass stays, named in its outcome. */
  readonly keepWorkdirs?: boolean
  /** `--trace-dir`: every file's trace goes there (src/trace/dir.ts), named in its outcome. */
  readonly traces?: TraceDir
  /**
   * Default true: a passing outcome keeps `evaluated` too (`cassettes prune` reads its definition).
   * `lait test` needs it only for failures (`--update`, the JUnit failure type): kept for every file
   * until the report, it made memory grow with the suite.
   */
  readonly keepPassed?: boolean
}

// A test must never wait for a person: `ask:` steps answer with their default, as without a terminal.
// Nor does it grade with a model: a replay has none, so `llm_judge` fails with its documented message.
const noTerminal: Answerer = {
  interactive: () => false,
  read: () => Effect.fail(new TestError({ reason: { _tag: "NoStdin" } }))
}

/**
 * How a file's tool calls run: recorded into its `replay:` directory under `--record` (completed under
 * `--record-missing`), else replayed from there with `replay_tools`/`--replay-tools`, else live.
 */
const toolMode = (
  dir: string,
  replayTools: boolean,
  recording: "all" | "missing" | undefined
): ToolCassetteMode =>
  recording === "all"
    ? { mode: "record", dir }
    : recording === "missing"
    ? { mode: "record-missing", dir }
    : replayTools
    ? { mode: "replay", dir }
    : { mode: "live" }

/**
 * `effect` in the run context of one file: everything stateful is built anew for it (the model steps
 * and their tool runtime, usage, trace collector, progress, RunContext) and closed when it ends. Built
 * directly rather than as layers: per file, merging and memoising seven layers cost more than
 * building what they hold.
 */
const inFileContext = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  file: {
    readonly replayDir: string
    readonly cwd: string | undefined
    readonly progress: Array<string>
    readonly llmSteps: Layer.Layer<LlmSteps, AnyLaitError, LlmStepsRequirements>
    readonly replayTools: boolean
    readonly recording: "all" | "missing" | undefined
    readonly modelClient: Effect.Effect<ModelClientService, never, FileLoader | Scope.Scope>
  }
) =>
  Effect.scoped(Effect.gen(function*() {
    const config = yield* LaitConfig
    const collector = makeRunTracer(yield* Effect.service(LiveSpans))
    // As RunTracer.layer: the trace is kept when the context closes, after the tool runtime stopped.
    const keep = yield* Effect.service(KeepTrace)
    if (keep !== undefined) {
      yield* Effect.addFinalizer((exit) => Effect.flatMap(collector.all, (recorded) => keep(recorded, exit)))
    }
    const services = Context.make(ToolCassettes, toolMode(file.replayDir, file.replayTools, file.recording)).pipe(
      Context.add(RunUsage, makeRunUsage()),
      Context.add(RunTracer, collector),
      Context.add(Tracer.Tracer, collector.tracer),
      Context.add(KeepTrace, undefined),
      Context.add(Progress, Progress.of({ line: (text) => Effect.sync(() => void file.progress.push(text)) })),
      Context.add(ModelClient, yield* file.modelClient),
      Context.add(RunContext, RunContext.fromConfig(config, { answerer: noTerminal, cwd: file.cwd }))
    )
    const steps = yield* Layer.build(Layer.fresh(file.llmSteps)).pipe(Effect.provideContext(services))
    return yield* Effect.provideContext(effect, Context.merge(services, steps))
  }))

/**
 * What the files of one suite share: the engine (stateless) and, when replaying, one replay client
 * per cassette directory (it keeps no state between requests: usage and cassette use are the
 * caller's, read per request). Built per file, they cost a module lookup, a layer and a cassette
 * decoder each time.
 */
interface Shared {
  readonly engine: EngineService
  readonly modelClient: (replayDir: string) => Effect.Effect<ModelClientService, never, FileLoader | Scope.Scope>
}

/** What suites in this process have built (test/testing/runner.test.ts keeps it to once per suite). */
export const sharedBuilds = { engines: 0, replayClients: 0 }

const makeShared = (options: SuiteOptions): Effect.Effect<Shared, never, FileLoader | Scope.Scope> =>
  Effect.gen(function*() {
    const engine = Context.get(yield* Layer.build(Engine.layer), Engine)
    sharedBuilds.engines++
    const custom = options.modelClient
    const replayers = new Map<string, ModelClientService>()
    // Synchronous from lookup to insertion, so files starting together still build one client.
    const replayer = (replayDir: string) =>
      Effect.suspend(() => {
        const known = replayers.get(replayDir)
        if (known !== undefined) return Effect.succeed(known)
        return Effect.map(makeReplay(replayDir), (service) => {
          replayers.set(replayDir, service)
          sharedBuilds.replayClients++
          return service
        })
      })
    return {
      engine,
      // A recording client (`--record`) stays the file's own.
      modelClient: (replayDir) =>
        custom === undefined
          ? replayer(replayDir)
          : Effect.map(Layer.build(custom(replayDir)), (context) => Context.get(context, ModelClient))
    }
  })

const readDefinition = (file: string) =>
  Effect.gen(function*() {
    const loader = yield* FileLoader
    const text = yield* loader.readText(file, { waitForWriter: true }).pipe(
      Effect.mapError((e) =>
        new TestError({ reason: { _tag: "ReadFailed", path: file, detail: renderChain(e.cause ?? e) } })
      )
    )
    const definition = parseTestDefinition(text, file)
    if (definition instanceof Error) return yield* Effect.fail(definition)
    return { text, definition }
  })

/**
 * A file's assertions on a run's `output`; the run's trace events (with `extraEvents`) and usage are
 * its trajectory, and its answers are counted by where they came from.
 */
const judgeRun = (
  definition: TestDefinition,
  file: string,
  output: string,
  steps: Readonly<Record<string, Json>>,
  extraEvents: ReadonlyArray<TraceEvent> = []
) =>
  Effect.gen(function*() {
    const events = yield* RunTracer.use((tracer) => tracer.events)
    const usage = yield* RunUsage.use((meter) => meter.total)
    const evaluator = yield* AssertionEvaluator
    const checks = yield* evaluator.evaluate(definition.assert, {
      output,
      trajectory: { events: [...events, ...extraEvents], steps, usage },
      showJson: true,
      base: parentPath(file),
      subject: { input: definition.input, vars: definition.inputs, case: file }
    })
    const answered = (source: string) =>
      events.filter((e) => e.operation === "chat" && e.attributes[Attr.source] === source).length
    return { checks, recorded: { live: answered("live"), replayed: answered("replay") } }
  })

/** An `exec:` file's run: the app's stdout is the output, the model calls it made are the trajectory. */
const runExecDefinition = (definition: TestDefinition, exec: ExecTarget, cwd: string | undefined, file: string) =>
  Effect.gen(function*() {
    const { runExec, toolCallEvents } = yield* Effect.promise(() => import("../proxy/exec.ts"))
    // The app could not run, or exited non-zero: nothing the assertions could judge (an ERROR).
    const run = yield* runExec(exec, definition.input, cwd).pipe(Effect.mapError(notRun))
    return yield* judgeRun(definition, file, run.output, {}, toolCallEvents(run))
  })

/** An `http:` file's run: one request; the answer (or what `output_jq` picks) is the output. */
const runHttpDefinition = (definition: TestDefinition, http: HttpTarget, file: string) =>
  Effect.gen(function*() {
    const { runHttp } = yield* Effect.promise(() => import("../proxy/http.ts"))
    const output = yield* runHttp(http, http.url, definition.input, {}).pipe(Effect.mapError(notRun))
    return yield* judgeRun(definition, file, output, {})
  })

const runDefinition = (definition: TestDefinition, workflowPath: string, file: string) =>
  Effect.gen(function*() {
    // Until the engine starts, a failure means the workflow could not run at all.
    const { workflow, initial, inputs } = yield* Effect.gen(function*() {
      const workflow = yield* loadWorkflow(workflowPath, { waitForWriter: true })
      const schema = yield* loadSchemaRef(workflow.inputSchema)
      const initial = yield* resolveInitial(schema, { kind: "typed", value: definition.input })
      const inputs = yield* resolveInputs(
        workflow.inputs,
        Object.entries(definition.inputs).map(([key, value]) => [key, { kind: "typed", value }] as const)
      )
      return { workflow, initial, inputs }
    }).pipe(Effect.mapError(notRun))
    const engine = yield* Engine
    const result = yield* engine.run(workflow, initial, inputs, { timeoutMode: "fail" })
      .pipe(Effect.mapError(withContext(`workflow '${workflowPath}'`)))
    return yield* judgeRun(definition, file, textForm(result.output), result.steps)
  })

/** `loader`, noting every path it reads or copies from into `into`. */
const noting = (loader: FileLoaderService, into: Set<string>): FileLoaderService => ({
  ...loader,
  readText: (path, options) => Effect.suspend(() => (into.add(path), loader.readText(path, options))),
  readBytes: (path, options) => Effect.suspend(() => (into.add(path), loader.readBytes(path, options))),
  copyTree: (source, target) => Effect.suspend(() => (into.add(source), loader.copyTree(source, target)))
})

/** A Ctrl-C stops the whole suite; anything else (a defect included) becomes this file's outcome. */
const settle = <R>(
  effect: Effect.Effect<TestOutcome, unknown, R>,
  onError: (error: unknown) => TestOutcome
): Effect.Effect<TestOutcome, never, R> =>
  effect.pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause as Cause.Cause<never>)
        : Effect.succeed(onError(primaryError(cause)))
    )
  )

/**
 * Runs one test file; never fails (interruption aside). With `options.traces`, its trace is written
 * to `traceName` there.
 */
const runTestFile = (
  file: string,
  options: SuiteOptions,
  shared: Shared,
  traceName: string | undefined
): Effect.Effect<TestOutcome, never, LaitConfig | AssertionEvaluator | FileLoader> =>
  Effect.gen(function*() {
    // Written when the file's run context closes, whether the run passed, failed or was interrupted.
    let trace: { readonly path: string | undefined } | undefined
    const keep = options.traces === undefined || traceName === undefined
      ? undefined
      : options.traces.keep(traceName, (path) => void (trace = { path }))
    const started = performance.now()
    const progress: Array<string> = []
    const elapsed = () => performance.now() - started
    const failed = (error: unknown) =>
      errorOutcome(file, error instanceof NotRun ? error : new NotRun(error), elapsed())

    const inputs = new Set<string>([file])
    const runIn = (workdir: Workdir, text: string, definition: TestDefinition) => {
      const base = parentPath(file)
      const replayDir = joinPath(base, definition.replay)
      inputs.add(replayDir)
      const run: Effect.Effect<
        Effect.Success<ReturnType<typeof runDefinition>>,
        Effect.Error<ReturnType<typeof runDefinition>> | NotRun,
        Effect.Services<ReturnType<typeof runDefinition>> | Effect.Services<ReturnType<typeof runExecDefinition>>
      > = definition.exec !== undefined
        ? runExecDefinition(definition, definition.exec, workdir.cwd ?? parentPath(file), file)
        : definition.http !== undefined
        ? runHttpDefinition(definition, definition.http, file)
        : runDefinition(definition, joinPath(base, definition.workflow!), file)
      const ran = inFileContext(run, {
        replayDir,
        cwd: workdir.cwd,
        progress,
        llmSteps: options.llmSteps ?? LlmSteps.layerModel,
        replayTools: definition.replayTools || options.replayTools === true,
        recording: options.recording,
        modelClient: shared.modelClient(replayDir)
      }).pipe(
        Effect.provideService(KeepTrace, keep),
        Effect.provideService(TraceContent, options.traces?.capture),
        Effect.map(({ checks, recorded }): TestOutcome => {
          const failures = failureLines(checks)
          return {
            file,
            status: failures.length === 0 ? "pass" : "fail",
            failures,
            durationMs: elapsed(),
            ...(options.recording === undefined ? {} : { recorded }),
            ...(options.keepPassed === false && failures.length === 0
              ? {}
              : { evaluated: { text, definition, checks } })
          }
        })
      )
      return settle(ran, (error) => errorOutcome(file, error, elapsed())).pipe(
        Effect.map((outcome): TestOutcome =>
          options.keepWorkdirs === true && workdir.temp && outcome.status !== "pass"
            ? { ...outcome, keptWorkdir: workdir.cwd! }
            : outcome
        )
      )
    }

    const attempt = Effect.gen(function*() {
      const { text, definition } = yield* readDefinition(file)
      return yield* Effect.acquireUseRelease(
        prepareWorkdir(definition, parentPath(file)),
        (workdir) => runIn(workdir, text, definition),
        (workdir, exit) =>
          Exit.isSuccess(exit) && exit.value.keptWorkdir !== undefined ? Effect.void : removeWorkdir(workdir)
      )
    }).pipe(
      Effect.provideService(Engine, shared.engine),
      (effect) =>
        options.onInputs === undefined
          ? effect
          : Effect.flatMap(Effect.service(FileLoader), (loader) =>
            Effect.provideService(effect, FileLoader, noting(loader, inputs)))
    )
    // Reading the file or preparing its directory failed: nothing ran.
    const outcome = yield* liveRoot(
      { operation: "test", label: file },
      { "lait.test.file": file },
      settle(attempt, failed),
      (exit) => (Exit.isSuccess(exit) ? { "lait.test.status": exit.value.status } : {})
    )
    if (options.onProgress !== undefined) yield* options.onProgress(file, progress)
    if (options.onInputs !== undefined) yield* options.onInputs(file, [...inputs])
    // A file whose run never started gets an empty trace all the same: a stale file from an earlier
    // suite must not pass for this one's.
    if (keep !== undefined && trace === undefined) yield* keep([], Exit.void)
    return trace?.path === undefined ? outcome : { ...outcome, trace: trace.path }
  })

/** Runs every file, at most `concurrency` (default SUITE_CONCURRENCY) at once; outcomes in the order of `files`. */
export const runTestSuite = (
  files: ReadonlyArray<string>,
  options: SuiteOptions = {}
): Effect.Effect<ReadonlyArray<TestOutcome>, never, LaitConfig | AssertionEvaluator | FileLoader> => {
  const traceNames = options.traces === undefined ? [] : testTraceNames(files, process.cwd())
  return Effect.scoped(Effect.flatMap(makeShared(options), (shared) =>
    Effect.forEach(files, (file, i) => runTestFile(file, options, shared, traceNames[i]), {
      concurrency: Math.max(1, options.concurrency ?? SUITE_CONCURRENCY)
    })))
}
