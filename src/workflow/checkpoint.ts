// Checkpoints of `lait run --checkpoint`: `.lait/runs/<run-id>.json` under the current directory,
// replaced whole (temp file + rename) after every top-level step, so that `--resume` can continue a
// failed or interrupted run after its last completed top-level step. The file is upstream's format 2,
// field for field, so either implementation can list and resume the other's runs.
//
// The files are private (0600 in 0700 directories) and no symlink is followed to reach one: a
// `.lait` or `.lait/runs` that is a link, or a link in place of a checkpoint, is refused
// (platform/privateState.ts, docs/checkpoints.md).
//
// Only top-level steps are checkpointed: a control step (group, switch, parallel, loops) re-runs from
// its own beginning on resume, so a `run:` or `write:` inside one can run twice across a resume.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { CheckpointError } from "./checkpointErrors.ts"
import { type Json, isJsonObject } from "../core/json.ts"
import { stepName } from "../lang/positions.ts"
import type { Workflow } from "../lang/model.ts"
import { deeperThan, MAX_JSON_DEPTH, stringifyDeep, TOO_DEEP } from "../core/jsonDepth.ts"
import { PRETTY_DEPTH, unreadableSize } from "../model/cassette/entryText.ts"
import { describeOsError, FileLoader } from "../platform/FileLoader.ts"
import { acquirePidLock } from "../platform/pidLock.ts"
import * as State from "../platform/privateState.ts"
import type { RunState } from "./engine/types.ts"
import { redact } from "../core/redaction.ts"

export const RUNS_DIR = nodePath.join(State.STATE_DIR, "runs")

export const CHECKPOINT_FORMAT = 2

/** `failed` while the run is in progress or after it failed; `completed` once it finished. */
export type RunStatus = "failed" | "completed"

export interface Checkpoint {
  readonly format: typeof CHECKPOINT_FORMAT
  readonly run_id: string
  /** The workflow file as `lait run` resolved FILE (a `workflows:` name is recorded as its path). */
  readonly workflow_path: string
  /** The run's initial value (PROMPT, or null). */
  readonly initial_input: Json
  /** The resolved `inputs`, so a resumed run needs no `--input` again. They are stored verbatim. */
  readonly inputs: Readonly<Record<string, Json>>
  /** Every top-level step's `id`, else `step-<position>`, to see whether the file changed since. */
  readonly top_level_labels: ReadonlyArray<string>
  /** How many top-level steps have completed; a resume starts at the next one. */
  readonly completed_index: number
  readonly counter: number
  readonly current_value: Json
  readonly steps_outputs: Readonly<Record<string, Json>>
  readonly status: RunStatus
}

/** The same names upstream allows for a run id, so `--resume ../x` can never leave `.lait/runs`. */
export const validRunId = (runId: string): boolean => /^[A-Za-z0-9_-]+$/.test(runId)

export const runPath = (runId: string): Effect.Effect<string, CheckpointError> =>
  validRunId(runId)
    ? Effect.succeed(nodePath.join(RUNS_DIR, `${runId}.json`))
    : Effect.fail(new CheckpointError({ reason: { _tag: "InvalidRunId", runId } }))

let idCounter = 0

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/**
 * `YYYYMMDD-HHMMSS-<nanoseconds, 9 digits>-<pid>-<counter>` in UTC: sorts by start time, and the pid
 * and counter keep runs started in the same instant apart.
 */
