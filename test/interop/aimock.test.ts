// The interop suite (issue 39, docs/compatibility.md): lait (in this process) against an OpenAI-compatible
// server nobody on this project wrote, `@copilotkit/aimock` (pinned in package.json), started
// in-process on 127.0.0.1 with a free port and its own fixtures; no network. One-shot, `--stream`,
// tool calls, structured output, record then replay with the server stopped, 401, 429 with
// Retry-After, an unknown model, a stream cut mid-way, `models --remote`, and a gateway that
// needs a header (./gateway.ts, ours, in front of aimock).
import { LLMock } from "@copilotkit/aimock"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { prepareCli, projectsIn, workspace } from "../e2e/model-harness.ts"
import { type Gateway, startGateway } from "./gateway.ts"
import { ECHO_TOOL_CONFIG } from "./echoTool.ts"

const GOOD_KEY = "sk-aimock-good-0123456789"
const STALE_KEY = "sk-aimock-stale-0123456789"
const LONG = "The quick brown fox jumps over the lazy dog. ".repeat(20)

const ws = workspace("interop-aimock")
let mock: LLMock
let baseUrl: string
let gateway: Gateway

beforeAll(async () => {
  await prepareCli()
  mock = new LLMock({ port: 0, host: "127.0.0.1", auth: { apiKeys: [GOOD_KEY] } })
  // A tool's result first: aimock answers with the first fixture that matches, and the request after
  // a tool round still holds the question.
  mock.onToolResult("call_weather", { content: "It is sunny in Paris." })
  mock.onMessage("weather", {
    toolCalls: [{ id: "call_weather", name: "tool__echo", arguments: "{\"text\":\"Paris\"}" }]
  })
  mock.onMessage("hello", { content: "Hi there from aimock!" })
  mock.onMessage("person", { content: "{\"name\":\"Ada\",\"age\":36}" })
  mock.onMessage("slow down", {
    error: { message: "Rate limit reached for gpt-4o", type: "rate_limit_error" },
    status: 429,
    retryAfter: 1
  })
  mock.on({ model: "gpt-9-nonexistent" }, {
    error: {
      message: "The model `gpt-9-nonexistent` does not exist or you do not have access to it.",
      type: "invalid_request_error",
      code: "model_not_found"
    },
    status: 404
  })
  mock.onMessage("long story", { content: LONG }, { truncateAfterChunks: 5, chunkSize: 10, latency: 20 })
  await mock.start()
  baseUrl = `${mock.url}/v1`
  gateway = startGateway(baseUrl)
}, 300_000)

afterAll(async () => {
  await Promise.all([mock?.stop(), gateway?.stop()])
  ws.remove()
})

/** A fresh directory holding `files`; runs lait there (OPENAI_* and LAIT_* are not inherited). */
const project = projectsIn(ws)

/** One-shot chat flags for aimock with the key it accepts. */
const at = (url = baseUrl, key = GOOD_KEY) => ["--no-config", "--model", "gpt-4o", "--base-url", url, "--api-key", key]

/** The model ids aimock lists for the key it accepts (it lists its fixtures' models), as `  id` lines. */
const listedIds = async () => {
  const answer = await fetch(`${baseUrl}/models`, { headers: { authorization: `Bearer ${GOOD_KEY}` } })
  const ids = ((await answer.json()) as { data: ReadonlyArray<{ id: string }> }).data.map((m) => `  ${m.id}`)
  expect(ids.length).toBeGreaterThan(0)
  return ids
}

/** The chat requests aimock got whose last user message holds `text`. */
const requestsFor = (text: string) =>
  mock.getRequests().filter((r) => r.path === "/v1/chat/completions" && JSON.stringify(r.body).includes(text))

