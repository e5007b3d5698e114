// fetchCapped sends a whole (not streamed) model request without Effect's HTTP client: the same URL
// check, headers and body bytes, the same byte cap on the answer, its own timer, and the failures
// describeNetworkFailure words the way it words the client's. What the live client sends through it
// is compared with what Effect's client sends in test/model/liveWire.test.ts.
import { afterAll, expect, test } from "bun:test"
import { Cause, Effect, Exit, Fiber } from "effect"
import { describeNetworkFailure } from "../../src/core/network.ts"
import { FETCH_TIMED_OUT, fetchCapped, type WholeRequest } from "../../src/model/fetchCapped.ts"
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

const post = (url: string, body: unknown): WholeRequest => ({
  method: "POST",
  url,
  headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
  body: new TextEncoder().encode(JSON.stringify(body))
})

const failureOf = async (effect: Effect.Effect<unknown, unknown>) => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  return Cause.squash(exit.cause)
}

test("sends the request's method, headers and JSON bytes, and reads the whole answer", async () => {
  const before = server.requests.length
  const answer = await Effect.runPromise(
    fetchCapped(post(`${server.baseUrl}/chat/completions`, { model: "m", messages: [{ role: "user", content: "héllo" }] }), 1 << 20)
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
  const answer = await Effect.runPromise(fetchCapped(post(`${odd.url}status`, {}), 1 << 20))
  expect(answer.status).toBe(503)
  expect(answer.headers["retry-after"]).toBe("7")
  expect(answer.body).toEqual({ _tag: "Body", text: "x".repeat(100) })
})

test("the cap: an announced length over it, and a body that grows past it", async () => {
  expect((await Effect.runPromise(fetchCapped(post(`${odd.url}status`, {}), 99))).body).toEqual({ _tag: "TooLarge" })
  expect((await Effect.runPromise(fetchCapped(post(`${odd.url}status`, {}), 100))).body._tag).toBe("Body")
  expect((await Effect.runPromise(fetchCapped(post(`${odd.url}unannounced`, {}), 4095))).body).toEqual({ _tag: "TooLarge" })
  const whole = await Effect.runPromise(fetchCapped(post(`${odd.url}unannounced`, {}), 4096))
  expect(whole.body).toEqual({ _tag: "Body", text: "a".repeat(4096) })
})

test("the cap counts a compressed body as it reads, not as it travels", async () => {
  expect((await Effect.runPromise(fetchCapped(post(`${odd.url}gzip`, {}), 4095))).body).toEqual({ _tag: "TooLarge" })
  expect((await Effect.runPromise(fetchCapped(post(`${odd.url}gzip`, {}), 4096))).body).toEqual({
    _tag: "Body",
    text: "b".repeat(4096)
  })
})

test("the timer stops a body that stalls, and fails with FETCH_TIMED_OUT, not a partial answer", async () => {
  const before = stalled
  const failure = await failureOf(fetchCapped(post(`${odd.url}stall`, {}), 1 << 20, 100))
  expect(stalled).toBe(before + 1)
  expect(failure).toBe(FETCH_TIMED_OUT)
})

test("an interruption stops the request at once", async () => {
  const exit = await Effect.runPromise(
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(fetchCapped(post(`${odd.url}stall`, {}), 1 << 20))
      yield* Effect.sleep("100 millis")
      yield* Fiber.interrupt(fiber)
      return yield* Fiber.await(fiber)
    })
  )
  expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
})

test("what went wrong is worded as for the HTTP client: an invalid URL, a refused connection", async () => {
  expect(describeNetworkFailure(await failureOf(fetchCapped(post("http://exa mple.com/v1", {}), 1 << 20)))).toBe(
    "invalid URL"
  )
  // A port nothing listens on: the fixture's, once stopped.
  const closed = startOpenAiServer({ script: [] })
  await closed.stop()
  expect(describeNetworkFailure(await failureOf(fetchCapped(post(`${closed.baseUrl}/chat/completions`, {}), 1 << 20))))
    .toBe("connection refused")
})
