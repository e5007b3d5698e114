// Per-step overhead of the workflow engine, as ratios against baselines measured in the same run:
//   jq:  a workflow of 200 jq steps vs one of 1 step, against jq-wasm evaluating the same filter
//        directly (what a jq step cannot avoid);
//   run: a workflow of 50 `run: [true]` steps vs spawning `true` 50 times directly, with Bun.spawn and
//        with node:child_process (which run steps use so that the sources also run under Deno).
// Progress lines are dropped (Progress.layerSilent) so terminal speed is not measured.
//   bun bench/engine/index.ts [--rounds N]
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { loadJq as loadJqWasm } from "jq-wasm/inline"
import { FileLoader } from "../../src/core/FileLoader.ts"
import type { Json } from "../../src/core/json.ts"
import { runWorkflow } from "../../src/workflow/engine.ts"
import { LlmSteps } from "../../src/workflow/LlmSteps.ts"
import { loadWorkflow } from "../../src/workflow/load.ts"
import { Progress } from "../../src/workflow/progress.ts"
import type { Workflow } from "../../src/workflow/model.ts"

const roundsFlag = process.argv.indexOf("--rounds")
const ROUNDS = roundsFlag >= 0 ? Number(process.argv[roundsFlag + 1]) : 7

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-engine-"))
// The benchmarked workflows have no model steps; a model call would be a bug in the benchmark.
const noModel = Layer.succeed(
  LlmSteps,
  LlmSteps.of({
    runPrompt: () => Effect.die("unexpected model call"),
    runAgent: () => Effect.die("unexpected model call")
  })
)
const layer = Layer.mergeAll(FileLoader.layer, Progress.layerSilent, noModel)

const writeWorkflow = (name: string, steps: string): string => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, `steps:\n${steps}`)
  return file
}
const repeat = (n: number, step: string) => Array.from({ length: n }, () => step).join("")

const load = (file: string) => Effect.runPromise(loadWorkflow(file).pipe(Effect.provide(FileLoader.layer)))
const run = (workflow: Workflow, initial: Json) =>
  Effect.runPromise(runWorkflow(workflow, initial, {}).pipe(Effect.provide(layer)))

/** Median wall time in ms of `fn` over ROUNDS rounds, after one warm-up. */
const median = async (fn: () => Promise<unknown>): Promise<number> => {
  await fn()
  const times: Array<number> = []
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`

const main = async () => {
  const jq1 = await load(writeWorkflow("jq1.yml", repeat(1, "  - jq: '. + 1'\n")))
  const jq200 = await load(writeWorkflow("jq200.yml", repeat(200, "  - jq: '. + 1'\n")))
  const jq200ids = await load(
    writeWorkflow("jq200ids.yml", Array.from({ length: 200 }, (_, i) => `  - id: s${i}\n    jq: '. + 1'\n`).join(""))
  )
  const run1 = await load(writeWorkflow("run1.yml", repeat(1, "  - run: ['true']\n")))
  const run50 = await load(writeWorkflow("run50.yml", repeat(50, "  - run: ['true']\n")))

  const jq = await loadJqWasm()
  const rawJq = await median(async () => {
    let value = 0
    for (let i = 0; i < 200; i++) value = jq.json<number>(value, ". + 1")[0]!
    return value
  })
  const t1 = await median(() => run(jq1, 0))
  const t200 = await median(() => run(jq200, 0))
  const t200ids = await median(() => run(jq200ids, 0))
  const jqPerStep = (t200 - t1) / 199
  const rawPerEval = rawJq / 200

  const spawn50 = await median(async () => {
    for (let i = 0; i < 50; i++) {
      const child = Bun.spawn(["true"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" })
      await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    }
  })
  const nodeSpawn50 = await median(async () => {
    for (let i = 0; i < 50; i++) {
      await new Promise<void>((done, fail) => {
        const child = spawn("true", [], { stdio: ["pipe", "pipe", "pipe"] })
        child.stdin.end()
        child.stdout.resume()
        child.stderr.resume()
        child.once("error", fail)
        child.once("close", () => done())
      })
    }
  })
  const r1 = await median(() => run(run1, ""))
  const r50 = await median(() => run(run50, ""))

  const lines = [
    `engine per-step overhead (median of ${ROUNDS} rounds, ${os.cpus().length} CPUs, Bun ${Bun.version})`,
    "",
    "jq steps",
    `  workflow, 1 step          ${fmt(t1)}`,
    `  workflow, 200 steps       ${fmt(t200)}`,
    `  per jq step               ${fmt(jqPerStep)}   ((200 steps - 1 step) / 199)`,
    `  raw jq-wasm evaluation    ${fmt(rawPerEval)}   (same filter, 200 direct calls / 200)`,
    `  ratio step / raw eval     ${(jqPerStep / rawPerEval).toFixed(2)}x`,
    `  200 steps, each with an id ${fmt(t200ids)}   ($steps grows to 200 entries, passed to every evaluation)`,
    `  per step with ids         ${fmt((t200ids - t1) / 199)}`,
    "",
    "run steps",
    `  workflow, 1 step          ${fmt(r1)}`,
    `  workflow, 50 steps        ${fmt(r50)}`,
    `  50 direct Bun.spawn(true) ${fmt(spawn50)}`,
    `  50 direct child_process.spawn(true) ${fmt(nodeSpawn50)}   (what run steps use, for Deno)`,
    `  per run step              ${fmt((r50 - r1) / 49)}`,
    `  per direct spawn          ${fmt(spawn50 / 50)}`,
    `  ratio 50 steps / 50 spawns ${(r50 / spawn50).toFixed(2)}x`,
    `  ratio 50 steps / 50 child_process spawns ${(r50 / nodeSpawn50).toFixed(2)}x`,
    `  engine overhead per step  ${fmt((r50 - spawn50) / 50)}   (against Bun.spawn)`
  ]
  process.stdout.write(`${lines.join("\n")}\n`)
}

await main().finally(() => fs.rmSync(dir, { recursive: true, force: true }))
