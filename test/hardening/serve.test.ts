// Attacks on `lait serve --mcp` (issue 36), each through the compiled binary: a flood of sessions, a
// client that trickles a body (also with the descriptors of `ulimit -n` nearly used up), a flood of
// calls, a client that hangs up mid-call, a server bound to every interface, a foreign web page (its
// Origin), a workflow whose `sh -c` script a caller's argument would write, and a long-lived trace
// file. Limits are set small through their flags (docs/serve.md#limits) so each attack is quick.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"
import { server, stopServers, workspace } from "../e2e/model-harness.ts"
import { ensureBinary } from "../e2e/util.ts"
import {
  callTool,
  listTools,
  mcp,
  openSession,
  resultOf,
  type Served,
  serveEnv,
  startServe,
  trickle,
  waitFor
} from "./serve-harness.ts"

const ws = workspace("hardening-serve")
let binary: string
const running: Array<Served> = []
beforeAll(async () => {
  binary = await ensureBinary()
}, 300_000)
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()))
  await stopServers()
})
afterAll(() => ws.remove())

const mark = (name: string) => path.join(ws.dir, "marks", name)
fs.mkdirSync(path.join(ws.dir, "marks"), { recursive: true })

ws.write("workflows/summarize.yml", "steps:\n  - prompt: 'Summarize: {{ input }}'\n")
ws.write(
  "workflows/slow.yml",
  `steps:
  - run: [sh, -c, 'touch "$1"; sleep 5; touch "$2"', sh, '${mark("started")}', '${mark("finished")}']
  - run: [touch, '${mark("next-step")}']
`
)
ws.write("workflows/inject.yml", "steps:\n  - run: [sh, -c, 'echo {{ input }}']\n")

const fixture = (script: ReadonlyArray<ScriptedReply>) => {
  const s = server({ script })
  ws.write(
    "lait.config.yml",
    `base_url: '${s.baseUrl}'
default:
  model: fixture-model
workflows:
  summarize: workflows/summarize.yml
  slow: workflows/slow.yml
  inject: workflows/inject.yml
`
  )
  return s
}

const serve = async (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}, address = "127.0.0.1:0") => {
  const served = await startServe([binary, "serve", "--mcp", "--http", address, ...args], {
    cwd: ws.dir,
    env: serveEnv(ws.dir, env)
  })
  running.push(served)
  return served
}

/**
 * What a test that runs concurrently with others (it mostly waits) uses instead of `fixture` and
 * `serve`: a directory, config, model server and serve processes of its own, stopped by the test
 * itself, since afterEach runs whenever any concurrent test ends.
 */
const alone = async (name: string, body: (own: {
  readonly fixture: (script: ReadonlyArray<ScriptedReply>) => OpenAiServer
  readonly start: (argv: ReadonlyArray<string>) => Promise<Served>
}) => Promise<void>) => {
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(dir, { recursive: true })
  const models: Array<OpenAiServer> = []
  const serves: Array<Served> = []
  try {
    await body({
      fixture: (script) => {
        const s = startOpenAiServer({ script })
        models.push(s)
        const workflow = (file: string) => path.join(ws.dir, "workflows", file)
        fs.writeFileSync(
          path.join(dir, "lait.config.yml"),
          `base_url: '${s.baseUrl}'\ndefault:\n  model: fixture-model\nworkflows:\n  summarize: ${workflow("summarize.yml")}\n`
        )
        return s
      },
      start: async (argv) => {
        const served = await startServe(argv, { cwd: dir, env: serveEnv(ws.dir) })
        serves.push(served)
        return served
      }
    })
  } finally {
    await Promise.all([...serves.map((x) => x.stop()), ...models.map((x) => x.stop())])
  }
}

