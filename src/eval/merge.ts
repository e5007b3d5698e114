// `lait eval merge a.json b.json …`: the JSON reports of several `lait eval --format json` runs — the
// shards of one suite (--shard K/N), from one machine or many — read back into one eval outcome, so that
// every statistic and every format comes out as from a single run. A case keeps its number from the
// eval file; the same case in two reports, or reports run with different --repeat, cannot be one run
// and are refused. What a JSON report does not keep (token usage, cost) is not in the merge.
import { ValidationError } from "../core/errors.ts"
import type { CaseOutcome, EvalOutcome, RunOutcome } from "./runner.ts"

const NO_USAGE = { prompt: 0, completion: 0, total: 0, requests: 0, costUsd: undefined }

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0

interface ReadReport {
  readonly cases: ReadonlyArray<CaseOutcome & { readonly k: number }>
  readonly partial: boolean
}

/** One report's text: the JSON array of `--format json`, or the object it becomes with --baseline. */
export const parseJsonReport = (text: string, path: string): ReadReport | ValidationError => {
  const invalid = (detail: string) =>
    new ValidationError({
      message: `invalid eval report '${path}'`,
      cause: new ValidationError({ message: detail })
    })
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    return invalid(`not JSON (expected the output of 'lait eval --format json'): ${e instanceof Error ? e.message : e}`)
  }
  const list = Array.isArray(raw)
    ? raw
    : typeof raw === "object" && raw !== null && Array.isArray((raw as { cases?: unknown }).cases)
    ? (raw as { cases: Array<unknown> }).cases
    : undefined
  if (list === undefined) return invalid("expected the output of 'lait eval --format json'")
  const cases: Array<CaseOutcome & { readonly k: number }> = []
  let partial = false
  for (const [i, item] of list.entries()) {
    const c = item as Record<string, unknown>
    const where = `case entry ${i + 1}`
    if (typeof c !== "object" || c === null || !isCount(c["case"]) || typeof c["input"] !== "string") {
      return invalid(`${where}: expected 'case' and 'input'`)
    }
    if (!isCount(c["k"]) || !isCount(c["not_started"]) || !Array.isArray(c["runs"])) {
      return invalid(`${where}: expected 'k', 'not_started' and 'runs'`)
    }
    const runs: Array<RunOutcome> = []
    for (const [r, run] of (c["runs"] as Array<Record<string, unknown>>).entries()) {
      const failures = run?.["failures"]
      if (
        typeof run !== "object" || run === null || typeof run["passed"] !== "boolean" || !Array.isArray(failures) ||
        !failures.every((f) => typeof f === "string") || run["passed"] !== (failures.length === 0)
      ) {
        return invalid(`${where}, run ${r + 1}: expected 'passed' and the 'failures' that go with it`)
      }
      const duration = run["duration_ms"]
      runs.push({
        failures: failures as Array<string>,
        usage: NO_USAGE,
        usageEntries: [],
        durationMs: typeof duration === "number" ? duration : 0,
        ...(run["error"] === true ? { error: true } : {})
      })
    }
    if (c["partial"] === true) partial = true
    cases.push({
      index: c["case"],
      ...(typeof c["name"] === "string" ? { name: c["name"] } : {}),
      input: c["input"],
      runs,
      notStarted: c["not_started"],
      k: c["k"]
    })
  }
  return { cases, partial }
}

export interface MergeInput {
  readonly path: string
  readonly report: ReadReport
}

export interface Merged {
  readonly outcome: EvalOutcome
  /** Case numbers below the highest one that no report holds (a shard left out?). */
  readonly gaps: ReadonlyArray<number>
}

export const mergeReports = (inputs: ReadonlyArray<MergeInput>): Merged | ValidationError => {
  const byNumber = new Map<number, { readonly path: string; readonly outcome: CaseOutcome }>()
  let repeat: { readonly k: number; readonly path: string } | undefined
  for (const { path, report } of inputs) {
    for (const c of report.cases) {
      if (repeat !== undefined && c.k !== repeat.k) {
        return new ValidationError({
          message:
            `cannot merge '${path}' with '${repeat.path}': they ran each case ${c.k} and ${repeat.k} time(s) (--repeat)`
        })
      }
      repeat ??= { k: c.k, path }
      const other = byNumber.get(c.index)
      if (other !== undefined) {
        return new ValidationError({
          message: `cannot merge: case ${c.index} is in both '${other.path}' and '${path}' (overlapping shards?)`
        })
      }
      const { k: _k, ...outcome } = c
      byNumber.set(c.index, { path, outcome })
    }
  }
  const numbers = [...byNumber.keys()].sort((a, b) => a - b)
  const gaps: Array<number> = []
  for (let n = 1; n < (numbers.at(-1) ?? 0); n++) if (!byNumber.has(n)) gaps.push(n)
  return {
    outcome: {
      cases: numbers.map((n) => byNumber.get(n)!.outcome),
      repeat: repeat?.k ?? 1,
      budgetStop: undefined,
      costUsd: undefined,
      ...(inputs.some((i) => i.report.partial) ? { partial: true } : {})
    },
    gaps
  }
}
