// The `chat` events the ModelClient layers record, against the fixture OpenAI server on 127.0.0.1.
import { afterAll, afterEach, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer, Redacted } from "effect"
import { ModelHttp } from "../../src/model/ModelHttp.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { type Endpoint, type ModelCall, ModelClient } from "../../src/model/ModelClient.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { chatAttributes } from "../../src/trace/chat.ts"
import { type RecordedEvent, RunTracer } from "../../src/trace/RunTracer.ts"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-trace-chat-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
let server: OpenAiServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const endpoint = (baseUrl: string, modelId = "fixture-model"): Endpoint => ({
  baseUrl,
  modelId,
  api: "chat_completions",
  apiKey: Effect.succeed(Redacted.make("sk-test-key-123456"))
})

const call = (endpoints: ModelCall["endpoints"], content = "hello"): ModelCall => ({
  label: "summarize",
  endpoints,
  request: { messages: [{ role: "user", content }], tools: [], response_format: null }
})

const live = ModelClient.layerLive({ attempts: 1, backoff: "1 millis" }).pipe(Layer.provide(ModelHttp.layer))

/** Runs the calls one after another with one RunTracer; returns what it recorded (failures ignored). */
const traced = (layer: Layer.Layer<ModelClient>, calls: ReadonlyArray<ModelCall>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const client = yield* ModelClient
      for (const c of calls) yield* Effect.ignore(client.complete(c))
      return yield* (yield* RunTracer).all
    }).pipe(Effect.provide(Layer.mergeAll(layer, RunUsage.layer, RunTracer.layer)))
  )

const attributes = (events: ReadonlyArray<RecordedEvent>) => events.map((e) => e.attributes)

describe("Live", () => {
  test("one event per call: upstream's attributes in order, then provider and server", async () => {
    server = startOpenAiServer({ script: [{ content: "ok", usage: { prompt_tokens: 7, completion_tokens: 2 } }] })
    const events = await traced(live, [call([endpoint(server.baseUrl)])])
    expect(events.map((e) => [e.operation, e.label])).toEqual([["chat", "summarize"]])
    expect(Object.entries(events[0]!.attributes)).toEqual([
      ["gen_ai.request.model", "fixture-model"],
      ["lait.source", "live"],
      ["gen_ai.usage.input_tokens", 7],
      ["gen_ai.usage.output_tokens", 2],
      ["gen_ai.provider.name", "openai"],
      ["server.address", "127.0.0.1"],
      ["server.port", server.port],
      ["gen_ai.response.finish_reasons", ["stop"]]
    ])
  })

  test("no usage reported: no token attributes", async () => {
    server = startOpenAiServer({ script: [{ content: "ok", usage: null }] })
    const [event] = await traced(live, [call([endpoint(server.baseUrl)])])
    expect(Object.keys(event!.attributes)).toEqual([
      "gen_ai.request.model",
      "lait.source",
      "gen_ai.provider.name",
      "server.address",
      "server.port",
      "gen_ai.response.finish_reasons"
    ])
  })

  test("a fallback answer: the primary model is the request model, the server is the one that answered", async () => {
    server = startOpenAiServer({ script: [{ match: "\"model\":\"primary\"", status: 503, repeat: true }] })
    const backup = startOpenAiServer()
    try {
      const [event] = await traced(live, [call([endpoint(server.baseUrl, "primary"), endpoint(backup.baseUrl, "backup")])])
      expect(event!.attributes["gen_ai.request.model"]).toBe("primary")
      expect(event!.attributes["server.port"]).toBe(backup.port)
    } finally {
      await backup.stop()
    }
  })

  test("a failed call is recorded with error.type (the HTTP status)", async () => {
    server = startOpenAiServer({ script: [{ status: 400, body: { error: { message: "bad" } } }] })
    const events = await traced(live, [call([endpoint(server.baseUrl)])])
    expect(attributes(events)).toEqual([{
      "gen_ai.request.model": "fixture-model",
      "lait.source": "live",
      "gen_ai.provider.name": "openai",
      "server.address": "127.0.0.1",
      "server.port": server.port,
      "error.type": "400",
      // What lait prints for it, so a failed run's trace says what went wrong.
      "error.message": `the model server at '${server.baseUrl}' answered HTTP 400: bad`
    }])
  })

  test("server.port defaults by scheme; an IPv6 host loses its brackets", () => {
    const server = (baseUrl: string) => {
      const a = chatAttributes(call([endpoint(baseUrl)]), { source: "live", error: { "error.type": "x" } })
      return [a["server.address"], a["server.port"]]
    }
    expect(server("https://api.example.com/v1")).toEqual(["api.example.com", 443])
    expect(server("http://localhost/v1")).toEqual(["localhost", 80])
    expect(server("http://[::1]:1234/v1")).toEqual(["::1", 1234])
  })
})

describe("Cache, Record and Replay", () => {
  test("a cache miss is the live call's event; a hit is the cache's own event", async () => {
    server = startOpenAiServer({ script: [{ content: "cached answer", usage: { prompt_tokens: 4, completion_tokens: 1 }, repeat: true }] })
    const cached = ModelClient.layerCache({ dir: path.join(dir, "cache") }).pipe(
      Layer.provide(live),
      Layer.provide(FileLoader.layer)
    )
    const c = call([endpoint(server.baseUrl)], "cache me")
    const events = await traced(cached, [c, c])
    expect(events.map((e) => e.attributes["lait.source"])).toEqual(["live", "cache"])
    expect(events[1]!.attributes["gen_ai.usage.input_tokens"]).toBe(4)
    expect(server.requests).toHaveLength(1)
  })

  test("recording records the live call once; replay records its own event", async () => {
    server = startOpenAiServer({ script: [{ content: "recorded", usage: { prompt_tokens: 5, completion_tokens: 3 } }] })
    const cassettes = path.join(dir, "cassettes")
    const record = ModelClient.layerRecord(cassettes).pipe(Layer.provide(live), Layer.provide(FileLoader.layer))
    const c = call([endpoint(server.baseUrl)], "record me")
    expect((await traced(record, [c])).map((e) => e.attributes["lait.source"])).toEqual(["live"])
    const replay = ModelClient.layerReplay(cassettes).pipe(Layer.provide(FileLoader.layer))
    const replayed = await traced(replay, [c, call([endpoint(server.baseUrl)], "never recorded")])
    expect(attributes(replayed)).toEqual([
      {
        "gen_ai.request.model": "fixture-model",
        "lait.source": "replay",
        "gen_ai.usage.input_tokens": 5,
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.provider.name": "openai",
        "server.address": "127.0.0.1",
        "server.port": server.port,
        "gen_ai.response.finish_reasons": ["stop"]
      },
      {
        "gen_ai.request.model": "fixture-model",
        "lait.source": "replay",
        "gen_ai.provider.name": "openai",
        "server.address": "127.0.0.1",
        "server.port": server.port,
        "error.type": "LaitError",
        "error.message": expect.stringMatching(/^no recorded cassette for this request \(model 'fixture-model'\)/)
      }
    ])
  })
})
