// The live client sends a whole (not streamed) request without Effect's HTTP client (src/model/Live.ts,
// fetchCapped.ts): on the wire it must be the request that client sent for it — the same method,
// path, header names and values (the trace-propagation headers in the same form), and the same body
// bytes — and a streamed request, which still goes through the client, must keep its own.
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { chatBody } from "../../src/model/Live.ts"
import { ModelClient } from "../../src/model/ModelClient.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { StreamSink } from "../../src/model/streamSink.ts"
import { helloCall } from "../fixtures/modelCall.ts"

interface Seen {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string
}

const seen: Array<Seen> = []
const completion = JSON.stringify({ choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] })
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    seen.push({
      method: request.method,
      path: new URL(request.url).pathname,
      headers: Object.fromEntries(request.headers.entries()),
      body: await request.text()
    })
    const streamed = (JSON.parse(seen.at(-1)!.body) as { stream?: boolean }).stream === true
    return streamed
      ? new Response(
        'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
        { headers: { "content-type": "text/event-stream" } }
      )
      : new Response(completion, { headers: { "content-type": "application/json" } })
  }
})
afterAll(() => server.stop(true))

const baseUrl = `http://127.0.0.1:${server.port}/v1`
const call = {
  ...helloCall(baseUrl),
  request: {
    messages: [{ role: "user" as const, content: "héllo \u2028 \"quoted\"" }],
    tools: [],
    response_format: null,
    temperature: 0.5,
    max_tokens: 12
  }
}

const live = Layer.mergeAll(ModelClient.layerLive({ attempts: 1 }), RunUsage.layer)

/** What the live client sent for `call`. */
const sentByLive = async (streamed: boolean): Promise<Seen> => {
  const before = seen.length
  const complete = ModelClient.use((m) => m.complete(call))
  await Effect.runPromise(
    (streamed ? Effect.provideService(complete, StreamSink, () => Effect.void) : complete).pipe(
      Effect.provide(live)
    )
  )
  expect(seen.length).toBe(before + 1)
  return seen.at(-1)!
}

/** What Effect's HTTP client sends for the same request, built as the live client used to build it. */
const sentByClient = async (body: unknown): Promise<Seen> => {
  const before = seen.length
  await Effect.runPromise(
    HttpClient.HttpClient.use((http) =>
      http.execute(
        HttpClientRequest.post(`${baseUrl}/chat/completions`).pipe(
          HttpClientRequest.setHeader("authorization", "Bearer sk-test"),
          HttpClientRequest.bodyJsonUnsafe(body)
        )
      )
    ).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped)
  )
  expect(seen.length).toBe(before + 1)
  return seen.at(-1)!
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/
const B3 = /^[0-9a-f]{32}-[0-9a-f]{16}-[01](-[0-9a-f]{16})?$/

test("a whole request is, byte for byte, what Effect's HTTP client sent for it", async () => {
  const ours = await sentByLive(false)
  const theirs = await sentByClient(chatBody("fixture-model", call.request))
  expect(ours.method).toBe(theirs.method)
  expect(ours.path).toBe(theirs.path)
  expect(ours.body).toBe(theirs.body)
  // Both carry the propagation headers of a span of their own, in the same form.
  const { b3, traceparent, ...rest } = ours.headers
  const { b3: theirB3, traceparent: theirTraceparent, ...theirRest } = theirs.headers
  expect(rest).toEqual(theirRest)
  for (const value of [b3, theirB3]) expect(value).toMatch(B3)
  for (const value of [traceparent, theirTraceparent]) expect(value).toMatch(TRACEPARENT)
  expect(rest["content-type"]).toBe("application/json")
  expect(rest["authorization"]).toBe("Bearer sk-test")
})

test("a streamed request still goes through the client, with the same headers and its stream fields", async () => {
  const ours = await sentByLive(true)
  const theirs = await sentByClient({
    ...chatBody("fixture-model", call.request),
    stream: true,
    stream_options: { include_usage: true }
  })
  expect(ours.body).toBe(theirs.body)
  const { b3, traceparent, ...rest } = ours.headers
  const { b3: _b3, traceparent: _traceparent, ...theirRest } = theirs.headers
  expect(rest).toEqual(theirRest)
  expect(b3).toMatch(B3)
  expect(traceparent).toMatch(TRACEPARENT)
})
