// The interop suite (docs/compatibility.md), second server: `@dwmkerr/mock-llm` (pinned in
// package.json), an Express app configured by JMESPath rules (the last matching rule answers),
// started in-process on 127.0.0.1 with a free port. It streams in chunks of a fixed number of
// UTF-16 units (8 here, cutting text anywhere) and reports an error inside a stream as OpenAI does:
// HTTP 200, then `data: {"error": ...}`.
import { createServer } from "@dwmkerr/mock-llm/dist/server.js"
import { getDefaultConfig } from "@dwmkerr/mock-llm/dist/config.js"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Server } from "node:http"
import { prepareCli, projectsIn, workspace } from "../e2e/model-harness.ts"
import { startOpenAiServer } from "../fixtures/openai-server.ts"
import { ECHO_TOOL_CONFIG } from "./echoTool.ts"

const STALE_KEY = "sk-mockllm-stale-0123456789"

type Rule = ReturnType<typeof getDefaultConfig>["rules"][number]

const answer = (content: unknown, status = 200): Rule["response"] => ({ status, content: JSON.stringify(content) })
const message = (content: string) => ({ choices: [{ message: { role: "assistant", content }, finish_reason: "stop" }] })
const chat = (match: string, response: Rule["response"]): Rule => ({ path: "/v1/chat/completions", match, response })

/** The default rules (echo the last message, list one model) and ours after them: the last match wins. */
const rules = (): Array<Rule> => [
  ...getDefaultConfig().rules,
  chat("contains(body.messages[-1].content, 'weather')", answer({
    choices: [{
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "tool__echo", arguments: "{\"text\":\"Paris\"}" } }]
      },
      finish_reason: "tool_calls"
    }]
  })),
  chat("body.messages[-1].role == 'tool'", answer(message("It is sunny in Paris."))),
  chat("body.response_format.type == 'json_schema'", answer(message("{\"name\":\"Ada\",\"age\":36}"))),
  chat("body.model == 'gpt-9-nonexistent'", answer({
    error: { message: "The model `gpt-9-nonexistent` does not exist", type: "invalid_request_error", code: "model_not_found" }
  }, 404)),
  chat("contains(body.messages[-1].content, 'overload')", answer({ error: { message: "overloaded", type: "server_error" } }, 503)),
  // Seven units, then a surrogate pair across the first 8-unit chunk's end.
  chat("contains(body.messages[-1].content, 'emoji')", answer(message("abcdefg\u{1F600} done"))),
  {
    path: "/v1/.*",
    match: `headers.authorization == 'Bearer ${STALE_KEY}'`,
    response: answer({ error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } }, 401)
  }
]

