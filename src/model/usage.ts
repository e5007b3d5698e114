// The `usage` object of a model answer (live, cached or recorded), read defensively: a token count is
// taken only when it is a non-negative integer (a safe one: above 2^53 sums stop being exact). Any
// other value — negative, fractional, a string, 1e308 — is treated as absent rather than summed into
// --show-usage, usage assertions, costs and traces; the answer itself stays usable, and each ignored
// value is named once at -v. A count that is absent counts 0 (the total: prompt + completion), and a
// usage with no count left is no usage at all.

export interface Usage {
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
}

export interface UsageReading {
  readonly usage: Usage | undefined
  /** Why values were ignored, e.g. `usage.prompt_tokens -3 is not a non-negative integer`. */
  readonly ignored: ReadonlyArray<string>
}

const FIELDS = ["prompt_tokens", "completion_tokens", "total_tokens"] as const

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/** A short rendering of a bad value (a server may send anything, of any length). */
const shown = (value: unknown): string => {
  const text = typeof value === "number" ? String(value) : JSON.stringify(value) ?? String(value)
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}

export const readUsage = (raw: unknown): UsageReading => {
  if (raw === undefined || raw === null) return { usage: undefined, ignored: [] }
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return { usage: undefined, ignored: [`usage ${shown(raw)} is not an object`] }
  }
  const counts: Partial<Record<(typeof FIELDS)[number], number>> = {}
  const ignored: Array<string> = []
  for (const field of FIELDS) {
    const value = (raw as Record<string, unknown>)[field]
    if (value === undefined || value === null) continue
    if (isCount(value)) counts[field] = value
    else ignored.push(`usage.${field} ${shown(value)} is not a non-negative integer`)
  }
  if (Object.keys(counts).length === 0) return { usage: undefined, ignored }
  const prompt = counts.prompt_tokens ?? 0
  const completion = counts.completion_tokens ?? 0
  return {
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: counts.total_tokens ?? prompt + completion
    },
    ignored
  }
}
