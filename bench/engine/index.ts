// Per-step overhead of the workflow engine, as ratios against baselines measured in the same run:
//   jq:  a workflow of 200 jq steps vs one of 1 step, against jq-wasm evaluating the same filter
//        directly (what a jq step cannot avoid);
//   run: a workflow of 50 `run: [true]` steps vs spawning `true` 50 times directly, with Bun.spawn and
//        with node:child_process (which run steps use so that the sources also run under Deno).
// Progress lines are dropped (Progress.layerSilent) so terminal speed is not measured. Every run's
// output is checked (200 jq steps of `. + 1` from 0 must give 200).
//   bun bench/engine/index.ts [--rounds N]
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { loadJq as loadJqWasm } from "jq-wasm/inline"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import type { Json } from "../../src/core/json.ts"
import { loadWorkflow } from "../../src/lang/load.ts"
import type { Workflow } from "../../src/lang/model.ts"
import { Engine } from "../../src/workflow/Engine.ts"
import { LlmSteps } from "../../src/workflow/LlmSteps.ts"
import { Progress } from "../../src/workflow/progress.ts"
import { RunContext } from "../../src/workflow/RunContext.ts"

export interface EngineOptions {
  /** Timed rounds of each measurement (after one warm-up round). */
  readonly rounds: number
  /** jq steps in the long jq workflow (default 200). */
  readonly jqSteps?: number
  /** run steps in the long run workflow (default 50). */
  readonly runSteps?: number
}

export interface EngineFigures {
  readonly rounds: number
  readonly jqSteps: number
  readonly runSteps: number
  /** Medians in ms. */
  readonly jq1Ms: number
  readonly jqNMs: number
  readonly jqNWithIdsMs: number
  /** (N steps - 1 step) / (N - 1). */
  readonly jqPerStepMs: number
  /** One direct jq-wasm evaluation of the same filter. */
  readonly rawJqPerEvalMs: number
  readonly run1Ms: number
  readonly runNMs: number
  /** N direct Bun.spawn(["true"]) one after another. */
  readonly bunSpawnNMs: number
  /** N direct child_process.spawn("true") one after another. */
  readonly nodeSpawnNMs: number
}

// The benchmarked workflows have no model steps; a model call would be a bug in the benchmark.
const noModel = Layer.succeed(
  LlmSteps,
  LlmSteps.of({
    runPrompt: () => Effect.die("unexpected model call"),
    runAgent: () => Effect.die("unexpected model call")
  })
)
const layer = Layer.mergeAll(
  Engine.layer,
  FileLoader.layer,
  Progress.layerSilent,
  noModel,
  RunContext.layer({ env: process.env })
)

const load = (file: string) => Effect.runPromise(loadWorkflow(file).pipe(Effect.provide(FileLoader.layer)))
const run = (workflow: Workflow, initial: Json) =>
  Effect.runPromise(
    Engine.use((engine) => engine.run(workflow, initial, {})).pipe(
      Effect.map((result) => result.output),
      Effect.provide(layer)
    )
  )

const repeat = (n: number, step: string) => Array.from({ length: n }, () => step).join("")

