// `lait eval merge a.json b.json …`: the JSON reports of several `lait eval --format json` runs — the
// shards of one suite (--shard K/N), from one machine or many — read back into one eval outcome, so that
// every statistic and every format comes out as from a single run. Each run keeps what the JSON holds:
// its output, assertions, duration, tokens, requests and cost. A case keeps its number from the eval
// file; with `targets:` each (case, target) cell is one entry of the matrix. The same cell in two
// reports, reports run with different --repeat, or of different targets cannot be one run and are
// refused. Token usage by label (--show-usage) is not in a JSON report, so not in the merge.
import { readJsonText } from "../core/jsonDepth.ts"
import type { Json } from "../core/json.ts"
import type { UsageTotals } from "../model/RunUsage.ts"
import { EvalError } from "./evalErrors.ts"
import type { AssertionResult, CaseOutcome, EvalOutcome, RunOutcome } from "./runner.ts"
import { caseInputText } from "./schema.ts"
import { MAX_SHARDS, type ShardRecord } from "./shard.ts"

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const countOr0 = (v: unknown) => (isCount(v) ? v : 0)

type Cell = CaseOutcome & { readonly k: number }

export interface ReadReport {
  readonly cells: ReadonlyArray<Cell>
  /** The compared targets' names, in order; undefined for a single target. */
  readonly targets: ReadonlyArray<string> | undefined
  readonly partial: boolean
  /** Which shard of which eval the report is (`--shard K/N`); undefined for a whole run or an old report. */
  readonly shard: ShardRecord | undefined
}

/**
 * No eval holds more cases than this (a cases file is read up to 16 MiB): a report that numbers a case
 * beyond it was not written by lait, and the merge's work stays bounded by the cases present.
 */
export const MAX_CASE_NUMBER = 10_000_000

const LISTED = 20

/** `a, b, c` up to 20 items, then `and N more`: a warning about a hostile report stays one short line. */
export const listed = (items: ReadonlyArray<string>): string =>
  items.length <= LISTED
    ? items.join(", ")
    : `${items.slice(0, LISTED).join(", ")} and ${items.length - LISTED} more`

const readShard = (v: unknown): ShardRecord | undefined => {
  if (!isObject(v)) return undefined
  const { index, count, file, sha256, cases } = v
  if (!isCount(index) || !isCount(count) || index < 1 || index > count || count > MAX_SHARDS) return undefined
  if (isCount(cases) && cases > MAX_CASE_NUMBER) return undefined
  if (typeof file !== "string" || typeof sha256 !== "string" || !/^[0-9a-f]{64}$/.test(sha256)) return undefined
  return isCount(cases) ? { index, count, file, sha256, cases } : undefined
}

const readAssertion = (a: unknown): AssertionResult | undefined => {
  if (!isObject(a) || !isCount(a["assertion"]) || typeof a["type"] !== "string" || typeof a["passed"] !== "boolean") {
    return undefined
  }
  return {
    position: a["assertion"],
    type: a["type"],
    passed: a["passed"],
    ...(typeof a["message"] === "string" ? { message: a["message"] } : {}),
    ...(typeof a["score"] === "number" ? { score: a["score"] } : {}),
    ...(typeof a["reasoning"] === "string" ? { reasoning: a["reasoning"] } : {}),
    ...(typeof a["skipped"] === "string" ? { skipped: a["skipped"] } : {})
  }
}

/** One run of the JSON report; a string says what is wrong with it. */
const readRun = (run: unknown): RunOutcome | string => {
  const failures = isObject(run) ? run["failures"] : undefined
  if (
    !isObject(run) || typeof run["passed"] !== "boolean" || !Array.isArray(failures) ||
    !failures.every((f) => typeof f === "string") || run["passed"] !== (failures.length === 0)
  ) {
    return "expected 'passed' and the 'failures' that go with it"
  }
  const rawAssertions = run["assertions"]
  const assertions = Array.isArray(rawAssertions) ? rawAssertions.map(readAssertion) : undefined
  if (assertions?.some((a) => a === undefined)) return "expected assertions of {assertion, type, passed}"
  const tokens = isObject(run["tokens"]) ? run["tokens"] : {}
  const cost = run["cost_usd"]
  const usage: UsageTotals = {
    prompt: countOr0(tokens["prompt"]),
    completion: countOr0(tokens["completion"]),
    total: countOr0(tokens["total"]),
    requests: countOr0(run["requests"]),
    costUsd: typeof cost === "number" ? cost : undefined
  }
  const output = run["output"]
  const duration = run["duration_ms"]
  return {
    failures: failures as Array<string>,
    // A run that failed before its assertions has none; the report writes that as [] with a null output.
    ...(typeof output === "string" ? { output, assertions: assertions as Array<AssertionResult> } : {}),
    usage,
    usageEntries: [],
    durationMs: typeof duration === "number" ? duration : 0,
    ...(run["error"] === true ? { error: true } : {})
  }
}

