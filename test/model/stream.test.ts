// Streamed completions (a StreamSink provided) through the model client's layers, against the fixture
// server's event streams: text reaches the sink in pieces as it arrives, and the call still returns
// the assembled answer, which is what a cassette or the cache keeps and replays.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Fiber, Layer, Redacted } from "effect"
import { ModelHttp } from "../../src/model/ModelHttp.ts"
import { renderChain } from "../../src/core/errors.ts"
import { type Endpoint, type ModelCall, ModelClient } from "../../src/model/ModelClient.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { type StreamDelta, StreamSink, UsageWanted } from "../../src/model/streamSink.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { RunTracer } from "../../src/trace/RunTracer.ts"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"

let dir = ""
let server: OpenAiServer
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-stream-"))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
afterEach(async () => {
  await server?.stop()
})

const endpoint = (baseUrl: string): Endpoint => ({
  baseUrl,
  modelId: "fixture-model",
  api: "chat_completions",
  apiKey: Effect.succeed(Redacted.make("sk-test"))
})
const call = (baseUrl: string, content = "hello"): ModelCall => ({
  label: "chat",
  endpoints: [endpoint(baseUrl)],
  request: { messages: [{ role: "user", content }], tools: [], response_format: null }
})

const live = (maxResponseBytes?: number) =>
  ModelClient.layerLive({ attempts: 2, backoff: "5 millis", ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }) })
    .pipe(Layer.provide(ModelHttp.layer))

/** Runs one call with a sink that collects what it is handed. */
const streamed = async (layer: Layer.Layer<ModelClient>, c: ModelCall, usageWanted = true) => {
  const deltas: Array<StreamDelta> = []
  const exit = await Effect.runPromiseExit(
    Effect.gen(function*() {
      const usage = yield* RunUsage
      const result = yield* ModelClient.use((m) => m.complete(c))
      return { result, usage: yield* usage.entries }
    }).pipe(
      Effect.provideService(StreamSink, (d) => Effect.sync(() => void deltas.push(d))),
      Effect.provideService(UsageWanted, usageWanted),
      Effect.provide(Layer.mergeAll(layer, RunUsage.layer, RunTracer.layer))
    )
  )
  return { exit, deltas, text: deltas.filter((d) => d._tag === "Content").map((d) => d.text).join("") }
}

const ok = <A>(exit: Exit.Exit<A, unknown>): A => {
  if (Exit.isFailure(exit)) throw new Error(`unexpected failure: ${String(exit.cause)}`)
  return exit.value
}
const failure = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected failure")
  const reason = exit.cause.reasons[0]
  return reason?._tag === "Fail" ? renderChain(reason.error) : String(exit.cause)
}

