// `lait trace show` output (docs/traces.md#lait-trace-show): one line per event, per-label summaries, and their JSON
// forms. Each returns the complete stdout text without the final newline.
import { excerpt } from "../core/excerpt.ts"
import { Attr } from "../core/tracing.ts"
import { CONTENT_ATTRIBUTES, contentLines } from "./contentLines.ts"
import { eventObject, eventsAsPrettyJson, type FileEvent, isStructure } from "./file.ts"
import { compactJson, prettyJson, TraceNumber, TraceObject, type TraceValue } from "./json.ts"
import { formatClock } from "./time.ts"

export interface ShowOptions {
  readonly json: boolean
  readonly operation?: string | undefined
  readonly label?: string | undefined
  readonly summary: boolean
  /** Children indented under their parent span (files written with `--trace-spans`). */
  readonly tree?: boolean
  /** Content attributes (`--trace-content`) whole instead of one excerpt line each. */
  readonly content?: boolean
}

export const NO_EVENTS = "(no events)"

/**
 * Strings as they are (the seed's form) but on one line — a multi-line `error.message` (a model's
 * answer it quotes) has its line breaks shown as `\n` (src/core/excerpt.ts), whole; `--json` has the
 * raw value — and everything else as compact JSON.
 */
const displayValue = (value: TraceValue): string =>
  typeof value === "string" ? excerpt(value, Infinity) : compactJson(value)

/** `[    42ms] chat         summarize — 14:03:11.204  (k=v k=v)`; content attributes are left out. */
export const formatEventLine = (e: FileEvent): string => {
  const attributes = e.attributes.entries
    .filter(([k]) => !CONTENT_ATTRIBUTES.has(k))
    .map(([k, v]) => `${k}=${displayValue(v)}`)
    .join(" ")
  return `[${e.duration_ms.toString().padStart(6)}ms] ${e.operation.padEnd(12)} ${e.label} \u2014 ${
    formatClock(e.start)
  }${attributes === "" ? "" : `  (${attributes})`}`
}

// Under the operation column: past `[    42ms] `.
const CONTENT_INDENT = " ".repeat(11)

/** The event's line, then its content lines (files written with `--trace-content`), each indented. */
const eventLines = (e: FileEvent, indent: string, full: boolean): Array<string> => [
  `${indent}${formatEventLine(e)}`,
  ...contentLines(e, full).flatMap((text) => text.split("\n").map((line) => `${indent}${CONTENT_INDENT}${line}`))
]

export interface LabelSummary {
  readonly label: string
  chat: bigint
  execute_tool: bigint
  compact: bigint
  duration_ms: bigint
  input_tokens: bigint
  output_tokens: bigint
}

/** A label's summary before any event is counted. */
const emptySummary = (label: string): LabelSummary => ({
  label,
  chat: 0n,
  execute_tool: 0n,
  compact: 0n,
  duration_ms: 0n,
  input_tokens: 0n,
  output_tokens: 0n
})

const U64_MAX = 2n ** 64n - 1n
const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n
const saturateU64 = (n: bigint) => (n > U64_MAX ? U64_MAX : n)
const saturateI64 = (n: bigint) => (n > I64_MAX ? I64_MAX : n < I64_MIN ? I64_MIN : n)

/** Totals per label in first-appearance order; token sums read the gen_ai.usage attributes (u64 only). */
export const summarize = (events: ReadonlyArray<FileEvent>): ReadonlyArray<LabelSummary> => {
  const byLabel = new Map<string, LabelSummary>()
  for (const e of events) {
    // Counting a step would add its time on top of the chat inside it. A failed run's flat file has
    // its failed steps without span ids: they are structure all the same.
    if (isStructure(e) || e.operation === "step" || e.operation === "invoke_workflow") continue
    let s = byLabel.get(e.label)
    if (s === undefined) {
      s = emptySummary(e.label)
      byLabel.set(e.label, s)
    }
    if (e.operation === "chat") s.chat++
    else if (e.operation === "execute_tool") s.execute_tool++
    else if (e.operation === "compact") s.compact++
    s.duration_ms = saturateI64(s.duration_ms + e.duration_ms)
    const tokens = (key: string) => {
      const v = e.attributes.get(key)
      return v instanceof TraceNumber ? (v.asU64 ?? 0n) : 0n
    }
    s.input_tokens = saturateU64(s.input_tokens + tokens(Attr.inputTokens))
    s.output_tokens = saturateU64(s.output_tokens + tokens(Attr.outputTokens))
  }
  return [...byLabel.values()]
}

