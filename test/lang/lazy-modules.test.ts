// Heavy modules load when a workflow needs them, not when the code that could use them does: a
// `lait run` of a workflow without templates must not evaluate Handlebars, nor one without model
// steps the model steps' code (tool loop, MCP registry, agent files). Each check runs in a fresh
// process, since the test runner shares loaded modules between test files; a runtime plugin records
// every source file loaded.
import { expect, test } from "bun:test"
import * as path from "node:path"
import { runSourceProbe } from "../fixtures/sourceProbe.ts"

const repo = path.resolve(import.meta.dir, "../..")
const src = (file: string) => JSON.stringify(path.join(repo, "src", file))

/** Loads `workflow` and runs it through the engine with the real model-step layer; what was loaded. */
const loadedBy = (workflow: string): { readonly sources: Array<string>; readonly packages: Array<string> } =>
  runSourceProbe(/\/src\/.*\.ts$/, (dir) =>
    `const { Effect, Layer } = await import(${JSON.stringify(Bun.resolveSync("effect", repo))})
const { loadWorkflow } = await import(${src("lang/load.ts")})
const { Engine } = await import(${src("workflow/Engine.ts")})
const { LlmSteps } = await import(${src("workflow/LlmSteps.ts")})
const { FileLoader } = await import(${src("platform/FileLoader.ts")})
const { Progress } = await import(${src("workflow/progress.ts")})
const { RunContext } = await import(${src("workflow/RunContext.ts")})
const { LaitConfig } = await import(${src("config/LaitConfig.ts")})
const { ModelClient } = await import(${src("model/ModelClient.ts")})
const { RunUsage } = await import(${src("model/RunUsage.ts")})
const { RunTracer } = await import(${src("trace/RunTracer.ts")})
const file = ${JSON.stringify(path.join(dir, "w.yml"))}
await Bun.write(file, ${JSON.stringify(workflow)})
const services = Layer.mergeAll(
  FileLoader.layer, Progress.layerSilent, RunContext.layer({ env: {} }), LaitConfig.layerTest({}), RunUsage.layer,
  RunTracer.layer, Layer.succeed(ModelClient, ModelClient.of({ complete: () => Effect.die("no model here") }))
)
const program = Effect.gen(function*() {
  const workflow = yield* loadWorkflow(file)
  return yield* (yield* Engine).run(workflow, 1, {})
}).pipe(Effect.provide(Layer.mergeAll(Engine.layer, LlmSteps.layerModel).pipe(Layer.provideMerge(services))))
await Effect.runPromiseExit(program)
const packages = Object.keys(require.cache).flatMap((p) => /\\/node_modules\\/(handlebars|ajv)\\//.exec(p)?.[1] ?? [])
console.log(JSON.stringify({ sources, packages: [...new Set(packages)] }))
`)

test("a workflow without templates never loads Handlebars; one with a template does", () => {
  expect(loadedBy("steps:\n  - jq: '. + 1'\n  - write: out.txt\n").packages).toEqual([])
  expect(loadedBy("steps:\n  - jq: '. + 1'\n  - write: '{{ input }}.txt'\n").packages).toEqual(["handlebars"])
}, 60_000)

test("a workflow without schemas never loads Ajv; one with a schema does", () => {
  expect(loadedBy("steps:\n  - jq: '. + 1'\n").packages).toEqual([])
  expect(loadedBy("input_schema: { type: integer }\nsteps:\n  - jq: '. + 1'\n").packages).toEqual(["ajv"])
}, 60_000)

test("a workflow without prompt or agent steps never loads the model steps; one with a prompt step does", () => {
  expect(loadedBy("steps:\n  - jq: '. + 1'\n").sources).not.toContain("src/workflow/modelSteps.ts")
  expect(loadedBy("steps:\n  - prompt: hi\n").sources).toContain("src/workflow/modelSteps.ts")
}, 60_000)

// Building the model definitions' schemas costs a run time for nothing unless the file has `models:`.
test("a workflow without `models:` never loads the models decoder or the model schemas; one with them does", () => {
  const schemaModules = (workflow: string) =>
    loadedBy(workflow).sources.filter((s) => s === "src/lang/load/models.ts" || s === "src/config/modelSchema.ts").sort()
  expect(schemaModules("steps:\n  - jq: '. + 1'\n")).toEqual([])
  expect(schemaModules("models:\n  m:\n    - { model_id: x, provider: { base_url: 'http://h/v1' } }\nsteps:\n  - jq: '. + 1'\n"))
    .toEqual(["src/config/modelSchema.ts", "src/lang/load/models.ts"])
}, 60_000)
