// The names and checks of `--trace-dir` (src/trace/dir.ts): test files named by their path, eval
// runs by case and repeat, collisions told apart, a DIR that cannot hold files refused up front, and
// how a run that its runner caught still counts as failed in its trace.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Cause, Effect, Exit } from "effect"
import { renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { checkTraceDir, evalTraceName, outcomeOf, testTraceNames } from "../../src/trace/dir.ts"
import type { RecordedEvent } from "../../src/trace/RunTracer.ts"

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "lait-trace-dir-"))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

describe("testTraceNames", () => {
  test("the path relative to the cwd, separators as __", () => {
    expect(testTraceNames(["tests/cases/billing.yml", "./a.yml", "/srv/p/tests/x.yaml"], "/srv/p")).toEqual([
      "tests__cases__billing.yml.jsonl",
      "a.yml.jsonl",
      "tests__x.yaml.jsonl"
    ])
  })

  test("a file outside the cwd is named by its absolute path, which starts with __", () => {
    expect(testTraceNames(["../other/t.yml", "/abs/t.yml"], "/srv/p")).toEqual([
      "__srv__other__t.yml.jsonl",
      "__abs__t.yml.jsonl"
    ])
  })

  test("names that would collide get ~2, ~3 in order (a __ in a name, a difference in case only)", () => {
    expect(testTraceNames(["a/b.yml", "a__b.yml", "A/B.yml", "c.yml"], "/p")).toEqual([
      "a__b.yml.jsonl",
      "a__b.yml~2.jsonl",
      "A__B.yml~3.jsonl",
      "c.yml.jsonl"
    ])
  })
})

describe("evalTraceName", () => {
  test("case and repeat from 1, padded to the widest so the files sort in run order", () => {
    expect(evalTraceName({ caseIndex: 2, caseCount: 5, repeatIndex: 1, repeat: 3 })).toBe("case-3.repeat-2.jsonl")
    expect(evalTraceName({ caseIndex: 2, caseCount: 12, repeatIndex: 0, repeat: 100 })).toBe("case-03.repeat-001.jsonl")
  })

  test("a named case keeps its name, made safe for a file name", () => {
    expect(evalTraceName({ caseIndex: 0, caseCount: 2, repeatIndex: 0, repeat: 1, name: "Refund policy / EU" }))
      .toBe("case-1-Refund-policy-EU.repeat-1.jsonl")
    expect(evalTraceName({ caseIndex: 0, caseCount: 2, repeatIndex: 0, repeat: 1, name: "../.." }))
      .toBe("case-1.repeat-1.jsonl")
  })
})

describe("checkTraceDir", () => {
  const problem = (dir: string) => {
    const exit = Effect.runSyncExit(checkTraceDir(dir).pipe(Effect.provide(FileLoader.layer)))
    return Exit.isSuccess(exit) ? undefined : renderChain(Cause.squash(exit.cause))
  }

  test("an existing directory, or one that can be made, is fine (and is not made yet)", () => {
    expect(problem(tmp)).toBeUndefined()
    expect(problem(path.join(tmp, "new", "deeper"))).toBeUndefined()
    expect(fs.existsSync(path.join(tmp, "new"))).toBe(false)
  })

  test("a file, or a file on the way, is refused", () => {
    const file = path.join(tmp, "file")
    fs.writeFileSync(file, "x")
    expect(problem(file)).toBe(`cannot write traces into '${file}': not a directory`)
    expect(problem(path.join(file, "sub"))).toBe(
      `cannot write traces into '${path.join(file, "sub")}': a component of the path is not a directory`
    )
  })
})

describe("outcomeOf", () => {
  const event = (operation: RecordedEvent["operation"], attributes: RecordedEvent["attributes"] = {}): RecordedEvent => ({
    seq: 0,
    operation,
    label: "x",
    start: "2026-01-01T00:00:00.000Z",
    end: "2026-01-01T00:00:00.000Z",
    duration_ms: 0,
    attributes,
    span_id: "0000000000000001",
    parent_span_id: null
  })

  test("from the exit, else from a failed step or workflow span", () => {
    expect(outcomeOf([event("chat")], Exit.void)).toBe("succeeded")
    expect(outcomeOf([event("chat", { "error.type": "500" })], Exit.void)).toBe("succeeded")
    expect(outcomeOf([event("step", { "error.type": "LaitError" })], Exit.void)).toBe("failed")
    expect(outcomeOf([], Exit.fail("x"))).toBe("failed")
    expect(outcomeOf([], Exit.interrupt())).toBe("interrupted")
  })
})
