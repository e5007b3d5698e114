import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Layer, Redacted } from "effect"
import { ModelHttp } from "../../src/model/ModelHttp.ts"
import { renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { callKey } from "../../src/model/cassette/key.ts"
import { type Endpoint, type ModelCall, ModelClient } from "../../src/model/ModelClient.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { RunTracer } from "../../src/trace/RunTracer.ts"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"

const SECRET = "sk-test-SECRET-0123456789"
let dir = ""
let server: OpenAiServer
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-model-"))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
afterEach(async () => {
  await server?.stop()
})

const endpoint = (baseUrl: string, extra: Partial<Endpoint> = {}): Endpoint => ({
  baseUrl,
  modelId: "fixture-model",
  api: "chat_completions",
  apiKey: Effect.succeed(Redacted.make(SECRET)),
  ...extra
})

const call = (endpoints: ModelCall["endpoints"], content = "hello", extra: Partial<ModelCall["request"]> = {}): ModelCall => ({
  label: "step-1 (prompt)",
  endpoints,
  request: { messages: [{ role: "user", content }], tools: [], response_format: null, ...extra }
})

const live = ModelClient.layerLive({ attempts: 2, backoff: "5 millis" }).pipe(Layer.provide(ModelHttp.layer))

const run = <A, E>(
  layer: Layer.Layer<ModelClient, never, never>,
  f: (m: ModelClient["Service"]) => Effect.Effect<A, E, RunUsage | RunTracer>
) =>
  Effect.runPromiseExit(
    Effect.gen(function*() {
      const usage = yield* RunUsage
      const value = yield* ModelClient.use(f)
      return { value, usage: yield* usage.entries }
    }).pipe(Effect.provide(Layer.mergeAll(layer, RunUsage.layer, RunTracer.layer)))
  )

const ok = <A>(exit: Exit.Exit<A, unknown>): A => {
  if (Exit.isFailure(exit)) throw new Error(`unexpected failure: ${String(exit.cause)}`)
  return exit.value
}
const failure = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected failure")
  const reason = exit.cause.reasons[0]
  return reason?._tag === "Fail" ? renderChain(reason.error) : String(exit.cause)
}

const closedPort = async () => {
  const srv = net.createServer().listen(0, "127.0.0.1")
  await new Promise((r) => srv.once("listening", r))
  const port = (srv.address() as net.AddressInfo).port
  await new Promise((r) => srv.close(r))
  return port
}

