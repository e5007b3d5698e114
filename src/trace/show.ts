// `lait trace show` output (inventory §8.3): one line per event, per-label summaries, and their JSON
// forms. Each returns the complete stdout text without the final newline.
import { compactJson, prettyJson, TraceNumber, TraceObject, type TraceValue } from "./json.ts"
import { eventsAsPrettyJson, type FileEvent } from "./file.ts"
import { formatClock } from "./time.ts"

export interface ShowOptions {
  readonly json: boolean
  readonly operation?: string | undefined
  readonly label?: string | undefined
  readonly summary: boolean
}

export const NO_EVENTS = "(no events)"

/** Strings as they are (the seed's form), everything else as compact JSON. */
const displayValue = (value: TraceValue): string => (typeof value === "string" ? value : compactJson(value))

/** `[    42ms] chat         summarize — 14:03:11.204  (k=v k=v)` */
export const formatEventLine = (e: FileEvent): string => {
  const attributes = e.attributes.entries.map(([k, v]) => `${k}=${displayValue(v)}`).join(" ")
  return `[${e.duration_ms.toString().padStart(6)}ms] ${e.operation.padEnd(12)} ${e.label} \u2014 ${formatClock(e.start)}${
    attributes === "" ? "" : `  (${attributes})`
  }`
}

export interface LabelSummary {
  readonly label: string
  chat: bigint
  execute_tool: bigint
  compact: bigint
  duration_ms: bigint
  input_tokens: bigint
  output_tokens: bigint
}

const U64_MAX = 2n ** 64n - 1n
const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n
const saturateU64 = (n: bigint) => (n > U64_MAX ? U64_MAX : n)
const saturateI64 = (n: bigint) => (n > I64_MAX ? I64_MAX : n < I64_MIN ? I64_MIN : n)

/**
 * The spans this project records around calls (the run, its steps) are structure, not calls: counting
 * them would add a step's time on top of the chat inside it.
 */
const isStructure = (e: FileEvent) => e.span_id !== undefined && (e.operation === "invoke_workflow" || e.operation === "step")

/** Totals per label in first-appearance order; token sums read the gen_ai.usage attributes (u64 only). */
export const summarize = (events: ReadonlyArray<FileEvent>): ReadonlyArray<LabelSummary> => {
  const byLabel = new Map<string, LabelSummary>()
  for (const e of events) {
    if (isStructure(e)) continue
    let s = byLabel.get(e.label)
    if (s === undefined) {
      s = { label: e.label, chat: 0n, execute_tool: 0n, compact: 0n, duration_ms: 0n, input_tokens: 0n, output_tokens: 0n }
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
    s.input_tokens = saturateU64(s.input_tokens + tokens("gen_ai.usage.input_tokens"))
    s.output_tokens = saturateU64(s.output_tokens + tokens("gen_ai.usage.output_tokens"))
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

/** The whole stdout of `lait trace show` for these options, without its final newline. */
export const renderShow = (events: ReadonlyArray<FileEvent>, options: ShowOptions): string => {
  const kept = filterEvents(events, options)
  if (options.summary) {
    const summaries = summarize(kept)
    if (options.json) return prettyJson(summaries.map(summaryObject))
    return summaries.length === 0 ? NO_EVENTS : summaries.map(summaryLine).join("\n")
  }
  if (options.json) return eventsAsPrettyJson(kept)
  return kept.length === 0 ? NO_EVENTS : kept.map(formatEventLine).join("\n")
}
