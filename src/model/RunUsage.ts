// Token usage of one run context (a `lait run`, one `lait test` file, one eval case × repeat),
// grouped by label in first-recorded order, with cost when the answering model has `pricing:`.
// Requests answered from the response cache cost nothing and are not part of the totals, but they
// are counted, so a run that never reached a server does not look like one whose server kept quiet.
import { Context, Effect, Layer } from "effect"

export interface Pricing {
  readonly input_per_1m: number
  readonly output_per_1m: number
}

export interface UsageTotals {
  readonly prompt: number
  readonly completion: number
  readonly total: number
  readonly requests: number
  /** undefined when no request under this label had pricing. */
  readonly costUsd: number | undefined
  /** Requests answered from the response cache (not in the counts above); absent means none. */
  readonly cached?: number
}

export interface UsageEntry extends UsageTotals {
  readonly label: string
}

export interface UsageRecord {
  readonly label: string
  readonly prompt: number
  readonly completion: number
  readonly total: number
  readonly pricing?: Pricing | undefined
}

export const costOf = (prompt: number, completion: number, pricing: Pricing): number =>
  (prompt / 1e6) * pricing.input_per_1m + (completion / 1e6) * pricing.output_per_1m

export interface RunUsageService {
  readonly record: (r: UsageRecord) => Effect.Effect<void>
  /** A request the response cache answered. */
  readonly recordCacheHit: Effect.Effect<void>
  readonly entries: Effect.Effect<ReadonlyArray<UsageEntry>>
  readonly total: Effect.Effect<UsageTotals>
  /** An answer's `finish_reason`. */
  readonly recordFinish: (reason: string) => Effect.Effect<void>
  /**
   * `length` when any answer of the run was cut off at the token limit, else the last answer's
   * finish reason; null when no answer gave one (what `--json` reports as `finish_reason`).
   */
  readonly finishReason: Effect.Effect<string | null>
}

const addCost = (a: number | undefined, b: number | undefined) =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0)

/** Two usages added up (the cost stays undefined when neither had pricing); `cached` is not carried. */
export const addUsage = (a: UsageTotals, b: UsageTotals): UsageTotals => ({
  prompt: a.prompt + b.prompt,
  completion: a.completion + b.completion,
  total: a.total + b.total,
  requests: a.requests + b.requests,
  costUsd: addCost(a.costUsd, b.costUsd)
})

/** The usages added up; all zero for none. */
export const sumUsage = (all: ReadonlyArray<UsageTotals>): UsageTotals =>
  all.reduce(addUsage, { prompt: 0, completion: 0, total: 0, requests: 0, costUsd: undefined })

export const makeRunUsage = (): RunUsageService => {
  const byLabel = new Map<string, UsageEntry>()
  let cached = 0
  let finish: string | null = null
  const entries = Effect.sync(() => [...byLabel.values()])
  return {
    recordFinish: (reason) =>
      Effect.sync(() => {
        if (finish !== "length") finish = reason
      }),
    finishReason: Effect.sync(() => finish),
    record: (r) =>
      Effect.sync(() => {
        const prev = byLabel.get(r.label)
        const cost = r.pricing === undefined ? undefined : costOf(r.prompt, r.completion, r.pricing)
        byLabel.set(r.label, {
          label: r.label,
          prompt: (prev?.prompt ?? 0) + r.prompt,
          completion: (prev?.completion ?? 0) + r.completion,
          total: (prev?.total ?? 0) + r.total,
          requests: (prev?.requests ?? 0) + 1,
          costUsd: addCost(prev?.costUsd, cost)
        })
      }),
    recordCacheHit: Effect.sync(() => {
      cached++
    }),
    entries,
    total: Effect.map(entries, (all) => ({
      ...sumUsage(all),
      ...(cached > 0 ? { cached } : {})
    }))
  }
}

export class RunUsage extends Context.Service<RunUsage, RunUsageService>()("lait/model/RunUsage") {
  /** A fresh meter: provide it once per run context (use Layer.fresh when nesting). */
  static readonly layer = Layer.sync(RunUsage, makeRunUsage)
}

const line = (t: UsageTotals) =>
  `prompt=${t.prompt} completion=${t.completion} total=${t.total}` +
  (t.requests > 1 ? ` (${t.requests} requests)` : "") +
  (t.costUsd !== undefined ? ` ($${t.costUsd.toFixed(4)})` : "")

const requests = (n: number) => `${n} request${n === 1 ? "" : "s"}`

/**
 * The `--show-usage` text (docs/cli.md#show-usage), without a trailing newline; `total.cached` adds how many
 * requests the cache answered.
 */
export const formatUsage = (entries: ReadonlyArray<UsageEntry>, total: UsageTotals): string => {
  const cached = total.cached ?? 0
  const fromCache = `${requests(cached)} answered from the cache`
  if (entries.length === 0) {
    return cached === 0 ? "usage: (the server reported no usage)" : `usage: 0 tokens (${fromCache})`
  }
  const also = cached === 0 ? "" : `; ${fromCache}`
  if (entries.length === 1) return `usage: ${line(entries[0]!)}${also}`
  return ["usage:", ...entries.map((e) => `  ${e.label}: ${line(e)}`), `  total: ${line(total)}${also}`].join("\n")
}
