// `lait PROMPT --stream` against the fixture server's event streams, run in this process
// (docs/architecture.md#testing): the text on stdout, usage from the stream's last chunk, the conflict
// with --json, record/replay of the assembled answer; and, through the compiled binary, Ctrl-C in the
// middle of a stream.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { binaryPath, makeTempDir, runCli } from "./util.ts"

let dir = ""
let server: OpenAiServer
beforeAll(() => {
  dir = makeTempDir("stream")
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
afterEach(async () => {
  await server?.stop()
})

const chat = (...args: Array<string>) =>
  runCli(["--no-config", "--model", "fixture-model", "--base-url", server.baseUrl, ...args], { cwd: dir })

describe("lait PROMPT --stream", () => {
  test("prints the streamed answer and takes the usage from the last chunk", async () => {
    server = startOpenAiServer({ script: [{ content: "one two three", usage: { prompt_tokens: 4, completion_tokens: 3 } }] })
    const r = await chat("--stream", "--show-usage", "count")
    expect(r).toMatchObject({ code: 0, stdout: "one two three\n", stderr: "usage: prompt=4 completion=3 total=7\n" })
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } })
  })

  test("asks for stream_options only when the usage is read: --show-usage, --record, a trace", async () => {
    server = startOpenAiServer({ script: [{ content: "ok", repeat: true }] })
    const options = () => server.requests.map((q) => (q.body as Record<string, unknown>)["stream_options"])
    expect(await chat("--stream", "plain")).toMatchObject({ code: 0, stdout: "ok\n", stderr: "" })
    expect(await chat("--stream", "--record", "usage-cassettes", "kept")).toMatchObject({ code: 0, stdout: "ok\n" })
    expect(await chat("--stream", "--trace-file", "stream-trace.jsonl", "with a trace")).toMatchObject({ code: 0 })
    const usage = { include_usage: true }
    expect(options()).toEqual([undefined, usage, usage])
    const [file] = fs.readdirSync(path.join(dir, "usage-cassettes"))
    const cassette = JSON.parse(fs.readFileSync(path.join(dir, "usage-cassettes", file!), "utf8"))
    expect(cassette.response.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 })
    // Not part of the key: the cassette replays with or without --stream.
    expect(await chat("--stream", "--replay", "usage-cassettes", "kept")).toMatchObject({ code: 0, stdout: "ok\n" })
  })

  test("conflicts with --json (exit 2)", async () => {
    server = startOpenAiServer()
    const r = await chat("--stream", "--json", "hi")
    expect(r.code).toBe(2)
    expect(r.stderr).toBe("lait: the argument '--stream' cannot be used with '--json'\n")
    expect(server.requests.length).toBe(0)
  })

  test("--record stores the assembled answer; --replay, with or without --stream, prints the same text", async () => {
    server = startOpenAiServer({ script: [{ content: "recorded while streaming" }] })
    const recorded = await chat("--stream", "--record", "cassettes", "keep this")
    expect(recorded).toMatchObject({ code: 0, stdout: "recorded while streaming\n" })
    const [file] = fs.readdirSync(path.join(dir, "cassettes"))
    const cassette = JSON.parse(fs.readFileSync(path.join(dir, "cassettes", file!), "utf8"))
    expect(cassette.response.object).toBe("chat.completion")
    expect(cassette.response.choices[0].message.content).toBe("recorded while streaming")
    expect(await chat("--stream", "--replay", "cassettes", "keep this")).toMatchObject({
      code: 0,
      stdout: "recorded while streaming\n"
    })
    expect(await chat("--replay", "cassettes", "keep this")).toMatchObject({ code: 0, stdout: "recorded while streaming\n" })
    expect(server.requests.length).toBe(1)
  })

  test("with tools and --json-schema only the structured answer streams: not the tool rounds' text", async () => {
    server = startOpenAiServer({
      script: [
        { tool_calls: [{ id: "c1", name: "tool__echo", arguments: JSON.stringify({ text: "pong" }) }] },
        { content: "draft in prose" },
        { content: "{\"said\":\"pong\"}" }
      ]
    })
    const project = makeTempDir("stream-tools")
    fs.writeFileSync(
      path.join(project, "lait.config.yml"),
      "tools:\n  echo:\n    command: [echo, '{{input.text}}']\n" +
        "    parameters: {type: object, properties: {text: {type: string}}}\n"
    )
    fs.writeFileSync(path.join(project, "s.json"), JSON.stringify({ type: "object" }))
    const r = await runCli(
      ["--model", "m", "--base-url", server.baseUrl, "--stream", "--tool", "echo", "--json-schema", "s.json", "ping"],
      { cwd: project }
    )
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "{\"said\":\"pong\"}\n" })
    expect(server.requests.map((q) => (q.body as { stream?: boolean }).stream)).toEqual([false, false, true])
  })

  test("a stream with no text and no tool call fails with the original's words (exit 4), nothing kept", async () => {
    const empty = JSON.stringify({ id: "e", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })
    server = startOpenAiServer({
      script: [
        { sse: [`data: ${empty}\n\n`, "data: [DONE]\n\n"] },
        { content: null, reasoning: "only thinking" }
      ]
    })
    const said = `lait: API response contained no content in its first choice ` +
      `(the stream from '${server.baseUrl}' ended without any text or tool call)\n`
    const session = path.join(dir, ".lait", "sessions", "empty.jsonl")
    expect(await chat("--stream", "--session", "empty", "--no-history", "say nothing")).toMatchObject({
      code: 4,
      stdout: "",
      stderr: said
    })
    expect(fs.existsSync(session)).toBe(false)
    // Thinking alone is no answer either.
    expect(await chat("--stream", "--no-history", "think only")).toMatchObject({ code: 4, stdout: "", stderr: said })
    expect(server.requests.length).toBe(2)
  })

  test("a whole answer is asked for with stream: false; the cassette key stays the original's", async () => {
    server = startOpenAiServer({ script: [{ content: "whole", repeat: true }] })
    expect(await chat("--record", "whole-cassettes", "no stream")).toMatchObject({ code: 0, stdout: "whole\n" })
    expect(server.requests[0]!.body).toMatchObject({ stream: false })
    expect(server.requests[0]!.body).not.toHaveProperty("stream_options")
    // The key's text (docs/record-replay.md#the-request-key) has no `stream`: the file is named by it.
    const keyText = `{"base_url":"${server.baseUrl}","model_id":"fixture-model","reasoning_effort":null,` +
      `"temperature":null,"top_p":null,"max_tokens":null,"messages":[{"role":"user","content":"no stream"}],` +
      `"tools":[],"response_format":null}`
    const key = new Bun.CryptoHasher("sha256").update(keyText).digest("hex")
    expect(fs.readdirSync(path.join(dir, "whole-cassettes"))).toEqual([`${key}.json`])
    expect(await chat("--stream", "--replay", "whole-cassettes", "no stream")).toMatchObject({ code: 0, stdout: "whole\n" })
    expect(server.requests.length).toBe(1)
  })

  test("Ctrl-C stops the stream at once: the text printed stays, a newline ends it, exit 130", async () => {
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ")
    server = startOpenAiServer({ script: [{ content: words, chunk_delay_ms: 100 }] })
    await runCli(["--version"], { cwd: dir, binary: true }) // builds dist/lait when it is missing or stale
    const child = Bun.spawn(
      [binaryPath, "--no-config", "--model", "fixture-model", "--base-url", server.baseUrl, "--stream", "go"],
      { cwd: dir, env: { ...process.env, NO_COLOR: "1" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" }
    )
    const reader = child.stdout.getReader()
    let seen = ""
    while (!seen.includes("w3 ")) {
      const chunk = await reader.read()
      if (chunk.done) break
      seen += new TextDecoder().decode(chunk.value)
    }
    child.kill("SIGINT")
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) break
      seen += new TextDecoder().decode(chunk.value)
    }
    expect(await child.exited).toBe(130)
    // At once: long before the stream's end (a word every 100 ms), not after it.
    expect(seen).toMatch(/^w0 w1 w2 w3 [\w ]*\n$/)
    expect(seen).not.toContain("w30")
  }, 60_000)
})
