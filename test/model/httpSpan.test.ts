// A live request of a traced run carries the trace-propagation headers (b3, traceparent) of a client
// span under the `chat` span, as Effect's HTTP client adds them; that span is made for the headers
// only: the client's own span, which parsed the URL and copied every header into attributes nobody
// reads, is skipped. An untraced run sends no such headers.
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer, Tracer } from "effect"
import { TraceWritten } from "../../src/core/tracing.ts"
import { HttpClient } from "effect/http"
import { ModelHttp } from "../../src/model/ModelHttp.ts"
import { ModelClient } from "../../src/model/ModelClient.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { helloCall } from "../fixtures/modelCall.ts"
import { startOpenAiServer } from "../fixtures/openai-server.ts"

const server = startOpenAiServer({ script: [{ content: "hi", repeat: true }] })
afterAll(() => server.stop())

const call = helloCall(server.baseUrl)

/** One live call under a tracer that keeps every span it makes; the headers the server saw. */
const callTraced = async <R>(
  wrap: (effect: Effect.Effect<unknown, unknown, R>) => Effect.Effect<unknown, unknown, R>,
  traced = true
) => {
  const spans: Array<Tracer.Span> = []
  const keeping = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  const live = ModelClient.layerLive({ attempts: 1 }).pipe(Layer.provide(ModelHttp.layer))
  const before = server.requests.length
  await Effect.runPromise(
    wrap(ModelClient.use((m) => m.complete(call)) as Effect.Effect<unknown, unknown, R>).pipe(
      Effect.provideService(TraceWritten, traced),
      Effect.withTracer(keeping),
      Effect.provide(Layer.mergeAll(live, RunUsage.layer))
    ) as Effect.Effect<unknown, unknown, never>
  )
  expect(server.requests.length).toBe(before + 1)
  return { spans, headers: server.requests.at(-1)!.headers }
}

test("a request carries b3 and traceparent of a client span under the chat span", async () => {
  const { spans, headers } = await callTraced((e) => e)
  const chat = spans.find((s) => s.name === "chat")!
  const client = spans.find((s) => s.kind === "client")!
  expect(client.parent._tag === "Some" && client.parent.value).toBe(chat)
  expect(client.traceId).toBe(chat.traceId)
  expect(headers["b3"]).toBe(`${client.traceId}-${client.spanId}-1-${chat.spanId}`)
  expect(headers["traceparent"]).toBe(`00-${client.traceId.padStart(32, "0")}-${client.spanId}-01`)
})

test("no propagation headers when the run's trace goes nowhere", async () => {
  const untraced = await callTraced((e) => e, false)
  expect([untraced.headers["b3"], untraced.headers["traceparent"]]).toEqual([undefined, undefined])
  expect(untraced.spans.filter((s) => s.kind === "client")).toEqual([])
})

test("no propagation headers where propagation is off, as with the HTTP client's own span", async () => {
  const off = await callTraced((e) => Effect.provideService(e, HttpClient.TracerPropagationEnabled, false))
  expect([off.headers["b3"], off.headers["traceparent"]]).toEqual([undefined, undefined])
  const disabled = await callTraced((e) => Effect.provideService(e, HttpClient.TracerDisabledWhen, () => true))
  expect([disabled.headers["b3"], disabled.headers["traceparent"]]).toEqual([undefined, undefined])
  expect(disabled.spans.filter((s) => s.kind === "client")).toEqual([])
})

test("the client span is made for the headers only: no URL or header attributes, one per request", async () => {
  const { spans } = await callTraced((e) => e)
  const clients = spans.filter((s) => s.kind === "client")
  expect(clients).toHaveLength(1)
  expect([...clients[0]!.attributes.keys()]).toEqual([])
})