const summaryObject = (s: LabelSummary): TraceObject =>
  new TraceObject([
    ["label", s.label],
    ["chat", TraceNumber.int(s.chat)],
    ["execute_tool", TraceNumber.int(s.execute_tool)],
    ["compact", TraceNumber.int(s.compact)],
    ["duration_ms", TraceNumber.int(s.duration_ms)],
    ["input_tokens", TraceNumber.int(s.input_tokens)],
    ["output_tokens", TraceNumber.int(s.output_tokens)]
  ])

const summaryLine = (s: LabelSummary): string =>
  `${s.label}: chat=${s.chat} execute_tool=${s.execute_tool} compact=${s.compact} total=${s.duration_ms}ms ` +
  `tokens(in=${s.input_tokens} out=${s.output_tokens})`

/** `--operation` (exact) and `--label` (substring), as upstream applies them before anything else. */
export const filterEvents = (events: ReadonlyArray<FileEvent>, options: Pick<ShowOptions, "operation" | "label">) =>
  events.filter((e) =>
    (options.operation === undefined || e.operation === options.operation) &&
    (options.label === undefined || e.label.includes(options.label))
  )

const byStart = (a: FileEvent, b: FileEvent) =>
  a.start < b.start ? -1 : a.start > b.start ? 1 : a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0

/**
 * `kept` as an indented tree, each level in start order. An event's parent is its nearest ancestor
 * that was kept (the filters may have dropped the spans in between); an event without one (a file
 * without span ids, a parent not in the file, a cycle in a hand-edited file) is a root.
 */
export const renderTree = (
  all: ReadonlyArray<FileEvent>,
  kept: ReadonlyArray<FileEvent>,
  full = false
): string => {
  const owner = new Map<string, FileEvent>()
  for (const e of all) if (e.span_id !== undefined && !owner.has(e.span_id)) owner.set(e.span_id, e)
  const keptSet = new Set(kept)
  const parentOf = new Map<FileEvent, FileEvent>()
  for (const e of kept) {
    const seen = new Set<FileEvent>([e])
    let up = typeof e.parent_span_id === "string" ? owner.get(e.parent_span_id) : undefined
    while (up !== undefined && !keptSet.has(up) && !seen.has(up)) {
      seen.add(up)
      up = typeof up.parent_span_id === "string" ? owner.get(up.parent_span_id) : undefined
    }
    if (up !== undefined && keptSet.has(up)) parentOf.set(e, up)
  }
  // Whatever still sits on a cycle of kept events is cut loose at the member seen first.
  for (const e of kept) {
    const path = new Set<FileEvent>()
    for (let at: FileEvent | undefined = e; at !== undefined; at = parentOf.get(at)) {
      if (path.has(at)) {
        parentOf.delete(at)
        break
      }
      path.add(at)
    }
  }
  const children = new Map<FileEvent | undefined, Array<FileEvent>>()
  for (const e of kept) {
    const parent = parentOf.get(e)
    const siblings = children.get(parent) ?? []
    siblings.push(e)
    children.set(parent, siblings)
  }
  // Depth-first without recursion: a hand-made file may nest deeper than the call stack.
  const lines: Array<string> = []
  const stack: Array<readonly [FileEvent, number]> = []
  const pushChildren = (parent: FileEvent | undefined, depth: number) => {
    const sorted = (children.get(parent) ?? []).sort(byStart)
    for (let i = sorted.length - 1; i >= 0; i--) stack.push([sorted[i]!, depth])
  }
  pushChildren(undefined, 0)
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [e, depth] = next
    lines.push(...eventLines(e, "  ".repeat(depth), full))
    pushChildren(e, depth + 1)
  }
  return lines.join("\n")
}