describe("lait against aimock", () => {
  test("one-shot: the answer on stdout, exit 0", async () => {
    const r = await project().lait([...at(), "hello"])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "Hi there from aimock!\n", stderr: "" })
  })

  test("--stream with --show-usage: the streamed answer and aimock's usage chunk", async () => {
    const r = await project().lait([...at(), "--stream", "--show-usage", "hello"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "Hi there from aimock!\n" })
    expect(r.stderr).toMatch(/^usage: prompt=\d+ completion=\d+ total=\d+\n$/)
  })

  test("tool calls: lait runs the tool aimock asked for and sends its result back", async () => {
    const p = project({
      "lait.config.yml": ECHO_TOOL_CONFIG
    })
    const r = await p.lait(["--model", "gpt-4o", "--base-url", baseUrl, "--api-key", GOOD_KEY, "--tool", "echo", "weather in Paris?"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "It is sunny in Paris.\n" })
    const [, second] = requestsFor("weather in Paris?")
    const messages = (second?.body as { messages: ReadonlyArray<{ role: string; content: string; tool_call_id?: string }> })
      .messages
    expect(messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_weather", content: "weather for Paris" })
  })

  test("structured output: a strict json_schema response_format, the answer checked against it", async () => {
    const schema = { type: "object", required: ["name", "age"], properties: { name: { type: "string" }, age: { type: "integer" } } }
    const p = project({ "person.json": JSON.stringify(schema) })
    const r = await p.lait([...at(), "--json-schema", "person.json", "a person please"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "{\"name\":\"Ada\",\"age\":36}\n" })
    const body = requestsFor("a person please")[0]?.body as { response_format: unknown }
    expect(body.response_format).toEqual({ type: "json_schema", json_schema: { name: "structured_output", schema, strict: true } })
  })

  test("401: a rejected key is exit 4 and says where the key came from", async () => {
    const r = await project().lait([...at(baseUrl, STALE_KEY), "hello"])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 4,
      stdout: "",
      stderr: `lait: the model server at '${baseUrl}' answered HTTP 401: Invalid API key; check the API key (it came from --api-key)\n`
    })
  })

  test("429 with Retry-After: waited for as the server says, retried, then exit 4", async () => {
    const r = await project().lait([...at(), "please slow down"], { LAIT_HTTP_ATTEMPTS: "2" })
    expect(r.code).toBe(4)
    expect(r.stderr).toBe(
      `warning: the model server at '${baseUrl}' answered HTTP 429: Rate limit reached for gpt-4o (attempt 1/2); ` +
        "retrying in 1 s (Retry-After)\n" +
        `lait: the model server at '${baseUrl}' answered HTTP 429: Rate limit reached for gpt-4o\n`
    )
    expect(requestsFor("please slow down")).toHaveLength(2)
  })

  test("an unknown model: the server's 404 text, exit 4, not retried", async () => {
    const r = await project().lait(["--no-config", "--model", "gpt-9-nonexistent", "--base-url", baseUrl, "--api-key", GOOD_KEY, "hi there"])
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 4,
      stderr: `lait: the model server at '${baseUrl}' answered HTTP 404: ` +
        "The model `gpt-9-nonexistent` does not exist or you do not have access to it.\n"
    })
    expect(requestsFor("hi there")).toHaveLength(1)
  })

  test("a stream cut mid-way: the text that came stays on stdout, then one error line and exit 4", async () => {
    const r = await project().lait([...at(), "--stream", "tell me a long story"], { LAIT_HTTP_ATTEMPTS: "1" })
    expect(r.code).toBe(4)
    expect(r.stdout.length).toBeGreaterThan(0)
    expect(LONG.startsWith(r.stdout.trimEnd())).toBe(true)
    expect(r.stdout.trimEnd().length).toBeLessThan(LONG.trimEnd().length)
    expect(r.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1)
    // docs/repl.md#streaming: named as a broken stream, with how much had come, not "failed to reach".
    expect(r.stderr).toMatch(new RegExp(`^lait: the stream from '${baseUrl.replace(/[.]/g, "\\.")}' broke off after \\d+ bytes: `))
  })

  test("record, then replay with the server stopped", async () => {
    const own = new LLMock({ port: 0, host: "127.0.0.1" })
    own.onMessage("remember", { content: "Recorded once." })
    await own.start()
    const url = `${own.url}/v1`
    const p = project()
    const args = ["--no-config", "--model", "gpt-4o", "--base-url", url, "remember this"]
    try {
      const recorded = await p.lait([...args, "--record", "tapes"])
      expect({ code: recorded.code, stdout: recorded.stdout }).toEqual({ code: 0, stdout: "Recorded once.\n" })
    } finally {
      await own.stop()
    }
    expect(fs.readdirSync(path.join(p.dir, "tapes"))).toHaveLength(1)
    const replayed = await p.lait([...args, "--replay", "tapes"])
    expect({ code: replayed.code, stdout: replayed.stdout, stderr: replayed.stderr })
      .toEqual({ code: 0, stdout: "Recorded once.\n", stderr: "" })
    // Without --replay the server is asked, and it is gone: the replay above did not need it.
    const live = await p.lait(args, { LAIT_HTTP_ATTEMPTS: "1" })
    expect({ code: live.code, stderr: live.stderr }).toEqual({ code: 4, stderr: `lait: failed to reach '${url}': connection refused\n` })
  })

  test("models --remote: aimock's list for the key it accepts; the stale key's alias named on its own line", async () => {
    const p = project({
      "lait.config.yml": [
        "models:",
        "  fast:",
        `    - provider: { base_url: '${baseUrl}', api_key: '${GOOD_KEY}' }`,
        "      model_id: gpt-4o",
        "  old:",
        `    - provider: { base_url: '${baseUrl}', api_key: '${STALE_KEY}' }`,
        "      model_id: gpt-4"
      ].join("\n")
    })
    const r = await p.lait(["models", "--remote"])
    expect(r.code).toBe(4)
    expect(r.stdout).toBe([`${baseUrl} (fast)`, ...(await listedIds()), ""].join("\n"))
    expect(r.stderr).toBe(
      `error: GET ${baseUrl}/models (old): key rejected (HTTP 401: Invalid API key)\n` +
        "lait: 1 of 2 endpoints could not be listed\n"
    )
  })
})

