// The trace file: JSONL, one event per line, keys in upstream's order (`seq`, `operation`, `label`,
// `start`, `end`, `duration_ms`, `attributes`), then, in files written with `--trace-spans`, this
// project's additive `span_id` and `parent_span_id`. Files of the original lait have neither.
import * as nodePath from "node:path"
import { Effect } from "effect"
import type { FileError } from "../core/fileErrors.ts"
import { Attr } from "../core/tracing.ts"
import { describeOsError, FileLoader, writeTargetProblem } from "../platform/FileLoader.ts"
import {
  compactJson,
  fromJs,
  JsonSyntaxError,
  parseJson,
  prettyJson,
  TraceNumber,
  TraceObject,
  type TraceValue
} from "./json.ts"
import { isTraceOperation, type RecordedEvent } from "./RunTracer.ts"
import { formatTimestamp, parseTimestamp } from "./time.ts"
import { TraceError } from "./TraceError.ts"

/** One event as read from a file. Integers are exact (u64 `seq`, i64 `duration_ms`). */
export interface FileEvent {
  readonly seq: bigint
  readonly operation: string
  readonly label: string
  /** Nanoseconds since the Unix epoch. */
  readonly start: bigint
  readonly end: bigint
  readonly duration_ms: bigint
  readonly attributes: TraceObject
  /** Absent in files of the original lait (their events have no parents). */
  readonly span_id?: string
  readonly parent_span_id?: string | null
}

/** The run and step spans of `--trace-spans`: structure around the calls, not calls themselves. */
export const isStructure = (e: FileEvent): boolean =>
  e.span_id !== undefined && (e.operation === "invoke_workflow" || e.operation === "step")

/** Whether the file holds the span tree (else it is the seed's flat list, as upstream writes it). */
export const hasSpanTree = (events: ReadonlyArray<FileEvent>): boolean => events.some(isStructure)

const U64_MAX = 2n ** 64n - 1n
const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n

const FIELDS = ["seq", "operation", "label", "start", "end", "duration_ms", "attributes", "span_id", "parent_span_id"]

/** Why `value` is not a trace event (the reason is the cause of the user-facing error). */
const decodeEvent = (value: TraceValue): FileEvent | string => {
  if (!(value instanceof TraceObject)) return "invalid type: expected an event object"
  const repeated = value.repeatedKeys.find((key) => FIELDS.includes(key))
  if (repeated !== undefined) return `duplicate field '${repeated}'`
  const field = (name: string) => value.get(name)
  for (const name of FIELDS.slice(0, 7)) {
    if (!value.has(name)) return `missing field '${name}'`
  }
  const seq = field("seq")
  if (!(seq instanceof TraceNumber) || seq.integer === undefined || seq.integer < 0n || seq.integer > U64_MAX) {
    return "'seq' must be a non-negative integer"
  }
  const operation = field("operation")
  if (typeof operation !== "string") return "'operation' must be a string"
  const label = field("label")
  if (typeof label !== "string") return "'label' must be a string"
  const times: Array<bigint> = []
  for (const name of ["start", "end"]) {
    const text = field(name)
    const nanos = typeof text === "string" ? parseTimestamp(text) : undefined
    if (nanos === undefined) return `'${name}' must be an RFC 3339 timestamp`
    times.push(nanos)
  }
  const duration = field("duration_ms")
  if (
    !(duration instanceof TraceNumber) || duration.integer === undefined || duration.integer < I64_MIN ||
    duration.integer > I64_MAX
  ) {
    return "'duration_ms' must be an integer"
  }
  const attributes = field("attributes")
  if (!(attributes instanceof TraceObject)) return "'attributes' must be an object"
  const spanId = field("span_id")
  if (spanId !== undefined && typeof spanId !== "string") return "'span_id' must be a string"
  const parent = field("parent_span_id")
  if (parent !== undefined && parent !== null && typeof parent !== "string") {
    return "'parent_span_id' must be a string or null"
  }
  return {
    seq: seq.integer,
    operation,
    label,
    start: times[0]!,
    end: times[1]!,
    duration_ms: duration.integer,
    attributes,
    ...(spanId !== undefined ? { span_id: spanId } : {}),
    ...(parent !== undefined ? { parent_span_id: parent } : {})
  }
}

/**
 * The events of a trace file's text, sorted by `seq` (stable). Blank lines are skipped; any other
 * line that is not an event fails with its 1-based line number.
 */
export const parseTraceText = (text: string, path: string): Effect.Effect<ReadonlyArray<FileEvent>, TraceError> =>
  Effect.suspend(() => {
    const events: Array<FileEvent> = []
    const lines = text.split("\n")
    // A final newline ends the last line; it does not start an empty one.
    if (lines[lines.length - 1] === "") lines.pop()
    for (const [index, raw] of lines.entries()) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
      if (line.trim() === "") continue
      let decoded: FileEvent | string
      try {
        decoded = decodeEvent(parseJson(line))
      } catch (e) {
        if (!(e instanceof JsonSyntaxError)) throw e
        decoded = e.message
      }
      if (typeof decoded === "string") {
        return Effect.fail(
          new TraceError({ reason: { _tag: "EventInvalid", path, line: index + 1, detail: decoded } })
        )
      }
      events.push(decoded)
    }
    return Effect.succeed(events.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0)))
  })

/**
 * The files `lait trace show` reads: each path as given, a directory as every `*.jsonl` directly in
 * it, sorted by name. A directory without one is an error, not an empty trace.
 */
