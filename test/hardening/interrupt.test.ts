// Ctrl-C, SIGTERM or SIGHUP at any moment leaves nothing torn: seeded trials against the compiled
// binary, each drawing its signal and its moment (see
// interrupt-harness.ts for what one trial does and checks). A fixed seed by default, so CI is
// repeatable; LAIT_INTERRUPT_SEED / LAIT_INTERRUPT_TRIALS explore others. Every assertion message
// starts with the seed, the trial and the command that replays that trial alone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ensureBinary } from "../e2e/util.ts"
import {
  cacheEntryProblem,
  cassetteProblem,
  catchesSignal,
  CHECKS,
  describeTrial,
  exitCodeFor,
  formatFailure,
  InterruptHarness,
  MARKER_VARIABLE,
  markedProcesses,
  outcomeOf,
  planTrials,
  runTrials,
  SCENARIOS,
  SIGNALS,
  traceProblem,
  type TrialResult
} from "./interrupt-harness.ts"

const envNumber = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'`)
  return value
}

const SEED = envNumber("LAIT_INTERRUPT_SEED", 20261202)
const TRIALS = envNumber("LAIT_INTERRUPT_TRIALS", 56)
// Four at a time: a trial mostly waits (model latency, its signal's moment, the children's grace), a
// run of all of them takes a third of one CPU, and the calibrations, which the signals' moments scale,
// are made one at a time before any trial. A contended trial runs slower than its calibration, so its
// signal lands earlier in the run, which only makes interrupting it more likely.
const CONCURRENCY = 4

const specs = planTrials(SEED, TRIALS)
let harness: InterruptHarness | undefined
let results: Array<TrialResult> = []

describe(`interruption trials (seed ${SEED}, ${TRIALS} trials)`, () => {
  beforeAll(async () => {
    harness = InterruptHarness.create({ binary: await ensureBinary() })
    results = await runTrials(harness, specs, CONCURRENCY, (r) => {
      if (r.failures.length > 0) process.stderr.write(`interrupt trial failed: ${formatFailure(r)}\n`)
    })
  }, 600_000)

  afterAll(() => harness?.close())

  test("the plan covers every scenario and signal, with second signals of the same and of another kind", () => {
    const seed = `seed=${SEED}`
    for (const scenario of SCENARIOS) {
      expect(specs.filter((s) => s.scenario === scenario).length, `${seed}: scenario ${scenario}`).toBeGreaterThanOrEqual(
        Math.floor(TRIALS / SCENARIOS.length)
      )
    }
    if (TRIALS >= 50) {
      const seconds = specs.filter((s) => s.scenario === "second-signal")
      expect(seconds.length, `${seed}: second-signal trials`).toBeGreaterThanOrEqual(5)
      expect(seconds.filter((s) => s.secondSignal !== s.signal).length, `${seed}: second signal of another kind`).toBeGreaterThanOrEqual(2)
      expect(seconds.filter((s) => s.secondSignal === s.signal).length, `${seed}: second signal of the same kind`).toBeGreaterThanOrEqual(1)
      for (const signal of SIGNALS) {
        expect(specs.filter((s) => s.signal === signal).length, `${seed}: trials sending ${signal} first`).toBeGreaterThanOrEqual(
          Math.floor(TRIALS / 6)
        )
      }
    }
  })

  test("most trials were really interrupted mid-run (exit 128 + signo), not just finished", () => {
    // Guards the harness itself: delays that always landed after the run would prove nothing.
    const interrupted = results.filter((r) => outcomeOf(r) === String(exitCodeFor(r.firstSignal))).length
    expect(interrupted, `seed=${SEED}: ${interrupted} of ${results.length} trials exited 130/143/129`).toBeGreaterThanOrEqual(
      Math.ceil(results.length / 2)
    )
  })

  for (const spec of specs) {
    test(`trial ${spec.index}: ${spec.scenario}`, () => {
      const result = results[spec.index]
      const trial = describeTrial(spec)
      expect(result, `${trial}: the trial did not run`).toBeDefined()
      const r = result!
      const context = formatFailure(r)
      // One assertion per kind of check, each naming the seed and the trial.
      for (const check of CHECKS) {
        expect(r.failures.filter((f) => f.check === check).map((f) => f.message), `${context}\n[${check}] failed`).toEqual([])
      }
      expect(outcomeOf(r), `${trial}: outcome`).not.toBe("fail")
      const code = exitCodeFor(r.firstSignal)
      if (spec.scenario === "second-signal") expect(r.code, `${trial}: exit code after two signals`).toBe(code)
      else if (!r.killedAtStartup) expect([0, code], `${trial}: exit code ${r.code}`).toContain(r.code!)
    })
  }
})

