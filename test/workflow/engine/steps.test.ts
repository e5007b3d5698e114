// The common step protocol: counter and labels, `when`, `input`/`output`, `$steps`, retry, per-attempt
// timeout and `on_error`, plus the top-level `output:`.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import { Duration, Effect, Exit, Schedule } from "effect"
import type { RetryPolicy } from "../../../src/lang/model.ts"
import { retryDelays } from "../../../src/workflow/engine/policy.ts"
import { errorOf, makeDir, runYaml, valueOf } from "./harness.ts"

const dir = makeDir("engine-steps")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("labels, counter and when", () => {
  test("steps are numbered file-wide and labelled by id or step-<position> (<kind>)", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: first
    jq: '. + 1'
  - jq: '. * 10'
  - group:
      - jq: '. + 2'
`,
      1
    )
    expect(valueOf(ran)).toBe(22)
    expect(ran.lines).toEqual(["[1] first", "[2] step-2 (jq)", "[3] step-3 (group)", "[4] step-3.1 (jq)"])
  })

  test("a falsy when skips the step: the value passes through and nothing is recorded", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: skipped
    when: '. > 100'
    jq: '"changed"'
  - id: kept
    when: 'null | not'
    jq: '{seen: ., skipped: $steps.skipped}'
`,
      5
    )
    expect(valueOf(ran)).toEqual({ seen: 5, skipped: null })
    expect(ran.lines).toEqual(["[1] skipped (skipped)", "[2] kept"])
    if (ran.ok) expect(Object.keys(ran.steps)).toEqual(["kept"])
  })

  test("only false and null are falsy for when", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - when: '0'
    jq: '. + ["zero"]'
  - when: '""'
    jq: '. + ["empty"]'
  - when: 'false'
    jq: '. + ["false"]'
`,
      []
    )
    expect(valueOf(ran)).toEqual(["zero", "empty"])
  })

  test("input transforms the value the kind sees; output maps its result; both see $steps", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: base
    jq: '{a: 2, b: 3}'
  - input: '.a'
    jq: '. * 100'
    output: '{scaled: ., b: $steps.base.b}'
`,
      null
    )
    expect(valueOf(ran)).toEqual({ scaled: 200, b: 3 })
  })

  test("errors of when, input and output name the step and the field", async () => {
    const when = await runYaml(dir, "steps:\n  - id: w\n    when: 'error(\"nope\")'\n    jq: '.'\n", 1)
    expect(errorOf(when)).toStartWith("step 'w': 'when': ")
    const input = await runYaml(dir, "steps:\n  - id: i\n    input: 'error(\"nope\")'\n    jq: '.'\n", 1)
    expect(errorOf(input)).toStartWith("step 'i': 'input': ")
    const output = await runYaml(dir, "steps:\n  - id: o\n    jq: '.'\n    output: 'error(\"nope\")'\n", 1)
    expect(errorOf(output)).toStartWith("step 'o': 'output': ")
    const top = await runYaml(dir, "steps:\n  - jq: '.'\noutput: 'error(\"nope\")'\n", 1)
    expect(errorOf(top)).toStartWith("the workflow's 'output': ")
  })

  test("the top-level output sees the last value, $steps and $inputs", async () => {
    const ran = await runYaml(
      dir,
      `
inputs:
  who: string
steps:
  - id: n
    jq: '41'
  - jq: '. + 1'
output: '{last: ., n: $steps.n, who: $inputs.who}'
`,
      null,
      { inputs: { who: "ada" } }
    )
    expect(valueOf(ran)).toEqual({ last: 42, n: 41, who: "ada" })
  })
})

