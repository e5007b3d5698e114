// `lait serve --mcp` from the compiled binary, driven by the MCP SDK's own client over stdio and over
// streamable HTTP, and by lait itself (a workflow whose `mcp_servers` entry runs `lait serve --mcp`):
// tool listing and schemas, calls answered by the fixture OpenAI server, concurrent calls, failing
// calls, the Host check, --record/--replay, the --trace-file and SIGINT/SIGTERM. Attacks on the server
// (limits, tokens, origins, hang-ups, shell-injectable workflows) are in test/hardening/serve.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as http from "node:http"
import * as fs from "node:fs"
import * as path from "node:path"
import { type ScriptedReply } from "../fixtures/openai-server.ts"
import { cleanEnv, server, stopServers, workspace } from "./model-harness.ts"
import { alive, ensureBinary, waitUntil } from "./util.ts"

const ws = workspace("e2e-serve")
let binary: string
beforeAll(async () => {
  binary = await ensureBinary()
}, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const config = (baseUrl: string, extra = "") => `base_url: '${baseUrl}'
default:
  model: fixture-model
agents:
  helper: agents/helper.md
workflows:
  summarize: workflows/summarize.yml
  greet: workflows/greet.yml
  broken: workflows/broken.yml
  asks: workflows/asks.yml
  double: workflows/double.yml
  "greet.v2": workflows/greet.yml
  greet_v2: workflows/greet.yml
${extra}`

ws.write("agents/helper.md", "---\ndescription: Helps with anything\n---\nYou are a helper.\n")
ws.write(
  "workflows/summarize.yml",
  "description: Summarises a text\nsteps:\n  - prompt: 'Summarize: {{ input }}'\n"
)
ws.write(
  "workflows/greet.yml",
  `description: Greets someone
inputs:
  name: {type: string, description: who to greet}
  punctuation: {type: string, default: "!"}
steps:
  - jq: '"Hello, " + $inputs.name + $inputs.punctuation'
`
)
ws.write("workflows/broken.yml", "steps:\n  - id: fails\n    run: [sh, -c, 'echo oops >&2; exit 3']\n")
ws.write("workflows/asks.yml", "steps:\n  - ask: 'Really?'\n")
ws.write(
  "workflows/double.yml",
  "input_schema: {type: object, properties: {n: {type: integer}}, required: [n]}\nsteps:\n  - jq: '{double: (.n * 2)}'\n"
)

const env = (extra: Readonly<Record<string, string>> = {}) =>
  Object.fromEntries(
    Object.entries({ ...cleanEnv(ws.dir), LAIT_HTTP_ATTEMPTS: "1", ...extra }).filter((e): e is [string, string] =>
      e[1] !== undefined
    )
  )

const stdioClient = async (args: ReadonlyArray<string> = [], extraEnv: Readonly<Record<string, string>> = {}) => {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["serve", "--mcp", ...args],
    cwd: ws.dir,
    env: env(extraEnv),
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
  const client = new Client({ name: "e2e", version: "0" })
  await client.connect(transport)
  return { client, stderr: () => stderr, close: () => client.close() }
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>): string =>
  (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join("")

const fixture = (script: ReadonlyArray<ScriptedReply>) => {
  const s = server({ script })
  ws.write("lait.config.yml", config(s.baseUrl))
  return s
}

describe("lait serve --mcp over stdio", () => {
  test("lists the workflows and agents with their schemas and runs a workflow against the model", async () => {
    const s = fixture([{ match: "Summarize:", content: "a short summary" }])
    const { client, stderr, close } = await stdioClient()
    try {
      const { tools } = await client.listTools()
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
      expect(Object.keys(byName).sort()).toEqual([
        "agent__helper",
        "workflow__broken",
        "workflow__double",
        "workflow__greet",
        "workflow__greet_v2",
        "workflow__summarize"
      ])
      expect(byName["workflow__double"]!.inputSchema).toMatchObject({
        properties: { input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } },
        required: ["input"]
      })
      expect(byName["workflow__summarize"]!.description).toBe("Summarises a text")
      expect(byName["workflow__summarize"]!.inputSchema).toMatchObject({
        type: "object",
        properties: { input: { type: "string" } },
        required: ["input"]
      })
      expect(byName["workflow__greet"]!.inputSchema).toMatchObject({
        type: "object",
        properties: {
          inputs: {
            type: "object",
            properties: { name: { type: "string", description: "who to greet" }, punctuation: { type: "string" } },
            required: ["name"]
          }
        },
        required: ["inputs"]
      })
      expect(byName["agent__helper"]!.description).toBe("Helps with anything")
      expect(stderr()).toContain("skipping workflow 'asks' as an MCP tool: it has an 'ask:' step")
      expect(stderr()).toContain(
        "skipping workflow 'greet_v2' as an MCP tool: its tool name 'workflow__greet_v2' is already taken by workflow 'greet.v2'"
      )

      const result = await client.callTool({ name: "workflow__summarize", arguments: { input: "a long text" } })
      // Sent explicitly on success, not left out (the SDK's schema keeps it optional).
      expect(result.isError).toBe(false)
      expect(textOf(result)).toBe("a short summary")
      const body = s.requests.at(-1)!.body as { messages: Array<{ content: string }> }
      expect(body.messages.at(-1)!.content).toBe("Summarize: a long text")

      const greeted = await client.callTool({ name: "workflow__greet", arguments: { inputs: { name: "Ann" } } })
      expect(textOf(greeted)).toBe("Hello, Ann!")
      // Structured output comes back as JSON text; `input` may be the value or its JSON text.
      const doubled = await client.callTool({ name: "workflow__double", arguments: { input: { n: 21 } } })
      expect(textOf(doubled)).toBe("{\"double\":42}")
      const fromText = await client.callTool({ name: "workflow__double", arguments: { input: "{\"n\": 2}" } })
      expect(textOf(fromText)).toBe("{\"double\":4}")
      const invalid = await client.callTool({ name: "workflow__double", arguments: { input: { n: "x" } } })
      expect(invalid.isError).toBe(true)
      const helped = await client.callTool({ name: "agent__helper", arguments: { input: "help me" } })
      expect(textOf(helped)).toBe("echo: help me")
    } finally {
      await close()
    }
  }, 60_000)

  test("two calls run at the same time", async () => {
    // The model server holds each answer until both requests are in: one call after the other would
    // show a peak of 1 (each answered when the fixture's bound runs out).
    const s = fixture([{ match: "Summarize:", content: "slow", await_concurrent: 2, repeat: true }])
    const { client, close } = await stdioClient()
    try {
      const results = await Promise.all([
        client.callTool({ name: "workflow__summarize", arguments: { input: "one" } }),
        client.callTool({ name: "workflow__summarize", arguments: { input: "two" } })
      ])
      expect(results.map(textOf)).toEqual(["slow", "slow"])
      expect(s.maxConcurrent, "model requests in flight at once").toBe(2)
    } finally {
      await close()
    }
  }, 60_000)

  test("a failing workflow is a tool error with lait's one line, and the server answers the next call", async () => {
    fixture([{ content: "fine", repeat: true }])
    const direct = await ws.lait(["run", "broken", "x"], { env: { LAIT_HTTP_ATTEMPTS: "1" } })
    expect(direct.code).toBe(1)
    const line = direct.stderr.trim().split("\n").find((l) => l.startsWith("lait: "))!.slice("lait: ".length)
    const { client, close } = await stdioClient()
    try {
      const failed = await client.callTool({ name: "workflow__broken", arguments: { input: "x" } })
      expect(failed.isError).toBe(true)
      expect(textOf(failed)).toBe(line)
      const missing = await client.callTool({ name: "workflow__summarize", arguments: {} })
      expect({ isError: missing.isError, text: textOf(missing) }).toEqual({
        isError: true,
        text: "workflow tool call is missing the required 'input' field"
      })
      const next = await client.callTool({ name: "workflow__summarize", arguments: { input: "y" } })
      expect({ isError: next.isError, text: textOf(next) }).toEqual({ isError: false, text: "fine" })
      await expect(client.callTool({ name: "workflow__nope", arguments: {} })).rejects.toThrow("unknown tool 'workflow__nope'")
    } finally {
      await close()
    }
  }, 60_000)

  test("--record then --replay: the replayed server needs no model server", async () => {
    fixture([{ match: "Summarize:", content: "recorded summary" }])
    const cassettes = path.join(ws.dir, "cassettes")
    const recording = await stdioClient(["--record", cassettes])
    try {
      const r = await recording.client.callTool({ name: "workflow__summarize", arguments: { input: "t" } })
      expect(textOf(r)).toBe("recorded summary")
    } finally {
      await recording.close()
    }
    expect(fs.readdirSync(cassettes).filter((f) => f.endsWith(".json")).length).toBe(1)
    await stopServers()
    // The same base URL, now refused: only the cassette can answer.
    const replaying = await stdioClient(["--replay", cassettes])
    try {
      const r = await replaying.client.callTool({ name: "workflow__summarize", arguments: { input: "t" } })
      expect({ isError: r.isError ?? false, text: textOf(r) }).toEqual({ isError: false, text: "recorded summary" })
      const miss = await replaying.client.callTool({ name: "workflow__summarize", arguments: { input: "other" } })
      expect(miss.isError).toBe(true)
      expect(textOf(miss)).toContain("no recorded cassette")
    } finally {
      await replaying.close()
    }
  }, 60_000)

  test("--trace-file gets each call's events when it ends, every event tagged with its tool", async () => {
    fixture([{ content: "traced", repeat: true }])
    const tracePath = path.join(ws.dir, "traces", "serve.jsonl")
    const { client, close } = await stdioClient(["--trace-file", tracePath])
    const read = () =>
      fs.readFileSync(tracePath, "utf8").trim().split("\n").map((l) =>
        JSON.parse(l) as { seq: number; operation: string; attributes: Record<string, unknown> }
      )
    try {
      expect(fs.existsSync(tracePath)).toBe(false)
      await client.callTool({ name: "workflow__summarize", arguments: { input: "one" } })
      const first = read()
      expect(first.map((e) => [e.seq, e.operation, e.attributes["lait.serve.tool"]])).toEqual([
        [0, "chat", "workflow__summarize"]
      ])
      await client.callTool({ name: "agent__helper", arguments: { input: "two" } })
      expect(read().map((e) => [e.seq, e.operation, e.attributes["lait.serve.tool"]])).toEqual([
        [0, "chat", "workflow__summarize"],
        [1, "chat", "agent__helper"]
      ])
    } finally {
      await close()
    }
  }, 60_000)
})

describe("lait serve: usage", () => {
  test.each([
    [[], "lait: 'lait serve' currently only supports '--mcp'; see docs/serve.md"],
    [["--mcp", "--http", "nowhere"], "lait: invalid value 'nowhere' for '--http <ADDR>': expected HOST:PORT, [IPv6]:PORT or PORT"],
    [["--mcp", "--allowed-host", "x"], "lait: the argument '--allowed-host <HOST>' requires '--http <ADDR>'"],
    [["--mcp", "--record", "a", "--replay", "b"], "lait: the argument '--record <DIR>' cannot be used with '--replay <DIR>'"]
  ])("serve %p", async (args, line) => {
    ws.write("lait.config.yml", config("http://127.0.0.1:9/v1"))
    const r = await ws.lait(["serve", ...args])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr.trim() }).toEqual({ code: 2, stdout: "", stderr: line })
  })

  test("an address in use fails with the OS's reason", async () => {
    ws.write("lait.config.yml", config("http://127.0.0.1:9/v1"))
    const taken = http.createServer()
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done))
    const port = (taken.address() as { port: number }).port
    try {
      const r = await ws.lait(["serve", "--mcp", "--http", `127.0.0.1:${port}`])
      expect({ code: r.code, line: r.stderr.trim().split("\n").at(-1) }).toEqual({
        code: 1,
        line: `lait: failed to listen on 127.0.0.1:${port}: Address already in use (os error 98)`
      })
    } finally {
      taken.close()
    }
  })

  test("nothing to serve: a warning, and the server still starts", async () => {
    const r = await ws.lait(["serve", "--mcp", "--no-config"], { stdin: "" })
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "" })
    expect(r.stderr).toBe(
      "warning: lait serve --mcp: no 'agents:' or 'workflows:' entry can be served\n" +
        "note: lait serve --mcp: ready over stdio with no tools\n"
    )
  })

  test("a client closing stdin ends the server with exit 0", async () => {
    ws.write("lait.config.yml", config("http://127.0.0.1:9/v1"))
    // A process: the stdio transport reads the process's own stdin, whose end is what is tested.
    const r = await ws.lait(["serve", "--mcp"], { stdin: "", process: true })
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "" })
    expect(r.stderr).toContain("note: lait serve --mcp: ready over stdio with 6 tool(s): agent__helper, workflow__")
  })
})

