// `lait proxy` from the compiled binary, driven by the official `openai` npm client: whole answers,
// streams and tool calls recorded against the fixture server, the cassettes' keys the ones `lait run`
// writes, then the same calls replayed with the server stopped, a replay miss as an OpenAI-style 404
// naming the closest cassette, the trace file, and bad requests refused.
import { afterAll, beforeAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import OpenAI from "openai"
import { cleanEnv, refusedBaseUrl, server, workspace } from "./model-harness.ts"
import { startProxy } from "./proxy-util.ts"
import { ensureBinary, waitUntil } from "./util.ts"

const ws = workspace("e2e-proxy")
beforeAll(async () => void await ensureBinary(), 300_000)
afterAll(() => ws.remove())

const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
}

/** The app's calls; the same ones are made while recording and while replaying. */
const appCalls = async (client: OpenAI) => {
  const whole = await client.chat.completions.create({ model: "fast", messages: [{ role: "user", content: "hello" }] })
  const stream = await client.chat.completions.create({
    model: "fast",
    messages: [{ role: "user", content: "stream me" }],
    stream: true,
    stream_options: { include_usage: true }
  })
  let streamed = ""
  let usage: unknown
  for await (const chunk of stream) {
    streamed += chunk.choices[0]?.delta.content ?? ""
    if (chunk.usage) usage = chunk.usage
  }
  const messages: Array<OpenAI.ChatCompletionMessageParam> = [{ role: "user", content: "weather in Paris?" }]
  const asked = await client.chat.completions.create({ model: "fast", messages, tools: [weatherTool] })
  const call = asked.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall
  // As apps do: the answer's message object goes back as it came, then the tool's result.
  messages.push(asked.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "sunny, 21C" })
  const final = await client.chat.completions.create({ model: "fast", messages, tools: [weatherTool] })
  // The tool call again, streamed: the same request (and cassette), its call arriving as a delta.
  const streamedCall = await client.chat.completions.create({
    model: "fast",
    messages: [{ role: "user", content: "weather in Paris?" }],
    tools: [weatherTool],
    stream: true
  })
  const deltas: Array<unknown> = []
  for await (const chunk of streamedCall) deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []))
  return {
    streamedTool: deltas,
    whole: whole.choices[0]!.message.content,
    streamed,
    usage,
    tool: [call.function.name, call.function.arguments],
    final: final.choices[0]!.message.content
  }
}

const client = (url: string) => new OpenAI({ baseURL: url, apiKey: "not-a-real-key", maxRetries: 0 })

