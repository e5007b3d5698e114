// ModelHttp, the one HTTP path of model requests (src/model/ModelHttp.ts): over `fetch` against real
// servers, the request's method, headers and bytes, the byte cap on a whole body and on one read in
// pieces, the timer, the abort on interruption, and the failures worded by describeNetworkFailure; in
// memory (layerTest), the same through the live model client, whole and streamed.
import { afterAll, expect, test } from "bun:test"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import { describeNetworkFailure } from "../../src/core/network.ts"
import { TraceWritten } from "../../src/core/tracing.ts"
import { ModelClient } from "../../src/model/ModelClient.ts"
import {
  type HttpAnswer,
  type HttpFailure,
  type HttpRequest,
  ModelHttp,
  type PieceReader,
  type SendOptions
} from "../../src/model/ModelHttp.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { type DeltaSink, StreamSink } from "../../src/model/streamSink.ts"
import { helloCall } from "../fixtures/modelCall.ts"
import { startOpenAiServer } from "../fixtures/openai-server.ts"

const server = startOpenAiServer({ script: [{ content: "hi", repeat: true }] })

// Answers that the fixture server cannot give: a body of unannounced length, and one that stalls.
let stalled = 0
const odd = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname
    if (path === "/unannounced") {
      // 4 chunks of 1 KiB without a Content-Length.
      let sent = 0
      return new Response(
        new ReadableStream({
          pull(controller) {
            if (sent++ === 4) return controller.close()
            controller.enqueue(new Uint8Array(1024).fill(0x61))
          }
        })
      )
    }
    if (path === "/stall") {
      stalled++
      // The headers at once, then a body that never ends.
      return new Response(new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode("{")) } }))
    }
    if (path === "/gzip") {
      // 4 KiB of text that travels as a few dozen bytes: its announced length is not what it reads as.
      const packed = Bun.gzipSync(new TextEncoder().encode("b".repeat(4096)))
      return new Response(packed, { headers: { "content-encoding": "gzip", "content-length": String(packed.length) } })
    }
    return new Response("x".repeat(100), { headers: { "content-length": "100", "retry-after": "7" }, status: 503 })
  }
})
afterAll(async () => {
  await server.stop()
  odd.stop(true)
})

const post = (url: string, body: unknown): HttpRequest => ({
  method: "POST",
  url,
  headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
  body: new TextEncoder().encode(JSON.stringify(body))
})

/** `request` sent over `fetch` (ModelHttp.layer), read whole under `limit` bytes. */
const send = <A = never>(request: HttpRequest, options: SendOptions<A>): Effect.Effect<HttpAnswer<A>, HttpFailure> =>
  ModelHttp.use((http) => http.send(request, options)).pipe(Effect.provide(ModelHttp.layer))
const sendWhole = (request: HttpRequest, limit: number, timeoutMillis?: number) =>
  send(request, { limit, timeoutMillis })

const failureOf = async (effect: Effect.Effect<unknown, HttpFailure>): Promise<HttpFailure> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  return Cause.squash(exit.cause) as HttpFailure
}

/** A failure as the live client words it: the cause of an Unreachable, else the tag. */
const worded = (failure: HttpFailure) =>
  failure._tag === "Unreachable" ? describeNetworkFailure(failure.cause) : failure._tag