describe("lait serve --mcp over stdio: signals", () => {
  test("SIGTERM during a call stops the server promptly", async () => {
    const s = fixture([{ match: "Summarize:", content: "never", delay_ms: 20_000 }])
    const transport = new StdioClientTransport({
      command: binary,
      args: ["serve", "--mcp"],
      cwd: ws.dir,
      env: env(),
      stderr: "pipe"
    })
    const client = new Client({ name: "e2e", version: "0" })
    await client.connect(transport)
    const pid = transport.pid!
    void client.callTool({ name: "workflow__summarize", arguments: { input: "x" } }).catch(() => undefined)
    await waitUntil("the model request", () => s.requests.length > 0)
    process.kill(pid, "SIGTERM")
    await waitUntil("lait serve to exit after SIGTERM", () => !alive(pid), 15_000)
    // Gone while the model still held its answer (20 s): the call was stopped, not waited for.
    expect(s.inFlight, "model requests still being answered when lait serve was gone").toBe(1)
    await client.close()
  }, 60_000)
})

describe("lait serve --mcp: run contexts", () => {
  test("concurrent calls keep their own traces; a call the client cancels is stopped", async () => {
    const s = fixture([
      { match: "never answered", content: "late", delay_ms: 20_000 },
      { match: "Summarize:", content: "slow", delay_ms: 800, repeat: true },
      { content: "agent reply", delay_ms: 800, repeat: true }
    ])
    const tracePath = path.join(ws.dir, "concurrent.jsonl")
    const { client, close } = await stdioClient(["--trace-file", tracePath])
    type Event = { seq: number; operation: string; label: string; attributes: Record<string, unknown> }
    const read = () => fs.readFileSync(tracePath, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Event)
    try {
      await Promise.all([
        client.callTool({ name: "workflow__summarize", arguments: { input: "a" } }),
        client.callTool({ name: "agent__helper", arguments: { input: "b" } })
      ])
      const events = read()
      expect(events.map((e) => e.seq)).toEqual([0, 1])
      expect(events.map((e) => [e.label, e.attributes["lait.serve.tool"]]).sort()).toEqual([
        ["step-1 (agent)", "agent__helper"],
        ["step-1 (prompt)", "workflow__summarize"]
      ])

      const controller = new AbortController()
      const cancelled = client
        .callTool({ name: "workflow__summarize", arguments: { input: "never answered" } }, undefined, {
          signal: controller.signal
        })
        .catch((e: unknown) => e)
      await waitUntil("the request of the call to cancel", () =>
        s.requests.some((r) => JSON.stringify(r.body).includes("never answered")))
      controller.abort()
      expect(await cancelled).toBeInstanceOf(Error)
      // The interrupted call's trace is written while the model still holds its answer (20 s).
      await waitUntil("the cancelled call's trace events", () => read().length >= 3, 15_000)
      expect(s.inFlight, "model requests still being answered when the trace was written").toBe(1)
      // With the step and the run it cut short, as for any interrupted run.
      expect(read().slice(2).map((e) => [e.operation, e.attributes["error.type"], e.attributes["lait.serve.tool"]]))
        .toEqual([
          ["chat", "cancelled", "workflow__summarize"],
          ["step", "cancelled", "workflow__summarize"],
          ["invoke_workflow", "cancelled", "workflow__summarize"]
        ])
      const next = await client.callTool({ name: "workflow__summarize", arguments: { input: "again" } })
      expect(textOf(next)).toBe("slow")
    } finally {
      await close()
    }
  }, 60_000)
})