export const traceFilesIn = (paths: ReadonlyArray<string>) =>
  Effect.flatMap(FileLoader, (files) =>
    Effect.map(
      Effect.forEach(paths, (path) =>
        Effect.gen(function*() {
          const stat = yield* Effect.option(files.stat(path))
          if (stat._tag === "None" || !stat.value.isDirectory()) return [path] as ReadonlyArray<string>
          const entries = yield* files.list(path).pipe(
            Effect.mapError((e) => new TraceError({ reason: { _tag: "ReadFailed", path, detail: e.detail } }))
          )
          const names = entries
            .filter((e) => e.name.endsWith(".jsonl") && !e.isDirectory())
            .map((e) => e.name)
            .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          if (names.length === 0) {
            const detail = "the directory holds no trace files (*.jsonl)"
            return yield* new TraceError({ reason: { _tag: "ReadFailed", path, detail } })
          }
          return names.map((name) => nodePath.join(path, name))
        })),
      (lists) => lists.flat()
    ))

const readFailure = (path: string) => (e: FileError) =>
  new TraceError({ reason: { _tag: "ReadFailed", path, detail: e.detail } })

/** The raw bytes of a trace file (export hashes them) and its events. */
export const readTraceFile = (path: string, options: { readonly waitForWriter: boolean }) =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    const bytes = yield* files.readBytes(path, options).pipe(Effect.mapError(readFailure(path)))
    const text = yield* Effect.try({
      try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
      catch: () =>
        new TraceError({ reason: { _tag: "ReadFailed", path, detail: "stream did not contain valid UTF-8" } })
    })
    const events = yield* parseTraceText(text, path)
    return { bytes, events }
  })

/** One event as a JSON object in file order (also the `trace show --json` element). */
export const eventObject = (e: FileEvent): TraceObject =>
  new TraceObject([
    ["seq", TraceNumber.int(e.seq)],
    ["operation", e.operation],
    ["label", e.label],
    ["start", formatTimestamp(e.start)],
    ["end", formatTimestamp(e.end)],
    ["duration_ms", TraceNumber.int(e.duration_ms)],
    ["attributes", e.attributes],
    ...(e.span_id !== undefined ? [["span_id", e.span_id] as const] : []),
    ...(e.parent_span_id !== undefined ? [["parent_span_id", e.parent_span_id] as const] : [])
  ])

/** A recorded event in file form. */
export const fromRecorded = (e: RecordedEvent): FileEvent => ({
  seq: BigInt(e.seq),
  operation: e.operation,
  label: e.label,
  start: parseTimestamp(e.start)!,
  end: parseTimestamp(e.end)!,
  duration_ms: BigInt(e.duration_ms),
  attributes: fromJs(e.attributes) as TraceObject,
  span_id: e.span_id,
  parent_span_id: e.parent_span_id
})

/** How the run a trace file records ended: the note says so, and a flat file shows where it failed. */
export type RunOutcome = "succeeded" | "failed" | "interrupted"

export interface TraceFileOptions {
  /** Also write the run and step spans, and every event's span ids (`--trace-spans`). */
  readonly spans: boolean
  /** Default `succeeded`. */
  readonly outcome?: RunOutcome | undefined
}

/**
 * What a trace file holds. By default the seed's events alone, numbered from 0 among themselves and
 * without span ids (the spans they would point at are not in the file), plus, when the run did not
 * succeed, the run and step spans that failed or were cut short: where it went wrong. With `spans`,
 * every record.
 */
export const traceFileEvents = (
  recorded: ReadonlyArray<RecordedEvent>,
  options: TraceFileOptions
): ReadonlyArray<FileEvent> => {
  if (options.spans) return recorded.map(fromRecorded)
  const failed = (options.outcome ?? "succeeded") !== "succeeded"
  return recorded.filter((e) => isTraceOperation(e) || (failed && Attr.errorType in e.attributes)).map((e, i) => {
    const { parent_span_id: _parent, span_id: _span, ...event } = fromRecorded(e)
    return { ...event, seq: BigInt(i) }
  })
}

/** The JSONL text: one compact event per line, each line ending in a newline. */
export const toJsonl = (events: ReadonlyArray<FileEvent>): string =>
  events.map((e) => `${compactJson(eventObject(e))}\n`).join("")

/** `trace show --json`. */
export const eventsAsPrettyJson = (events: ReadonlyArray<FileEvent>): string => prettyJson(events.map(eventObject))

const writeFailure = (path: string, detail: string) => new TraceError({ reason: { _tag: "WriteFailed", path, detail } })

/** Writes the whole trace atomically (parent directories created); the path is reported as given. */
export const writeTraceFile = (path: string, events: ReadonlyArray<FileEvent>) =>
  Effect.flatMap(FileLoader, (files) =>
    files.writeAtomic(path, toJsonl(events)).pipe(
      Effect.mapError((e) => writeFailure(path, e.detail))
    ))

/**
 * Fails now when PATH could never be written (a directory, a parent that is a file, no permission),
 * so `lait run` finds out before it pays for any model call. A missing parent is fine: it is made.
 */
export const checkTraceTarget = (path: string): Effect.Effect<void, TraceError> =>
  Effect.suspend(() => {
    const problem = writeTargetProblem(path)
    return problem === undefined ? Effect.void : Effect.fail(writeFailure(path, describeOsError(problem)))
  })