/** The whole stdout of `lait trace show` for these options, without its final newline. */
export const renderShow = (events: ReadonlyArray<FileEvent>, options: ShowOptions): string => {
  const kept = filterEvents(events, options)
  if (options.summary) {
    const summaries = summarize(kept)
    if (options.json) return prettyJson(summaries.map(summaryObject))
    return summaries.length === 0 ? NO_EVENTS : summaries.map(summaryLine).join("\n")
  }
  if (options.json) return eventsAsPrettyJson(kept)
  if (kept.length === 0) return NO_EVENTS
  const full = options.content === true
  return options.tree === true
    ? renderTree(events, kept, full)
    : kept.flatMap((e) => eventLines(e, "", full)).join("\n")
}

export interface TraceFileEvents {
  readonly path: string
  readonly events: ReadonlyArray<FileEvent>
}

/**
 * The runs a file holds: its root `invoke_workflow` spans (files written with `--trace-spans`), else
 * one per file with events; failed when that span has `error.type` (a flat file holds the run's
 * span only when it did not succeed).
 */
const runsOf = (events: ReadonlyArray<FileEvent>): { runs: number; failed: number } => {
  const failed = (e: FileEvent) => e.attributes.has(Attr.errorType)
  const workflows = events.filter((e) => e.operation === "invoke_workflow")
  if (events.some((e) => e.span_id !== undefined)) {
    const roots = workflows.filter((e) => e.parent_span_id === null)
    return { runs: roots.length, failed: roots.filter(failed).length }
  }
  return { runs: events.length > 0 ? 1 : 0, failed: workflows.some(failed) ? 1 : 0 }
}

/**
 * `lait trace show` of several files (or a directory): each file's output under a `==> path <==`
 * header, or, with `--summary`, one summary across all of them followed by a line with the totals
 * and the number of files and runs.
 */
export const renderShowFiles = (files: ReadonlyArray<TraceFileEvents>, options: ShowOptions): string => {
  if (!options.summary) {
    if (options.json) {
      return prettyJson(files.map((f) =>
        new TraceObject([["file", f.path], ["events", filterEvents(f.events, options).map(eventObject)]])
      ))
    }
    return files.map((f) => `==> ${f.path} <==\n${renderShow(f.events, options)}`).join("\n\n")
  }
  const summaries = summarize(files.flatMap((f) => filterEvents(f.events, options)))
  const runs = files.map((f) => runsOf(f.events)).reduce(
    (a, b) => ({ runs: a.runs + b.runs, failed: a.failed + b.failed }),
    { runs: 0, failed: 0 }
  )
  const total = emptySummary("")
  for (const s of summaries) {
    total.chat += s.chat
    total.execute_tool += s.execute_tool
    total.compact += s.compact
    total.duration_ms = saturateI64(total.duration_ms + s.duration_ms)
    total.input_tokens = saturateU64(total.input_tokens + s.input_tokens)
    total.output_tokens = saturateU64(total.output_tokens + s.output_tokens)
  }
  if (options.json) {
    const { label: _label, ...counts } = Object.fromEntries(summaryObject(total).entries)
    return prettyJson(
      new TraceObject([
        ["files", TraceNumber.int(BigInt(files.length))],
        ["runs", TraceNumber.int(BigInt(runs.runs))],
        ["failed_runs", TraceNumber.int(BigInt(runs.failed))],
        ["labels", summaries.map(summaryObject)],
        ["total", new TraceObject(Object.entries(counts))]
      ])
    )
  }
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`
  const failed = runs.failed > 0 ? ` (${runs.failed} failed)` : ""
  const head = `${plural(files.length, "file")}, ${plural(runs.runs, "run")}${failed}`
  return [...summaries.map(summaryLine), summaryLine({ ...total, label: head })].join("\n")
}