describe("a gateway that routes by header, in front of aimock", () => {
  test("without the header it refuses (exit 4, its message); --header gets through, streams too", async () => {
    const p = project()
    const refused = await p.lait([...at(gateway.baseUrl), "hello"])
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 4,
      stderr: `lait: the model server at '${gateway.baseUrl}' answered HTTP 400: ` +
        "Either x-portkey-config or x-portkey-provider header is required\n"
    })
    for (const extra of [[], ["--stream"]]) {
      const r = await p.lait([...at(gateway.baseUrl), "--header", "x-portkey-provider: openai", ...extra, "hello"])
      expect({ extra, code: r.code, stdout: r.stdout }).toEqual({ extra, code: 0, stdout: "Hi there from aimock!\n" })
    }
    expect(gateway.seen.at(-1)?.["x-portkey-provider"]).toBe("openai")
  })

  test("a model's headers: in a workflow and in the config reach it, for lait run and models --remote", async () => {
    const provider = `{ base_url: '${gateway.baseUrl}', api_key: '${GOOD_KEY}', headers: { x-portkey-provider: '\${PROVIDER}' } }`
    const p = project({
      "lait.config.yml": ["models:", "  gw:", `    - provider: ${provider}`, "      model_id: gpt-4o"].join("\n"),
      "wf.yml": ["default: { model: gw }", "steps:", "  - id: ask", "    prompt: 'hello {{ input }}'"].join("\n")
    })
    const env = { PROVIDER: "openai" }
    const run = await p.lait(["run", "wf.yml", "world"], env)
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "Hi there from aimock!\n" })
    const listed = await p.lait(["models", "--remote"], env)
    expect({ code: listed.code, stdout: listed.stdout })
      .toEqual({ code: 0, stdout: [`${gateway.baseUrl} (gw)`, ...(await listedIds()), ""].join("\n") })
    expect(gateway.seen.filter((h) => h["x-portkey-provider"] === "openai").length).toBeGreaterThanOrEqual(2)
  })
})
