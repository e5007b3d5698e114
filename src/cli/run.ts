// `lait run FILE [PROMPT]`: load a workflow (or a `workflows:` registry entry), work out its initial
// value and inputs, then print the plan (--dry-run) or run it and print the result. The result is the
// only thing on stdout; the banner, progress lines and errors go to stderr.
import { Cause, Console, Effect, Exit, Layer, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Files from "../platform/files.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { type OutputError, primaryError, renderChain } from "../core/errors.ts"
import { TraceContent } from "../core/tracing.ts"
import type { FileError } from "../core/fileErrors.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { FileLoader, writeTargetProblem, writeUserFile } from "../platform/FileLoader.ts"
import { type Json, textForm } from "../core/json.ts"
import { formatUsage, RunUsage } from "../model/RunUsage.ts"
import { osErrorText } from "../platform/process.ts"
import { ApproveTools } from "../tools/ApproveTools.ts"
import { liveExportLayer } from "../trace/live/layer.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { Engine } from "../workflow/Engine.ts"
import { LlmSteps } from "../workflow/LlmSteps.ts"
import { Progress } from "../workflow/progress.ts"
import { RunContext } from "../workflow/RunContext.ts"
import { configLayer } from "./config.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { toolCassettesLayer } from "./toolLayers.ts"
import { printLine } from "./output.ts"
import { CommandError } from "./commandErrors.ts"

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

const isFile = (path: string): boolean => {
  try {
    return Files.stat(path).isFile()
  } catch {
    return false
  }
}

/** FILE as a path when such a file exists, else a `workflows:` entry, else the path (reading it fails). */
const resolveTarget = (argument: string) =>
  Effect.gen(function*() {
    const config = yield* LaitConfig
    const registered = config.config.workflows?.[argument]
    if (isFile(argument)) {
      if (registered !== undefined) {
        yield* Console.error(`note: '${argument}' exists as a file and is also a 'workflows:' entry; running the file`)
      }
      return argument
    }
    if (registered !== undefined) {
      yield* Console.error(`note: resolved '${argument}' to '${registered}' via 'workflows:'`)
      return registered
    }
    return argument
  })

const responseWriteFailure = (path: string, e: unknown) =>
  new CommandError({ reason: { _tag: "ResponseWriteFailed", path, detail: osErrorText(e) } })

// Temp file + rename, or in place into a FIFO (`-o pipe`, waiting interruptibly for its reader); no
// directories made: `-o` into a missing directory is the user's typo.
export const writeResponse = (path: string, body: string) =>
  writeUserFile(path, `${body}\n`, { createDirs: false }).pipe(Effect.mapError((e) => responseWriteFailure(path, e)))

/** `-o PATH` that could never be written fails before the run has paid for any model call. */
export const checkResponseTarget = (path: string) =>
  Effect.suspend(() => {
    const problem = writeTargetProblem(path, { createDirs: false })
    return problem === undefined ? Effect.void : Effect.fail(responseWriteFailure(path, problem))
  })

/**
 * One run context: its own usage meter, the model steps bound to it, progress on stderr, and the
 * config's environment and registry with `ask:` answered on the terminal.
 */
const runLayers = LlmSteps.layerModel.pipe(
  Layer.provideMerge(
    Layer.mergeAll(Engine.layer, RunUsage.layer, RunTracer.layer, Progress.layerStderr, RunContext.layerConfig())
  )
)

export const runCommand = Command.make(
  "run",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription("Workflow file (version 2), or a 'workflows:' name from lait.config.yml")
    ),
    prompt: Argument.String("prompt").pipe(
      Argument.withDescription("The initial value; '-' reads stdin (piped stdin is appended to PROMPT)"),
      Argument.optional
    ),
    input: Flag.String("input").pipe(
      Flag.withMetavar("KEY=VALUE"),
      Flag.withDescription("Bind a declared input (repeatable; a later value for the same key wins)"),
      Flag.atLeast(0)
    ),
    output: Flag.String("output").pipe(
      Flag.withAlias("o"),
      Flag.withMetavar("PATH"),
      Flag.withDescription("Write the result to PATH instead of stdout ('-' is stdout)"),
      Flag.optional
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print {\"content\",\"reasoning\",\"usage\"} instead of the bare result"),
      Flag.withDefault(false)
    ),
    dryRun: Flag.Boolean("dry-run").pipe(
      Flag.withDescription("Print the execution plan and exit; nothing is run"),
      Flag.withDefault(false)
    ),
    record: Flag.String("record").pipe(
      Flag.withMetavar("DIR"),
      Flag.withDescription("Save every model request/response as a cassette <DIR>/<key>.json"),
      Flag.optional
    ),
    replay: Flag.String("replay").pipe(
      Flag.withMetavar("DIR"),
      Flag.withDescription("Answer model requests only from cassettes in DIR; never touch the network"),
      Flag.optional
    ),
    strictReplay: Flag.Boolean("strict-replay").pipe(
      Flag.withDescription("With --replay, answer only from a cassette with the exact key (no other base URL's)"),
      Flag.withDefault(false)
    ),
    replayTools: Flag.Boolean("replay-tools").pipe(
      Flag.withDescription("With --replay: answer tool calls from its tool cassettes too; no tool or MCP server runs"),
      Flag.withDefault(false)
    ),
    recordMissing: Flag.String("record-missing").pipe(
      Flag.withMetavar("DIR"),
      Flag.withDescription("Replay the requests that have a cassette in DIR; send and record the others"),
      Flag.optional
    ),
    traceFile: Flag.String("trace-file").pipe(
      Flag.withMetavar("PATH"),
      Flag.withDescription(
        "After the run (failed or interrupted too), write every model request and tool call to PATH as JSONL"
      ),
      Flag.optional
    ),
    traceSpans: Flag.Boolean("trace-spans").pipe(
      Flag.withDescription(
        "Also write the run and its steps as spans around them (a tree; overrides default.trace_spans)"
      ),
      Flag.optional
    ),
    traceContent: Flag.Boolean("trace-content").pipe(
      Flag.withDescription(
        "Also write prompts, answers, tool arguments and results, secrets masked (overrides default.trace_content)"
      ),
      Flag.optional
    ),
    showUsage: Flag.Boolean("show-usage").pipe(
      Flag.withDescription("Print token usage (and cost, with pricing:) to stderr"),
      Flag.withDefault(false)
    ),
    approveTools: Flag.Boolean("approve-tools").pipe(
      Flag.withDescription("Ask on the terminal (y/n/a) before every tool call the model makes"),
      Flag.withDefault(false)
    )
  },
  Effect.fn("cli.run")(function*(
    { file, prompt, input, output, json, dryRun, traceFile, traceSpans, traceContent, showUsage, approveTools }
  ) {
    for (const [given, flag] of [[traceSpans, "--trace-spans"], [traceContent, "--trace-content"]] as const) {
      if (Option.getOrUndefined(given) === true && Option.isNone(traceFile)) {
        return yield* new ArgumentError({ reason: { _tag: "Requires", flag, needs: "--trace-file <PATH>" } })
      }
    }
    // Loaded on demand so that `lait --version` and other commands never pay for jq, YAML or Ajv.
    const [{ loadWorkflow }, { parseInputFlag, resolveInputs, resolveInitial }, { dryRunPlan }, schemas] =
      yield* Effect.promise(() =>
        Promise.all([
          import("../lang/load.ts"),
          import("../lang/inputs.ts"),
          import("../workflow/dryrun.ts"),
          import("../lang/schemaRef.ts")
        ])
      )
    const engine = yield* Engine
    const loader = yield* FileLoader

    const target = yield* resolveTarget(file)
    const workflow = yield* loadWorkflow(target, { waitForWriter: true })
    yield* engine.announce(workflow)

    const stdinIsTty = process.stdin.isTTY === true
    const text = yield* resolvePromptText(Option.getOrUndefined(prompt), stdinIsTty, loader.readStdin)
    let initial: Json
    if (text !== undefined) {
      const schema = yield* schemas.loadSchemaRef(workflow.inputSchema)
      initial = yield* resolveInitial(schema, { kind: "text", text })
    } else if (workflow.inputs.length > 0) {
      initial = null
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
    const inputs = yield* resolveInputs(workflow.inputs, provided)

    if (dryRun) {
      const plan = yield* dryRunPlan(workflow, inputs, initial)
      yield* printLine(plan.join("\n"))
      return
    }

    // Where the answer and the trace go is checked now: finding out after the run would waste its cost.
    const path = Option.getOrUndefined(output)
    if (path !== undefined && path !== "-") yield* checkResponseTarget(path)
    const tracePath = Option.getOrUndefined(traceFile)
    const trace = tracePath === undefined ? undefined : yield* Effect.promise(() => import("../trace/write.ts"))
    if (trace !== undefined && tracePath !== undefined) yield* trace.checkTraceTarget(tracePath)
    const { config, env } = yield* LaitConfig
    const traceOptions = {
      spans: Option.getOrUndefined(traceSpans) ?? config.default?.trace_spans ?? false,
      capture: (Option.getOrUndefined(traceContent) ?? config.default?.trace_content ?? false)
        ? { secrets: new Set<string>() }
        : undefined
    }
    const writeTrace = (outcome: "succeeded" | "failed" | "interrupted") =>
      trace === undefined || tracePath === undefined ? Effect.void : trace.writeRunTrace(tracePath, {
        spans: traceOptions.spans,
        outcome,
        secrets: [...trace.configSecrets(config, env), ...(traceOptions.capture?.secrets ?? [])]
      })

    const result = yield* engine.run(workflow, initial, inputs, { timeoutMode: "cancel" }).pipe(
      Effect.provideService(ApproveTools, approveTools),
      Effect.provideService(TraceContent, traceOptions.capture),
      // A failed or interrupted run keeps its trace: it is when one is needed most. The run's own
      // error stays what lait reports; a trace that cannot be written only adds a warning.
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.void
          : writeTrace(Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : "failed").pipe(
            Effect.catch((e) => Console.error(`warning: ${renderChain(e)}`))
          )
      )
    )
    const content = textForm(result.output)
    const usage = yield* RunUsage
    const totals = yield* usage.total
    const body = json
      ? JSON.stringify({
        content,
        reasoning: null,
        usage: totals.requests === 0
          ? null
          : { prompt_tokens: totals.prompt, completion_tokens: totals.completion, total_tokens: totals.total }
      })
      : content
    const emit: Effect.Effect<void, CommandError | OutputError> = path !== undefined && path !== "-"
      ? writeResponse(path, body)
      : printLine(body)
    const emitted = yield* Effect.exit(emit)
    if (showUsage) yield* Console.error(formatUsage(yield* usage.entries, totals))
    // After the answer is out, so a trace that cannot be written never costs the answer.
    if (trace !== undefined) {
      const traced = yield* Effect.exit(writeTrace("succeeded"))
      if (Exit.isFailure(traced)) {
        if (Exit.isSuccess(emitted)) return yield* traced
        yield* Console.error(`warning: ${renderChain(primaryError(traced.cause))}`)
      }
    }
    return yield* emitted
  }, (effect) => effect.pipe(Effect.provide(runLayers)))
).pipe(
  Command.withDescription("Run a workflow file (version 2)"),
  Command.provide(({ record, replay, strictReplay, recordMissing }) =>
    modelClientLayer({
      record: Option.getOrUndefined(record),
      replay: Option.getOrUndefined(replay),
      strictReplay,
      recordMissing: Option.getOrUndefined(recordMissing)
    })
  ),
  Command.provide(({ record, replay, replayTools }) =>
    toolCassettesLayer({ record: Option.getOrUndefined(record), replay: Option.getOrUndefined(replay), replayTools })
  ),
  Command.provide(configLayer({ waitForWriter: true })),
  // Outermost: read before .env is loaded, and flushed after everything else has closed.
  Command.provide(liveExportLayer)
)