export const generateRunId = (now: Date = new Date()): string => {
  const date = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`
  // The clock has milliseconds; the monotonic clock's sub-millisecond part fills in the rest.
  const nanos = now.getUTCMilliseconds() * 1_000_000 + Number(process.hrtime.bigint() % 1_000_000n)
  return `${date}-${time}-${pad(nanos, 9)}-${process.pid}-${idCounter++}`
}

/** Every top-level step's stable name, by position: its `id`, else `step-<position>`. */
export const topLevelLabels = (workflow: Workflow): Array<string> =>
  workflow.steps.map((step, index) => stepName(step, `${index + 1}`))

/** The fields that hold workflow values, and how many levels of their own wrap those values. */
const VALUE_FIELDS = [["initial_input", 0], ["current_value", 0], ["inputs", 1], ["steps_outputs", 1]] as const

/** Whether a value in the checkpoint nests deeper than lait reads (parseCheckpoint refuses it). */
const tooDeep = (checkpoint: Readonly<Record<string, unknown>>): boolean =>
  VALUE_FIELDS.some(([name, wrap]) => deeperThan(checkpoint[name], MAX_JSON_DEPTH + wrap))

/**
 * The file's text: pretty JSON, except that a field nested deeper than PRETTY_DEPTH is written
 * compact (as cassettes do: pretty-printing grows with the square of the depth, so 3,000 levels of a
 * 6 KB answer would make tens of megabytes), or why it must not be written.
 */
export const checkpointText = (checkpoint: Checkpoint): { readonly text: string } | { readonly problem: string } => {
  const record = checkpoint as unknown as Readonly<Record<string, unknown>>
  if (tooDeep(record)) return { problem: `a value is ${TOO_DEEP}, so it could never be read back` }
  const fields = Object.keys(record).filter((key) => record[key] !== undefined).map((key) => {
    const value = record[key]
    const text = deeperThan(value, PRETTY_DEPTH)
      ? stringifyDeep(value)
      : JSON.stringify(value, null, 2).replace(/\n/g, "\n  ")
    return `  ${JSON.stringify(key)}: ${text}`
  })
  const text = `{\n${fields.join(",\n")}\n}`
  const problem = unreadableSize(text)
  return problem === undefined ? { text } : { problem }
}

/**
 * Writes the whole checkpoint atomically. Synchronous on purpose: it also runs while a Ctrl-C is
 * stopping the run, and must not be cut off half-way. A checkpoint lait could not read back (too
 * large, too deep) is not written: the file keeps the last state that can be resumed.
 */
export const saveCheckpoint = (checkpoint: Checkpoint): Effect.Effect<void, CheckpointError> =>
  Effect.flatMap(runPath(checkpoint.run_id), (path) => {
    const saveFailed = (detail: string) => new CheckpointError({ reason: { _tag: "SaveFailed", path, detail } })
    const body = checkpointText(checkpoint)
    // Secrets masked (src/core/redaction.ts): a resumed run sees `<redacted>` where a step's output held one.
    return "problem" in body
      ? Effect.fail(saveFailed(body.problem))
      : Effect.try({
        try: () => State.writePrivateFile(path, redact(body.text)),
        catch: (e) =>
          e instanceof State.SymlinkRefused
            ? new CheckpointError({ reason: { _tag: "Symlink", path: e.path } })
            : saveFailed(describeOsError(e))
      })
  })

const unreadable = (path: string, detail: string) =>
  new CheckpointError({ reason: { _tag: "Unreadable", path, detail } })

const isCount = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u) && u >= 0

/**
 * The checkpoint in `text`, refusing other formats before looking at single fields, values nested
 * deeper than lait reads (a resumed run would walk them), and a place past the last step. `runId`:
 * the id the file's name gives, which the file must hold (else a resume would write another run's file).
 */
export const parseCheckpoint = (
  text: string,
  path: string,
  runId?: string
): Effect.Effect<Checkpoint, CheckpointError> =>
  Effect.gen(function*() {
    let value: Json
    try {
      value = JSON.parse(text) as Json
    } catch (e) {
      return yield* unreadable(path, e instanceof Error ? e.message : String(e))
    }
    if (!isJsonObject(value)) return yield* unreadable(path, "expected a JSON object")
    if (value["format"] !== CHECKPOINT_FORMAT) {
      return yield* new CheckpointError({ reason: { _tag: "OldFormat", path } })
    }
    const field = (name: string, ok: (u: Json) => boolean, expected: string) => {
      const got = value[name]
      if (got !== undefined && ok(got)) return Effect.void
      const detail = got === undefined ? `missing field \`${name}\`` : `\`${name}\`: expected ${expected}`
      return Effect.fail(unreadable(path, detail))
    }
    const isString = (u: Json) => typeof u === "string"
    yield* field("run_id", isString, "a string")
    yield* field("workflow_path", isString, "a string")
    yield* field("initial_input", () => true, "a value")
    yield* field("top_level_labels", (u) => Array.isArray(u) && u.every(isString), "a list of strings")
    yield* field("completed_index", isCount, "a non-negative integer")
    yield* field("counter", isCount, "a non-negative integer")
    yield* field("current_value", () => true, "a value")
    yield* field("steps_outputs", isJsonObject, "an object")
    yield* field("status", (u) => u === "failed" || u === "completed", "\"failed\" or \"completed\"")
    if (value["inputs"] !== undefined && !isJsonObject(value["inputs"])) {
      return yield* unreadable(path, "`inputs`: expected an object")
    }
    const recorded = value["run_id"] as string
    if (runId !== undefined && recorded !== runId) {
      return yield* new CheckpointError({ reason: { _tag: "IdMismatch", path, runId, recorded } })
    }
    const completed = value["completed_index"] as number
    const steps = (value["top_level_labels"] as ReadonlyArray<string>).length
    if (completed > steps) {
      return yield* unreadable(path, `\`completed_index\` ${completed} is past the ${steps} top-level step(s) recorded`)
    }
    if (tooDeep(value)) return yield* unreadable(path, `a value is ${TOO_DEEP}`)
    return { ...value, inputs: value["inputs"] ?? {} } as unknown as Checkpoint
  })

/** Whether `path` (a dangling link counts) exists; a symlink on the way to it is the Symlink error. */
const entryExists = (path: string) =>
  Effect.try({
    try: () => State.privateEntryExists(path),
    catch: (e) =>
      e instanceof State.SymlinkRefused
        ? new CheckpointError({ reason: { _tag: "Symlink", path: e.path } })
        : unreadable(path, describeOsError(e))
  })