/** One case's (or cell's) results; `head` holds its number, name and input. */
const readResult = (
  c: Record<string, unknown>,
  head: { readonly index: number; readonly name: string | undefined; readonly input: unknown },
  target: string | undefined
): Cell | string => {
  if (!isCount(c["k"]) || !isCount(c["not_started"]) || !Array.isArray(c["runs"])) {
    return "expected 'k', 'not_started' and 'runs'"
  }
  // The repeat count is the runs that ran and those that did not start: never more than the report holds.
  if (c["k"] !== c["runs"].length + c["not_started"]) {
    return `'k' (${c["k"]}) is not the ${c["runs"].length} run(s) plus 'not_started' (${c["not_started"]})`
  }
  const runs: Array<RunOutcome> = []
  for (const [r, raw] of c["runs"].entries()) {
    const run = readRun(raw)
    if (typeof run === "string") return `run ${r + 1}: ${run}`
    runs.push(run)
  }
  const { index, name, input } = head
  return {
    index,
    input: typeof input === "string" ? input : caseInputText({ input: input as Json }),
    ...(typeof input === "string" ? {} : { inputValue: input as Json }),
    name: name ?? `case ${index}`,
    // The report writes `case <n>` for an unnamed case: any other name was given.
    named: name !== undefined && name !== `case ${index}`,
    ...(target === undefined ? {} : { target }),
    runs,
    notStarted: c["not_started"],
    k: c["k"]
  }
}

/** One report's text: the JSON of `--format json` (an array, or the object of targets or --baseline). */
export const parseJsonReport = (text: string, path: string): ReadReport | EvalError => {
  const invalid = (detail: string) => new EvalError({ reason: { _tag: "ReportInvalid", path, detail } })
  const read = readJsonText(text, "not JSON (expected the output of 'lait eval --format json')")
  if (!read.ok) return invalid(read.problem)
  const raw = read.value
  const list = Array.isArray(raw) ? raw : isObject(raw) && Array.isArray(raw["cases"]) ? raw["cases"] : undefined
  if (list === undefined) return invalid("expected the output of 'lait eval --format json'")
  const rawTargets = isObject(raw) ? raw["targets"] : undefined
  let targets: Array<string> | undefined
  if (rawTargets !== undefined) {
    if (!Array.isArray(rawTargets) || !rawTargets.every((t) => isObject(t) && typeof t["name"] === "string")) {
      return invalid("expected 'targets' as a list of {name, ...}")
    }
    targets = rawTargets.map((t) => (t as { name: string }).name)
  }
  const rawShard = isObject(raw) ? raw["shard"] : undefined
  const shard = readShard(rawShard)
  if (rawShard !== undefined && shard === undefined) {
    return invalid(
      `expected 'shard' as {index, count, file, sha256, cases} with 1 <= index <= count <= ${MAX_SHARDS} ` +
        `and cases <= ${MAX_CASE_NUMBER}`
    )
  }
  const cells: Array<Cell> = []
  let partial = false
  for (const [i, item] of list.entries()) {
    const where = `case entry ${i + 1}`
    if (!isObject(item) || !isCount(item["case"]) || !("input" in item)) {
      return invalid(`${where}: expected 'case' and 'input'`)
    }
    const limit = shard?.cases ?? MAX_CASE_NUMBER
    if (item["case"] < 1 || item["case"] > limit) {
      return invalid(`${where}: case number ${item["case"]} is not between 1 and ${limit}${
        shard === undefined ? " (the most an eval holds)" : " (the eval's case count)"
      }`)
    }
    const head = {
      index: item["case"],
      name: typeof item["name"] === "string" ? item["name"] : undefined,
      input: item["input"]
    }
    const results = targets === undefined ? [item] : item["results"]
    if (!Array.isArray(results)) return invalid(`${where}: expected 'results'`)
    for (const result of results) {
      const target = targets === undefined ? undefined : isObject(result) ? result["target"] : undefined
      if (!isObject(result) || (targets !== undefined && (typeof target !== "string" || !targets.includes(target)))) {
        return invalid(`${where}: expected results of the report's targets`)
      }
      const cell = readResult(result, head, target as string | undefined)
      if (typeof cell === "string") return invalid(`${where}: ${cell}`)
      if (result["partial"] === true) partial = true
      cells.push(cell)
    }
  }
  return { cells, targets, partial, shard }
}