describe("sessions (issue 36 item 5)", () => {
  test("a flood of initialize requests keeps only --max-sessions sessions: the oldest idle ones are evicted", async () => {
    fixture([{ content: "ok", repeat: true }])
    const s = await serve(["--max-sessions", "5"])
    const ids: Array<string> = []
    for (let i = 0; i < 200; i++) ids.push(await openSession(s.url))
    const statuses = await Promise.all(ids.map(async (id) => (await listTools(s.url, id)).status))
    // Only the 5 newest survive; every other id is a session that no longer exists.
    expect(statuses.slice(-5)).toEqual([200, 200, 200, 200, 200])
    expect(statuses.filter((c) => c === 404).length).toBe(195)
    const gone = await listTools(s.url, ids[0]!)
    expect(gone.messages[0]).toMatchObject({ error: { message: "Session not found" } })
  }, 60_000)

  test("a session running a call is never evicted; when all are busy a new one is refused with 503", async () => {
    // The model answers the call only once the refusal has been seen: the call is busy until then.
    const answer = Promise.withResolvers<void>()
    const model = fixture([{ match: "Summarize: slow", content: "done at last", hold: answer.promise }])
    const s = await serve(["--max-sessions", "1"])
    const busy = await openSession(s.url)
    const call = callTool(s.url, busy, "workflow__summarize", { input: "slow" })
    try {
      expect(await waitFor(() => model.requests.length === 1), "the model server to receive the first call's request").toBe(true)
      const refused = await mcp(s.url, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "0" } }
      })
      expect(refused.status).toBe(503)
      expect(JSON.stringify(refused.messages)).toContain("see --max-sessions")
    } finally {
      answer.resolve()
    }
    expect(resultOf(await call)).toEqual({ text: "done at last", isError: false })
    // Idle now: a new client takes its place.
    const next = await openSession(s.url)
    expect((await listTools(s.url, next)).status).toBe(200)
    expect((await listTools(s.url, busy)).status).toBe(404)
  }, 60_000)

  // This test and the slow bodies' wait out limits of a second or two: they wait at the same time.
  test.concurrent("an idle session expires after --session-idle-timeout; a call longer than that keeps it", () => alone("idle", async (own) => {
    own.fixture([{ match: "Summarize: long", content: "long call", delay_ms: 1500 }])
    const s = await own.start([binary, "serve", "--mcp", "--http", "127.0.0.1:0", "--session-idle-timeout", "1"])
    const kept = await openSession(s.url)
    // The call lasts longer than the idle limit: the session must still be there to answer it.
    expect(resultOf(await callTool(s.url, kept, "workflow__summarize", { input: "long" }))).toEqual({
      text: "long call",
      isError: false
    })
    // Idle expiry is a matter of time, and asking about a session keeps it alive: each look spends one
    // of these idle sessions, at growing intervals past the limit, until one is gone. Each was opened
    // after the long call ended, so by then `kept` has been idle longer still.
    const idle = await Promise.all(Array.from({ length: 12 }, () => openSession(s.url)))
    await Bun.sleep(1000)
    let expired: string | undefined
    for (const [i, id] of idle.entries()) {
      if ((await listTools(s.url, id)).status === 404) {
        expired = id
        break
      }
      await Bun.sleep(Math.min(100 * 2 ** i, 10_000))
    }
    expect(expired, "an idle session gone within about 60 s of a 1 s --session-idle-timeout").toBeDefined()
    expect((await listTools(s.url, kept)).status).toBe(404)
  }), 120_000)
})