test("the openai client records through lait proxy, replays with the server stopped, and a miss is a 404", async () => {
  const s = server({
    script: [
      { match: "hello", content: "Hi there!", repeat: true },
      { match: "stream me", content: "a streamed answer", usage: { prompt_tokens: 7, completion_tokens: 3 } },
      { match: "sunny", content: "It is sunny in Paris." },
      {
        match: "weather in Paris",
        tool_calls: [{ id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' }],
        repeat: true
      }
    ]
  })
  const dir = path.join(ws.dir, "app")
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, "lait.config.yml"),
    `models:\n  fast:\n    - provider: {base_url: '${s.baseUrl}', api_key: fixture-key}\n      model_id: fixture-model\n`
  )
  const env = cleanEnv(ws.dir)
  const recording = await startProxy(["--record", "cassettes", "--trace-file", "trace.jsonl"], dir, env)
  const recorded = await appCalls(client(recording.url))
  // SIGTERM stops it as any lait command: 128 + 15.
  expect(await recording.stop()).toBe(143)
  expect(recorded).toEqual({
    streamedTool: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
    whole: "Hi there!",
    streamed: "a streamed answer",
    usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    tool: ["get_weather", '{"city":"Paris"}'],
    final: "It is sunny in Paris."
  })
  // lait asked the server for whole answers, with lait's key (the app's never leaves the proxy).
  expect(s.requests.map((r) => (r.body as { stream?: boolean }).stream)).toEqual(Array(5).fill(false))
  expect(s.requests.every((r) => r.headers["authorization"] === "Bearer fixture-key")).toBe(true)
  const cassettes = fs.readdirSync(path.join(dir, "cassettes")).sort()
  expect(cassettes).toHaveLength(4)
  const trace = fs.readFileSync(path.join(dir, "trace.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
  expect(trace.filter((e) => e.operation === "chat")).toHaveLength(5)

  // `lait run` of the same request writes the same cassette.
  fs.writeFileSync(path.join(dir, "hello.yml"), "default:\n  model: fast\nsteps:\n  - prompt: '{{ input }}'\n")
  const run = await ws.lait(["run", "hello.yml", "hello", "--record", "run-cassettes"], { cwd: dir })
  expect(run.code).toBe(0)
  expect(run.stdout.trim()).toBe("Hi there!")
  const runKey = fs.readdirSync(path.join(dir, "run-cassettes"))
  expect(runKey).toHaveLength(1)
  expect(cassettes).toContain(runKey[0]!)

  await s.stop()
  const replaying = await startProxy(["--replay", "cassettes"], dir, env)
  try {
    expect(await appCalls(client(replaying.url))).toEqual(recorded)
    const miss = await client(replaying.url).chat.completions.create({
      model: "fast",
      messages: [{ role: "user", content: "hello!" }]
    }).then(() => undefined, (e: unknown) => e)
    expect(miss).toBeInstanceOf(OpenAI.NotFoundError)
    const error = (miss as InstanceType<typeof OpenAI.NotFoundError>).error as { type: string; message: string }
    expect(error.type).toBe("lait_replay_miss")
    expect(error.message).toContain("closest recording")
    expect(error.message).toContain("messages")
    expect(replaying.stderr()).toContain("lait proxy: replay miss: no recorded cassette")
    // A field lait cannot forward is refused, not dropped.
    const refused = await client(replaying.url).chat.completions.create({
      model: "fast",
      messages: [{ role: "user", content: "hello" }],
      stop: ["x"]
    }).then(() => undefined, (e: unknown) => e)
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect(String((refused as Error).message)).toContain("does not forward 'stop'")
    const models = await client(replaying.url).models.list()
    expect(models.data.map((m) => m.id)).toEqual(["fast"])
  } finally {
    await replaying.stop()
  }
}, 120_000)

test("--listen refuses a non-loopback address", async () => {
  const result = await ws.lait(["proxy", "--listen", "0.0.0.0:0"])
  expect(result.code).toBe(2)
  expect(result.stderr).toMatch(/^lait: .*--listen/)
})

test("OPENAI_BASE_URL pointing at the proxy itself is refused, not followed", async () => {
  const own = await refusedBaseUrl()
  const port = new URL(own).port
  const proxy = await startProxy(["--listen", `127.0.0.1:${port}`], ws.dir, { ...cleanEnv(ws.dir), OPENAI_BASE_URL: own })
  try {
    const error = await client(proxy.url).chat.completions.create({
      model: "anything",
      messages: [{ role: "user", content: "hi" }]
    }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(508)
    expect(String((error as Error).message)).toContain("this proxy itself")
  } finally {
    await proxy.stop()
  }
})

/** A directory whose `fast` alias answers from `baseUrl`. */
const appDir = (name: string, baseUrl: string) => {
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, "lait.config.yml"),
    `models:\n  fast:\n    - provider: {base_url: '${baseUrl}', api_key: fixture-key}\n      model_id: fixture-model\n`
  )
  return dir
}

const post = (url: string, body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half"
  } as RequestInit)

const errorOf = async (response: Response) => [response.status, ((await response.json()) as { error: { type: string } }).error.type]

