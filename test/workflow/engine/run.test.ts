// Whole runs: the file's timeout in both modes, cancellation from outside, the LlmSteps seam, and
// runs sharing a process without sharing state.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { Deferred, Effect, Exit, Layer } from "effect"
import { LaitError, primaryError, renderChain } from "../../../src/core/errors.ts"
import { FileLoader } from "../../../src/platform/FileLoader.ts"
import type { Json } from "../../../src/core/json.ts"
import { loadWorkflow } from "../../../src/lang/load.ts"
import { Engine } from "../../../src/workflow/Engine.ts"
import { LlmSteps } from "../../../src/workflow/LlmSteps.ts"
import { Progress } from "../../../src/workflow/progress.ts"
import { alive, errorOf, makeDir, noModelSteps, runContext, runYaml, valueOf, writeFile } from "./harness.ts"

const dir = makeDir("engine-run")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("the file's timeout", () => {
  test("fail mode (children, lait test): the run fails with a typed interruption", async () => {
    const ran = await runYaml(dir, "timeout: 1\nsteps:\n  - id: s\n    run: [sleep, '10']\n", null)
    expect(ran.ok).toBe(false)
    if (ran.ok) return
    expect(ran.error).toBe("workflow timed out after 1s ('timeout')")
    expect(ran.code).toBe(5)
  })

  test("cancel mode (lait run): announced, then the running command is cancelled and killed", async () => {
    const pidFile = path.join(dir, "cancelled.pid")
    // Left to finish, the command would take 300 s, far past this test's own 60 s bound.
    const ran = await runYaml(
      dir,
      `timeout: 1\nsteps:\n  - id: s\n    run: [sh, -c, 'echo $$ > "$0"; exec sleep 300', '${pidFile}']\n    on_error:\n      - jq: '"handled"'\n`,
      null,
      { options: { timeoutMode: "cancel" } }
    )
    expect(ran.ok).toBe(false)
    if (ran.ok) return
    expect(ran.error).toBe("step 's': command 'sh' was cancelled")
    expect(ran.code).toBe(5)
    // A cancelled run skips on_error.
    expect(ran.lines).toEqual([
      "[1] s",
      "lait: the workflow's 'timeout' (1s) was exceeded; cancelling the run"
    ])
    const pid = Number(fs.readFileSync(pidFile, "utf8").trim())
    const end = Date.now() + 30_000
    while (alive(pid) && Date.now() < end) await Bun.sleep(20)
    expect(alive(pid), "the cancelled command gone").toBe(false)
  }, 60_000)

  test("cancel mode reaches commands inside parallel branches", async () => {
    const ran = await runYaml(
      dir,
      "timeout: 1\nsteps:\n  - parallel:\n      a:\n        - jq: '.'\n      b:\n        - run: [sleep, '1.5']\n  - id: after\n    jq: '\"ran\"'\n",
      null,
      { options: { timeoutMode: "cancel" } }
    )
    expect(errorOf(ran)).toBe("step 'step-1.b.1 (run)': command 'sleep' was cancelled")
  })

  test("cancel mode cuts a wait between retries short", async () => {
    // The wait is 300 s, far past this test's own 60 s bound.
    const ran = await runYaml(
      dir,
      "timeout: 1\nsteps:\n  - id: s\n    run: [sh, -c, 'echo no >&2; exit 3']\n    retry:\n      max_attempts: 3\n      delay_seconds: 300\n",
      null,
      { options: { timeoutMode: "cancel" } }
    )
    expect(errorOf(ran)).toBe("workflow execution was cancelled")
    if (!ran.ok) expect(ran.code).toBe(5)
    expect(ran.lines).toEqual([
      "[1] s",
      "    -> attempt 1/3 failed: step 's': command 'sh' exited with exit status: 3: no; retrying in 300.0s",
      "lait: the workflow's 'timeout' (1s) was exceeded; cancelling the run"
    ])
  }, 60_000)

  test("cancel mode: an attempt cut short is not retried, and the run's cancellation is the error", async () => {
    const ran = await runYaml(
      dir,
      "timeout: 1\nsteps:\n  - id: s\n    run: [sleep, '10']\n    retry:\n      max_attempts: 3\n",
      null,
      { options: { timeoutMode: "cancel" } }
    )
    expect(errorOf(ran)).toBe("workflow execution was cancelled")
    expect(ran.lines).toEqual(["[1] s", "lait: the workflow's 'timeout' (1s) was exceeded; cancelling the run"])
  })
})

