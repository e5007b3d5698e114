import { expect, test } from "bun:test"
import { Effect } from "effect"
import { makeEvalProgress } from "../../src/eval/progress.ts"

const drive = (isTTY: boolean) => {
  const out: Array<string> = []
  const progress = makeEvalProgress({ isTTY, write: (t) => void out.push(t) })
  Effect.runSync(
    Effect.gen(function*() {
      yield* progress.start(2, 2, 8)
      yield* progress.update({ runsDone: 1, runsTotal: 4, runsFailed: 0 })
      yield* progress.update({ runsDone: 2, runsTotal: 4, runsFailed: 1, caseDone: { index: 2, passed: 1, total: 2 } })
      yield* progress.update({ runsDone: 3, runsTotal: 4, runsFailed: 1 })
      yield* progress.update({ runsDone: 4, runsTotal: 4, runsFailed: 1, caseDone: { index: 1, passed: 2, total: 2 } })
      yield* progress.end
    })
  )
  return out.join("")
}

test("on a terminal: one [done/total] line redrawn in place, erased at the end", () => {
  expect(drive(true)).toBe(
    "\r\x1b[K[1/4] runs done, 0 failed" +
      "\r\x1b[K[2/4] runs done, 1 failed" +
      "\r\x1b[K[3/4] runs done, 1 failed" +
      "\r\x1b[K[4/4] runs done, 1 failed" +
      "\r\x1b[K"
  )
})

test("elsewhere: a plain line when the eval starts and one per finished case", () => {
  expect(drive(false)).toBe(
    "eval: 2 case(s) x 2 run(s) = 4 run(s), 8 at a time\n" +
      "eval: case 2 done: 1/2 passed [2/4]\n" +
      "eval: case 1 done: 2/2 passed [4/4]\n"
  )
})

test("comparing targets: the start line counts them, a finished case names its target", () => {
  const out: Array<string> = []
  const progress = makeEvalProgress({ isTTY: false, write: (t) => void out.push(t) })
  Effect.runSync(
    Effect.gen(function*() {
      yield* progress.start(3, 2, 8, 2)
      yield* progress.update({
        runsDone: 2,
        runsTotal: 12,
        runsFailed: 0,
        caseDone: { index: 1, passed: 2, total: 2, target: "terse" }
      })
    })
  )
  expect(out.join("")).toBe(
    "eval: 3 case(s) x 2 target(s) x 2 run(s) = 12 run(s), 8 at a time\n" +
      "eval: case 1 [terse] done: 2/2 passed [2/12]\n"
  )
})