test("what the listener does not serve is answered in OpenAI's words, and the proxy carries on", async () => {
  const dir = appDir("edges", await refusedBaseUrl())
  fs.mkdirSync(path.join(dir, "cassettes"))
  const proxy = await startProxy(["--replay", "cassettes"], dir, cleanEnv(ws.dir))
  try {
    const base = proxy.url.replace(/\/v1$/, "")
    expect(await errorOf(await fetch(`${base}/v1/embeddings`, { method: "POST", body: "{}" }))).toEqual([404, "not_found"])
    expect(await errorOf(await fetch(`${proxy.url}/chat/completions`))).toEqual([405, "invalid_request_error"])
    expect(await errorOf(await post(proxy.url, "not json"))).toEqual([400, "invalid_request_error"])
    const hello = JSON.stringify({ model: "fast", messages: [{ role: "user", content: "hi" }] })
    expect(await errorOf(await post(proxy.url, hello, { origin: "https://evil.example" }))).toEqual([403, "lait_forbidden"])
    // Over the 32 MiB cap: by its declared length, and streamed without one.
    const big = "x".repeat(32 * 1024 * 1024 + 1)
    expect(await errorOf(await post(proxy.url, big))).toEqual([413, "invalid_request_error"])
    const chunks = [big.slice(0, 16 * 1024 * 1024), big.slice(16 * 1024 * 1024)]
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift()
        if (next === undefined) controller.close()
        else controller.enqueue(new TextEncoder().encode(next))
      }
    })
    expect(await errorOf(await post(proxy.url, stream))).toEqual([413, "invalid_request_error"])
    // Still answering: a miss, as a replay of an empty directory gives.
    expect(await errorOf(await post(proxy.url, hello))).toEqual([404, "lait_replay_miss"])
  } finally {
    await proxy.stop()
  }
}, 120_000)

test("a cassette rewritten while the proxy replays is the one the next request gets", async () => {
  const s = server({ script: [{ match: "question", content: "first answer", repeat: true }] })
  const dir = appDir("edited", s.baseUrl)
  const recording = await startProxy(["--record", "cassettes"], dir, cleanEnv(ws.dir))
  const ask = async (url: string) => {
    const answer = await client(url).chat.completions.create({ model: "fast", messages: [{ role: "user", content: "question" }] })
    return answer.choices[0]!.message.content
  }
  expect(await ask(recording.url)).toBe("first answer")
  await recording.stop()
  const [name] = fs.readdirSync(path.join(dir, "cassettes"))
  const file = path.join(dir, "cassettes", name!)
  const replaying = await startProxy(["--replay", "cassettes"], dir, cleanEnv(ws.dir))
  try {
    expect(await ask(replaying.url)).toBe("first answer")
    expect(await ask(replaying.url)).toBe("first answer")
    // Replaced by a rename (as lait writes), then edited in place with the same length.
    const replaced = fs.readFileSync(file, "utf8").replace("first answer", "second answer")
    fs.writeFileSync(`${file}.tmp`, replaced)
    fs.renameSync(`${file}.tmp`, file)
    expect(await ask(replaying.url)).toBe("second answer")
    fs.writeFileSync(file, replaced.replace("second answer", "latest answer"))
    expect(await ask(replaying.url)).toBe("latest answer")
    fs.rmSync(file)
    expect(await ask(replaying.url).catch((e: unknown) => (e as InstanceType<typeof OpenAI.APIError>).status)).toBe(404)
  } finally {
    await replaying.stop()
  }
}, 120_000)

test("an app that hangs up stops its request and the model call it waits for", async () => {
  let release = () => {}
  const held = new Promise<void>((resolve) => release = resolve)
  const s = server({ script: [{ match: "slow", content: "too late", hold: held }] })
  const dir = appDir("hangup", s.baseUrl)
  const proxy = await startProxy(["--trace-file", "trace.jsonl"], dir, cleanEnv(ws.dir))
  try {
    const gone = new AbortController()
    const request = fetch(`${proxy.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "fast", messages: [{ role: "user", content: "slow" }] }),
      signal: gone.signal
    }).catch((e: unknown) => e)
    await waitUntil("the model call to arrive", () => s.inFlight === 1)
    gone.abort()
    expect(await request).toBeInstanceOf(Error)
    // The call's span ended, cancelled, while the server still held its answer.
    const chat = () =>
      fs.existsSync(path.join(dir, "trace.jsonl"))
        ? fs.readFileSync(path.join(dir, "trace.jsonl"), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l))
          .filter((e: { operation: string }) => e.operation === "chat")
        : []
    await waitUntil("the abandoned call's trace event", () => chat().length === 1)
    expect(chat()[0].attributes["error.type"]).toBe("cancelled")
    expect(s.inFlight).toBe(1)
  } finally {
    release()
    await proxy.stop()
  }
}, 120_000)
