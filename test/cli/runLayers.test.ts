// The services of one `lait run` (src/cli/runWorkflow.ts `runLayers`) are built one after the other:
// building them concurrently forked a fiber for each, which cost a short run more than it overlapped.
import { expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { runLayers } from "../../src/cli/runWorkflow.ts"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import { ModelClient } from "../../src/model/ModelClient.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { Engine } from "../../src/workflow/Engine.ts"
import { LlmSteps } from "../../src/workflow/LlmSteps.ts"

test("a run's layers build without forking a fiber, and provide the engine and the model steps", async () => {
  const services = Layer.mergeAll(
    FileLoader.layer,
    LaitConfig.layerTest({}),
    Layer.succeed(ModelClient, ModelClient.of({ complete: () => Effect.die("no model here") }))
  )
  // Fiber ids are handed out in order: a fiber forked after the build tells how many were made during it.
  const nextId = Effect.map(Effect.forkChild(Effect.void), (fiber) => fiber.id)
  const program = Effect.gen(function*() {
    const before = yield* nextId
    const built = yield* Layer.build(runLayers.pipe(Layer.provide(services)))
    const after = yield* nextId
    return { forked: after - before - 1, engine: built.mapUnsafe.has(Engine.key), llm: built.mapUnsafe.has(LlmSteps.key) }
  })
  expect(await Effect.runPromise(Effect.scoped(program))).toEqual({ forked: 0, engine: true, llm: true })
})