/** `lait serve --mcp --http 127.0.0.1:0 ...` as a process, and the URL its ready note names. */
const startHttp = async (args: ReadonlyArray<string> = []) => {
  const child = Bun.spawn([binary, "serve", "--mcp", "--http", "127.0.0.1:0", ...args], {
    cwd: ws.dir,
    env: env(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  const decoder = new TextDecoder()
  let stderr = ""
  const reader = child.stderr.getReader()
  const url = await new Promise<string>((resolve, reject) => {
    const pump = async () => {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return reject(new Error(`lait serve exited before it was ready:\n${stderr}`))
        stderr += decoder.decode(value)
        const m = /ready at (http:\/\/\S+)/.exec(stderr)
        if (m !== null) {
          resolve(m[1]!)
          // Keep draining, so the child never blocks on a full pipe.
          void (async () => {
            for (;;) {
              const next = await reader.read()
              if (next.done) return
              stderr += decoder.decode(next.value)
            }
          })()
          return
        }
      }
    }
    void pump()
  })
  return { child, url, stderr: () => stderr }
}

/** A raw request with a Host header of our choosing (fetch would put the URL's own there). */
const postWithHost = (url: string, host: string) =>
  new Promise<number>((resolve, reject) => {
    const target = new URL(url)
    const request = http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: { host, "content-type": "application/json", accept: "application/json, text/event-stream" }
    }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on("error", reject)
    request.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }))
  })