describe("cancellation from the caller", () => {
  test("completing the cancel signal stops the run with the cancelled step's message", async () => {
    const file = writeFile(dir, "steps:\n  - id: wait\n    run: [sleep, '10']\n")
    const lines: Array<string> = []
    const exit = await Effect.runPromiseExit(
      Effect.gen(function*() {
        const cancel = yield* Deferred.make<void>()
        const workflow = yield* loadWorkflow(file)
        yield* Effect.forkChild(Effect.andThen(Effect.sleep(200), Deferred.succeed(cancel, undefined)))
        return yield* (yield* Engine).run(workflow, null, {}, { cancel })
      }).pipe(Effect.provide(Layer.mergeAll(Engine.layer, FileLoader.layer, Progress.layerCapture(lines), noModelSteps, runContext())))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) expect(renderChain(primaryError(exit.cause))).toBe("step 'wait': command 'sleep' was cancelled")
  })
})

describe("model steps go through LlmSteps", () => {
  test("the service gets the label, input and run data; default.retry applies to model steps", async () => {
    const calls: Array<Json> = []
    let attempts = 0
    const llm = Layer.succeed(
      LlmSteps,
      LlmSteps.of({
        runPrompt: (step, input, ctx) => {
          attempts++
          calls.push({ label: ctx.label, input, steps: ctx.steps, inputs: ctx.inputs, loop: ctx.loop, kind: step.kind.type })
          return attempts < 2 ? Effect.fail(new LaitError({ message: "transient" })) : Effect.succeed("model says hi")
        },
        runAgent: () => Effect.succeed("agent")
      })
    )
    const ran = await runYaml(
      dir,
      `
default:
  retry:
    max_attempts: 2
inputs:
  lang: string
steps:
  - id: before
    jq: '"x"'
  - for_each: '[7]'
    steps:
      - id: talk
        prompt: 'hello'
`,
      "start",
      { llm, inputs: { lang: "en" } }
    )
    expect(valueOf(ran)).toEqual(["model says hi"])
    expect(calls[1]).toEqual({
      label: "talk",
      input: 7,
      steps: { before: "x" },
      inputs: { lang: "en" },
      loop: { index: 0, item: 7 },
      kind: "prompt"
    })
    expect(ran.lines).toEqual([
      "[1] before",
      "[2] step-2 (for_each)",
      "    -> iterating over 1 item(s)",
      "    -> item 1/1",
      "[3] talk",
      "    -> attempt 1/2 failed: transient; retrying in 0.0s"
    ])
  })
})

describe("isolation", () => {
  test("concurrent runs in one process keep their own counters, $steps and progress", async () => {
    const fileA = writeFile(dir, "steps:\n  - id: a1\n    run: [sleep, '0.2']\n  - id: a2\n    jq: '$steps | keys'\n")
    const fileB = writeFile(dir, "steps:\n  - id: b1\n    jq: '1'\n  - id: b2\n    run: [sleep, '0.1']\n  - id: b3\n    jq: '$steps | keys'\n")
    const one = (file: string) => {
      const lines: Array<string> = []
      return Effect.gen(function*() {
        const workflow = yield* loadWorkflow(file)
        const result = yield* (yield* Engine).run(workflow, null, {})
        return { value: result.output, lines }
      }).pipe(Effect.provide(Layer.mergeAll(Engine.layer, FileLoader.layer, Progress.layerCapture(lines), noModelSteps, runContext())))
    }
    const [a, b] = await Effect.runPromise(Effect.all([one(fileA), one(fileB)], { concurrency: "unbounded" }))
    expect(a).toEqual({ value: ["a1"], lines: ["[1] a1", "[2] a2"] })
    expect(b).toEqual({ value: ["b1", "b2"], lines: ["[1] b1", "[2] b2", "[3] b3"] })
  })
})