describe("slow request bodies (issue 36 item 5)", () => {
  test.concurrent("a body that does not arrive within --body-timeout is answered 408 and its connection closed", () => alone("body", async (own) => {
    own.fixture([])
    const s = await own.start([binary, "serve", "--mcp", "--http", "127.0.0.1:0", "--body-timeout", "1"])
    const slow = trickle(s.port)
    expect(await slow.connected).toBe(true)
    const answer = await slow.closed
    expect(answer).toStartWith("HTTP/1.1 408")
    expect(answer).toContain("see --body-timeout")
  }), 30_000)

  test.concurrent("a body that is not JSON is a parse error; one over 4 MiB is refused before it is read", () => alone("bodies", async (own) => {
    own.fixture([])
    const s = await own.start([binary, "serve", "--mcp", "--http", "127.0.0.1:0"])
    const send = (body: string) =>
      fetch(s.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body
      })
    const bad = await send("{not json")
    expect([bad.status, await bad.json()]).toEqual([
      400,
      { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }
    ])
    const big = await send(`"${"x".repeat(4 * 1024 * 1024)}"`)
    expect(big.status).toBe(413)
    expect(((await big.json()) as { error: { message: string } }).error.message).toContain("at most 4194304 bytes")
    // Still serving.
    expect((await listTools(s.url, await openSession(s.url))).status).toBe(200)
  }), 30_000)

  test.concurrent("under ulimit -n 256, 300 trickling connections are dropped and the server answers again", () => alone("ulimit", async (own) => {
    own.fixture([])
    const s = await own.start(["sh", "-c", `ulimit -n 256 && exec "$0" serve --mcp --http 127.0.0.1:0 --body-timeout 2`, binary])
    const slow = Array.from({ length: 300 }, () => trickle(s.port))
    await Promise.all(slow.map((c) => c.connected))
    // Every one of them ends: past the deadline (or refused while descriptors were short).
    await Promise.all(slow.map((c) => c.closed))
    const session = await openSession(s.url)
    expect((await listTools(s.url, session)).status).toBe(200)
  }), 60_000)
})

describe("concurrent calls (issue 36 item 5)", () => {
  test("past --max-calls a call is refused as a tool error; once one ends, calls run again", async () => {
    // The model answers the first call only once the second has been refused: it runs until then.
    const answer = Promise.withResolvers<void>()
    const model = fixture([
      { match: "Summarize: first", content: "first done", hold: answer.promise },
      { content: "later", repeat: true }
    ])
    const s = await serve(["--max-calls", "1"])
    const a = await openSession(s.url)
    const b = await openSession(s.url)
    const first = callTool(s.url, a, "workflow__summarize", { input: "first" })
    try {
      expect(await waitFor(() => model.requests.length === 1), "the model server to receive the first call's request").toBe(true)
      const refused = resultOf(await callTool(s.url, b, "workflow__summarize", { input: "second" }))
      expect(refused).toEqual({
        text: "lait serve is busy: 1 tool call(s) are already running (see --max-calls); try again later",
        isError: true
      })
      // The refused call never reached the model.
      expect(model.requests.length).toBe(1)
    } finally {
      answer.resolve()
    }
    expect(resultOf(await first)).toEqual({ text: "first done", isError: false })
    expect(resultOf(await callTool(s.url, b, "workflow__summarize", { input: "third" }))).toEqual({
      text: "later",
      isError: false
    })
  }, 60_000)
})

describe("a client that hangs up (issue 36 item 6)", () => {
  test("aborting the HTTP request of a call cancels the workflow: its shell step is killed, the next never runs", async () => {
    fixture([])
    for (const name of ["started", "finished", "next-step"]) fs.rmSync(mark(name), { force: true })
    const tracePath = path.join(ws.dir, "hangup.jsonl")
    const s = await serve(["--trace-file", tracePath])
    const session = await openSession(s.url)
    const controller = new AbortController()
    const call = callTool(s.url, session, "workflow__slow", { input: "x" }, { signal: controller.signal })
      .catch((e: unknown) => e)
    expect(await waitFor(() => fs.existsSync(mark("started"))), "the slow workflow's shell step to start").toBe(true)
    controller.abort()
    expect(await call).toBeInstanceOf(Error)
    // The positive signal: the cancelled call's trace, written once its finalizers (the kill) ran.
    const events = () =>
      fs.existsSync(tracePath)
        ? fs.readFileSync(tracePath, "utf8").split("\n").filter((l) => l !== "").map((l) =>
          JSON.parse(l) as { operation: string; attributes: Record<string, unknown> }
        )
        : []
    expect(
      await waitFor(() => events().some((e) => e.operation === "invoke_workflow")),
      "the cancelled call's invoke_workflow event in the trace file"
    ).toBe(true)
    expect(events().find((e) => e.operation === "invoke_workflow")?.attributes["error.type"]).toBe("cancelled")
    // The shell step (its script names the marker) is gone, so nothing can write the marker any more.
    const alive = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).some((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(mark("finished"))
      } catch {
        return false
      }
    })
    expect(alive).toBe(false)
    expect(fs.existsSync(mark("finished"))).toBe(false)
    expect(fs.existsSync(mark("next-step"))).toBe(false)
    // The session is still good for the next call.
    expect((await listTools(s.url, session)).status).toBe(200)
  }, 60_000)
})

