// The run's collector as an Effect Tracer: trace spans are ordinary Effect spans (src/core/tracing.ts),
// recorded only by the RunTracer provided around the run that made them.
import { afterEach, describe, expect, test } from "bun:test"
import { Effect, Layer, Redacted, Tracer } from "effect"
import { ModelHttp } from "../../src/model/ModelHttp.ts"
import { stepSpan, traceSpan, workflowSpan } from "../../src/core/tracing.ts"
import { ModelClient } from "../../src/model/ModelClient.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { type RecordedEvent, RunTracer } from "../../src/trace/RunTracer.ts"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"

let server: OpenAiServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

/** `effect` as one run: its own RunTracer (`local`, as the runners do); returns what that run recorded. */
const asRun = <E>(effect: Effect.Effect<unknown, E>): Effect.Effect<ReadonlyArray<RecordedEvent>, E> =>
  Effect.gen(function*() {
    yield* effect
    return yield* (yield* RunTracer).all
  }).pipe(Effect.provide(RunTracer.layer, { local: true }))

const chat = (label: string) => traceSpan({ operation: "chat", label }, Effect.void)

const parentLabel = (all: ReadonlyArray<RecordedEvent>, e: RecordedEvent) =>
  all.find((p) => p.span_id === e.parent_span_id)?.label ?? null

describe("the run's Tracer", () => {
  test("trace spans are recorded with their Effect span ids; other spans only link them", async () => {
    let stepSpanId = ""
    const helper = Effect.fn("helper")(function*() {
      yield* chat("s")
    })
    const all = await Effect.runPromise(asRun(
      stepSpan(
        "s",
        "prompt",
        Effect.gen(function*() {
          stepSpanId = (yield* Effect.currentSpan).spanId
          yield* helper()
        }).pipe(Effect.withSpan("not part of the trace"))
      )
    ))
    expect(all.map((e) => [e.operation, e.label])).toEqual([["chat", "s"], ["step", "s"]])
    const step = all[1]!
    expect(all[0]!.parent_span_id).toBe(step.span_id)
    // The step's span is the parent of the plain span around its body.
    expect(stepSpanId).not.toBe(step.span_id)
    expect(step.span_id).toMatch(/^[0-9a-f]{16}$/)
  })

  test("spans made outside the run are not recorded, and are never a parent", async () => {
    const all = await Effect.runPromise(
      Effect.gen(function*() {
        yield* chat("before")
        return yield* asRun(chat("inside"))
      }).pipe((outer) => workflowSpan({ path: "/outer.yml" }, outer))
    )
    expect(all.map((e) => [e.label, e.parent_span_id])).toEqual([["inside", null]])
  })

  test("a run inside another run: each records only its own spans", async () => {
    let inner: ReadonlyArray<RecordedEvent> = []
    const outer = await Effect.runPromise(asRun(
      stepSpan(
        "outer step",
        "workflow",
        Effect.gen(function*() {
          inner = yield* asRun(stepSpan("inner step", "prompt", chat("inner")))
          yield* chat("outer")
        })
      )
    ))
    expect(outer.map((e) => e.label)).toEqual(["outer", "outer step"])
    expect(inner.map((e) => e.label)).toEqual(["inner", "inner step"])
    expect(parentLabel(inner, inner[0]!)).toBe("inner step")
    expect(inner[1]!.parent_span_id).toBeNull()
  })

  test("concurrent runs never mix their events", async () => {
    const oneRun = (name: string) =>
      asRun(
        workflowSpan(
          { name, path: `/${name}.yml` },
          Effect.forEach(
            [1, 2, 3],
            (i) => stepSpan(`${name}-${i}`, "prompt", Effect.sleep(`${(i * 7) % 5} millis`).pipe(Effect.andThen(chat(name)))),
            { concurrency: "unbounded" }
          )
        )
      )
    const runs = await Effect.runPromise(Effect.all(["a", "b", "c"].map(oneRun), { concurrency: "unbounded" }))
    runs.forEach((all, i) => {
      const name = ["a", "b", "c"][i]!
      expect(all).toHaveLength(7)
      expect(all.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6])
      for (const e of all) expect(e.label.startsWith(name)).toBe(true)
      for (const e of all.filter((e) => e.operation === "chat")) expect(parentLabel(all, e)).toMatch(new RegExp(`^${name}-`))
    })
  })

  test("RunTracer.layer installs the collector as the Tracer of what it is provided to", async () => {
    const [installed, collector] = await Effect.runPromise(
      Effect.all([Effect.tracer, Effect.map(RunTracer, (t) => t.tracer)]).pipe(Effect.provide(RunTracer.layer))
    )
    expect(installed).toBe(collector)
    expect(await Effect.runPromise(Effect.tracer)).toBe(Tracer.nativeTracer)
  })
})

describe("the model client's chat span", () => {
  test("a model call needs no RunTracer: outside a run it makes no span at all", async () => {
    server = startOpenAiServer({ script: [{ content: "ok" }] })
    const live = ModelClient.layerLive({ attempts: 1, backoff: "1 millis" }).pipe(Layer.provide(ModelHttp.layer))
    const endpoint = {
      baseUrl: server.baseUrl,
      modelId: "fixture-model",
      api: "chat_completions" as const,
      apiKey: Effect.succeed(Redacted.make("sk-test-key-123456"))
    }
    const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [], response_format: null }
    const result = await Effect.runPromise(
      ModelClient.use((client) => client.complete({ label: "plain", endpoints: [endpoint], request })).pipe(
        Effect.provide(Layer.mergeAll(live, RunUsage.layer))
      )
    )
    expect(result.content).toBe("ok")
  })
})

describe("spans nobody records", () => {
  const inner = Effect.map(Effect.option(Effect.currentSpan), (span) => span._tag === "Some" ? span.value.name : "none")

  test("under Effect's own tracer a trace span is not made: the effect runs as it is", async () => {
    expect(await Effect.runPromise(traceSpan({ operation: "chat", label: "x" }, inner))).toBe("none")
  })

  test("under a run's collector, or any tracer of its own, it is", async () => {
    const seen: Array<string> = []
    const tracer = Tracer.make({ span: (options) => (seen.push(options.name), new Tracer.NativeSpan(options)) })
    const traced = traceSpan({ operation: "chat", label: "x" }, inner)
    expect(await Effect.runPromise(Effect.withTracer(traced, tracer))).toBe("chat")
    expect(seen).toEqual(["chat"])
    let named = ""
    const all = await Effect.runPromise(asRun(Effect.map(traced, (name) => void (named = name))))
    expect(named).toBe("chat")
    expect(all.map((e) => e.operation)).toEqual(["chat"])
  })
})
