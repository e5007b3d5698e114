// jq evaluation in its worker: interruption, concurrency, recycling, and process lifetime.
//
// In-process tests use `repeat(now) | empty` as the filter that never ends: it calls out of wasm for
// the clock, so terminate() really ends its thread. A pure wasm loop (`def f: f; f`) cannot be stopped
// by JavaScriptCore and keeps a core busy until its process exits, so those cases run in a child
// process (and end to end in test/hardening/jq-interrupt.test.ts).
//
// Filters start with `def w: .;` (W), which the native evaluator (jq/) leaves to jq-wasm: these
// tests are about the worker that runs jq-wasm.
import { beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Fiber, Option } from "effect"
import { renderChain } from "../../src/core/errors.ts"
import type { Json } from "../../src/core/json.ts"
import { evalJqAll, evalJqOne, type JqVars, loadJq } from "../../src/lang/jq.ts"
import { jqEngineState, RUNNER_CALL_BUDGET } from "../../src/lang/jqRunner.ts"

const repoRoot = path.resolve(import.meta.dir, "../..")
const vars: JqVars = { steps: {}, inputs: {}, loop: null }
const ENDLESS = "repeat(now) | empty"
const W = "def w: .; "

const one = (filter: string, input: Json = null) => Effect.runPromise(evalJqOne(W + filter, input, vars, "filter"))

const nested = (depth: number): Json => {
  let value: Json = 1
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

const workerOf = (instance: string | undefined) => instance?.split(".")[0]

beforeAll(async () => {
  await Effect.runPromise(loadJq)
  expect(await one(". + 1", 1)).toBe(2)
})

describe("jq's WebAssembly module", () => {
  test("is compiled once: the worker instantiates the main thread's module, on a new worker too", async () => {
    expect(await one(".a * 2", { a: 21 })).toBe(42)
    expect(jqEngineState().lastShared).toBe(true)
    const before = jqEngineState().workersStarted
    const outcome = await Effect.runPromise(Effect.timeoutOption(evalJqOne(ENDLESS, null, vars, "filter"), "300 millis"))
    expect(Option.isNone(outcome)).toBe(true)
    expect(await one(". + 1", 1)).toBe(2)
    expect(jqEngineState()).toMatchObject({ workersStarted: before + 1, lastShared: true })
  }, 20_000)
})

describe("a filter that never terminates", () => {
  test("Effect.timeout gives up on it, and the next evaluation runs on a new worker", async () => {
    const before = jqEngineState().workersStarted
    const outcome = await Effect.runPromise(Effect.timeoutOption(evalJqOne(ENDLESS, null, vars, "filter"), "300 millis"))
    expect(Option.isNone(outcome)).toBe(true)
    expect(await one(".a + 1", { a: 41 })).toBe(42)
    expect(jqEngineState().workersStarted).toBe(before + 1)
  }, 20_000)

  test("interrupting the fiber ends the evaluation with an interruption, not an error", async () => {
    const exit = await Effect.runPromise(
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(evalJqAll(ENDLESS, null, vars))
        yield* Effect.sleep("100 millis")
        yield* Fiber.interrupt(fiber)
        return yield* Fiber.await(fiber)
      })
    )
    expect(Exit.isFailure(exit) && exit.cause.reasons.every((r) => r._tag === "Interrupt")).toBe(true)
    expect(await one("[.[] * 2]", [1, 2])).toEqual([2, 4])
  }, 20_000)

  test("a pure wasm loop (def f: f; f) is abandoned promptly; the process still exits at once", async () => {
    // `def f: f; f` never leaves wasm, so its thread outlives terminate(); a child process contains it.
    const script = `
      import { Effect, Option } from "effect"
      import { evalJqOne } from ${JSON.stringify(path.join(repoRoot, "src/lang/jq.ts"))}
      import { jqEngineState } from ${JSON.stringify(path.join(repoRoot, "src/lang/jqRunner.ts"))}
      const vars = { steps: {}, inputs: {}, loop: null }
      // jq-wasm loaded and its worker started first: on a busy machine that alone can take longer
      // than the timeout below, which must catch the endless filter inside the worker.
      await Effect.runPromise(evalJqOne("def w: .; .", 1, vars, "filter"))
      const endless = await Effect.runPromise(Effect.timeoutOption(evalJqOne("def f: f; f", null, vars, "filter"), "500 millis"))
      const next = await Effect.runPromise(evalJqOne("def w: .; . * 2", 21, vars, "filter"))
      console.log(JSON.stringify({ timedOut: Option.isNone(endless), next, workers: jqEngineState().workersStarted }))
      process.exit(0)
    `
    const child = Bun.spawn([process.execPath, "-e", script], { cwd: repoRoot, stdout: "pipe", stderr: "pipe" })
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited
    ])
    clearTimeout(killer)
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({ timedOut: true, next: 42, workers: 2 })
  }, 40_000)
})

