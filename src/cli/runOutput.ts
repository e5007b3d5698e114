// What a command that runs model requests and prints one result shares (`lait agent run`): the
// checks of the record/replay/trace/output flags (src/cli/runFlags.ts) before anything is paid for,
// and the end of the run:
// the result on stdout (or `-o`), `--json`, `--show-usage`, the `--trace-file` (also written when
// the run fails or is interrupted).
import { Cause, Console, Effect, Exit, Option } from "effect"
import { LaitConfig } from "../config/LaitConfig.ts"
import { type OutputError, primaryError, renderChain } from "../core/errors.ts"
import { type Json, textForm } from "../core/json.ts"
import { TraceContent, traceWritten } from "../core/tracing.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { formatUsage, RunUsage } from "../model/RunUsage.ts"
import { writeTargetProblem, writeUserFile } from "../platform/FileLoader.ts"
import { osErrorText } from "../platform/process.ts"
import { ApproveTools } from "../tools/ApproveTools.ts"
import { historyUsage, recordHistory, type RunRecord } from "../history/record.ts"
import { CommandError } from "./commandErrors.ts"
import { printLine } from "./output.ts"

/**
 * After the answer went out (or failed to): the trace. One that cannot be written fails the command
 * only when the answer was delivered; otherwise the answer's error is the one reported and the trace's
 * is a warning.
 */
export const writeTraceAfter = <E1, R1, E2>(
  writeTrace: Effect.Effect<void, E1, R1> | undefined,
  emitted: Exit.Exit<void, E2>
): Effect.Effect<void, E1, R1> =>
  Effect.gen(function*() {
    if (writeTrace === undefined) return
    const traced = yield* Effect.exit(writeTrace)
    if (Exit.isFailure(traced)) {
      if (Exit.isSuccess(emitted)) return yield* traced
      yield* Console.error(`warning: ${renderChain(primaryError(traced.cause))}`)
    }
  })

export interface RunOutputFlags {
  readonly output: Option.Option<string>
  readonly json: boolean
  readonly traceFile: Option.Option<string>
  readonly traceContent: Option.Option<boolean>
  /** `lait run --trace-spans`; other commands write no spans. */
  readonly traceSpans?: Option.Option<boolean>
  readonly showUsage: boolean
  readonly approveTools: boolean
  readonly noHistory?: boolean
}

export interface RunAndEmitOptions<E2, R2> {
  /**
   * Runs when the run fails or is interrupted, before the trace is written (`lait run --checkpoint`
   * saves its last good state there).
   */
  readonly onFailure?: Effect.Effect<void, E2, R2>
  /** What the history records of a run that succeeded all the way (its result and usage are added). */
  readonly history?: Omit<RunRecord, "response" | "usage">
}

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

/** `--trace-spans`/`--trace-content` need `--trace-file`. */
export const checkTraceFlags = (flags: Pick<RunOutputFlags, "traceFile" | "traceSpans" | "traceContent">) =>
  Effect.gen(function*() {
    const given = [[flags.traceSpans, "--trace-spans"], [flags.traceContent, "--trace-content"]] as const
    for (const [value, flag] of given) {
      if (value !== undefined && Option.getOrUndefined(value) === true && Option.isNone(flags.traceFile)) {
        return yield* new ArgumentError({ reason: { _tag: "Requires", flag, needs: "--trace-file <PATH>" } })
      }
    }
  })

/**
 * Runs `run` and prints its result as the flags say. Where the answer and the trace go is checked
 * first: finding out after the run would waste its cost. A run that succeeded all the way (its answer
 * delivered, its trace written) is then recorded in the history.
 */
export const runAndEmit = <E, R, E2 = never, R2 = never>(
  flags: RunOutputFlags,
  run: Effect.Effect<Json, E, R>,
  options: RunAndEmitOptions<E2, R2> = {}
) =>
  Effect.gen(function*() {
    yield* checkTraceFlags(flags)
    const path = Option.getOrUndefined(flags.output)
    if (path !== undefined && path !== "-") yield* checkResponseTarget(path)
    const tracePath = Option.getOrUndefined(flags.traceFile)
    const trace = tracePath === undefined ? undefined : yield* Effect.promise(() => import("../trace/write.ts"))
    if (trace !== undefined && tracePath !== undefined) yield* trace.checkTraceTarget(tracePath)
    const { config, env } = yield* LaitConfig
    const spans = (flags.traceSpans === undefined ? undefined : Option.getOrUndefined(flags.traceSpans)) ??
      config.default?.trace_spans ?? false
    const capture = (Option.getOrUndefined(flags.traceContent) ?? config.default?.trace_content ?? false)
      ? { secrets: new Set<string>() }
      : undefined
    const writeTrace = (outcome: "succeeded" | "failed" | "interrupted") =>
      trace === undefined || tracePath === undefined ? Effect.void : trace.writeRunTrace(tracePath, {
        spans,
        outcome,
        secrets: [...trace.configSecrets(config, env), ...(capture?.secrets ?? [])]
      })

    const result = yield* run.pipe(
      Effect.provideService(ApproveTools, flags.approveTools),
      Effect.provideService(TraceContent, capture),
      traceWritten(tracePath !== undefined),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.void
          : Effect.andThen(
            options.onFailure ?? Effect.void,
            writeTrace(Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : "failed").pipe(
              Effect.catch((e) => Console.error(`warning: ${renderChain(e)}`))
            )
          )
      )
    )
    const usage = yield* RunUsage
    const totals = yield* usage.total
    const content = textForm(result)
    const body = flags.json
      ? JSON.stringify({
        content,
        reasoning: null,
        usage: totals.requests === 0
          ? null
          : { prompt_tokens: totals.prompt, completion_tokens: totals.completion, total_tokens: totals.total },
        finish_reason: yield* usage.finishReason
      })
      : content
    const emit: Effect.Effect<void, CommandError | OutputError> = path !== undefined && path !== "-"
      ? writeResponse(path, body)
      : printLine(body)
    const emitted = yield* Effect.exit(emit)
    if (flags.showUsage) yield* Console.error(formatUsage(yield* usage.entries, totals))
    yield* writeTraceAfter(trace === undefined ? undefined : writeTrace("succeeded"), emitted)
    yield* emitted
    if (options.history !== undefined) {
      yield* recordHistory(
        { ...options.history, response: content, usage: historyUsage(totals) },
        { noHistory: flags.noHistory ?? false }
      )
    }
  })