export const runEngineBench = async (options: EngineOptions): Promise<EngineFigures> => {
  const rounds = options.rounds
  const jqSteps = options.jqSteps ?? 200
  const runSteps = options.runSteps ?? 50
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-engine-"))
  const writeWorkflow = (name: string, steps: string): string => {
    const file = path.join(dir, name)
    fs.writeFileSync(file, `steps:\n${steps}`)
    return file
  }
  /** Median wall time in ms of `fn` over `rounds` rounds, after one warm-up. */
  const median = async (fn: () => Promise<unknown>): Promise<number> => {
    await fn()
    const times: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      const start = performance.now()
      await fn()
      times.push(performance.now() - start)
    }
    times.sort((a, b) => a - b)
    return times[Math.floor(times.length / 2)]!
  }
  const expectOutput = (what: string, expected: Json) => async (output: Promise<Json>) => {
    const actual = await output
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      throw new Error(`${what}: output ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`)
    }
  }
  try {
    const jq1 = await load(writeWorkflow("jq1.yml", repeat(1, "  - jq: '. + 1'\n")))
    const jqN = await load(writeWorkflow("jqN.yml", repeat(jqSteps, "  - jq: '. + 1'\n")))
    const jqNids = await load(
      writeWorkflow("jqNids.yml", Array.from({ length: jqSteps }, (_, i) => `  - id: s${i}\n    jq: '. + 1'\n`).join(""))
    )
    const run1 = await load(writeWorkflow("run1.yml", "  - run: ['true']\n"))
    const runN = await load(writeWorkflow("runN.yml", repeat(runSteps, "  - run: ['true']\n")))

    const jq = await loadJqWasm()
    const rawJq = await median(async () => {
      let value = 0
      for (let i = 0; i < jqSteps; i++) value = jq.json<number>(value, ". + 1")[0]!
      if (value !== jqSteps) throw new Error(`raw jq-wasm: ${value}, expected ${jqSteps}`)
    })
    const jq1Ms = await median(() => expectOutput("1 jq step", 1)(run(jq1, 0)))
    const jqNMs = await median(() => expectOutput(`${jqSteps} jq steps`, jqSteps)(run(jqN, 0)))
    const jqNWithIdsMs = await median(() => expectOutput(`${jqSteps} jq steps with ids`, jqSteps)(run(jqNids, 0)))

    const bunSpawnNMs = await median(async () => {
      for (let i = 0; i < runSteps; i++) {
        const child = Bun.spawn(["true"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" })
        await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
        if (child.exitCode !== 0) throw new Error(`Bun.spawn(true) exited with ${child.exitCode}`)
      }
    })
    const nodeSpawnNMs = await median(async () => {
      for (let i = 0; i < runSteps; i++) {
        await new Promise<void>((done, fail) => {
          const child = spawn("true", [], { stdio: ["pipe", "pipe", "pipe"] })
          child.stdin.end()
          child.stdout.resume()
          child.stderr.resume()
          child.once("error", fail)
          child.once("close", (code) => (code === 0 ? done() : fail(new Error(`child_process true exited with ${code}`))))
        })
      }
    })
    // A run step's output is the command's stdout: empty for `true`.
    const run1Ms = await median(() => expectOutput("1 run step", "")(run(run1, "")))
    const runNMs = await median(() => expectOutput(`${runSteps} run steps`, "")(run(runN, "")))
    return {
      rounds,
      jqSteps,
      runSteps,
      jq1Ms,
      jqNMs,
      jqNWithIdsMs,
      jqPerStepMs: (jqNMs - jq1Ms) / (jqSteps - 1),
      rawJqPerEvalMs: rawJq / jqSteps,
      run1Ms,
      runNMs,
      bunSpawnNMs,
      nodeSpawnNMs
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const { flag } = await import("../util.ts")
  const f = await runEngineBench({ rounds: Number(flag("--rounds") ?? 7) })
  const fmt = (ms: number) => `${ms.toFixed(3)} ms`
  const n = f.jqSteps
  const m = f.runSteps
  const lines = [
    `engine per-step overhead (median of ${f.rounds} rounds, ${os.cpus().length} CPUs, Bun ${Bun.version})`,
    "",
    "jq steps",
    `  workflow, 1 step          ${fmt(f.jq1Ms)}`,
    `  workflow, ${n} steps       ${fmt(f.jqNMs)}`,
    `  per jq step               ${fmt(f.jqPerStepMs)}   ((${n} steps - 1 step) / ${n - 1})`,
    `  raw jq-wasm evaluation    ${fmt(f.rawJqPerEvalMs)}   (same filter, ${n} direct calls / ${n})`,
    `  ratio step / raw eval     ${(f.jqPerStepMs / f.rawJqPerEvalMs).toFixed(2)}x`,
    `  ${n} steps, each with an id ${fmt(f.jqNWithIdsMs)}   ($steps grows to ${n} entries, passed to every evaluation)`,
    `  per step with ids         ${fmt((f.jqNWithIdsMs - f.jq1Ms) / (n - 1))}`,
    "",
    "run steps",
    `  workflow, 1 step          ${fmt(f.run1Ms)}`,
    `  workflow, ${m} steps        ${fmt(f.runNMs)}`,
    `  ${m} direct Bun.spawn(true) ${fmt(f.bunSpawnNMs)}`,
    `  ${m} direct child_process.spawn(true) ${fmt(f.nodeSpawnNMs)}   (what run steps use, for Deno)`,
    `  per run step              ${fmt((f.runNMs - f.run1Ms) / (m - 1))}`,
    `  per direct spawn          ${fmt(f.bunSpawnNMs / m)}`,
    `  ratio ${m} steps / ${m} spawns ${(f.runNMs / f.bunSpawnNMs).toFixed(2)}x`,
    `  ratio ${m} steps / ${m} child_process spawns ${(f.runNMs / f.nodeSpawnNMs).toFixed(2)}x`,
    `  engine overhead per step  ${fmt((f.runNMs - f.bunSpawnNMs) / m)}   (against Bun.spawn)`
  ]
  process.stdout.write(`${lines.join("\n")}\n`)
}