test("sends the request's method, headers and JSON bytes, and reads the whole answer", async () => {
  const before = server.requests.length
  const answer = await Effect.runPromise(
    sendWhole(post(`${server.baseUrl}/chat/completions`, { model: "m", messages: [{ role: "user", content: "héllo" }] }), 1 << 20)
  )
  const seen = server.requests[before]!
  expect(seen.method).toBe("POST")
  expect(seen.path).toBe("/v1/chat/completions")
  expect(seen.headers["authorization"]).toBe("Bearer sk-test")
  expect(seen.headers["content-type"]).toBe("application/json")
  expect(seen.body).toEqual({ model: "m", messages: [{ role: "user", content: "héllo" }] })
  expect(answer.status).toBe(200)
  expect(answer.headers["content-type"]).toStartWith("application/json")
  expect(answer.body._tag).toBe("Body")
  const text = answer.body._tag === "Body" ? answer.body.text : ""
  expect((JSON.parse(text) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("hi")
})

test("an error status comes back as an answer, with its headers", async () => {
  const answer = await Effect.runPromise(sendWhole(post(`${odd.url}status`, {}), 1 << 20))
  expect(answer.status).toBe(503)
  expect(answer.headers["retry-after"]).toBe("7")
  expect(answer.body).toEqual({ _tag: "Body", text: "x".repeat(100) })
})

test("the cap: an announced length over it, and a body that grows past it", async () => {
  expect((await Effect.runPromise(sendWhole(post(`${odd.url}status`, {}), 99))).body).toEqual({ _tag: "TooLarge" })
  expect((await Effect.runPromise(sendWhole(post(`${odd.url}status`, {}), 100))).body._tag).toBe("Body")
  expect((await Effect.runPromise(sendWhole(post(`${odd.url}unannounced`, {}), 4095))).body).toEqual({ _tag: "TooLarge" })
  const whole = await Effect.runPromise(sendWhole(post(`${odd.url}unannounced`, {}), 4096))
  expect(whole.body).toEqual({ _tag: "Body", text: "a".repeat(4096) })
})

test("the cap counts a compressed body as it reads, not as it travels", async () => {
  expect((await Effect.runPromise(sendWhole(post(`${odd.url}gzip`, {}), 4095))).body).toEqual({ _tag: "TooLarge" })
  expect((await Effect.runPromise(sendWhole(post(`${odd.url}gzip`, {}), 4096))).body).toEqual({
    _tag: "Body",
    text: "b".repeat(4096)
  })
})

test("the timer stops a body that stalls, and fails with TimedOut, not a partial answer", async () => {
  const before = stalled
  const failure = await failureOf(sendWhole(post(`${odd.url}stall`, {}), 1 << 20, 100))
  expect(stalled).toBe(before + 1)
  expect(failure).toEqual({ _tag: "TimedOut" })
})

test("an interruption stops the request at once", async () => {
  const exit = await Effect.runPromise(
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(sendWhole(post(`${odd.url}stall`, {}), 1 << 20))
      yield* Effect.sleep("100 millis")
      yield* Fiber.interrupt(fiber)
      return yield* Fiber.await(fiber)
    })
  )
  expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
})

test("what went wrong is worded for the user: an invalid URL, a refused connection", async () => {
  expect(worded(await failureOf(sendWhole(post("http://exa mple.com/v1", {}), 1 << 20)))).toBe("invalid URL")
  // A port nothing listens on: the fixture's, once stopped.
  const closed = startOpenAiServer({ script: [] })
  await closed.stop()
  expect(worded(await failureOf(sendWhole(post(`${closed.baseUrl}/chat/completions`, {}), 1 << 20))))
    .toBe("connection refused")
})

/** Takes every piece (collected into `seen`) and answers their number at the end. */
const counting = (seen: Array<number>): PieceReader<{ readonly _tag: "Pieces"; readonly count: number }> => ({
  piece: (bytes) => Effect.sync(() => (seen.push(bytes.length), true)),
  end: Effect.sync(() => ({ _tag: "Pieces" as const, count: seen.length }))
})

test("a body read in pieces is under the same cap; an answer the reader declines is read whole", async () => {
  const seen: Array<number> = []
  const pieces = (answer: { readonly status: number }) => (answer.status === 200 ? counting(seen) : undefined)
  const all = await Effect.runPromise(send(post(`${odd.url}unannounced`, {}), { limit: 4096, pieces }))
  expect(all.body).toEqual({ _tag: "Pieces", count: seen.length })
  expect(seen.reduce((a, b) => a + b, 0)).toBe(4096)
  expect((await Effect.runPromise(send(post(`${odd.url}unannounced`, {}), { limit: 4095, pieces }))).body)
    .toEqual({ _tag: "TooLarge" })
  const declined = await Effect.runPromise(send(post(`${odd.url}status`, {}), { limit: 1 << 20, pieces }))
  expect(declined.status).toBe(503)
  expect(declined.body).toEqual({ _tag: "Body", text: "x".repeat(100) })
})

