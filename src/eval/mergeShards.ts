// Whether the reports given to `lait eval merge` are the whole eval (docs/evals.md#shards-and-merge).
// A report of `--shard K/N` records which shard of which eval it is (src/eval/shard.ts ShardRecord),
// so a merge goes on only when every shard 1..N of the same eval (by the hash of its files) is there
// exactly once: a lost shard never makes a green report of the cases that are left. Reports that
// record no shard are a whole run (one is merged as it always was) or shards written before shards
// were recorded: two of them are never a whole run (every run of an eval lists all its cases, so two
// would overlap), and are refused. `--allow-partial` merges a set with shards missing, or unrecorded,
// anyway: a `warning:`, and the report is marked partial in every format.
import { EvalError } from "./evalErrors.ts"
import { listed, type ReadReport } from "./merge.ts"

export interface ShardedInput {
  readonly path: string
  readonly report: ReadReport
}

export interface ShardCheck {
  /** What the merged report lacks (--allow-partial), undefined when it is the whole eval. */
  readonly incomplete: string | undefined
  readonly warning: string | undefined
}

const refuse = (detail: string) => new EvalError({ reason: { _tag: "MergeRefused", detail } })
const quoted = (inputs: ReadonlyArray<ShardedInput>) => inputs.map((i) => `'${i.path}'`).join(", ")
const WHOLE: ShardCheck = { incomplete: undefined, warning: undefined }

const recordedOf = (inputs: ReadonlyArray<ShardedInput>) =>
  inputs.flatMap(({ path, report: { shard } }) => (shard === undefined ? [] : [{ path, shard }]))

/** Reports that record shards of different evals, or of another split, are never one eval: refused first. */
export const checkSameEval = (inputs: ReadonlyArray<ShardedInput>): EvalError | undefined => {
  const recorded = recordedOf(inputs)
  const first = recorded[0]
  for (const { path, shard } of recorded) {
    if (shard.count !== first!.shard.count) {
      return refuse(
        `cannot merge '${path}' with '${first!.path}': one is shard ${shard.index}/${shard.count}, the other ` +
          `shard ${first!.shard.index}/${first!.shard.count} (--shard K/N with another N)`
      )
    }
    if (shard.sha256 !== first!.shard.sha256 || shard.cases !== first!.shard.cases) {
      return refuse(
        `cannot merge '${path}' with '${first!.path}': they ran different evals ('${shard.file}' sha256 ` +
          `${shard.sha256.slice(0, 12)}, '${first!.shard.file}' sha256 ${first!.shard.sha256.slice(0, 12)})`
      )
    }
  }
  return undefined
}

/**
 * After `checkSameEval` and the merge's own checks (a case in two reports is refused there, naming
 * it): every shard 1..N there exactly once, and every report a recorded shard; else refused, or with
 * --allow-partial what the report lacks and the warning that says so.
 */
export const checkComplete = (inputs: ReadonlyArray<ShardedInput>, allowPartial: boolean): ShardCheck | EvalError => {
  const unrecorded = inputs.filter((i) => i.report.shard === undefined)
  const recorded = recordedOf(inputs)
  const first = recorded[0]
  if (first === undefined && unrecorded.length <= 1) return WHOLE
  const problems: Array<string> = []
  if (first !== undefined) {
    const byIndex = new Map<number, string>()
    for (const { path, shard } of recorded) {
      const other = byIndex.get(shard.index)
      if (other !== undefined) {
        return refuse(`cannot merge: shard ${shard.index}/${shard.count} is in both '${other}' and '${path}'`)
      }
      byIndex.set(shard.index, path)
    }
    const { count, file, cases } = first.shard
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((k) => !byIndex.has(k))
    if (missing.length > 0) {
      const which = listed(missing.map((k) => `${k}/${count}`))
      problems.push(`shard ${which} of '${file}' ${missing.length === 1 ? "is" : "are"} missing`)
    } else if (unrecorded.length === 0) {
      const held = new Set(inputs.flatMap((i) => i.report.cells.map((c) => c.index))).size
      if (held !== cases) return refuse(`cannot merge: the shards of '${file}' hold ${held} of its ${cases} case(s)`)
    }
  }
  if (unrecorded.length > 0) {
    problems.push(
      `${quoted(unrecorded)} ${unrecorded.length === 1 ? "records" : "record"} no shard ` +
        "(written without --shard, or by an older lait)"
    )
  }
  if (problems.length === 0) return WHOLE
  const what = problems.join("; ")
  if (!allowPartial) {
    return refuse(
      `cannot merge: ${what}; pass the report of every shard (re-run old shards with this lait), or --allow-partial`
    )
  }
  return {
    incomplete: `merged with --allow-partial: ${what}`,
    warning: `warning: ${what}; merging anyway (--allow-partial): the report may lack cases and is marked partial`
  }
}
