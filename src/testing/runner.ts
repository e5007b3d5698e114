// Running test files (docs/testing.md#how-files-run). Each file is one whole workflow run with its own run context —
// a replaying ModelClient over its cassette directory, a fresh RunUsage and RunTracer, LlmSteps built
// for that context, a RunContext without a terminal or a judge, its own `$steps` — so files running
// side by side never see each other's tool calls or token counts. At most eight files run at once and
// results keep the discovery order. A file that cannot be read, parsed, loaded or run fails alone with
// its error chain as the one reason; only a real interruption (Ctrl-C) stops the suite.
import { Cause, Effect, Layer } from "effect"
import type { LaitConfig } from "../config/LaitConfig.ts"
import { type AnyLaitError, primaryError, renderChain, withContext } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { textForm } from "../core/json.ts"
import { resolveInitial, resolveInputs } from "../lang/inputs.ts"
import { loadWorkflow } from "../lang/load.ts"
import { loadSchemaRef } from "../lang/schemaRef.ts"
import { ModelClient } from "../model/ModelClient.ts"
import { RunUsage } from "../model/RunUsage.ts"
import type { Answerer } from "../platform/terminal.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { Engine } from "../workflow/Engine.ts"
import { LlmSteps } from "../workflow/LlmSteps.ts"
import { Progress } from "../workflow/progress.ts"
import { RunContext } from "../workflow/RunContext.ts"
import { AssertionEvaluator, type Check, failureLines } from "./AssertionEvaluator.ts"
import { joinPath, parentPath } from "./discovery.ts"
import { TestError } from "./testErrors.ts"
import { parseTestDefinition, type TestDefinition } from "./testFile.ts"

/** Test files running at once (upstream's SUITE_CONCURRENCY). */
export const SUITE_CONCURRENCY = 8

export interface TestOutcome {
  /** As given or discovered. */
  readonly file: string
  readonly status: "pass" | "fail"
  /** `assertion k: …` lines, or the single error chain when the file could not run. */
  readonly failures: ReadonlyArray<string>
  /** True when the file failed before its assertions could be evaluated. */
  readonly errored: boolean
  readonly durationMs: number
  /** Set when the run completed: what `--update` works from. */
  readonly evaluated?: {
    readonly text: string
    readonly definition: TestDefinition
    readonly checks: ReadonlyArray<Check>
  }
}

/**
 * The requirements of the LlmSteps implementation a suite uses. The production one reads the config,
 * the replaying ModelClient and the file's RunUsage/RunTracer; tests substitute their own.
 */
export type LlmStepsRequirements = LaitConfig | ModelClient | FileLoader | RunUsage | RunTracer

export interface SuiteOptions {
  readonly concurrency?: number
  /** Default: the real model steps (LlmSteps.layerModel), built once per file. */
  readonly llmSteps?: Layer.Layer<LlmSteps, AnyLaitError, LlmStepsRequirements>
  /** Called with each file's progress lines once it finished (for `-v`). */
  readonly onProgress?: (file: string, lines: ReadonlyArray<string>) => Effect.Effect<void>
}

// A test must never wait for a person: `ask:` steps answer with their default, as without a terminal.
// Nor does it grade with a model: a replay has none, so `llm_judge` fails with its documented message.
const noTerminal: Answerer = {
  interactive: () => false,
  read: () => Effect.fail(new TestError({ reason: { _tag: "NoStdin" } }))
}

/** The run context of one file: everything stateful is built anew for it. */
const fileContext = (
  replayDir: string,
  progress: Array<string>,
  llmSteps: Layer.Layer<LlmSteps, AnyLaitError, LlmStepsRequirements>
) => {
  const perRun = Layer.mergeAll(
    Layer.fresh(RunUsage.layer),
    Layer.fresh(RunTracer.layer),
    Progress.layerCapture(progress),
    ModelClient.layerReplay(replayDir),
    RunContext.layerConfig({ answerer: noTerminal })
  )
  return Layer.fresh(llmSteps).pipe(Layer.provideMerge(perRun))
}

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

const runDefinition = (definition: TestDefinition, workflowPath: string) =>
  Effect.gen(function*() {
    const workflow = yield* loadWorkflow(workflowPath, { waitForWriter: true })
    const schema = yield* loadSchemaRef(workflow.inputSchema)
    const initial = yield* resolveInitial(schema, { kind: "typed", value: definition.input })
    const inputs = yield* resolveInputs(
      workflow.inputs,
      Object.entries(definition.inputs).map(([key, value]) => [key, { kind: "typed", value }] as const)
    )
    const engine = yield* Engine
    const result = yield* engine.run(workflow, initial, inputs, { timeoutMode: "fail" })
      .pipe(Effect.mapError(withContext(`workflow '${workflowPath}'`)))
    const events = yield* RunTracer.use((tracer) => tracer.events)
    const usage = yield* RunUsage.use((meter) => meter.total)
    const evaluator = yield* AssertionEvaluator
    return yield* evaluator.evaluate(definition.assert, {
      output: textForm(result.output),
      trajectory: { events, steps: result.steps, usage }
    })
  })

/** Runs one test file; never fails (interruption aside). */
export const runTestFile = (
  file: string,
  options: SuiteOptions = {}
): Effect.Effect<TestOutcome, never, LaitConfig | AssertionEvaluator | FileLoader> =>
  Effect.gen(function*() {
    const started = performance.now()
    const progress: Array<string> = []
    const elapsed = () => performance.now() - started
    const errored = (error: unknown): TestOutcome => ({
      file,
      status: "fail",
      failures: [renderChain(error)],
      errored: true,
      durationMs: elapsed()
    })
    const attempt = Effect.gen(function*() {
      const { text, definition } = yield* readDefinition(file)
      const base = parentPath(file)
      const checks = yield* runDefinition(definition, joinPath(base, definition.workflow)).pipe(
        Effect.provide(
          fileContext(joinPath(base, definition.replay), progress, options.llmSteps ?? LlmSteps.layerModel),
          {
            local: true
          }
        )
      )
      const failures = failureLines(checks)
      return {
        file,
        status: failures.length === 0 ? "pass" : "fail",
        failures,
        errored: false,
        durationMs: elapsed(),
        evaluated: { text, definition, checks }
      } satisfies TestOutcome
    }).pipe(Effect.provide(Engine.layer))
    const outcome = yield* attempt.pipe(
      Effect.catchCause((cause) =>
        // A Ctrl-C stops the whole suite; anything else (a defect included) fails this file only.
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause as Cause.Cause<never>)
          : Effect.succeed(errored(primaryError(cause)))
      )
    )
    if (options.onProgress !== undefined) yield* options.onProgress(file, progress)
    return outcome
  })

/** Runs every file, at most SUITE_CONCURRENCY at once; outcomes in the order of `files`. */
export const runTestSuite = (
  files: ReadonlyArray<string>,
  options: SuiteOptions = {}
): Effect.Effect<ReadonlyArray<TestOutcome>, never, LaitConfig | AssertionEvaluator | FileLoader> =>
  Effect.forEach(files, (file) => runTestFile(file, options), {
    concurrency: options.concurrency ?? SUITE_CONCURRENCY
  })
