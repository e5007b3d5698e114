// `--trace-dir DIR` of `lait test` and `lait eval` (docs/traces.md#tests-and-evals): one trace file
// per run — per test file, per (case, repeat) of an eval — written when the run's context closes,
// however the run ended (RunTracer's KeepTrace), with the same events, spans and masking as `lait run
// --trace-file`. A file that cannot be written is a warning: it never changes a test's or a case's
// result.
import * as nodePath from "node:path"
import { Cause, Console, Effect, Exit } from "effect"
import { renderChain } from "../core/errors.ts"
import { Attr, type TraceContentCapture } from "../core/tracing.ts"
import { describeOsError, FileLoader, writeTargetProblem } from "../platform/FileLoader.ts"
import type { RunOutcome } from "./file.ts"
import { isTraceOperation, type KeepTrace, type RecordedEvent } from "./RunTracer.ts"
import { TraceError } from "./TraceError.ts"
import { saveRecordedTrace } from "./write.ts"

/**
 * Fails now when DIR could never hold the files (it is a file, a parent is one, no permission), so
 * no test or eval run has been paid for when the user finds out. A missing DIR is fine: it is made
 * when the first file is written.
 */
export const checkTraceDir = (dir: string): Effect.Effect<void, TraceError, FileLoader> =>
  Effect.gen(function*() {
    const stat = yield* Effect.option(FileLoader.use((files) => files.stat(dir)))
    const existing = stat._tag === "Some" ? stat.value : undefined
    // A name inside DIR: what must be writable is DIR itself, or the nearest directory that exists.
    const problem = existing !== undefined && !existing.isDirectory()
      ? "not a directory"
      : ((e) => (e === undefined ? undefined : describeOsError(e)))(writeTargetProblem(nodePath.join(dir, ".lait")))
    if (problem !== undefined) {
      return yield* new TraceError({ reason: { _tag: "DirUnusable", path: dir, detail: problem } })
    }
  })

/**
 * How a run ended, for `traceFileEvents`: a run whose failure its runner caught (an eval run whose
 * workflow failed is one failure of the case) still left its failing step and workflow spans.
 */
export const outcomeOf = (recorded: ReadonlyArray<RecordedEvent>, exit: Exit.Exit<unknown, unknown>): RunOutcome => {
  if (Exit.isFailure(exit)) return Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : "failed"
  return recorded.some((e) => !isTraceOperation(e) && Attr.errorType in e.attributes) ? "failed" : "succeeded"
}

// Characters no file name may hold on some system lait runs on.
const UNSAFE = /[<>:"|?*\u0000-\u001f]/g

/**
 * The trace file name of each test file, in the order given: its path relative to `cwd` with every
 * separator turned into `__` (`tests/cases/billing.yml` → `tests__cases__billing.yml.jsonl`). A file
 * outside `cwd` is named by its absolute path, which then starts with `__`
 * (`/srv/t/a.yml` → `__srv__t__a.yml.jsonl`). Two files that would share a name (a `__` in a name,
 * or names that differ only in case, which some file systems do not tell apart) are told apart by
 * `~2`, `~3`, ... on the later ones.
 */
export const testTraceNames = (files: ReadonlyArray<string>, cwd: string): ReadonlyArray<string> => {
  const taken = new Set<string>()
  return files.map((file) => {
    const absolute = nodePath.resolve(cwd, file)
    const relative = nodePath.relative(cwd, absolute)
    const inside = relative !== "" && !relative.startsWith("..") && !nodePath.isAbsolute(relative)
    const base = (inside ? relative : absolute).split(/[\\/]/).join("__").replace(UNSAFE, "_")
    let name = `${base}.jsonl`
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}~${n}.jsonl`
    taken.add(name.toLowerCase())
    return name
  })
}

/** A case's `name:` as part of a file name: letters, digits, `.`, `_` and `-`, at most 40 of them. */
const slug = (name: string): string =>
  name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 40).replace(/^[-.]+|[-.]+$/g, "")

const padded = (n: number, of: number): string => String(n).padStart(String(of).length, "0")

export interface EvalRunName {
  /** 0-based, as the scheduler counts. */
  readonly caseIndex: number
  readonly caseCount: number
  readonly repeatIndex: number
  readonly repeat: number
  /** The case's `name:`, when it has one. */
  readonly name?: string | undefined
  /** The target's name when the eval compares several targets: their runs of a case differ by it. */
  readonly target?: string | undefined
}

/**
 * `case-3.repeat-2.jsonl` (both from 1), or `case-3-refund-policy.repeat-2.jsonl` for a named case.
 * Numbers are zero-padded to the width of the largest (`case-03` of 12), so the files sort in run
 * order; the case number keeps the names of cases with the same name apart.
 */
export const evalTraceName = (run: EvalRunName): string => {
  const label = run.name === undefined ? "" : slug(run.name)
  const target = run.target === undefined ? "" : `.target-${slug(run.target)}`
  return `case-${padded(run.caseIndex + 1, run.caseCount)}${label === "" ? "" : `-${label}`}${target}.repeat-${
    padded(run.repeatIndex + 1, run.repeat)
  }.jsonl`
}

export interface TraceDirOptions {
  readonly dir: string
  /** `--trace-spans`: the run and step spans too, and span ids. */
  readonly spans: boolean
  /** `--trace-content`: prompts, answers and tool results (provide `capture` as TraceContent). */
  readonly content: boolean
  /** The credentials of the configuration and environment (`configSecrets`). */
  readonly secrets: ReadonlyArray<string>
}

export interface TraceDir {
  readonly dir: string
  /** What to provide as TraceContent around the runs: set when content is recorded. */
  readonly capture: TraceContentCapture | undefined
  /**
   * The KeepTrace of one run: writes its trace to DIR/`name`, then tells `onSaved` the path (or
   * undefined, after a `warning:`, when the file could not be written).
   */
  readonly keep: (name: string, onSaved?: (path: string | undefined) => void) => KeepTrace
  /** How many files have been written so far. */
  readonly written: () => number
}

export const makeTraceDir = (options: TraceDirOptions): Effect.Effect<TraceDir, never, FileLoader> =>
  Effect.map(Effect.context<FileLoader>(), (context) => {
    const capture = options.content ? { secrets: new Set<string>() } : undefined
    let written = 0
    const save = (name: string, recorded: ReadonlyArray<RecordedEvent>, exit: Exit.Exit<unknown, unknown>) => {
      const path = nodePath.join(options.dir, name)
      return saveRecordedTrace(path, recorded, {
        spans: options.spans,
        outcome: outcomeOf(recorded, exit),
        secrets: [...options.secrets, ...(capture?.secrets ?? [])]
      }).pipe(
        Effect.map((): string | undefined => {
          written++
          return path
        }),
        Effect.catch((e) => Effect.as(Console.error(`warning: ${renderChain(e)}`), undefined)),
        Effect.provideContext(context)
      )
    }
    return {
      dir: options.dir,
      capture,
      keep: (name, onSaved) => (recorded, exit) =>
        Effect.flatMap(save(name, recorded, exit), (path) => Effect.sync(() => onSaved?.(path))),
      written: () => written
    }
  })

/** `note: traces written to 'DIR' (3 files)`, once a command has written any. */
export const traceDirNote = (traces: TraceDir): Effect.Effect<void> =>
  Effect.suspend(() => {
    const n = traces.written()
    return n === 0
      ? Effect.void
      : Console.error(`note: traces written to '${traces.dir}' (${n} file${n === 1 ? "" : "s"})`)
  })
export { configSecrets } from "./content.ts"