/** `runId`: what the file's name says it holds. */
const readCheckpoint = (path: string, runId: string) =>
  Effect.gen(function*() {
    const link = yield* FileLoader.use((files) => files.symlinkOnPath(path)).pipe(
      Effect.mapError((e) => unreadable(path, e.detail))
    )
    if (link !== undefined) return yield* new CheckpointError({ reason: { _tag: "Symlink", path: link } })
    return yield* parseCheckpoint(yield* State.readPrivateText(path), path, runId)
  })

/** Fails when `.lait/runs` could not take a checkpoint: a symlink on the way (before a run starts). */
export const checkRunsDir: Effect.Effect<void, CheckpointError> = Effect.suspend(() =>
  Effect.asVoid(entryExists(RUNS_DIR))
)

/** Run `runId`'s checkpoint, or why there is none to read. */
export const loadCheckpoint = (runId: string) =>
  Effect.gen(function*() {
    const path = yield* runPath(runId)
    if (!(yield* entryExists(path))) return yield* new CheckpointError({ reason: { _tag: "NotFound", runId } })
    return yield* readCheckpoint(path, runId)
  })

/**
 * Takes run `runId`'s resume lock (`.lait/runs/<id>.lock`) for the life of the scope: a second resume of
 * the run is refused while this one runs. The lock is released when the scope closes (also on Ctrl-C)
 * and at process exit; one left by a process that is gone is taken over.
 */
export const lockRun = (runId: string) =>
  Effect.flatMap(runPath(runId), (path) => {
    const lock = path.replace(/\.json$/, ".lock")
    // A lock that is a symbolic link is refused like a checkpoint that is one: never read through.
    return Effect.andThen(entryExists(lock), Effect.acquireRelease(
      Effect.try({
        try: () => acquirePidLock(lock),
        catch: (e) => new CheckpointError({ reason: { _tag: "Unreadable", path: lock, detail: describeOsError(e) } })
      }).pipe(
        Effect.flatMap((taken) =>
          taken._tag === "Acquired"
            ? Effect.succeed(taken.release)
            : Effect.fail(new CheckpointError({ reason: { _tag: "Locked", runId, pid: taken.pid, lock } }))
        )
      ),
      (release) => Effect.sync(release)
    ))
  })

export interface Listing {
  /** By run id: oldest first. */
  readonly checkpoints: ReadonlyArray<Checkpoint>
  /** Files under `.lait/runs` that are not readable checkpoints, and why. */
  readonly skipped: ReadonlyArray<CheckpointError | unknown>
}

/** Every checkpoint under `.lait/runs` (none when it does not exist). */
export const listCheckpoints = Effect.gen(function*() {
  if (!(yield* entryExists(RUNS_DIR))) return { checkpoints: [], skipped: [] } as Listing
  const files = yield* FileLoader
  const entries = yield* files.lstat(RUNS_DIR).pipe(
    Effect.flatMap((stat) => (stat.isDirectory() ? files.list(RUNS_DIR) : Effect.succeed([]))),
    Effect.mapError((e) => new CheckpointError({ reason: { _tag: "Unreadable", path: RUNS_DIR, detail: e.detail } }))
  )
  const checkpoints: Array<Checkpoint> = []
  const skipped: Array<unknown> = []
  for (const entry of entries.map((e) => e.name).filter((name) => name.endsWith(".json")).sort()) {
    const read = yield* Effect.result(readCheckpoint(nodePath.join(RUNS_DIR, entry), entry.slice(0, -".json".length)))
    if (read._tag === "Success") checkpoints.push(read.success)
    else skipped.push(read.failure)
  }
  checkpoints.sort((a, b) => (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0))
  return { checkpoints, skipped } as Listing
})

/**
 * Whether the workflow's top-level steps still fit the checkpoint: a change at or before the resume
 * point fails (recorded state would go into the wrong steps); a change after it is only reported, as
 * the warning returned.
 */
export const checkResumable = (
  current: ReadonlyArray<string>,
  checkpoint: Checkpoint
): Effect.Effect<string | undefined, CheckpointError> => {
  const recorded = checkpoint.top_level_labels
  const boundary = checkpoint.completed_index
  const runId = checkpoint.run_id
  if (current.length < boundary || recorded.length < boundary) {
    return Effect.fail(
      new CheckpointError({
        reason: { _tag: "TooFewSteps", runId, completed: boundary, recorded: recorded.length, current: current.length }
      })
    )
  }
  const same = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
    a.length === b.length && a.every((label, i) => label === b[i])
  if (!same(current.slice(0, boundary), recorded.slice(0, boundary))) {
    return Effect.fail(new CheckpointError({ reason: { _tag: "StepsChanged", runId } }))
  }
  return Effect.succeed(
    same(current.slice(boundary), recorded.slice(boundary))
      ? undefined
      : `the workflow's steps after step ${boundary} differ from when run '${runId}' was checkpointed; resuming anyway`
  )
}

/** The state a resumed run continues from. */
export const resumeState = (checkpoint: Checkpoint): RunState => ({
  value: checkpoint.current_value,
  counter: checkpoint.counter,
  steps: checkpoint.steps_outputs
})