/** `lait serve ...` that must refuse to start: its exit code, stdout and stderr. */
const refusal = async (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) => {
  const child = Bun.spawn([binary, "serve", ...args], { cwd: ws.dir, env: serveEnv(ws.dir, env), stdout: "pipe", stderr: "pipe" })
  const guard = setTimeout(() => child.kill("SIGKILL"), 20_000)
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  clearTimeout(guard)
  return { code, stdout, stderr }
}

const TOKEN = "tok-3f9c1d27e0b84a6a"

describe("who may connect (issue 36 item 7)", () => {
  test("a non-loopback address without a token is refused with one line, exit 2", async () => {
    fixture([])
    expect(await refusal(["--mcp", "--http", "0.0.0.0:0"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: --http 0.0.0.0:0 is not a loopback address, and anyone who can reach it could run the served " +
        "tools: set a token with --token TOKEN or LAIT_SERVE_TOKEN (see docs/serve.md)\n"
    })
  })

  test("with --token, every request needs the bearer token, on loopback too; the token is never printed", async () => {
    fixture([{ content: "authorised", repeat: true }])
    const s = await serve(["--token", TOKEN])
    const auth = { authorization: `Bearer ${TOKEN}` }
    const initialize = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "0" } }
    }
    const none = await mcp(s.url, initialize)
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toBe("Bearer")
    expect((await mcp(s.url, initialize, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401)
    expect((await mcp(s.url, initialize, { headers: { authorization: TOKEN } })).status).toBe(401)
    const session = await openSession(s.url, auth)
    // A session id is no credential: without the token its requests are refused as well.
    expect((await listTools(s.url, session)).status).toBe(401)
    expect((await listTools(s.url, session, auth)).status).toBe(200)
    expect(resultOf(await callTool(s.url, session, "workflow__summarize", { input: "x" }, { headers: auth })))
      .toEqual({ text: "authorised", isError: false })
    expect((await mcp(s.url, undefined, { method: "DELETE", session })).status).toBe(401)
    expect(JSON.stringify(none.messages)).not.toContain(TOKEN)
    expect(s.stderr()).not.toContain(TOKEN)
  }, 60_000)

  test("LAIT_SERVE_TOKEN opens a non-loopback address; a browser page's Origin is refused there", async () => {
    fixture([])
    const s = await serve(["--allow-origin", "https://App.Example"], { LAIT_SERVE_TOKEN: TOKEN }, "0.0.0.0:0")
    expect(s.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/)
    const url = `http://127.0.0.1:${s.port}/mcp`
    const auth = { authorization: `Bearer ${TOKEN}` }
    expect((await listTools(url, "x")).status).toBe(401)
    expect(await openSession(url, auth)).toBeString()
    // Bound to every interface, not even a loopback page may call; only the allowed origin.
    const fromLocal = await mcp(url, {}, { headers: { ...auth, origin: "http://localhost:3000" } })
    expect(fromLocal.status).toBe(403)
    expect(await openSession(url, { ...auth, origin: "https://app.example" })).toBeString()
    expect(s.stderr()).not.toContain(TOKEN)
  }, 60_000)

  test("on loopback, a request from a foreign Origin is refused with 403; loopback origins pass", async () => {
    fixture([])
    const s = await serve([])
    for (const origin of ["http://evil.example", "null", "http://localhost.evil.example:8080"]) {
      const answer = await mcp(s.url, {}, { headers: { origin } })
      expect({ origin, status: answer.status }).toEqual({ origin, status: 403 })
      expect(JSON.stringify(answer.messages)).toContain("see --allow-origin")
    }
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000"]) {
      expect(await openSession(s.url, { origin })).toBeString()
    }
  }, 60_000)
})

