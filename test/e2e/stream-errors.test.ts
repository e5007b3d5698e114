// `lait PROMPT --stream` against streams that go wrong (docs/repl.md#streaming): an error event
// before any text is retried and falls back like the HTTP error it stands for, one after text ends
// the answer with a one-line error, a connection that breaks off says after how many bytes, and text
// cut inside a UTF-16 surrogate pair or a UTF-8 character prints whole.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"
import { ensureBinary, makeTempDir, runCli } from "./util.ts"

let dir = ""
const servers: Array<OpenAiServer> = []
beforeAll(async () => {
  dir = makeTempDir("stream-errors")
  await ensureBinary()
}, 300_000)
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()))
})

const serve = (script: Array<ScriptedReply>) => {
  const server = startOpenAiServer({ script })
  servers.push(server)
  return server
}

const env = { ...process.env, NO_COLOR: "1", LAIT_HTTP_BACKOFF_MS: "0" }

/** A project whose alias `smart` is `primary`, then `backup` as its fallback. */
const project = (name: string, primary: OpenAiServer, backup: OpenAiServer) => {
  const cwd = path.join(dir, name)
  fs.mkdirSync(cwd, { recursive: true })
  fs.writeFileSync(
    path.join(cwd, "lait.config.yml"),
    `models:
  smart:
    - provider: { base_url: '${primary.baseUrl}' }
      model_id: primary-model
    - provider: { base_url: '${backup.baseUrl}' }
      model_id: backup-model
`
  )
  return cwd
}

const event = (data: unknown, name?: string) =>
  `${name === undefined ? "" : `event: ${name}\n`}data: ${JSON.stringify(data)}\n\n`
const text = (content: string) => event({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })

const retried = (reason: string) =>
  `warning: ${reason} (attempt 1/3); retrying in 0 ms\nwarning: ${reason} (attempt 2/3); retrying in 0 ms\n`

describe("an error event inside an HTTP 200 stream", () => {
  test("before any text: a rate limit is retried, then the fallback answers, as for an HTTP 429", async () => {
    const limited = { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }
    const primary = serve([{ sse: [": ok\n\n", event(limited)], repeat: true }])
    const backup = serve([{ content: "from the backup" }])
    const r = await runCli(["--model", "smart", "--stream", "hi"], { cwd: project("limit", primary, backup), env, binary: true })
    const reported = `the model server at '${primary.baseUrl}' reported: Rate limit reached`
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: "from the backup\n",
      stderr: retried(reported) +
        `warning: model 'primary-model' at '${primary.baseUrl}' failed (${reported}); ` +
        `falling back to 'backup-model' at '${backup.baseUrl}'\n`
    })
    expect(primary.requests).toHaveLength(3)
    expect(backup.requests).toHaveLength(1)
  })

  test("an `event: error` saying overloaded (Anthropic's shape) is retried and succeeds on the next attempt", async () => {
    const overloaded = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
    const primary = serve([{ sse: [event(overloaded, "error")] }, { content: "second try" }])
    const backup = serve([])
    const r = await runCli(["--model", "smart", "--stream", "hi"], { cwd: project("overload", primary, backup), env, binary: true })
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: "second try\n",
      stderr: `warning: the model server at '${primary.baseUrl}' reported: Overloaded (attempt 1/3); retrying in 0 ms\n`
    })
    expect(backup.requests).toHaveLength(0)
  })

  test("an error that names no transient cause fails at once (exit 4), like an HTTP 400", async () => {
    const invalid = { error: { message: "messages must not be empty", type: "invalid_request_error", code: null } }
    const primary = serve([{ sse: [event(invalid)], repeat: true }])
    const backup = serve([])
    const r = await runCli(["--model", "smart", "--stream", "hi"], { cwd: project("invalid", primary, backup), env, binary: true })
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 4,
      stdout: "",
      stderr: `lait: the model server at '${primary.baseUrl}' reported: messages must not be empty\n`
    })
    expect([primary.requests.length, backup.requests.length]).toEqual([1, 0])
  })

  test("after text: the answer so far stays, a newline ends it, one error line, no retry or fallback", async () => {
    const primary = serve([{ sse: [text("hello "), event({ error: { message: "Overloaded", code: 529 } })], repeat: true }])
    const backup = serve([{ content: "never" }])
    const r = await runCli(["--model", "smart", "--stream", "hi"], { cwd: project("after", primary, backup), env, binary: true })
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 4,
      stdout: "hello \n",
      stderr: `lait: the model server at '${primary.baseUrl}' reported: Overloaded\n`
    })
    expect([primary.requests.length, backup.requests.length]).toEqual([1, 0])
  })
})

describe("a stream that breaks off", () => {
  test("after text: the error says after how many bytes (exit 4), not that the server was unreachable", async () => {
    const sent = [text("hello "), text("there")]
    const server = serve([{ sse: sent, sse_break: true }])
    const r = await runCli(
      ["--no-config", "--model", "m", "--base-url", server.baseUrl, "--stream", "hi"],
      { cwd: dir, env, binary: true }
    )
    const bytes = new TextEncoder().encode(sent.join("")).length
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 4,
      stdout: "hello there\n",
      stderr: `lait: the stream from '${server.baseUrl}' broke off after ${bytes} bytes: connection reset\n`
    })
    expect(server.requests).toHaveLength(1)
  })

  test("before any text: retried like a failed connection", async () => {
    const sent = ": keep-alive\n\n"
    const server = serve([{ sse: [sent], sse_break: true }, { content: "whole" }])
    const r = await runCli(
      ["--no-config", "--model", "m", "--base-url", server.baseUrl, "--stream", "hi"],
      { cwd: dir, env, binary: true }
    )
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: "whole\n",
      stderr: `warning: the stream from '${server.baseUrl}' broke off after ${sent.length} bytes: connection reset ` +
        "(attempt 1/3); retrying in 0 ms\n"
    })
  })
})

describe("text cut anywhere", () => {
  const chat = (server: OpenAiServer, ...args: Array<string>) =>
    runCli(["--no-config", "--model", "m", "--base-url", server.baseUrl, ...args], { cwd: dir, env, binary: true })

  test("a surrogate pair split across two chunks prints as one emoji, not two U+FFFD", async () => {
    const content = "smile 😀 party 🎉 end"
    const server = serve([{ content, delta_chars: 7, chunk_delay_ms: 5 }])
    const r = await chat(server, "--stream", "hi")
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: `${content}\n` })
    expect(r.stdout).not.toContain("\uFFFD")
  })

  test("a UTF-8 character cut between network pieces prints whole", async () => {
    const content = "héllo wörld ✓ 日本語"
    const server = serve([{ content, chunk_bytes: 3, chunk_delay_ms: 2 }])
    const r = await chat(server, "--stream", "hi")
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: `${content}\n` })
  })
})