describe("streamed completions", () => {
  test("asks with stream and include_usage, hands over the text in pieces, returns the assembled answer", async () => {
    server = startOpenAiServer({
      script: [{
        content: "The quick brown fox",
        reasoning: "let me think",
        tool_calls: [{ id: "call_1", name: "lookup", arguments: "{\"q\":\"fox\"}" }],
        usage: { prompt_tokens: 9, completion_tokens: 4 }
      }]
    })
    const { exit, deltas, text } = await streamed(live(), call(server.baseUrl))
    const { result, usage } = ok(exit)
    const body = server.requests[0]!.body as Record<string, unknown>
    expect(body["stream"]).toBe(true)
    expect(body["stream_options"]).toEqual({ include_usage: true })
    expect(deltas.filter((d) => d._tag === "Content").length).toBe(4)
    expect(text).toBe("The quick brown fox")
    expect(deltas.filter((d) => d._tag === "Reasoning").map((d) => d.text).join("")).toBe("let me think")
    expect(result.content).toBe("The quick brown fox")
    expect(result.reasoning).toBe("let me think")
    expect(result.toolCalls).toEqual([{ id: "call_1", type: "function", function: { name: "lookup", arguments: "{\"q\":\"fox\"}" } }])
    expect(usage).toEqual([{ label: "chat", prompt: 9, completion: 4, total: 13, requests: 1, costUsd: undefined }])
  })

  test("recording stores the assembled completion; replaying it hands the same text over at once", async () => {
    server = startOpenAiServer({ script: [{ content: "streamed then recorded" }] })
    const cassettes = path.join(dir, "rec")
    const record = ModelClient.layerRecord(cassettes).pipe(Layer.provide(live()), Layer.provide(FileLoader.layer))
    ok((await streamed(record, call(server.baseUrl))).exit)
    const [file] = fs.readdirSync(cassettes)
    const response = JSON.parse(fs.readFileSync(path.join(cassettes, file!), "utf8")).response
    expect(response.object).toBe("chat.completion")
    expect(response.choices[0].message.content).toBe("streamed then recorded")
    const replay = ModelClient.layerReplay(cassettes).pipe(Layer.provide(FileLoader.layer))
    const replayed = await streamed(replay, call(server.baseUrl))
    expect(ok(replayed.exit).result.content).toBe("streamed then recorded")
    expect(replayed.text).toBe("streamed then recorded")
    expect(server.requests.length).toBe(1)
  })

  test("a cache hit hands the cached text to the sink", async () => {
    server = startOpenAiServer({ script: [{ content: "cached words", repeat: true }] })
    const cache = ModelClient.layerCache({ dir: path.join(dir, "cache") }).pipe(
      Layer.provide(live()),
      Layer.provide(FileLoader.layer)
    )
    expect((await streamed(cache, call(server.baseUrl, "cache me"))).text).toBe("cached words")
    const hit = await streamed(cache, call(server.baseUrl, "cache me"))
    expect(ok(hit.exit).result.source).toBe("cache")
    expect(hit.text).toBe("cached words")
    expect(server.requests.length).toBe(1)
  })

  test("a server that ignores stream and answers JSON still reaches the sink", async () => {
    server = startOpenAiServer({
      script: [{ body: { choices: [{ message: { role: "assistant", content: "plain json" }, finish_reason: "stop" }] } }]
    })
    const { exit, text } = await streamed(live(), call(server.baseUrl))
    expect(ok(exit).result.content).toBe("plain json")
    expect(text).toBe("plain json")
  })

  test("an error event is the server's report, and text already shown is not retried", async () => {
    server = startOpenAiServer({
      script: [{
        repeat: true,
        sse: [
          "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"partial \"}}]}\n\n",
          "event: error\ndata: {\"error\":{\"message\":\"overloaded mid-stream\"}}\n\n"
        ]
      }]
    })
    const { exit, text } = await streamed(live(), call(server.baseUrl))
    expect(failure(exit)).toContain("reported: overloaded mid-stream")
    expect(text).toBe("partial ")
    expect(server.requests.length).toBe(1)
  })

  test("a connection broken after some text is not retried (the text cannot be taken back); before any, it is", async () => {
    const text = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half an answ\"}}]}\n\n"
    server = startOpenAiServer({
      script: [
        { match: "after", repeat: true, sse: [text], sse_break: true },
        { match: "before", sse: [": ping\n\n"], sse_break: true },
        { match: "before", content: "second try" }
      ]
    })
    const after = await streamed(live(), call(server.baseUrl, "after"))
    expect(failure(after.exit)).toContain(`the stream from '${server.baseUrl}' broke off after ${text.length} bytes: `)
    expect(after.text).toBe("half an answ")
    expect(server.requests.length).toBe(1)
    const before = await streamed(live(), call(server.baseUrl, "before"))
    expect(before.text).toBe("second try")
    expect(server.requests.length).toBe(3)
  })

  test("asks for include_usage only when the usage is wanted (or the endpoint has pricing)", async () => {
    server = startOpenAiServer({ script: [{ content: "a", repeat: true }] })
    const options = () => (server.requests.at(-1)!.body as Record<string, unknown>)["stream_options"]
    const bare = await streamed(live(), call(server.baseUrl), false)
    expect([ok(bare.exit).usage, options()]).toEqual([[], undefined])
    const pricing = { input_per_1m: 1, output_per_1m: 1 }
    const priced: ModelCall = { ...call(server.baseUrl), endpoints: [{ ...endpoint(server.baseUrl), pricing }] }
    const withPricing = await streamed(live(), priced, false)
    expect([ok(withPricing.exit).usage.length, options()]).toEqual([1, { include_usage: true }])
  })

  test("chunks split anywhere, keep-alive comments and a missing [DONE] are fine; bad JSON is not", async () => {
    const data = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"split é\"}}]}\n\n"
    server = startOpenAiServer({
      script: [
        { match: "split", sse: [": ping\n\n", data.slice(0, 20), data.slice(20, 50), data.slice(50)] },
        { match: "broken", sse: ["data: {not json\n\n"] }
      ]
    })
    const split = await streamed(live(), call(server.baseUrl, "split"))
    expect(ok(split.exit).result.content).toBe("split é")
    expect(failure((await streamed(live(), call(server.baseUrl, "broken"))).exit)).toContain("returned invalid JSON")
  })

  test("an endless stream stops at the response limit", async () => {
    const line = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "x".repeat(1000) } }] })}\n\n`
    server = startOpenAiServer({ script: [{ sse: Array.from({ length: 200 }, () => line) }] })
    const { exit } = await streamed(live(50_000), call(server.baseUrl))
    expect(failure(exit)).toContain("exceeds 48.83 KiB")
  })

  test("interrupting the call stops reading at once", async () => {
    server = startOpenAiServer({
      script: [{ content: Array.from({ length: 50 }, (_, i) => `w${i}`).join(" "), chunk_delay_ms: 100 }]
    })
    const deltas: Array<StreamDelta> = []
    await Effect.runPromise(
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(ModelClient.use((m) => m.complete(call(server.baseUrl))))
        while (deltas.length < 2) yield* Effect.sleep("10 millis")
        yield* Fiber.interrupt(fiber)
      }).pipe(
        Effect.provideService(StreamSink, (d) => Effect.sync(() => void deltas.push(d))),
        Effect.provide(Layer.mergeAll(live(), RunUsage.layer, RunTracer.layer))
      )
    )
    const count = deltas.length
    await Bun.sleep(300)
    expect(deltas.length).toBe(count)
    // Read to its end, the stream would have delivered all 50 words before the call returned.
    expect(count).toBeLessThan(5)
  })
})
