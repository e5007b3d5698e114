// One line of the history file and everything `lait history` does with the lines: parse them (a line
// that is not an entry is skipped, not fatal), number them (1 = the newest), filter, search and print.
// The line format is the original lait's (`timestamp`, `kind`, `model`, `prompt`, `response`, `usage`),
// so one history file serves both; `workflow` is ours, and the original ignores it.
// Pure: the file itself is src/history/store.ts.

export type HistoryKind = "chat" | "agent" | "workflow" | "prompt"

export interface HistoryUsage {
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
}

export interface HistoryEntry {
  /** RFC 3339, UTC, when the run finished. */
  readonly timestamp: string
  readonly kind: string
  /** The one model of a chat, agent or prompt run; null for a workflow, whose steps may use several. */
  readonly model: string | null
  readonly prompt: string
  readonly response: string
  /** Token counts the server reported over the whole run; null when it reported none. */
  readonly usage: HistoryUsage | null
  /** The workflow file a `lait run` ran. */
  readonly workflow?: string
}

export interface Numbered {
  /** 1 is the newest entry; numbers count every entry, so a filtered list's numbers still work for `show`. */
  readonly number: number
  readonly entry: HistoryEntry
}

export interface CorruptLine {
  /** 1-based line number in the file. */
  readonly line: number
  readonly problem: string
}

/** The entry as one JSONL line (with its newline): what an append writes in a single write. */
export const entryLine = (entry: HistoryEntry): string => {
  const { workflow, ...rest } = entry
  return `${JSON.stringify(workflow === undefined ? rest : { ...rest, workflow })}\n`
}

/** `new Date()` as the original writes it: `2026-09-04T10:20:30.123+00:00`. */
export const timestampOf = (date: Date): string => date.toISOString().replace(/Z$/, "+00:00")

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const tokenCount = (u: unknown): number | undefined =>
  u === undefined ? 0 : typeof u === "number" && Number.isSafeInteger(u) && u >= 0 ? u : undefined

const decodeUsage = (u: unknown): HistoryUsage | null | undefined => {
  if (u === undefined || u === null) return null
  if (!isObject(u)) return undefined
  const prompt_tokens = tokenCount(u["prompt_tokens"])
  const completion_tokens = tokenCount(u["completion_tokens"])
  const total_tokens = tokenCount(u["total_tokens"])
  if (prompt_tokens === undefined || completion_tokens === undefined || total_tokens === undefined) return undefined
  return { prompt_tokens, completion_tokens, total_tokens }
}

/** A parsed line as an entry, or what is wrong with it. */
export const decodeEntry = (value: unknown): HistoryEntry | string => {
  if (!isObject(value)) return "not a JSON object"
  for (const field of ["timestamp", "kind", "prompt", "response"] as const) {
    if (typeof value[field] !== "string") return `'${field}' is missing or not a string`
  }
  const model = value["model"]
  if (model !== undefined && model !== null && typeof model !== "string") return "'model' is not a string"
  const usage = decodeUsage(value["usage"])
  if (usage === undefined) return "'usage' is not token counts"
  const workflow = value["workflow"]
  return {
    timestamp: value["timestamp"] as string,
    kind: value["kind"] as string,
    model: typeof model === "string" ? model : null,
    prompt: value["prompt"] as string,
    response: value["response"] as string,
    usage,
    ...(typeof workflow === "string" ? { workflow } : {})
  }
}

/**
 * Every entry of the file's text, oldest first, and the lines that are not entries (a line cut short
 * by a full disk, a hand edit). Blank lines are neither.
 */
export const parseHistory = (
  text: string
): { readonly entries: ReadonlyArray<HistoryEntry>; readonly corrupt: ReadonlyArray<CorruptLine> } => {
  const entries: Array<HistoryEntry> = []
  const corrupt: Array<CorruptLine> = []
  const lines = text.split("\n")
  lines.forEach((raw, index) => {
    if (raw.trim() === "") return
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      corrupt.push({ line: index + 1, problem: "not valid JSON" })
      return
    }
    const decoded = decodeEntry(value)
    if (typeof decoded === "string") corrupt.push({ line: index + 1, problem: decoded })
    else entries.push(decoded)
  })
  return { entries, corrupt }
}

/** Newest first, numbered from 1. */
export const numberNewestFirst = (entries: ReadonlyArray<HistoryEntry>): ReadonlyArray<Numbered> =>
  entries.map((entry, i) => ({ number: entries.length - i, entry })).reverse()

// --- time --------------------------------------------------------------------------------------

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** Milliseconds since the epoch of a UTC calendar time, or undefined when a field is out of range. */
const utcMillis = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number | undefined => {
  const millis = Date.UTC(y, mo - 1, d, h, mi, s)
  const back = new Date(millis)
  // Date.UTC rolls Feb 30 over into March; a real date survives the round trip.
  const valid = back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d &&
    h < 24 && mi < 60 && s < 61
  return valid ? millis : undefined
}