describe("retry and timeout", () => {
  test("a failing attempt is announced with its error and retried", async () => {
    const counter = `${dir}/flaky-count`
    const ran = await runYaml(
      dir,
      `
steps:
  - id: flaky
    run: [sh, -c, 'n=$(cat "$0" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$0"; [ $n -ge 3 ] || { echo "try $n" >&2; exit 1; }; echo done $n', '${counter}']
    retry:
      max_attempts: 4
`,
      null
    )
    expect(valueOf(ran)).toBe("done 3")
    expect(ran.lines).toEqual([
      "[1] flaky",
      "    -> attempt 1/4 failed: step 'flaky': command 'sh' exited with exit status: 1: try 1; retrying in 0.0s",
      "    -> attempt 2/4 failed: step 'flaky': command 'sh' exited with exit status: 1: try 2; retrying in 0.0s"
    ])
  })

  test("the last attempt's error is the step's error", async () => {
    const ran = await runYaml(
      dir,
      "steps:\n  - id: bad\n    run: [sh, -c, 'echo broken >&2; exit 2']\n    retry:\n      max_attempts: 2\n",
      null
    )
    expect(errorOf(ran)).toBe("step 'bad': command 'sh' exited with exit status: 2: broken")
    expect(ran.lines).toEqual([
      "[1] bad",
      "    -> attempt 1/2 failed: step 'bad': command 'sh' exited with exit status: 2: broken; retrying in 0.0s"
    ])
  })

  test("retry delays grow by backoff, are capped at 3600 s and number one fewer than the attempts", () => {
    /** Every wait the schedule gives, in seconds, until it is done. */
    const delays = (policy: RetryPolicy): Array<number> =>
      Effect.runSync(Effect.gen(function*() {
        const step = yield* Schedule.toStep(retryDelays(policy))
        const seconds: Array<number> = []
        for (;;) {
          const next = yield* Effect.exit(step(0, undefined))
          if (Exit.isFailure(next)) return seconds
          seconds.push(Duration.toSeconds(next.value[1]))
        }
      }))
    expect(delays({ maxAttempts: 4, delaySeconds: 2, backoff: 2 })).toEqual([2, 4, 8])
    expect(delays({ maxAttempts: 3, delaySeconds: 2, backoff: 0 })).toEqual([2, 0])
    expect(delays({ maxAttempts: 3, delaySeconds: 3000, backoff: 1.5 })).toEqual([3000, 3600])
    expect(delays({ maxAttempts: 2, delaySeconds: 7200, backoff: 1 })).toEqual([3600])
    expect(delays({ maxAttempts: 3, delaySeconds: 1, backoff: Number.MAX_VALUE })).toEqual([1, 3600])
    expect(delays({ maxAttempts: 4, delaySeconds: 0, backoff: Number.MAX_VALUE })).toEqual([0, 0, 0])
    expect(delays({ maxAttempts: 1, delaySeconds: 5, backoff: 2 })).toEqual([])
  })

  test("a delay is waited and announced with one decimal", async () => {
    const started = Date.now()
    const ran = await runYaml(
      dir,
      "steps:\n  - id: slow\n    jq: 'error(\"x\")'\n    retry:\n      max_attempts: 2\n      delay_seconds: 1\n",
      null
    )
    // A lower bound (the delay was waited), which a slower machine cannot break.
    expect(Date.now() - started, "ms across a 1 s retry delay").toBeGreaterThanOrEqual(950)
    expect(errorOf(ran)).toStartWith("step 'slow': ")
    expect(ran.lines[1]).toEndWith("; retrying in 1.0s")
  })

  test("a step timeout interrupts the attempt, counts as a failure and is retried", async () => {
    const ran = await runYaml(
      dir,
      "steps:\n  - id: sleepy\n    run: [sleep, '5']\n    timeout: 1\n    retry:\n      max_attempts: 2\n",
      null
    )
    expect(ran.ok).toBe(false)
    if (ran.ok) return
    expect(ran.error).toBe("step 'sleepy' timed out after 1s (attempt 2/2)")
    // A step's timeout is the step domain's reason, and a typed interruption (exit 5).
    expect(ran.tag).toBe("StepError")
    expect(ran.code).toBe(5)
    expect(ran.code).toBe(5)
    expect(ran.lines).toEqual([
      "[1] sleepy",
      "    -> attempt 1/2 failed: step 'sleepy' timed out after 1s (attempt 1/2); retrying in 0.0s"
    ])
  })

  test("default.retry and default.timeout do not apply to non-model steps", async () => {
    const ran = await runYaml(
      dir,
      "default:\n  retry:\n    max_attempts: 3\n  timeout: 1\nsteps:\n  - id: once\n    run: [sh, -c, 'sleep 1.5; exit 1']\n",
      null
    )
    expect(errorOf(ran)).toBe("step 'once': command 'sh' exited with exit status: 1:")
    expect(ran.lines).toEqual(["[1] once"])
  })
})

describe("on_error", () => {
  test("the handler gets {error, input} with the value before input: and its result is recorded", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: risky
    input: '{wrapped: .}'
    run: [sh, -c, 'echo "disk full" >&2; exit 3']
    on_error:
      - jq: '{handled: .error, original: .input}'
  - jq: '{value: ., recorded: $steps.risky}'
`,
      "payload"
    )
    const handled = {
      handled: "step 'risky': command 'sh' exited with exit status: 3: disk full",
      original: "payload"
    }
    expect(valueOf(ran)).toEqual({ value: handled, recorded: handled })
    expect(ran.lines).toEqual([
      "[1] risky",
      "    -> step failed, running 'on_error': step 'risky': command 'sh' exited with exit status: 3: disk full",
      "[2] step-1.on_error.1 (jq)",
      "[3] step-2 (jq)"
    ])
  })

  test("on_error runs after the retries are used up, and a step timeout is handled too", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: t
    run: [sleep, '5']
    timeout: 1
    on_error:
      - jq: '.error'
`,
      null
    )
    expect(valueOf(ran)).toBe("step 't' timed out after 1s (attempt 1/1)")
  })

  test("a failing handler fails the step", async () => {
    const ran = await runYaml(
      dir,
      "steps:\n  - id: a\n    jq: 'error(\"first\")'\n    on_error:\n      - id: b\n        jq: 'error(\"second\")'\n",
      null
    )
    expect(errorOf(ran)).toStartWith("step 'b': ")
  })
})