export interface MergeInput {
  readonly path: string
  readonly report: ReadReport
}

export interface Merged {
  readonly outcome: EvalOutcome
  /** Runs of case numbers below the highest one that no report holds (a shard left out?), `3` or `5-9`. */
  readonly gaps: ReadonlyArray<string>
}

const refuse = (detail: string) => new EvalError({ reason: { _tag: "MergeRefused", detail } })
const targetList = (targets: ReadonlyArray<string> | undefined) =>
  targets === undefined ? "one target" : `targets ${targets.map((t) => `'${t}'`).join(", ")}`

export const mergeReports = (inputs: ReadonlyArray<MergeInput>): Merged | EvalError => {
  const first = inputs[0]
  const targets = first?.report.targets
  const byCell = new Map<string, { readonly path: string; readonly outcome: CaseOutcome }>()
  const numbers = new Set<number>()
  let repeat: { readonly k: number; readonly path: string } | undefined
  for (const { path, report } of inputs) {
    if (targetList(report.targets) !== targetList(targets)) {
      return refuse(
        `cannot merge '${path}' with '${first!.path}': they ran ${targetList(report.targets)} and ${
          targetList(targets)
        }`
      )
    }
    for (const c of report.cells) {
      if (repeat !== undefined && c.k !== repeat.k) {
        return refuse(
          `cannot merge '${path}' with '${repeat.path}': they ran each case ${c.k} and ${repeat.k} time(s) (--repeat)`
        )
      }
      repeat ??= { k: c.k, path }
      const key = `${c.target ?? ""}\u0000${c.index}`
      const other = byCell.get(key)
      if (other !== undefined) {
        const cell = c.target === undefined ? `case ${c.index}` : `case ${c.index} [${c.target}]`
        return refuse(`cannot merge: ${cell} is in both '${other.path}' and '${path}' (overlapping shards?)`)
      }
      const { k: _k, ...outcome } = c
      byCell.set(key, { path, outcome })
      numbers.add(c.index)
    }
  }
  const sorted = [...numbers].sort((a, b) => a - b)
  // Between neighbours, never number by number: the work is that of the cases present.
  const gaps: Array<string> = []
  sorted.forEach((n, i) => {
    const from = (sorted[i - 1] ?? 0) + 1
    if (from < n) gaps.push(from === n - 1 ? `${from}` : `${from}-${n - 1}`)
  })
  // A single run lists each case's targets side by side, in the targets' order.
  const cases = sorted.flatMap((n) =>
    (targets ?? [undefined]).flatMap((t) => {
      const cell = byCell.get(`${t ?? ""}\u0000${n}`)
      return cell === undefined ? [] : [cell.outcome]
    })
  )
  const costs = cases.flatMap((c) => c.runs.flatMap((r) => (r.usage.costUsd === undefined ? [] : [r.usage.costUsd])))
  return {
    outcome: {
      cases,
      ...(targets === undefined ? {} : { targets }),
      repeat: repeat?.k ?? 1,
      budgetStop: undefined,
      costUsd: costs.length === 0 ? undefined : costs.reduce((a, b) => a + b, 0),
      ...(inputs.some((i) => i.report.partial) ? { partial: true } : {})
    },
    gaps
  }
}