test("the timer and an interruption stop a body read in pieces too", async () => {
  const pieces = () => counting([])
  expect(await failureOf(send(post(`${odd.url}stall`, {}), { limit: 1 << 20, timeoutMillis: 100, pieces })))
    .toEqual({ _tag: "TimedOut" })
  const exit = await Effect.runPromise(
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(send(post(`${odd.url}stall`, {}), { limit: 1 << 20, pieces }))
      yield* Effect.sleep("100 millis")
      yield* Fiber.interrupt(fiber)
      return yield* Fiber.await(fiber)
    })
  )
  expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
})

// In memory: what the live model client sends, whole or streamed, is one request shape.
interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string
}
const inMemory = (seen: Array<Seen>) =>
  ModelHttp.layerTest(async (request) => {
    const body = await request.text()
    seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body })
    return (JSON.parse(body) as { stream?: boolean }).stream === true
      ? new Response(
        'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
        { headers: { "content-type": "text/event-stream" } }
      )
      : Response.json({ choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] })
  })

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/
const B3 = /^[0-9a-f]{32}-[0-9a-f]{16}-[01](-[0-9a-f]{16})?$/

test("in memory, the live client's whole and streamed requests carry the same headers; only the body differs", async () => {
  const seen: Array<Seen> = []
  const call = {
    ...helloCall("http://models.test/v1"),
    request: {
      messages: [{ role: "user" as const, content: "héllo \u2028 \"quoted\"" }],
      tools: [],
      response_format: null,
      temperature: 0.5,
      max_tokens: 12
    }
  }
  const layer = Layer.mergeAll(ModelClient.layerLive({ attempts: 1 }).pipe(Layer.provide(inMemory(seen))), RunUsage.layer)
  // A traced run: only then are the propagation headers sent (src/model/tracePropagation.ts).
  const complete = Effect.provideService(ModelClient.use((m) => m.complete(call)), TraceWritten, true)
  const whole = await Effect.runPromise(complete.pipe(Effect.provide(layer)))
  const deltas: Array<string> = []
  const sink: DeltaSink = (delta) => Effect.sync(() => void deltas.push(delta._tag === "Content" ? delta.text : ""))
  const streamed = await Effect.runPromise(
    Effect.provideService(complete, StreamSink, sink).pipe(Effect.provide(layer))
  )
  expect([whole.content, streamed.content]).toEqual(["hi", "hi"])
  expect(deltas.join("")).toBe("hi")
  expect(seen).toHaveLength(2)
  const [a, b] = seen as [Seen, Seen]
  for (const s of seen) {
    expect(s.method).toBe("POST")
    expect(s.url).toBe("http://models.test/v1/chat/completions")
  }
  const { b3, traceparent, ...rest } = a.headers
  const { b3: b3Streamed, traceparent: traceparentStreamed, ...restStreamed } = b.headers
  expect(rest).toEqual(restStreamed)
  expect(rest["authorization"]).toBe("Bearer sk-test")
  expect(rest["content-type"]).toBe("application/json")
  for (const value of [b3, b3Streamed]) expect(value).toMatch(B3)
  for (const value of [traceparent, traceparentStreamed]) expect(value).toMatch(TRACEPARENT)
  const body = {
    model: "fixture-model",
    messages: call.request.messages,
    temperature: 0.5,
    max_completion_tokens: 12
  }
  expect(a.body).toBe(JSON.stringify({ ...body, stream: false }))
  expect(b.body).toBe(JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }))
})

test("in memory, the timer ends a request whose answer never comes", async () => {
  const layer = ModelHttp.layerTest(() => new Promise<Response>(() => {}))
  const failure = await failureOf(
    ModelHttp.use((http) => http.send(post("http://models.test/v1", {}), { limit: 10, timeoutMillis: 50 })).pipe(
      Effect.provide(layer)
    )
  )
  expect(failure).toEqual({ _tag: "TimedOut" })
})