// The checks must be able to fail: a harness that sees nothing would pass every trial.
describe("the harness's checks detect what they look for", () => {
  const cassette = JSON.stringify({
    recorded_at: "2026-01-01T00:00:00Z",
    request: { messages: [], base_url: "http://127.0.0.1:1/v1", model_id: "m" },
    response: { choices: [{ message: { role: "assistant", content: "hi" } }] }
  }, null, 2)

  test("a complete cassette / cache entry passes; a truncated or wrongly shaped one does not", () => {
    expect(cassetteProblem(cassette)).toBeUndefined()
    expect(cassetteProblem(cassette.slice(0, -10))).toStartWith("not JSON")
    expect(cassetteProblem(JSON.stringify({ recorded_at: "2026-01-01T00:00:00Z", response: {} }))).toBe("'response' has no choices")
    const entry = JSON.stringify({ created_at: "2026-01-01T00:00:00Z", response: JSON.parse(cassette).response })
    expect(cacheEntryProblem(entry)).toBeUndefined()
    expect(cacheEntryProblem(entry.slice(0, entry.length / 2))).toStartWith("not JSON")
    expect(cacheEntryProblem(JSON.stringify({ response: {} }))).toBe("no valid 'created_at'")
  })

  test("a trace file torn mid-line, or with a malformed event, is reported", () => {
    const event = (seq: number, operation: string) =>
      JSON.stringify({
        seq,
        operation,
        label: "x",
        start: "2026-01-01T00:00:00Z",
        end: "2026-01-01T00:00:01Z",
        duration_ms: 1000,
        attributes: {}
      })
    const text = `${event(0, "chat")}\n${event(1, "execute_tool")}\n`
    expect(traceProblem(text)).toEqual({ operations: ["chat", "execute_tool"] })
    expect(traceProblem(text.slice(0, -5)).problem).toBe("the last line has no newline (torn?)")
    expect(traceProblem(`${event(0, "chat").slice(0, 30)}\n`).problem).toStartWith("line 1 is not JSON")
    expect(traceProblem(`${JSON.stringify({ seq: 0 })}\n`).problem).toBe("line 1 keys seq")
  })

  test("a process carrying the marker only in its environment (an orphaned grandchild) is found", async () => {
    const marker = `self-check-${process.pid}-${Date.now()}`
    const child = Bun.spawn(["sh", "-c", "sleep 30 & wait"], {
      env: { ...process.env, [MARKER_VARIABLE]: marker },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore"
    })
    try {
      let found: Array<{ pid: number }> = []
      for (let i = 0; i < 100 && found.length < 2; i++) {
        found = markedProcesses(marker)
        await Bun.sleep(20)
      }
      expect(found.length).toBe(2) // sh and the sleep it forked; neither has the marker in argv
    } finally {
      child.kill("SIGKILL")
      for (const p of markedProcesses(marker)) process.kill(p.pid, "SIGKILL")
    }
    await child.exited
    await Bun.sleep(50)
    expect(markedProcesses(marker)).toEqual([])
  })

  test("SigCgt tells a process with a handler for each signal from one without", async () => {
    const plain = Bun.spawn(["sleep", "30"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" })
    // Handles SIGINT and SIGHUP but not SIGTERM: each bit is read on its own.
    const source = "process.on('SIGINT', () => {}); process.on('SIGHUP', () => {}); setTimeout(() => {}, 30000)"
    const handling = Bun.spawn([process.execPath, "-e", source], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore"
    })
    try {
      let caught = false
      for (let i = 0; i < 200 && !caught; i++) {
        caught = catchesSignal(handling.pid, "SIGINT") && catchesSignal(handling.pid, "SIGHUP")
        await Bun.sleep(10)
      }
      expect(caught).toBe(true)
      expect(catchesSignal(handling.pid, "SIGTERM")).toBe(false)
      for (const signal of SIGNALS) expect(catchesSignal(plain.pid, signal)).toBe(false)
    } finally {
      plain.kill("SIGKILL")
      handling.kill("SIGKILL")
    }
  })
})
