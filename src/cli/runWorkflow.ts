// What `lait run FILE [PROMPT]` does: load a workflow (or a `workflows:` registry entry), work out its
// initial value and inputs, then print the plan (--dry-run) or run it and print the result. The result
// is the only thing on stdout; the banner, progress lines and errors go to stderr. Its flags are in
// src/cli/run.ts; this module loads no effect/cli, so the lean path (src/cli/leanRun.ts) can call it.
import { Console, Effect, Layer, Option } from "effect"
import { LaitConfig } from "../config/LaitConfig.ts"
import type { FileError } from "../core/fileErrors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { stdinIsTerminal } from "../platform/rawStdout.ts"
import type { Json } from "../core/json.ts"
import { RecordHint } from "../model/recordHint.ts"
import { RunUsage } from "../model/RunUsage.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { Engine } from "../workflow/Engine.ts"
import { LlmSteps } from "../workflow/LlmSteps.ts"
import { Progress } from "../workflow/progress.ts"
import { RunContext } from "../workflow/RunContext.ts"
import { checkTraceFlags, runAndEmit, type RunOutputFlags } from "./runOutput.ts"
import type { RunServiceFlags } from "./runServices.ts"
import { printLine } from "./output.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { CommandError } from "./commandErrors.ts"
import { runRecordHint } from "./recordHints.ts"
import { announceResume, checkpointRecorder, openResume } from "./runCheckpoint.ts"
import * as nodePath from "node:path"

/**
 * PROMPT and piped stdin combined: `-` means stdin alone; otherwise a non-terminal stdin is read and
 * is the whole prompt, or is appended after a blank line when PROMPT is given. An empty pipe counts
 * as no input. Undefined when there is neither.
 */
export const resolvePromptText: (
  prompt: string | undefined,
  stdinIsTty: boolean,
  read: Effect.Effect<string, FileError>
) => Effect.Effect<string | undefined, FileError> = Effect.fnUntraced(function*(
  prompt: string | undefined,
  stdinIsTty: boolean,
  read: Effect.Effect<string, FileError>
) {
  const piped = prompt === "-" || !stdinIsTty ? yield* read : undefined
  const usable = piped !== undefined && piped.trim() !== "" ? piped : undefined
  if (prompt === "-") return usable
  if (prompt !== undefined) return usable === undefined ? prompt : `${prompt}\n\n${usable}`
  return usable
})

/**
 * FILE as a path when such a file exists, else an entry of the config's `workflows:` (`lait run`) or
 * `agents:` (`lait agent run`), else the path (reading it fails).
 */
export const resolveRegistered = (argument: string, registry: "workflows" | "agents") =>
  Effect.gen(function*() {
    const registered = (yield* LaitConfig).config[registry]?.[argument]
    const stat = yield* Effect.option(FileLoader.use((files) => files.stat(argument)))
    if (stat._tag === "Some" && stat.value.isFile()) {
      if (registered !== undefined) {
        const entry = `${registry === "agents" ? "an" : "a"} '${registry}:' entry`
        yield* Console.error(`note: '${argument}' exists as a file and is also ${entry}; running the file`)
      }
      return argument
    }
    if (registered !== undefined) {
      yield* Console.error(`note: resolved '${argument}' to '${registered}' via '${registry}:'`)
      return registered
    }
    return argument
  })

/**
 * One run context: its own usage meter, the model steps bound to it, progress on stderr, and the
 * config's environment and registry with `ask:` answered on the terminal. Built one after the other,
 * not concurrently: `Layer.mergeAll` forks a fiber for each, which costs more than it overlaps here.
 */
export const runLayers = LlmSteps.layerModel.pipe(
  Layer.provideMerge(Engine.layer),
  Layer.provideMerge(RunUsage.layer),
  Layer.provideMerge(RunTracer.layer),
  Layer.provideMerge(Progress.layerStderr),
  Layer.provideMerge(RunContext.layerConfig())
)

/** The parsed command line of `lait run`, as effect/cli hands it over. */
export interface RunOptions extends RunOutputFlags, RunServiceFlags {
  readonly file: string
  readonly prompt: Option.Option<string>
  readonly input: ReadonlyArray<string>
  readonly dryRun: boolean
  readonly traceSpans: Option.Option<boolean>
  readonly checkpoint: boolean
  readonly resume: Option.Option<string>
  readonly noHistory: boolean
}