describe("Live layer", () => {
  test("posts an OpenAI request with the key as bearer token and records usage", async () => {
    server = startOpenAiServer({ script: [{ content: "hi there", usage: { prompt_tokens: 7, completion_tokens: 3 } }] })
    const exit = await run(live, (m) => m.complete(call([endpoint(server.baseUrl)], "hello", { max_tokens: 64, temperature: 0.2 })))
    const { value, usage } = ok(exit)
    expect(value.content).toBe("hi there")
    expect(value.source).toBe("live")
    expect(usage).toEqual([{ label: "step-1 (prompt)", prompt: 7, completion: 3, total: 10, requests: 1, costUsd: undefined }])
    const sent = server.requests[0]!
    expect(sent.path).toBe("/v1/chat/completions")
    expect(sent.headers["authorization"]).toBe(`Bearer ${SECRET}`)
    expect(sent.body).toEqual({
      model: "fixture-model",
      stream: false,
      messages: [{ role: "user", content: "hello" }],
      temperature: 0.2,
      max_completion_tokens: 64
    })
  })

  test("no key configured sends the dummy key", async () => {
    server = startOpenAiServer()
    ok(await run(live, (m) => m.complete(call([endpoint(server.baseUrl, { apiKey: Effect.succeed(undefined) })]))))
    expect(server.requests[0]?.headers["authorization"]).toBe("Bearer lm-studio")
  })

  test("retries a 503, then falls back to the next endpoint", async () => {
    server = startOpenAiServer({ script: [{ match: "\"model\":\"primary\"", status: 503, repeat: true }] })
    const exit = await run(live, (m) =>
      m.complete(call([
        endpoint(server.baseUrl, { modelId: "primary" }),
        endpoint(server.baseUrl, { modelId: "backup" })
      ])))
    const { value } = ok(exit)
    expect(value.endpoint.modelId).toBe("backup")
    expect(server.requests.map((r) => (r.body as { model: string }).model)).toEqual(["primary", "primary", "backup"])
  })

  test("falls back when the connection is refused", async () => {
    server = startOpenAiServer()
    const port = await closedPort()
    const exit = await run(live, (m) =>
      m.complete(call([endpoint(`http://127.0.0.1:${port}/v1`), endpoint(server.baseUrl, { modelId: "backup" })])))
    expect(ok(exit).value.endpoint.modelId).toBe("backup")
  })

  test("a server that cannot be reached is named with the reason in plain words", async () => {
    const port = await closedPort()
    const refused = `http://127.0.0.1:${port}/v1`
    expect(failure(await run(live, (m) => m.complete(call([endpoint(refused)]))))).toBe(
      `failed to reach '${refused}': connection refused`
    )
    // Accepts, reads the request, then resets the connection without a word.
    const resetting = net.createServer((socket) => socket.once("data", () => socket.resetAndDestroy())).listen(0, "127.0.0.1")
    // Accepts and never answers.
    const held: Array<net.Socket> = []
    const silent = net.createServer((socket) => void held.push(socket)).listen(0, "127.0.0.1")
    await Promise.all([resetting, silent].map((s) => new Promise((r) => s.once("listening", r))))
    try {
      const resetUrl = `http://127.0.0.1:${(resetting.address() as net.AddressInfo).port}/v1`
      expect(failure(await run(live, (m) => m.complete(call([endpoint(resetUrl)]))))).toBe(
        `failed to reach '${resetUrl}': connection reset`
      )
      const silentUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/v1`
      const impatient = ModelClient.layerLive({ attempts: 1, timeout: "300 millis" }).pipe(Layer.provide(ModelHttp.layer))
      expect(failure(await run(impatient, (m) => m.complete(call([endpoint(silentUrl)]))))).toBe(
        `failed to reach '${silentUrl}': timed out after 300 ms`
      )
    } finally {
      for (const socket of held) socket.destroy()
      resetting.close()
      silent.close()
    }
  })

  test("a 400 is not retried and does not fall back", async () => {
    server = startOpenAiServer({ script: [{ status: 400, body: { error: { message: "bad request body" } } }] })
    const exit = await run(live, (m) => m.complete(call([endpoint(server.baseUrl), endpoint(server.baseUrl)])))
    expect(failure(exit)).toBe(`the model server at '${server.baseUrl}' answered HTTP 400: bad request body`)
    expect(server.requests).toHaveLength(1)
  })
})

describe("Record and Replay layers", () => {
  test("record writes <key>.json without the key; replay answers the same without the network", async () => {
    server = startOpenAiServer({ script: [{ content: "recorded answer" }] })
    const cassettes = path.join(dir, "cassettes-1")
    const recordLayer = ModelClient.layerRecord(cassettes).pipe(Layer.provide(live), Layer.provide(FileLoader.layer))
    const c = call([endpoint(server.baseUrl)])
    const recorded = ok(await run(recordLayer, (m) => m.complete(c)))
    expect(recorded.value.content).toBe("recorded answer")
    expect(fs.readdirSync(cassettes)).toEqual([`${callKey(c)}.json`])
    const text = fs.readFileSync(path.join(cassettes, `${callKey(c)}.json`), "utf8")
    expect(text).not.toContain(SECRET)
    const cassette = JSON.parse(text)
    expect(Object.keys(cassette)).toEqual(["recorded_at", "request", "response"])
    expect(cassette.request.model_id).toBe("fixture-model")

    await server.stop()
    const replayLayer = ModelClient.layerReplay(cassettes).pipe(Layer.provide(FileLoader.layer))
    const replayed = ok(await run(replayLayer, (m) => m.complete(c)))
    expect(replayed.value.content).toBe("recorded answer")
    expect(replayed.value.source).toBe("replay")
    expect(replayed.usage).toHaveLength(1)
  })

  test("a replay miss names the path and the closest recording's differences", async () => {
    server = startOpenAiServer()
    const cassettes = path.join(dir, "cassettes-2")
    const recordLayer = ModelClient.layerRecord(cassettes).pipe(Layer.provide(live), Layer.provide(FileLoader.layer))
    ok(await run(recordLayer, (m) => m.complete(call([endpoint(server.baseUrl)], "hello", { temperature: 0.2 }))))
    const replayLayer = ModelClient.layerReplay(cassettes).pipe(Layer.provide(FileLoader.layer))
    const changed = call([endpoint(server.baseUrl)], "hello!", { temperature: 0.7 })
    const message = failure(await run(replayLayer, (m) => m.complete(changed)))
    expect(message).toStartWith(
      `no recorded cassette for this request (model 'fixture-model') at '${path.join(cassettes, `${callKey(changed)}.json`)}'`
    )
    expect(message).toContain("temperature (recorded 0.2, requested 0.7)")
    expect(message).toContain("messages[0].content (recorded \"hello\", requested \"hello!\")")
    expect(server.requests).toHaveLength(1)
  })

  test("refuses to write a cassette that would contain the API key", async () => {
    server = startOpenAiServer({ script: [{ content: `the key is ${SECRET}` }] })
    const cassettes = path.join(dir, "cassettes-3")
    const recordLayer = ModelClient.layerRecord(cassettes).pipe(Layer.provide(live), Layer.provide(FileLoader.layer))
    const message = failure(await run(recordLayer, (m) => m.complete(call([endpoint(server.baseUrl)]))))
    expect(message).toStartWith("refusing to write cassette")
    expect(fs.existsSync(cassettes) ? fs.readdirSync(cassettes) : []).toEqual([])
  })

  test("a key holding a quote and a backslash is found JSON-escaped too: error bodies and cassettes", async () => {
    const odd = "sk-odd-\"q\"\\b/0123456789"
    const oddEndpoint = endpoint("", { apiKey: Effect.succeed(Redacted.make(odd)) })
    server = startOpenAiServer({
      script: [
        { match: "bad", status: 401, body: { error: { message: `Incorrect API key provided: ${odd}.` } } },
        { content: `the key is ${odd}` }
      ]
    })
    const at = { ...oddEndpoint, baseUrl: server.baseUrl }
    expect(failure(await run(live, (m) => m.complete(call([at], "bad"))))).toBe(
      `the model server at '${server.baseUrl}' answered HTTP 401: Incorrect API key provided: <redacted>.`
    )
    const cassettes = path.join(dir, "cassettes-odd")
    const recordLayer = ModelClient.layerRecord(cassettes).pipe(Layer.provide(live), Layer.provide(FileLoader.layer))
    expect(failure(await run(recordLayer, (m) => m.complete(call([at]))))).toStartWith("refusing to write cassette")
    expect(fs.existsSync(cassettes) ? fs.readdirSync(cassettes) : []).toEqual([])
  })
})

describe("Cache layer", () => {
  test("the second identical request is a hit: no request, no usage", async () => {
    server = startOpenAiServer()
    const cacheDir = path.join(dir, "cache-1")
    const cached = ModelClient.layerCache({ dir: cacheDir }).pipe(Layer.provide(live), Layer.provide(FileLoader.layer))
    const c = call([endpoint(server.baseUrl)])
    const first = ok(await run(cached, (m) => m.complete(c)))
    const second = ok(await run(cached, (m) => m.complete(c)))
    expect(first.value.source).toBe("live")
    expect(second.value.source).toBe("cache")
    expect(second.value.content).toBe(first.value.content)
    expect(second.usage).toEqual([])
    expect(server.requests).toHaveLength(1)
    const entry = JSON.parse(fs.readFileSync(path.join(cacheDir, `${callKey(c)}.json`), "utf8"))
    expect(Object.keys(entry)).toEqual(["created_at", "response"])
  })

  test("expired, unreadable or malformed entries are misses", async () => {
    server = startOpenAiServer()
    const cacheDir = path.join(dir, "cache-2")
    const c = call([endpoint(server.baseUrl)])
    fs.mkdirSync(cacheDir, { recursive: true })
    const file = path.join(cacheDir, `${callKey(c)}.json`)
    fs.writeFileSync(file, JSON.stringify({ created_at: "2000-01-01T00:00:00Z", response: { choices: [] } }))
    const withTtl = ModelClient.layerCache({ dir: cacheDir, ttl: 60 }).pipe(Layer.provide(live), Layer.provide(FileLoader.layer))
    expect(ok(await run(withTtl, (m) => m.complete(c))).value.source).toBe("live")
    fs.writeFileSync(file, "{not json")
    expect(ok(await run(withTtl, (m) => m.complete(c))).value.source).toBe("live")
    expect(server.requests).toHaveLength(2)
  })
})
