// Each span costs a stack capture and an allocation per model call (≈ 1 ms of CPU per `lait eval` run
// at -j 32 was spread over such costs): the model client's `complete` opens no span of its own, only
// the `chat` trace span and the HTTP client's.
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer, References, Tracer } from "effect"
import { ModelHttp } from "../../src/model/ModelHttp.ts"
import { ModelClient } from "../../src/model/ModelClient.ts"
import { traceSpan } from "../../src/core/tracing.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { RunTracer } from "../../src/trace/RunTracer.ts"
import { helloCall } from "../fixtures/modelCall.ts"
import { startOpenAiServer } from "../fixtures/openai-server.ts"

const server = startOpenAiServer({ script: [{ content: "hi", repeat: true }] })
afterAll(() => server.stop())

test("a live model call opens no ModelClient span", async () => {
  const names: Array<string> = []
  const counting = Tracer.make({
    span(options) {
      names.push(options.name)
      return new Tracer.NativeSpan(options)
    }
  })
  const call = helloCall(server.baseUrl)
  const live = ModelClient.layerLive({ attempts: 1, backoff: "5 millis" }).pipe(Layer.provide(ModelHttp.layer))
  const result = await Effect.runPromise(
    ModelClient.use((m) => m.complete(call)).pipe(
      Effect.withTracer(counting),
      Effect.provide(Layer.mergeAll(live, RunUsage.layer, RunTracer.layer))
    )
  )
  expect(result.content).toBe("hi")
  expect(names.length).toBeGreaterThan(0)
  expect(names.filter((name) => name.startsWith("ModelClient."))).toEqual([])
})

test("a trace span captures no stack trace (an Error per span; lait never prints span stacks)", async () => {
  const frame = await Effect.runPromise(
    traceSpan({ operation: "chat", label: "m" }, Effect.service(References.CurrentStackFrame)).pipe(
      Effect.provide(RunTracer.layer)
    )
  )
  expect(frame?.name).toBe("chat")
  expect(frame?.stack()).toBeUndefined()
})