/** mock-llm on 127.0.0.1, a free port; its request log (console.log) is silenced while it runs. */
const startMockLlm = async (): Promise<{ readonly baseUrl: string; stop(): Promise<void> }> => {
  const app = createServer({ streaming: { chunkSize: 8, chunkIntervalMs: 1 }, rules: rules() }, "127.0.0.1", 0)
  const server = await new Promise<Server>((resolve) => {
    const s: Server = app.listen(0, "127.0.0.1", () => resolve(s))
  })
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

const ws = workspace("interop-mock-llm")
const log = console.log
let mock: Awaited<ReturnType<typeof startMockLlm>>

beforeAll(async () => {
  await prepareCli()
  console.log = () => {}
  mock = await startMockLlm()
}, 300_000)

afterAll(async () => {
  await mock?.stop()
  console.log = log
  ws.remove()
})

/** A fresh directory holding `files`; runs lait there (OPENAI_* and LAIT_* are not inherited). */
const project = projectsIn(ws)

const at = (url = mock.baseUrl) => ["--no-config", "--model", "gpt-4", "--base-url", url]

describe("lait against mock-llm", () => {
  test("one-shot and --stream (8-unit chunks): the whole answer, exit 0", async () => {
    const p = project()
    const text = "Hello there, a message long enough for several chunks of eight"
    for (const extra of [[], ["--stream"]]) {
      const r = await p.lait([...at(), ...extra, text])
      expect({ extra, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ extra, code: 0, stdout: `${text}\n`, stderr: "" })
    }
  })

  test("tool calls: the tool runs and its result goes back; the final answer is printed", async () => {
    const p = project({
      "lait.config.yml": ECHO_TOOL_CONFIG
    })
    const r = await p.lait(["--model", "gpt-4", "--base-url", mock.baseUrl, "--tool", "echo", "weather in Paris?"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "It is sunny in Paris.\n" })
  })

  test("structured output: the JSON answer, checked against the schema", async () => {
    const schema = { type: "object", required: ["name", "age"], properties: { name: { type: "string" }, age: { type: "integer" } } }
    const p = project({ "person.json": JSON.stringify(schema) })
    const r = await p.lait([...at(), "--json-schema", "person.json", "a person please"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "{\"name\":\"Ada\",\"age\":36}\n" })
  })

  test("401 and an unknown model: the server's text, exit 4", async () => {
    const p = project()
    const denied = await p.lait([...at(), "--api-key", STALE_KEY, "hello"])
    expect({ code: denied.code, stderr: denied.stderr }).toEqual({
      code: 4,
      stderr: `lait: the model server at '${mock.baseUrl}' answered HTTP 401: Incorrect API key provided; ` +
        "check the API key (it came from --api-key)\n"
    })
    const unknown = await p.lait(["--no-config", "--model", "gpt-9-nonexistent", "--base-url", mock.baseUrl, "hello"])
    expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({
      code: 4,
      stderr: `lait: the model server at '${mock.baseUrl}' answered HTTP 404: The model \`gpt-9-nonexistent\` does not exist\n`
    })
  })

  test("record, then replay with the server stopped", async () => {
    const own = await startMockLlm()
    const p = project()
    const args = ["--no-config", "--model", "gpt-4", "--base-url", own.baseUrl, "remember this"]
    try {
      const recorded = await p.lait([...args, "--stream", "--record", "tapes"])
      expect({ code: recorded.code, stdout: recorded.stdout }).toEqual({ code: 0, stdout: "remember this\n" })
    } finally {
      await own.stop()
    }
    const replayed = await p.lait([...args, "--replay", "tapes"])
    expect({ code: replayed.code, stdout: replayed.stdout, stderr: replayed.stderr })
      .toEqual({ code: 0, stdout: "remember this\n", stderr: "" })
  })

  test("models --remote: its model list for one alias, the stale key's alias on its own error line", async () => {
    const p = project({
      "lait.config.yml": [
        "models:",
        "  a:",
        `    - provider: { base_url: '${mock.baseUrl}' }`,
        "      model_id: gpt-4",
        "  b:",
        `    - provider: { base_url: '${mock.baseUrl}', api_key: '${STALE_KEY}' }`,
        "      model_id: gpt-4"
      ].join("\n")
    })
    const r = await p.lait(["models", "--remote"])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 4,
      stdout: `${mock.baseUrl} (a)\n  gpt-5.2\n`,
      stderr: `error: GET ${mock.baseUrl}/models (b): key rejected (HTTP 401: Incorrect API key provided.)\n` +
        "lait: 1 of 2 endpoints could not be listed\n"
    })
  })

  test("--stream joins a surrogate pair cut between chunks: one emoji, no U+FFFD", async () => {
    const r = await project().lait([...at(), "--stream", "an emoji please"])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "abcdefg\u{1F600} done\n", stderr: "" })
  })

  test("an error event inside a 200 stream is retried like the same HTTP error, then the fallback answers", async () => {
    const retried = await project().lait([...at(), "--stream", "overload it"], { LAIT_HTTP_ATTEMPTS: "2" })
    expect({ code: retried.code, stdout: retried.stdout, stderr: retried.stderr }).toEqual({
      code: 4,
      stdout: "",
      stderr: `warning: the model server at '${mock.baseUrl}' reported: overloaded (attempt 1/2); retrying in 250 ms\n` +
        `lait: the model server at '${mock.baseUrl}' reported: overloaded\n`
    })
    // An overload is transient (docs/config.md): after the retries the alias's next entry is asked.
    const fallback = startOpenAiServer({ script: [{ content: "the fallback answered" }] })
    try {
      const p = project({
        "lait.config.yml": [
          "models:",
          "  m:",
          `    - provider: { base_url: '${mock.baseUrl}' }`,
          "      model_id: gpt-4",
          `    - provider: { base_url: '${fallback.baseUrl}' }`,
          "      model_id: fixture-model"
        ].join("\n")
      })
      const r = await p.lait(["--model", "m", "--stream", "overload it"], { LAIT_HTTP_ATTEMPTS: "1" })
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "the fallback answered\n" })
      expect(r.stderr).toContain("reported: overloaded")
      expect(fallback.requests).toHaveLength(1)
    } finally {
      await fallback.stop()
    }
  })
})
