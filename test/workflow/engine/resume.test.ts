// The engine's checkpoint seam (`lait run --checkpoint/--resume`): the hook sees every top-level step
// that ends, with the state after it, and a run resumed from such a state skips the steps already done
// while templates, jq, `$steps` and the progress counter carry on as in an uninterrupted run.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import { Effect } from "effect"
import type { RunState } from "../../../src/workflow/engine/types.ts"
import { LaitError } from "../../../src/core/errors.ts"
import { errorOf, makeDir, runYaml, valueOf } from "./harness.ts"

const dir = makeDir("engine-resume")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const wf = `steps:
  - id: a
    jq: '. + " a"'
  - group:
      - id: inner
        jq: '. + " g"'
  - id: c
    run: [sh, -c, 'printf "%s c(%s)" "$(cat)" "{{ steps.a }}"']
  - jq: '{value: ., inner: $steps.inner}'
`

describe("top-level checkpoints", () => {
  test("the hook gets each completed top-level step (nested ones only inside their step) with its state", async () => {
    const seen: Array<[number, RunState]> = []
    const ran = await runYaml(dir, wf, "x", {
      options: { afterTopLevelStep: (n, state) => Effect.sync(() => void seen.push([n, state])) }
    })
    expect(valueOf(ran)).toEqual({ value: "x a g c(x a)", inner: "x a g" })
    expect(seen.map(([n, s]) => [n, s.counter, s.value])).toEqual([
      [1, 1, "x a"],
      [2, 3, "x a g"],
      [3, 4, "x a g c(x a)"],
      [4, 5, { value: "x a g c(x a)", inner: "x a g" }]
    ])
    expect(seen[2]![1].steps).toEqual({ a: "x a", inner: "x a g", c: "x a g c(x a)" })
  })

  test("a resumed run skips the steps done and sees their recorded values; the counter continues", async () => {
    const full = await runYaml(dir, wf, "x")
    const resumed = await runYaml(dir, wf, "x", {
      options: {
        resume: { completed: 2, state: { value: "x a g", counter: 3, steps: { a: "x a", inner: "x a g" } } }
      }
    })
    expect(valueOf(resumed)).toEqual(valueOf(full))
    expect(resumed.lines).toEqual(["[4] c", "[5] step-4 (jq)"])
  })

  test("a hook that fails fails the run, and no later step runs", async () => {
    const seen: Array<number> = []
    const ran = await runYaml(dir, wf, "x", {
      options: {
        afterTopLevelStep: (n) =>
          n === 2 ? Effect.fail(new LaitError({ message: "disk full" })) : Effect.sync(() => void seen.push(n))
      }
    })
    expect(errorOf(ran)).toBe("disk full")
    expect(seen).toEqual([1])
    expect(ran.lines).toEqual(["[1] a", "[2] step-2 (group)", "[3] inner"])
  })

  test("a `stop` ends the run after its step is reported", async () => {
    const seen: Array<number> = []
    const ran = await runYaml(dir, "steps:\n  - id: a\n    jq: '1'\n  - stop: true\n  - jq: '2'\n", null, {
      options: { afterTopLevelStep: (n) => Effect.sync(() => void seen.push(n)) }
    })
    expect(valueOf(ran)).toBe(1)
    expect(seen).toEqual([1, 2])
  })
})
