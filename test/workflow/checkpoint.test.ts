// The checkpoint file (src/workflow/checkpoint.ts): run ids, the format-2 reader, and which changes to
// a workflow a resume accepts.
import { describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { primaryError, renderChain } from "../../src/core/errors.ts"
import {
  type Checkpoint,
  checkResumable,
  generateRunId,
  parseCheckpoint,
  validRunId
} from "../../src/workflow/checkpoint.ts"

const checkpoint = (labels: ReadonlyArray<string>, completed: number): Checkpoint => ({
  format: 2,
  run_id: "r1",
  workflow_path: "wf.yml",
  initial_input: "hi",
  inputs: {},
  top_level_labels: labels,
  completed_index: completed,
  counter: completed,
  current_value: "hi",
  steps_outputs: {},
  status: "failed"
})

const failure = <A, E>(effect: Effect.Effect<A, E>): string => {
  const exit = Effect.runSyncExit(effect)
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  return renderChain(primaryError(exit.cause))
}

describe("run ids", () => {
  test("YYYYMMDD-HHMMSS-<9-digit nanoseconds>-<pid>-<counter>, in UTC, distinct within a process", () => {
    const now = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678))
    const id = generateRunId(now)
    expect(id).toMatch(new RegExp(`^20260102-030405-678\\d{6}-${process.pid}-\\d+$`))
    const ids = new Set(Array.from({ length: 1000 }, () => generateRunId(now)))
    expect(ids.size).toBe(1000)
    expect(validRunId(id)).toBe(true)
  })

  test("a run id that could leave .lait/runs is refused", () => {
    for (const bad of ["", "../x", "a/b", "a b", "x.json", ".."]) expect(validRunId(bad)).toBe(false)
  })
})

describe("reading a checkpoint", () => {
  test("format 2 round-trips; `inputs` defaults to {}", () => {
    const written = checkpoint(["a", "b"], 1)
    expect(Effect.runSync(parseCheckpoint(JSON.stringify(written, null, 2), "p.json"))).toEqual(written)
    const { inputs: _, ...withoutInputs } = written
    expect(Effect.runSync(parseCheckpoint(JSON.stringify(withoutInputs), "p.json")).inputs).toEqual({})
  })

  test("format 1 (no `format`, text values) is refused before its fields are looked at", () => {
    expect(failure(parseCheckpoint(JSON.stringify({ run_id: "x", current_input: "hi" }), "old.json"))).toBe(
      "checkpoint file 'old.json' was written by an older version of lait and cannot be resumed; start a fresh run"
    )
  })

  test("a broken file says what is wrong with it", () => {
    expect(failure(parseCheckpoint("{", "p.json"))).toStartWith("failed to parse checkpoint file 'p.json': ")
    const { status: _, ...noStatus } = checkpoint(["a"], 0)
    expect(failure(parseCheckpoint(JSON.stringify(noStatus), "p.json"))).toBe(
      "failed to parse checkpoint file 'p.json': missing field `status`"
    )
    expect(failure(parseCheckpoint(JSON.stringify({ ...checkpoint(["a"], 0), counter: -1 }), "p.json"))).toBe(
      "failed to parse checkpoint file 'p.json': `counter`: expected a non-negative integer"
    )
  })
})

describe("whether a changed workflow can be resumed", () => {
  const recorded = checkpoint(["a", "b", "c"], 2)

  test("unchanged: no warning", () => {
    expect(Effect.runSync(checkResumable(["a", "b", "c"], recorded))).toBeUndefined()
  })

  test("a change after the resume point is a warning", () => {
    expect(Effect.runSync(checkResumable(["a", "b", "d", "e"], recorded))).toBe(
      "the workflow's steps after step 2 differ from when run 'r1' was checkpointed; resuming anyway"
    )
  })

  test("a change at or before it is an error", () => {
    expect(failure(checkResumable(["a", "x", "c"], recorded))).toStartWith(
      "run 'r1' was checkpointed against a different sequence of top-level steps than the current workflow"
    )
  })

  test("fewer steps than were completed is an error", () => {
    expect(failure(checkResumable(["a"], recorded))).toStartWith(
      "run 'r1' was checkpointed after completing 2 of 3 top-level step(s), but the current workflow only has 1;"
    )
  })
})
