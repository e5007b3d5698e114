// jq-wasm (a large wasm module, and a worker thread) is loaded only when some filter needs it: a
// workflow whose filters are all native is loaded, warmed and run without it; one filter outside the
// subset (or a syntax error, which only jq can word) loads it as before. Each case in a fresh process.
import { expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const repoRoot = path.resolve(import.meta.dir, "../..")
const src = (file: string) => JSON.stringify(path.join(repoRoot, "src", file))

interface Outcome {
  readonly loaded: string
  readonly compiledAfterLoad: number
  readonly workersAfterWarm: number
  readonly value: unknown
  readonly compiled: number
  readonly workers: number
}

const loadAndRun = (workflow: string, evaluate: { filter: string; input: unknown }): Outcome => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-jq-native-load-"))
  try {
    const file = path.join(dir, "wf.yml")
    fs.writeFileSync(file, workflow)
    const script = `
      let compiled = 0
      const W = WebAssembly
      for (const name of ["compile", "instantiate", "compileStreaming", "instantiateStreaming"]) {
        const original = W[name]
        W[name] = (...args) => (compiled++, original.apply(W, args))
      }
      const { Effect, Exit } = await import("effect")
      const { renderChain } = await import(${src("core/errors.ts")})
      const { FileLoader } = await import(${src("platform/FileLoader.ts")})
      const { loadWorkflow } = await import(${src("lang/load.ts")})
      const { evalJqOne, warmJqWorker } = await import(${src("lang/jq.ts")})
      const { jqEngineState } = await import(${src("lang/jqRunner.ts")})
      const exit = await Effect.runPromiseExit(loadWorkflow(${JSON.stringify(file)}).pipe(Effect.provide(FileLoader.layer)))
      const loaded = Exit.isSuccess(exit) ? "ok" : renderChain(exit.cause.reasons.find((r) => r._tag === "Fail").error)
      const compiledAfterLoad = compiled
      await Effect.runPromise(warmJqWorker)
      const workersAfterWarm = jqEngineState().workersStarted
      const vars = { steps: {}, inputs: {}, loop: null }
      const value = await Effect.runPromise(evalJqOne(${JSON.stringify(evaluate.filter)}, ${
      JSON.stringify(evaluate.input)
    }, vars, "filter"))
      console.log(JSON.stringify({ loaded, compiledAfterLoad, workersAfterWarm, value, compiled, workers: jqEngineState().workersStarted }))
      process.exit(0)
    `
    const r = Bun.spawnSync([process.execPath, "-e", script], { cwd: repoRoot, stderr: "pipe" })
    expect(r.stderr.toString()).toBe("")
    return JSON.parse(r.stdout.toString()) as Outcome
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const NATIVE = `steps:
  - id: n
    jq: '{n: (.n + 1), big: (if .n > 3 then "big" else "small" end)}'
  - when: '$steps.n.big == "big"'
    jq: '"\\\\(.n)-\\\\($steps.n.big)" | ascii_upcase'
`

test("a workflow whose filters are all native never loads jq-wasm nor starts its worker", () => {
  expect(loadAndRun(NATIVE, { filter: "{n: (.n + 1)}", input: { n: 41 } })).toEqual({
    loaded: "ok",
    compiledAfterLoad: 0,
    workersAfterWarm: 0,
    value: { n: 42 },
    compiled: 0,
    workers: 0
  })
}, 30_000)

test("a filter the native evaluator hands over (here: jq spells 1e-7 as 1E-7) loads it then", () => {
  const outcome = loadAndRun(NATIVE, { filter: ".n | tostring", input: { n: 1e-7 } })
  expect(outcome).toMatchObject({ loaded: "ok", compiledAfterLoad: 0, workersAfterWarm: 0, value: "1E-7", workers: 1 })
  expect(outcome.compiled).toBeGreaterThan(0)
}, 30_000)

test("one filter outside the subset loads jq-wasm to check it, and the worker is warmed", () => {
  const workflow = `${NATIVE}  - jq: 'def twice: . * 2; .n | twice'\n`
  const outcome = loadAndRun(workflow, { filter: ".n * 2", input: { n: 21 } })
  expect(outcome).toMatchObject({ loaded: "ok", workersAfterWarm: 1, value: 42, workers: 1 })
  expect(outcome.compiledAfterLoad).toBeGreaterThan(0)
}, 30_000)

test("a syntax error is still jq's own message, after loading jq-wasm on the way", () => {
  const outcome = loadAndRun(`${NATIVE}  - jq: '.n +'\n`, { filter: ".n", input: { n: 1 } })
  expect(outcome.loaded).toContain("failed to parse jq filter \".n +\": syntax error, unexpected end of file")
  expect(outcome.compiledAfterLoad).toBeGreaterThan(0)
}, 30_000)