describe("concurrent evaluations", () => {
  test("all complete, in any mix of filters", async () => {
    const results = await Effect.runPromise(
      Effect.all(
        Array.from({ length: 40 }, (_, i) => evalJqOne(W + "{i: ., sq: (. * .)}", i, vars, "filter")),
        { concurrency: "unbounded" }
      )
    )
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => ({ i, sq: i * i })))
  })

  test("interrupting the running one fails only that one; the queued ones finish on a new worker", async () => {
    const before = jqEngineState().workersStarted
    const [endless, ...rest] = await Effect.runPromise(
      Effect.all(
        [
          Effect.timeoutOption(evalJqOne(ENDLESS, null, vars, "filter"), "300 millis"),
          ...Array.from({ length: 10 }, (_, i) => Effect.map(evalJqOne(W + ". + 100", i, vars, "filter"), Option.some))
        ],
        { concurrency: "unbounded" }
      )
    )
    expect(Option.isNone(endless!)).toBe(true)
    expect(rest).toEqual(Array.from({ length: 10 }, (_, i) => Option.some(i + 100)))
    expect(jqEngineState().workersStarted).toBe(before + 1)
  }, 20_000)

  test("interrupting a queued one keeps the worker, and the others are unaffected", async () => {
    const before = jqEngineState().workersStarted
    const outcome = await Effect.runPromise(
      Effect.gen(function*() {
        // `first` is running (a finite but slow filter) while `queued` waits behind it.
        const first = yield* Effect.forkChild(evalJqOne(W + "[range(200000)] | length", null, vars, "filter"))
        const queued = yield* Effect.forkChild(evalJqOne(W + ". + 1", 1, vars, "filter"))
        const after = yield* Effect.forkChild(evalJqOne(W + ". + 2", 1, vars, "filter"))
        yield* Effect.yieldNow
        yield* Fiber.interrupt(queued)
        return {
          first: yield* Fiber.join(first),
          queued: Exit.isFailure(yield* Fiber.await(queued)),
          after: yield* Fiber.join(after)
        }
      })
    )
    expect(outcome).toEqual({ first: 200000, queued: true, after: 3 })
    expect(jqEngineState().workersStarted).toBe(before)
  }, 20_000)

  test("errors stay with their own evaluation", async () => {
    const exits = await Effect.runPromise(
      Effect.all(
        [
          Effect.exit(evalJqOne(W + "error(\"boom\")", null, vars, "filter")),
          Effect.exit(evalJqOne(W + ". + 1", 1, vars, "filter")),
          Effect.exit(evalJqOne(W + ".[]", [1, 2], vars, "condition")),
          Effect.exit(evalJqOne(W + ". + 2", 1, vars, "filter"))
        ],
        { concurrency: "unbounded" }
      )
    )
    const shown = exits.map((exit) =>
      Exit.isSuccess(exit) ? exit.value : renderChain(exit.cause.reasons.find((r) => r._tag === "Fail")?.error)
    )
    expect(shown).toEqual([
      "jq filter \"def w: .; error(\\\"boom\\\")\" failed: boom",
      2,
      "jq condition \"def w: .; .[]\" produced 2 outputs; expected exactly one value (wrap a stream in '[...]' to collect it into an array)",
      3
    ])
  })
})

describe("recycling the evaluating instance", () => {
  const instance = () => jqEngineState().lastInstance

  test("after an input nested deeper than the safe depth", async () => {
    await one("1")
    const before = instance()
    expect(await one("length", nested(200))).toBe(1)
    expect(instance()).toBe(before) // the deep call itself ran on the old instance
    await one("1")
    expect(instance()).not.toBe(before)
    expect(workerOf(instance())).toBe(workerOf(before))
  })

  test("after an output nested deeper than the safe depth", async () => {
    await one("1")
    const before = instance()
    expect(await one("reduce range(200) as $i (0; [.]) | 1")).toBe(1) // deep only inside: unnoticed
    expect(await one("1")).toBe(1)
    expect(instance()).toBe(before)
    await one("reduce range(200) as $i (0; [.])")
    await one("1")
    expect(instance()).not.toBe(before)
  })

  test("after a trap", async () => {
    await one("1")
    const before = instance()
    const exit = await Effect.runPromiseExit(evalJqOne(W + "reduce range(2000) as $i (null; [.])", null, vars, "filter"))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(await one(".a", { a: "ok" })).toBe("ok")
    expect(instance()).not.toBe(before)
    expect(workerOf(instance())).toBe(workerOf(before))
  })

  test(`after ${RUNNER_CALL_BUDGET} calls on one instance`, async () => {
    // Start from a fresh instance: the deep input retires the current one.
    await one("length", nested(200))
    await one("1")
    const start = instance()
    let calls = 1
    while (calls < RUNNER_CALL_BUDGET + 5) {
      await one("{a: .}", "x")
      if (instance() !== start) break
      calls++
    }
    expect(calls).toBe(RUNNER_CALL_BUDGET)
    expect(workerOf(instance())).toBe(workerOf(start))
    // A hang guard: the calls take 4 s on a quiet machine and 30 s under two busy loops.
  }, 300_000)
})

