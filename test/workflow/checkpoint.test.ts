// The checkpoint file (src/workflow/checkpoint.ts): run ids, the format-2 reader, and which changes to
// a workflow a resume accepts.
import { describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { primaryError, renderChain } from "../../src/core/errors.ts"
import {
  type Checkpoint,
  checkpointText,
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

describe("writing a checkpoint", () => {
  const nested = (levels: number): unknown => {
    let value: unknown = []
    for (let i = 1; i < levels; i++) value = [value]
    return value
  }

  test("shallow values are pretty-printed as JSON.stringify does", () => {
    const c = { ...checkpoint(["a", "b"], 1), steps_outputs: { a: { x: [1, { y: "z\n" }] } } }
    expect(checkpointText(c)).toEqual({ text: JSON.stringify(c, null, 2) })
  })

  test("a field nested deeper than 128 levels is compact, and the file reads back the same", () => {
    const deep = nested(900) as Checkpoint["current_value"]
    const c = { ...checkpoint(["a"], 1), current_value: deep, steps_outputs: { a: deep } }
    const written = checkpointText(c)
    if (!("text" in written)) throw new Error(written.problem)
    // Indented, 900 levels would take about 1.6 MB each; compact, 1,800 brackets.
    expect(written.text.length).toBeLessThan(5_000)
    expect(JSON.stringify(c, null, 2).length).toBeGreaterThan(1_000_000)
    expect(written.text).toStartWith('{\n  "format": 2,\n  "run_id": "r1",\n')
    expect(JSON.parse(written.text)).toEqual(JSON.parse(JSON.stringify(c)))
  })

  test("values lait could not read back are refused: deeper than 1000 levels, or over 16 MiB", () => {
    const tooDeep = { ...checkpoint(["a"], 1), current_value: nested(1001) as Checkpoint["current_value"] }
    expect(checkpointText(tooDeep)).toEqual({
      problem: "a value is nested deeper than 1000 levels (lait's limit for JSON it reads), so it could never be read back"
    })
    const atLimit = { ...checkpoint(["a"], 1), steps_outputs: { a: nested(1000) as Checkpoint["current_value"] } }
    expect("text" in checkpointText(atLimit)).toBe(true)
    const big = "a".repeat(9 * 1024 * 1024)
    const tooLarge = { ...checkpoint(["a"], 1), current_value: big, steps_outputs: { a: big } }
    expect(checkpointText(tooLarge)).toMatchObject({ problem: expect.stringContaining("over the 16 MiB read limit") })
  })
})

describe("reading back what lait would not write", () => {
  test("another run's id, a place past the last step, a value too deep", () => {
    const text = (fields: object) => JSON.stringify({ ...checkpoint(["a", "b"], 1), ...fields })
    expect(failure(parseCheckpoint(text({ run_id: "../x" }), ".lait/runs/r1.json", "r1"))).toBe(
      "checkpoint file '.lait/runs/r1.json' holds run \"../x\", not 'r1'; it cannot be resumed"
    )
    expect(failure(parseCheckpoint(text({ completed_index: 3 }), "p.json"))).toBe(
      "failed to parse checkpoint file 'p.json': `completed_index` 3 is past the 2 top-level step(s) recorded"
    )
    expect(Effect.runSync(parseCheckpoint(text({ completed_index: 2 }), "p.json")).completed_index).toBe(2)
    const deep = "[".repeat(1001) + "]".repeat(1001)
    expect(failure(parseCheckpoint(text({}).replace('"steps_outputs":{}', `"steps_outputs":{"a":${deep}}`), "p.json")))
      .toBe("failed to parse checkpoint file 'p.json': a value is nested deeper than 1000 levels (lait's limit for JSON it reads)")
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