describe("shell-injectable workflows (issue 36 item 8)", () => {
  test("served on loopback with a warning naming lint's finding; skipped on a non-loopback address", async () => {
    fixture([])
    const lint = Bun.spawnSync([binary, "lint", "workflows/inject.yml"], { cwd: ws.dir, env: serveEnv(ws.dir) })
    const finding = /warning: (step .*)$/m.exec(lint.stdout.toString())?.[1]
    expect(finding).toContain("inside a 'sh -c' script")

    const local = await serve([])
    expect(local.stderr()).toContain(
      `warning: workflow 'inject' is served, but 'lait lint' finds it shell-injectable: workflows/inject.yml:2: ${finding}\n`
    )
    const session = await openSession(local.url)
    const listed = (await listTools(local.url, session)).messages[0] as { result: { tools: Array<{ name: string }> } }
    expect(listed.result.tools.map((t) => t.name)).toContain("workflow__inject")

    const remote = await serve([], { LAIT_SERVE_TOKEN: TOKEN }, "0.0.0.0:0")
    expect(remote.stderr()).toContain(
      "warning: skipping workflow 'inject' as an MCP tool on a non-loopback address: 'lait lint' finds it " +
        `shell-injectable: workflows/inject.yml:2: ${finding}\n`
    )
    expect(remote.stderr()).toMatch(/ready at \S+ with 2 tool\(s\): workflow__summarize, workflow__slow\n/)
    const url = `http://127.0.0.1:${remote.port}/mcp`
    const auth = { authorization: `Bearer ${TOKEN}` }
    const remoteSession = await openSession(url, auth)
    const denied = await callTool(url, remoteSession, "workflow__inject", { input: "$(touch pwned)" }, { headers: auth })
    expect(denied.messages[0]).toMatchObject({ error: { message: expect.stringContaining("unknown tool 'workflow__inject'") } })
    expect(fs.existsSync(path.join(ws.dir, "pwned"))).toBe(false)
  }, 60_000)
})

describe("--trace-file over many calls (issue 36 item 9)", () => {
  test("each call's events are appended: same file, earlier lines untouched, seq in order", async () => {
    fixture([{ content: "traced", repeat: true }])
    const tracePath = path.join(ws.dir, "append.jsonl")
    fs.writeFileSync(tracePath, "stale content of an earlier server\n")
    const s = await serve(["--trace-file", tracePath])
    const session = await openSession(s.url)
    const calls = 40
    let inode = 0
    const external = "{\"written\":\"by someone else between calls\"}"
    for (let i = 0; i < calls; i++) {
      expect(resultOf(await callTool(s.url, session, "workflow__summarize", { input: `call ${i}` })).text).toBe("traced")
      if (i === 0) inode = fs.statSync(tracePath).ino
      // Appending keeps a line written in between; rewriting the file would drop it.
      if (i === 1) fs.appendFileSync(tracePath, `${external}\n`)
    }
    expect(fs.statSync(tracePath).ino).toBe(inode)
    const lines = fs.readFileSync(tracePath, "utf8").split("\n")
    expect(lines.pop()).toBe("")
    // The first call replaced the stale file, as a new trace file always does.
    expect(lines.length).toBe(calls + 1)
    expect(lines[2]).toBe(external)
    const events = lines.filter((_, i) => i !== 2).map((l) =>
      JSON.parse(l) as { seq: number; operation: string; attributes: Record<string, unknown> }
    )
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i))
    expect(new Set(events.map((e) => `${e.operation} ${String(e.attributes["lait.serve.tool"])}`))).toEqual(
      new Set(["chat workflow__summarize"])
    )
  }, 120_000)
})
