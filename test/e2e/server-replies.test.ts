// How lait words what a server answered besides a completion (docs/config.md#fallbacks-and-retries):
// the most specific text of an error body, and the wait a 429 asks for in OpenAI's `retry-after-ms`;
// and the trace-propagation headers it sends only when the run is traced (docs/traces.md).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { startOtlpReceiver } from "../fixtures/otlp-receiver.ts"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"
import { ensureBinary, makeTempDir, runCli } from "./util.ts"

let dir = ""
let server: OpenAiServer | undefined
beforeAll(async () => {
  dir = makeTempDir("server-replies")
  await ensureBinary()
}, 300_000)
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const env = { ...process.env, NO_COLOR: "1", LAIT_HTTP_BACKOFF_MS: "0" }

const chat = async (script: Array<ScriptedReply>, ...args: Array<string>) => {
  server = startOpenAiServer({ script })
  const r = await runCli(
    ["--no-config", "--model", "m", "--base-url", server.baseUrl, ...args, "hi"],
    { cwd: dir, env, binary: true }
  )
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, url: server.baseUrl }
}

describe("error bodies: the most specific text", () => {
  const cases: Array<[string, unknown, string]> = [
    ["`message` over a generic `error`", { error: "Not Found", message: "Cannot POST /v2/chat/completions" }, "Cannot POST /v2/chat/completions"],
    ["`error.message` first", { error: { message: "model 'm' not found", type: "invalid_request_error" }, message: "x" }, "model 'm' not found"],
    ["FastAPI's `detail`", { detail: "Model m is not served" }, "Model m is not served"],
    ["FastAPI's validation list", { detail: [{ loc: ["body", "model"], msg: "field required" }, { msg: "bad value" }] }, "field required; bad value"],
    ["`error` alone", { error: "Not Found" }, "Not Found"]
  ]
  for (const [name, body, said] of cases) {
    test(name, async () => {
      const r = await chat([{ status: 404, body }])
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 4,
        stdout: "",
        stderr: `lait: the model server at '${r.url}' answered HTTP 404: ${said}\n`
      })
    })
  }
})

describe("retry-after-ms", () => {
  test("a 429's retry-after-ms sets the wait, over Retry-After and the backoff", async () => {
    const limited = { status: 429, headers: { "retry-after-ms": "3", "retry-after": "40" } }
    const r = await chat([limited, { content: "ok" }])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: "ok\n",
      stderr: `warning: the model server at '${r.url}' answered HTTP 429: scripted 429 (attempt 1/3); ` +
        "retrying in 3 ms (retry-after-ms)\n"
    })
  })

  test("without it, Retry-After still applies", async () => {
    const r = await chat([{ status: 503, headers: { "retry-after": "0" } }, { content: "ok" }])
    expect(r.stderr).toBe(
      `warning: the model server at '${r.url}' answered HTTP 503: scripted 503 (attempt 1/3); retrying in 0 ms (Retry-After)\n`
    )
  })
})

/** A project whose workflow asks model `m` at `s`. */
const runProject = (s: OpenAiServer) => {
  const cwd = path.join(dir, "run")
  fs.mkdirSync(cwd, { recursive: true })
  fs.writeFileSync(path.join(cwd, "lait.config.yml"), `base_url: '${s.baseUrl}'\n`)
  fs.writeFileSync(path.join(cwd, "wf.yml"), "steps:\n  - id: s\n    model: m\n    prompt: hi\n")
  return cwd
}

describe("trace-propagation headers", () => {
  const propagation = (s: OpenAiServer) =>
    s.requests.map((q) => [q.headers["traceparent"] !== undefined, q.headers["b3"] !== undefined])

  test("an untraced one-shot chat and lait run send neither traceparent nor b3", async () => {
    expect((await chat([{ content: "a" }])).code).toBe(0)
    expect(propagation(server!)).toEqual([[false, false]])
    await server!.stop()
    server = startOpenAiServer({ script: [{ content: "b" }] })
    const r = await runCli(["run", "wf.yml", "go"], { cwd: runProject(server), env, binary: true })
    expect(r.code).toBe(0)
    expect(propagation(server)).toEqual([[false, false]])
  })

  test("a trace file or live OTLP export: every model request carries both", async () => {
    expect((await chat([{ content: "a" }], "--trace-file", "t.jsonl")).code).toBe(0)
    const traceId = JSON.parse(fs.readFileSync(path.join(dir, "t.jsonl"), "utf8").split("\n")[0]!)
    expect(traceId.operation).toBe("chat")
    expect(propagation(server!)).toEqual([[true, true]])
    await server!.stop()

    server = startOpenAiServer({ script: [{ content: "b", repeat: true }] })
    const cwd = runProject(server)
    const runIt = (extra: Array<string>, moreEnv: Record<string, string> = {}) =>
      runCli(["run", "wf.yml", "go", ...extra], { cwd, env: { ...env, ...moreEnv }, binary: true })
    expect((await runIt(["--trace-file", "run.jsonl"])).code).toBe(0)
    const receiver = startOtlpReceiver()
    try {
      expect((await runIt([], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })).code).toBe(0)
    } finally {
      await receiver.stop()
    }
    expect(propagation(server)).toEqual([[true, true], [true, true]])
  })
})