/** An RFC 3339 date-time as milliseconds since the epoch, or undefined. */
export const parseRfc3339 = (text: string): number | undefined => {
  const m = RFC3339.exec(text)
  if (m === null) return undefined
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]))
  const base = utcMillis(y!, mo!, d!, h!, mi!, Math.min(s!, 59))
  if (base === undefined) return undefined
  const fraction = m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000
  const offsetHours = m[9] === undefined ? 0 : Number(m[10])
  const offsetMinutes = m[9] === undefined ? 0 : Number(m[11])
  if (offsetHours > 23 || offsetMinutes > 59) return undefined
  const offset = (m[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  return base + Math.floor(fraction) - offset
}

const UNIT_MILLIS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/**
 * `--since`: an RFC 3339 date-time, a date (`2026-09-01`, midnight UTC), or `<N>m|h|d|w` back from
 * `now`. Undefined when it is none of them.
 */
export const parseSince = (text: string, now: number): number | undefined => {
  const since = text.trim()
  const stamp = parseRfc3339(since)
  if (stamp !== undefined) return stamp
  const date = DATE.exec(since)
  if (date !== null) return utcMillis(Number(date[1]), Number(date[2]), Number(date[3]))
  const duration = /^(\d+)([a-z]*)$/.exec(since)
  const unit = duration === null ? undefined : UNIT_MILLIS[duration[2]!]
  if (duration === null || unit === undefined) return undefined
  const millis = Number(duration[1]) * unit
  return Number.isSafeInteger(millis) && now - millis >= -8.64e15 ? now - millis : undefined
}

// --- filters -------------------------------------------------------------------------------------

export interface HistoryFilter {
  /** Exactly this kind. */
  readonly kind?: string | undefined
  /** The model name contains this (an entry without a model never matches). */
  readonly model?: string | undefined
  /** Milliseconds since the epoch; an entry whose timestamp does not parse never matches. */
  readonly since?: number | undefined
}

export const matchesFilter = (entry: HistoryEntry, filter: HistoryFilter): boolean => {
  if (filter.kind !== undefined && entry.kind !== filter.kind) return false
  if (filter.model !== undefined && (entry.model === null || !entry.model.includes(filter.model))) return false
  if (filter.since !== undefined) {
    const at = parseRfc3339(entry.timestamp)
    return at !== undefined && at >= filter.since
  }
  return true
}

/** The `limit` newest entries that pass the filter. */
export const listEntries = (
  numbered: ReadonlyArray<Numbered>,
  filter: HistoryFilter,
  limit: number
): ReadonlyArray<Numbered> => numbered.filter((n) => matchesFilter(n.entry, filter)).slice(0, limit)

/** Every entry, newest first, that passes the filter and whose prompt or response holds `query`, ignoring case. */
export const searchEntries = (
  numbered: ReadonlyArray<Numbered>,
  query: string,
  filter: HistoryFilter
): ReadonlyArray<Numbered> => {
  const needle = query.toLowerCase()
  return numbered.filter((n) =>
    matchesFilter(n.entry, filter) &&
    (n.entry.prompt.toLowerCase().includes(needle) || n.entry.response.toLowerCase().includes(needle))
  )
}

// --- printing ------------------------------------------------------------------------------------

const SUMMARY_CHARS = 60

/** The prompt on one line, whitespace runs as one space, cut to 60 characters with `...`. */
export const summarize = (text: string): string => {
  const flat = text.split(/\s+/u).filter((w) => w !== "").join(" ")
  const chars = Array.from(flat)
  return chars.length <= SUMMARY_CHARS ? flat : `${chars.slice(0, SUMMARY_CHARS).join("")}...`
}

/** `N<TAB>timestamp<TAB>kind<TAB>model or -<TAB>prompt summary`. */
export const listLine = ({ number, entry }: Numbered): string =>
  [String(number), entry.timestamp, entry.kind, entry.model ?? "-", summarize(entry.prompt)].join("\t")

export const formatUsageLine = (usage: HistoryUsage): string =>
  `prompt=${usage.prompt_tokens} completion=${usage.completion_tokens} total=${usage.total_tokens}`

/** `lait history show N`: the header lines, then the whole prompt and response. */
export const showText = (entry: HistoryEntry): string =>
  [
    `timestamp: ${entry.timestamp}`,
    `kind: ${entry.kind}`,
    ...(entry.model === null ? [] : [`model: ${entry.model}`]),
    ...(entry.workflow === undefined ? [] : [`workflow: ${entry.workflow}`]),
    ...(entry.usage === null ? [] : [`usage: ${formatUsageLine(entry.usage)}`]),
    "",
    "prompt:",
    entry.prompt,
    "",
    "response:",
    entry.response
  ].join("\n")

/** The `--json` form of one entry: its number first, then the fields as stored. */
export const entryJson = ({ number, entry }: Numbered): Record<string, unknown> => ({ number, ...entry })
