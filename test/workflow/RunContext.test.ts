// A run reads its environment, registry and config from the RunContext it is given, never from
// process.env or from whatever LaitConfig happens to be around it.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import { renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import type { Json } from "../../src/core/json.ts"
import { loadWorkflow } from "../../src/lang/load.ts"
import { dryRunPlan } from "../../src/workflow/dryrun.ts"
import { Engine } from "../../src/workflow/Engine.ts"
import { Progress } from "../../src/workflow/progress.ts"
import { RunContext } from "../../src/workflow/RunContext.ts"
import { makeDir, noModelSteps, writeFile } from "./engine/harness.ts"

const dir = makeDir("runctx")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const run = (file: string, context: Layer.Layer<RunContext>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const workflow = yield* loadWorkflow(file)
      return (yield* (yield* Engine).run(workflow, null, {})).output
    }).pipe(
      Effect.catch((e) => Effect.succeed(`error: ${renderChain(e)}` as Json)),
      Effect.provide(Layer.mergeAll(Engine.layer, FileLoader.layer, Progress.layerSilent, noModelSteps, context))
    )
  )

const plan = (file: string, context: Layer.Layer<RunContext>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const workflow = yield* loadWorkflow(file)
      return yield* dryRunPlan(workflow, {}, null)
    }).pipe(Effect.provide(Layer.mergeAll(FileLoader.layer, context)))
  )

describe("RunContext", () => {
  test("`${VAR}` in run: env is read from the RunContext's environment, not process.env", async () => {
    const file = writeFile(dir, "steps:\n  - id: e\n    run: [env]\n    env:\n      A: '${LAIT_RUNCTX_VAR}'\n")
    process.env["LAIT_RUNCTX_VAR"] = "from-process"
    try {
      expect(await run(file, RunContext.layer({ env: { LAIT_RUNCTX_VAR: "from-context" } }))).toBe("A=from-context")
      expect(await run(file, RunContext.layer({ env: {} }))).toBe(
        "error: step 'e': 'env': environment variable 'LAIT_RUNCTX_VAR' referenced by '${LAIT_RUNCTX_VAR}' is not set"
      )
    } finally {
      delete process.env["LAIT_RUNCTX_VAR"]
    }
  })

  test("layerConfig takes the environment and the workflows: registry from the config", async () => {
    writeFile(dir, "steps:\n  - jq: '\"child ran\"'\n", "registered.yml")
    const file = writeFile(dir, "steps:\n  - run: [env]\n    env:\n      B: '${B}'\n  - workflow: reg\n")
    const config = LaitConfig.layerTest({ workflows: { reg: path.join(dir, "registered.yml") } }, { env: { B: "b" } })
    expect(await run(file, RunContext.layerConfig().pipe(Layer.provide(config)))).toBe("child ran")
    const envOnly = writeFile(dir, "steps:\n  - run: [env]\n    env:\n      B: '${B}'\n")
    expect(await run(envOnly, RunContext.layerConfig().pipe(Layer.provide(config)))).toBe("B=b")
    // Without a config there is no registry, whatever the environment holds.
    expect(await run(file, RunContext.layer({ env: { B: "b" } }))).toStartWith(
      "error: step 'step-2 (workflow)': workflow 'reg' is not registered under 'workflows:'"
    )
  })

  test("the dry run resolves endpoints through the RunContext's config, and shows the bare model without one", async () => {
    const file = writeFile(dir, "steps:\n  - id: ask\n    prompt: 'hi'\n    model: m1\n")
    const config = LaitConfig.layerTest({}, { env: { OPENAI_BASE_URL: "http://runctx.invalid/v1" } })
    const withConfig = await plan(file, RunContext.layerConfig().pipe(Layer.provide(config)))
    expect(withConfig.some((line) => line.includes("model: m1 @ http://runctx.invalid/v1"))).toBe(true)
    const bare = await plan(file, RunContext.layer({ env: { OPENAI_BASE_URL: "http://runctx.invalid/v1" } }))
    expect(bare.some((line) => line.trim() === "model: m1")).toBe(true)
  })

  test("cwd: run steps start there, write and a relative run cwd resolve there; child paths stay file-relative", async () => {
    const a = makeDir("runctx-a")
    const b = makeDir("runctx-b")
    fs.mkdirSync(path.join(a, "sub"))
    fs.mkdirSync(path.join(b, "sub"))
    writeFile(dir, "steps:\n  - run: [pwd]\n", "child-pwd.yml")
    const file = writeFile(
      dir,
      [
        "steps:",
        "  - run: [pwd]",
        "  - write: out.txt",
        "  - run: [pwd]",
        "    cwd: sub",
        "  - write: sub/where.txt",
        "  - workflow: child-pwd.yml",
        ""
      ].join("\n")
    )
    // Two runs at once with different directories: nothing is process-wide.
    const [inA, inB] = await Promise.all([
      run(file, RunContext.layer({ env: process.env, cwd: a })),
      run(file, RunContext.layer({ env: process.env, cwd: b }))
    ])
    expect([inA, inB]).toEqual([fs.realpathSync(a), fs.realpathSync(b)])
    for (const d of [a, b]) {
      expect(fs.readFileSync(path.join(d, "out.txt"), "utf8")).toBe(fs.realpathSync(d))
      expect(fs.readFileSync(path.join(d, "sub/where.txt"), "utf8")).toBe(path.join(fs.realpathSync(d), "sub"))
    }
    // Nothing landed in the process's own directory.
    expect(fs.existsSync(path.join(process.cwd(), "out.txt"))).toBe(false)
    // Without a cwd, the process's directory as before.
    const plain = writeFile(dir, "steps:\n  - run: [pwd]\n")
    expect(await run(plain, RunContext.layer({ env: process.env }))).toBe(process.cwd())
  })
})