describe("lait serve --mcp --http", () => {
  test("serves /mcp to the SDK client with concurrent calls, and refuses a foreign Host header", async () => {
    const s = fixture([{ match: "Summarize:", content: "over http", await_concurrent: 2, repeat: true }])
    const served = await startHttp(["--allowed-host", "lait.internal:1"])
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      const client = new Client({ name: "e2e", version: "0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)))
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toContain("workflow__summarize")
      const results = await Promise.all(
        ["a", "b"].map((input) => client.callTool({ name: "workflow__summarize", arguments: { input } }))
      )
      expect(results.map(textOf)).toEqual(["over http", "over http"])
      expect(s.maxConcurrent, "model requests in flight at once").toBe(2)
      await client.close()

      expect(await postWithHost(served.url, "evil.example")).toBe(403)
      expect(await postWithHost(served.url, "lait.internal:2")).toBe(403)
      // Allowed hosts get past the check (then the protocol wants an initialize first).
      expect(await postWithHost(served.url, "lait.internal:1")).not.toBe(403)
      expect(await postWithHost(served.url, `localhost:${new URL(served.url).port}`)).not.toBe(403)
    } finally {
      served.child.kill("SIGKILL")
      await served.child.exited
    }
  }, 60_000)

  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    test(`${signal} stops the server and its running call promptly; the trace file stays whole`, async () => {
      const s = fixture([{ match: "Summarize:", content: "never", delay_ms: 20_000 }, { content: "quick", repeat: true }])
      const tracePath = path.join(ws.dir, `signal-${signal}.jsonl`)
      const served = await startHttp(["--trace-file", tracePath])
      const client = new Client({ name: "e2e", version: "0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)))
      await client.callTool({ name: "agent__helper", arguments: { input: "first" } })
      // Its answer never comes (the server stops), and the client would wait out its own timeout.
      void client.callTool({ name: "workflow__summarize", arguments: { input: "slow" } }).catch(() => undefined)
      await waitUntil("the model request", () => s.requests.some((r) => JSON.stringify(r.body).includes("Summarize:")))
      served.child.kill(signal)
      const exitCode = await served.child.exited
      // Promptly: gone while the model still held its answer (20 s), not after it.
      expect({ exitCode, answering: s.inFlight }).toEqual({ exitCode: code, answering: 1 })
      await client.close()
      const events = fs.readFileSync(tracePath, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { seq: number })
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i))
      expect(events.length).toBeGreaterThanOrEqual(1)
    }, 60_000)
  }
})