// Each test is a process of its own: they run side by side.
describe("process lifetime", () => {
  const runScript = async (script: string) => {
    const child = Bun.spawn([process.execPath, "-e", script], { cwd: repoRoot, stdout: "pipe", stderr: "pipe" })
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited
    ])
    clearTimeout(killer)
    return { stdout, stderr, code, signal: child.signalCode }
  }
  const jqModule = JSON.stringify(path.join(repoRoot, "src/lang/jq.ts"))
  const runnerModule = JSON.stringify(path.join(repoRoot, "src/lang/jqRunner.ts"))

  test.concurrent("an idle worker does not keep the process alive", async () => {
    // No process.exit: the script ends when its event loop is empty.
    const r = await runScript(`
      import { Effect } from "effect"
      import { evalJqOne } from ${jqModule}
      const vars = { steps: {}, inputs: {}, loop: null }
      console.log(await Effect.runPromise(evalJqOne("def w: .; . + 1", 1, vars, "filter")))
      console.log(await Effect.runPromise(evalJqOne("def w: .; . + 2", 1, vars, "filter")))
    `)
    expect(r).toEqual({ stdout: "2\n3\n", stderr: "", code: 0, signal: null })
  }, 40_000)

  test.concurrent("a worker that cannot load fails each evaluation with one line, and nothing hangs", async () => {
    // A copy of src/ without jqWorker.ts stands for a binary built without the worker entrypoint.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "lait-jq-noworker-"))
    try {
      fs.cpSync(path.join(repoRoot, "src"), path.join(copy, "src"), { recursive: true })
      fs.rmSync(path.join(copy, "src/lang/jqWorker.ts"))
      fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(copy, "node_modules"))
      const r = await runScript(`
        import { Effect, Exit } from "effect"
        import { renderChain } from ${JSON.stringify(path.join(copy, "src/core/errors.ts"))}
        import { evalJqOne } from ${JSON.stringify(path.join(copy, "src/lang/jq.ts"))}
        const vars = { steps: {}, inputs: {}, loop: null }
        const exits = await Effect.runPromise(
          Effect.all([1, 2].map((i) => Effect.exit(evalJqOne("def w: .; . + 1", i, vars, "filter"))), { concurrency: "unbounded" })
        )
        for (const exit of exits) {
          const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
          console.log(failure === undefined ? "unexpected: " + String(exit) : renderChain(failure.error))
        }
      `)
      expect(r.stderr).toBe("")
      const lines = r.stdout.trimEnd().split("\n")
      expect(lines).toHaveLength(2)
      for (const line of lines) {
        expect(line).toStartWith("failed to load the jq engine: ")
        expect(line).toContain("jqWorker.ts")
      }
    } finally {
      fs.rmSync(copy, { recursive: true, force: true })
    }
  }, 40_000)

  test.concurrent("loading jq and checking syntax start no worker; the first evaluation starts one", async () => {
    const r = await runScript(`
      import { Effect } from "effect"
      import { checkJqSyntax, evalJqOne, loadJq } from ${jqModule}
      import { jqEngineState } from ${runnerModule}
      await Effect.runPromise(loadJq)
      const checked = checkJqSyntax(".a | def f: f; f")
      const before = jqEngineState().workersStarted
      await Effect.runPromise(evalJqOne("def w: .; .", 1, { steps: {}, inputs: {}, loop: null }, "filter"))
      console.log(JSON.stringify({ checked: checked ?? null, before, after: jqEngineState().workersStarted }))
    `)
    expect(r.stderr).toBe("")
    expect(JSON.parse(r.stdout)).toEqual({ checked: null, before: 0, after: 1 })
  }, 40_000)

  test.concurrent("warmJqWorker starts the worker ahead of the first evaluation, which runs on it; with no filter checked, none", async () => {
    const r = await runScript(`
      import { Effect } from "effect"
      import { checkJqSyntax, evalJqOne, loadJq, warmJqWorker } from ${jqModule}
      import { jqEngineState } from ${runnerModule}
      await Effect.runPromise(loadJq)
      await Effect.runPromise(warmJqWorker)
      const unchecked = jqEngineState().workersStarted
      checkJqSyntax("def w: .; . + 1")
      await Effect.runPromise(warmJqWorker)
      await Effect.runPromise(warmJqWorker)
      const warmed = jqEngineState().workersStarted
      const value = await Effect.runPromise(evalJqOne("def w: .; . + 1", 41, { steps: {}, inputs: {}, loop: null }, "filter"))
      const { workersStarted, lastInstance, lastShared } = jqEngineState()
      console.log(JSON.stringify({ unchecked, warmed, value, workersStarted, lastInstance, lastShared }))
    `)
    expect(r.stderr).toBe("")
    expect(JSON.parse(r.stdout)).toEqual({
      unchecked: 0,
      warmed: 1,
      value: 42,
      workersStarted: 1,
      lastInstance: "1.1",
      lastShared: true
    })
  }, 40_000)
})