export const runWorkflow = Effect.fn("cli.run")(function*(
  {
    file,
    prompt,
    input,
    output,
    json,
    dryRun,
    traceFile,
    traceSpans,
    traceContent,
    showUsage,
    approveTools,
    checkpoint,
    resume,
    noHistory
  }: RunOptions
) {
  const resumeId = Option.getOrUndefined(resume)
  if (resumeId !== undefined && dryRun) {
    return yield* new ArgumentError({ reason: { _tag: "Conflict", flag: "--resume <RUN_ID>", other: "--dry-run" } })
  }
  yield* checkTraceFlags({ traceFile, traceSpans, traceContent })
  // Loaded on demand so that `lait --version` and other commands never pay for jq, YAML or Ajv.
  const [{ loadWorkflow }, { parseInputFlag, resolveInputs, resolveInitial }, schemas, runs, jq] =
    yield* Effect.promise(() =>
      Promise.all([
        import("../lang/load.ts"),
        import("../lang/inputs.ts"),
        import("../lang/schemaRef.ts"),
        import("../workflow/checkpoint.ts"),
        import("../lang/jq.ts")
      ])
    )
  const engine = yield* Engine
  const loader = yield* FileLoader

  const target = yield* resolveRegistered(file, "workflows")
  const resumed = resumeId === undefined ? undefined : yield* openResume(runs, resumeId, target)
  if (checkpoint) yield* runs.checkRunsDir
  const workflow = yield* loadWorkflow(target, { waitForWriter: true })
  if (!dryRun) yield* jq.warmJqWorker
  yield* engine.announce(workflow)
  if (resumed !== undefined) yield* announceResume(runs, resumed, workflow)

  // Not `process.stdin.isTTY`: that builds the stdin stream (≈ 10 ms), which a PROMPT argument never reads.
  const stdinIsTty = stdinIsTerminal()
  // A resumed run starts from what its checkpoint recorded; PROMPT and stdin are not read.
  const text = resumed !== undefined
    ? undefined
    : yield* resolvePromptText(Option.getOrUndefined(prompt), stdinIsTty, loader.readStdin)
  let initial: Json
  // Set when there is no initial value: a template that prints `input` then fails saying this.
  let unsetInput: string | undefined
  if (resumed !== undefined) {
    initial = resumed.initial_input
  } else if (text !== undefined) {
    const schema = yield* schemas.loadSchemaRef(workflow.inputSchema)
    initial = yield* resolveInitial(schema, { kind: "text", text })
  } else if (workflow.inputs.length > 0) {
    initial = null
    // FILE as the user would type it again (quoted for a POSIX shell when it needs to be).
    const shown = /^[\w./@:+-]+$/.test(file) ? file : `'${file.replaceAll("'", "'\\''")}'`
    unsetInput = `the run was given no PROMPT; pass one (lait run ${shown} "TEXT", or pipe it on stdin)`
  } else {
    return yield* new CommandError({ reason: { _tag: "PromptRequired" } })
  }
  const provided = yield* Effect.forEach(
    input,
    (arg) =>
      Effect.map(parseInputFlag(arg), ([key, value]) =>
        [key, { kind: "text" as const, text: value }] as [
          string,
          { readonly kind: "text"; readonly text: string }
        ])
  )
  // `--input` on a resume replaces the recorded inputs (all of them, as upstream).
  const inputs = resumed !== undefined && provided.length === 0
    ? resumed.inputs
    : yield* resolveInputs(workflow.inputs, provided)

  if (dryRun) {
    // Only here: the plan reads agent files, whose checks build the agent file schema.
    const { dryRunPlan } = yield* Effect.promise(() => import("../workflow/dryrun.ts"))
    const plan = yield* dryRunPlan(workflow, inputs, unsetInput === undefined ? initial : undefined)
    yield* printLine(plan.join("\n"))
    return
  }

  const resumeFrom = resumed === undefined
    ? undefined
    : { completed: resumed.completed_index, state: runs.resumeState(resumed) }
  const recorder = checkpoint || resumed !== undefined
    ? checkpointRecorder(runs, {
      runId: resumed?.run_id ?? runs.generateRunId(),
      requested: file,
      workflowPath: resumed?.workflow_path ?? target,
      workflow,
      initial,
      inputs,
      completed: resumeFrom?.completed ?? 0,
      state: resumeFrom?.state ?? { value: initial, counter: 0, steps: {} }
    })
    : undefined
  const run = engine.run(workflow, initial, inputs, {
    timeoutMode: "cancel",
    ...(unsetInput === undefined ? {} : { unsetInput }),
    ...(resumeFrom === undefined ? {} : { resume: resumeFrom }),
    ...(recorder === undefined ? {} : { afterTopLevelStep: recorder.afterStep })
  })
  // The checkpoint is saved as completed before the answer is printed, as upstream orders it.
  yield* runAndEmit(
    { output, json, traceFile, traceSpans, traceContent, showUsage, approveTools, noHistory },
    Effect.map(
      recorder === undefined ? run : Effect.tap(run, () => recorder.completed),
      (result) => result.output
    ),
    {
      ...(recorder === undefined ? {} : { onFailure: recorder.failed }),
      history: { kind: "workflow", model: null, prompt: text ?? "", workflow: nodePath.resolve(target) }
    }
  )
  // Scoped: the scope holds a resumed run's lock (openResume) until the run has ended.
}, (effect, { file }) =>
  effect.pipe(
    Effect.scoped,
    Effect.provide(runLayers),
    // What a replay miss tells the user to run (src/cli/recordHints.ts).
    Effect.provideService(RecordHint, runRecordHint(["run"], file))
  ))