describe("lait as its own MCP client", () => {
  test("a workflow whose mcp_servers entry runs lait serve --mcp calls a served workflow as a tool", async () => {
    const s = server({
      script: [
        { match: "\"role\":\"tool\"", content: "final answer" },
        { match: "Summarize:", content: "inner summary" },
        { match: "Use lait", tool_calls: [{ id: "c1", name: "lait__workflow__summarize", arguments: "{\"input\":\"deep text\"}" }] }
      ]
    })
    ws.write(
      "lait.config.yml",
      config(
        s.baseUrl,
        `mcp_servers:\n  lait:\n    command: '${binary}'\n    args: [serve, --mcp]\n`
      )
    )
    ws.write("client.yml", "steps:\n  - prompt: 'Use lait on {{ input }}'\n    mcp: [lait]\n")
    const r = await ws.lait(["run", "client.yml", "go", "--trace-file", "client.jsonl"], { env: { LAIT_HTTP_ATTEMPTS: "1" } })
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "final answer\n" })
    const toolMessage = (s.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages
      .find((m) => m.role === "tool")
    expect(toolMessage?.content).toBe("inner summary")
    const inner = s.requests.find((req) => JSON.stringify(req.body).includes("Summarize: deep text"))
    expect(inner).toBeDefined()
  }, 60_000)
})

