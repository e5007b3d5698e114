// The MCP registry against real servers: @modelcontextprotocol/server-everything over stdio and
// streamable HTTP, and a scripted stdio server (test/fixtures/mcp) that breaks the documented limits
// on demand. Processes are checked through /proc.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Effect, Exit, Scope } from "effect"
import type { McpServer } from "../../src/config/schema.ts"
import { MAX_HTTP_BODY_BYTES } from "../../src/tools/mcp/client.ts"
import { exitCodeOf, primaryError } from "../../src/core/errors.ts"
import { renderToolResult } from "../../src/tools/mcp/protocol.ts"
import { makeMcpRegistry } from "../../src/tools/mcp/registry.ts"
import { type JunkOptions, startJunkMcpServer } from "../fixtures/mcp/junk-http-server.ts"
import { alive, bun, everythingBin, failureOf, filesystemBin, pidsIn, processesWith, scriptedServer, tempDir, waitFor } from "./helpers.ts"

const dir = tempDir("mcp")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const scripted = (env: Record<string, string> = {}, extra: Partial<McpServer> = {}): McpServer => ({
  command: bun,
  args: [scriptedServer],
  env,
  ...extra
})

/** A registry in its own scope; `shutdown` closes that scope, as the end of a run does. */
const registry = (servers: Record<string, McpServer>, timeoutMs?: number, env: Record<string, string | undefined> = process.env) => {
  const scope = Scope.makeUnsafe()
  const mcp = Effect.runSync(
    Scope.provide(makeMcpRegistry({ servers, env, cwd: dir, ...(timeoutMs !== undefined ? { timeoutMs } : {}) }), scope)
  )
  return { ...mcp, shutdown: Scope.close(scope, Exit.void) }
}

/** The failure of `effect` as the CLI prints it, with its tag and the exit code it would end lait with. */
const failureWithCode = async <A, E>(effect: Effect.Effect<A, E>) => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  return { ...(await failureOf(Effect.failCause(exit.cause))), code: exitCodeOf(primaryError(exit.cause)) as number }
}

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

let counter = 0
const pidFile = () => path.join(dir, `pids-${++counter}.txt`)

describe("stdio servers", () => {
  test("server-everything: its tools are qualified <server>__<tool>, a call returns the text, shutdown stops it", async () => {
    const mcp = registry({ everything: { command: "node", args: [everythingBin, "stdio"] } })
    const entries = await run(mcp.entries(["everything"]))
    const names = entries.map((e) => e.name)
    expect(names).toContain("everything__echo")
    expect(names).toContain("everything__get-sum")
    const sum = entries.find((e) => e.name === "everything__get-sum")!
    expect(sum.definition.function.description).toBe("Returns the sum of two numbers")
    expect(sum.definition.function.parameters).toMatchObject({ type: "object", properties: { a: {}, b: {} } })
    expect(await run(sum.call(`{"a":2,"b":3}`))).toBe("The sum of 2 and 3 is 5.")
    const pid = (await run(mcp.connection("everything"))).pid!
    expect(alive(pid)).toBe(true)
    await run(mcp.shutdown)
    expect(alive(pid)).toBe(false)
  }, 30_000)

  test("server-filesystem: read_text_file inside its allowed directory, an error result outside it", async () => {
    const root = path.join(dir, "fs-root")
    fs.mkdirSync(root, { recursive: true })
    fs.writeFileSync(path.join(root, "note.txt"), "hello from a file")
    const mcp = registry({ filesystem: { command: "node", args: [filesystemBin, root] } })
    const entries = await run(mcp.entries(["filesystem"]))
    expect(entries.map((e) => e.name)).toContain("filesystem__read_file")
    const read = entries.find((e) => e.name === "filesystem__read_text_file")!
    expect(await run(read.call(JSON.stringify({ path: path.join(root, "note.txt") })))).toBe(
      `hello from a file\n\nstructuredContent:\n{"content":"hello from a file"}`
    )
    const outside = await run(read.call(JSON.stringify({ path: "/etc/hostname" })))
    expect(outside).toStartWith("isError: true\n\n")
    expect(outside).toContain("Access denied")
    await run(mcp.shutdown)
  }, 30_000)

  test("a server is started on first use only, and once for concurrent users", async () => {
    const pids = pidFile()
    const mcp = registry({ s: scripted({ MCP_FIXTURE_PID_FILE: pids }), unused: scripted({ MCP_FIXTURE_PID_FILE: pids }) })
    await Bun.sleep(200)
    expect(pidsIn(pids)).toEqual([])
    await run(Effect.all([mcp.entries(["s"]), mcp.entries(["s"]), mcp.tools("s")], { concurrency: "unbounded" }))
    expect(pidsIn(pids)).toHaveLength(1)
    await run(mcp.shutdown)
    expect(pidsIn(pids).filter(alive)).toEqual([])
  }, 20_000)

  test("shutdown kills the whole process tree of a wrapped server", async () => {
    const marker = `lait-mcp-tree-${process.pid}-${Date.now()}`
    const mcp = registry({ wrapped: { command: "sh", args: ["-c", `${bun} ${scriptedServer} ${marker}; true`] } })
    await run(mcp.entries(["wrapped"]))
    const before = processesWith(marker)
    expect(before.length).toBeGreaterThanOrEqual(2) // sh and the server under it
    await run(mcp.shutdown)
    expect(await waitFor(() => processesWith(marker).length === 0, 3000)).toBe(true)
  }, 20_000)

  test("stdio: ${VAR} in command, args, env and cwd; env is added to lait's environment", async () => {
    const work = path.join(dir, "work")
    fs.mkdirSync(work, { recursive: true })
    const env = { ...process.env, FIXTURE_BIN: bun, WORK: work, SECRET_VALUE: "v1" }
    const mcp = registry(
      {
        s: {
          command: "${FIXTURE_BIN}",
          args: [scriptedServer],
          env: { FIXTURE_VAR: "${SECRET_VALUE}", MCP_FIXTURE_TOOLS: "where" },
          cwd: "${WORK}"
        }
      },
      undefined,
      env
    )
    const [where] = await run(mcp.entries(["s"]))
    expect(await run(where!.call(""))).toBe(`cwd=${work} var=v1`)
    await run(mcp.shutdown)
    const unset = registry({ s: scripted({ X: "${LAIT_TEST_UNSET_VARIABLE}" }) })
    expect((await failureOf(unset.entries(["s"]))).message).toBe(
      "MCP server 's': environment variable 'LAIT_TEST_UNSET_VARIABLE' referenced by '${LAIT_TEST_UNSET_VARIABLE}' is not set"
    )
  }, 20_000)

  test("allowed_tools: absent allows every tool, a list only its tools, [] none; a blocked call is an error", async () => {
    const tools = { MCP_FIXTURE_TOOLS: "ping,pong" }
    const mcp = registry({
      open: scripted(tools),
      some: scripted(tools, { allowed_tools: ["ping"] }),
      none: scripted(tools, { allowed_tools: [] })
    })
    const entries = await run(mcp.entries(["open", "some", "none"]))
    // Every tool is still offered: the check guards the call, where a model could name any tool.
    expect(entries.map((e) => e.name)).toEqual(["open__ping", "open__pong", "some__ping", "some__pong", "none__ping", "none__pong"])
    const byName = new Map(entries.map((e) => [e.name, e]))
    expect(await run(byName.get("open__pong")!.call(`{"x":1}`))).toBe(`pong: {"x":1}`)
    expect(await run(byName.get("some__ping")!.call(""))).toBe("ping: null")
    expect((await failureOf(byName.get("some__pong")!.call(""))).message).toBe(
      "MCP server 'some' does not allow calling tool 'pong' (not listed in its 'allowed_tools' in lait.config.yml); " +
        "add it there if this call should be permitted"
    )
    expect((await failureOf(byName.get("none__ping")!.call(""))).message).toBe(
      "MCP server 'none' does not allow calling tool 'ping' (not listed in its 'allowed_tools' in lait.config.yml); " +
        "add it there if this call should be permitted"
    )
    await run(mcp.shutdown)
  }, 20_000)

  test("arguments must be a JSON object; blank and null send none", async () => {
    const mcp = registry({ s: scripted() })
    const [ping] = await run(mcp.entries(["s"]))
    expect(await run(ping!.call("null"))).toBe("ping: null")
    expect(await run(ping!.call("  "))).toBe("ping: null")
    expect((await failureOf(ping!.call("{oops"))).message).toMatch(
      /^failed to parse arguments for tool call 's__ping' as JSON: /
    )
    expect((await failureOf(ping!.call("[1]"))).message).toBe(
      "arguments for tool call 's__ping' must be a JSON object, got [1]"
    )
    await run(mcp.shutdown)
  }, 20_000)

  test("an isError result keeps its flag and structured content", async () => {
    const mcp = registry({ s: scripted({ MCP_FIXTURE_TOOLS: "fail" }) })
    const [fail] = await run(mcp.entries(["s"]))
    expect(await run(fail!.call(`{"a":1}`))).toBe(`isError: true\n\nfail: {"a":1}\n\nstructuredContent:\n{"code":"bad"}`)
    await run(mcp.shutdown)
  }, 20_000)

  test("unknown server, a command that cannot start, a server that dies during the handshake", async () => {
    const mcp = registry({
      missing: { command: path.join(dir, "no-such-program") },
      dies: scripted({ MCP_FIXTURE_MODE: "exit-on-init" })
    })
    expect((await failureOf(mcp.entries(["nope"]))).message).toBe(
      "unknown MCP server 'nope'; define it under 'mcp_servers:' in lait.config.yml"
    )
    expect((await failureOf(mcp.entries(["missing"]))).message).toBe(
      `failed to spawn MCP server 'missing' (command '${path.join(dir, "no-such-program")}'): No such file or directory (os error 2)`
    )
    const dies = await failureOf(mcp.entries(["dies"]))
    expect(dies.message).toMatch(/^failed to initialize MCP server 'dies': .*Connection closed/)
    await run(mcp.shutdown)
  }, 20_000)

  test("a failed start or listing is not kept: the next user starts the server again", async () => {
    const dying = pidFile()
    const mcp = registry({
      dies: scripted({ MCP_FIXTURE_MODE: "exit-on-init", MCP_FIXTURE_PID_FILE: dying }),
      repeats: scripted({ MCP_FIXTURE_MODE: "repeat-cursor" })
    })
    const [first, second] = await Promise.all([failureOf(mcp.entries(["dies"])), failureOf(mcp.tools("dies"))])
    expect(first.message).toMatch(/^failed to initialize MCP server 'dies': /)
    expect(second).toEqual(first)
    expect(pidsIn(dying)).toHaveLength(1) // concurrent users share one (failed) start
    await failureOf(mcp.entries(["dies"]))
    expect(pidsIn(dying)).toHaveLength(2)
    const listing = "failed to list tools for MCP server 'repeats': MCP server repeated a 'tools/list' pagination cursor 'again'"
    expect((await failureOf(mcp.entries(["repeats"]))).message).toBe(listing)
    expect((await failureOf(mcp.entries(["repeats"]))).message).toBe(listing)
    await run(mcp.shutdown)
  }, 20_000)

  test("once the run's scope has closed, no server starts (exit class: interrupted)", async () => {
    const pids = pidFile()
    const mcp = registry({ s: scripted({ MCP_FIXTURE_PID_FILE: pids }) })
    await run(mcp.shutdown)
    const expected = { message: "MCP server 's' was not started: the run is ending", tag: "McpError", code: 5 }
    expect(await failureWithCode(mcp.entries(["s"]))).toEqual(expected)
    expect(await failureWithCode(mcp.connection("s"))).toEqual(expected)
    expect(pidsIn(pids)).toEqual([])
  }, 20_000)

  test("a user that gives up while its server starts leaves the start running for the next user", async () => {
    const pids = pidFile()
    const mcp = registry({ s: scripted({ MCP_FIXTURE_MODE: "slow-init", MCP_FIXTURE_SLEEP_MS: "1500", MCP_FIXTURE_PID_FILE: pids }) })
    const gaveUp = await Effect.runPromiseExit(mcp.entries(["s"]).pipe(Effect.timeout("500 millis")))
    expect(Exit.isFailure(gaveUp)).toBe(true)
    const [ping] = await run(mcp.entries(["s"]))
    expect(await run(ping!.call(""))).toBe("ping: null")
    expect(pidsIn(pids)).toHaveLength(1)
    await run(mcp.shutdown)
    expect(pidsIn(pids).filter(alive)).toEqual([])
  }, 20_000)

  test("qualified names are sanitised and limited to 64 characters; two servers may not produce the same name", async () => {
    const mcp = registry({
      "my.srv": scripted({ MCP_FIXTURE_TOOLS: "t.x" }),
      a: scripted({ MCP_FIXTURE_TOOLS: "b__c" }),
      a__b: scripted({ MCP_FIXTURE_TOOLS: "c" }),
      long: scripted({ MCP_FIXTURE_TOOLS: "x".repeat(60) })
    })
    expect((await run(mcp.entries(["my.srv"]))).map((e) => e.name)).toEqual(["my_srv__t_x"])
    expect((await failureOf(mcp.entries(["a", "a__b"]))).message).toBe(
      "MCP tool name collision: 'a__b'.'c' and 'a'.'b__c' both qualify to 'a__b__c'"
    )
    expect((await failureOf(mcp.entries(["long"]))).message).toBe(
      `MCP tool name 'long__${"x".repeat(60)}' (from 'long', '${"x".repeat(60)}') is empty or exceeds OpenAI's ` +
        "64-character function name limit"
    )
    await run(mcp.shutdown)
  }, 20_000)
})

describe("limits", () => {
  const listError = async (env: Record<string, string>, names = ["s"]) => {
    const servers: Record<string, McpServer> = {}
    for (const n of names) servers[n] = scripted(env)
    const mcp = registry(servers)
    try {
      return (await failureOf(mcp.entries(names))).message
    } finally {
      await run(mcp.shutdown)
    }
  }

  test("tools/list follows pages: 128 pages are fine, 129 are not", async () => {
    const mcp = registry({ s: scripted({ MCP_FIXTURE_MODE: "pages", MCP_FIXTURE_PAGES: "128", MCP_FIXTURE_PER_PAGE: "2" }) })
    const entries = await run(mcp.entries(["s"]))
    expect(entries).toHaveLength(256)
    expect(entries[0]!.name).toBe("s__t0_0")
    expect(entries[255]!.name).toBe("s__t127_1")
    await run(mcp.shutdown)
    expect(await listError({ MCP_FIXTURE_MODE: "pages", MCP_FIXTURE_PAGES: "129" })).toBe(
      "failed to list tools for MCP server 's': MCP server returned more than 128 pages from 'tools/list'"
    )
  }, 30_000)

  test("at most 1024 tools per page and 8192 per server", async () => {
    expect(await listError({ MCP_FIXTURE_MODE: "big-page" })).toBe(
      "failed to list tools for MCP server 's': MCP server returned 1025 tools in one 'tools/list' page; the maximum is 1024"
    )
    expect(await listError({ MCP_FIXTURE_MODE: "pages", MCP_FIXTURE_PAGES: "9", MCP_FIXTURE_PER_PAGE: "1000" })).toBe(
      "failed to list tools for MCP server 's': MCP server returned more than 8192 tools across 'tools/list' pages"
    )
  }, 30_000)

  test("at most 8192 tools across the servers of one request", async () => {
    expect(
      await listError({ MCP_FIXTURE_MODE: "pages", MCP_FIXTURE_PAGES: "5", MCP_FIXTURE_PER_PAGE: "1000" }, ["s", "t"])
    ).toBe("MCP server tool list exceeds the cumulative limit of 8192 tools")
  }, 30_000)

  test("a repeated cursor is an error, not an endless loop", async () => {
    expect(await listError({ MCP_FIXTURE_MODE: "repeat-cursor" })).toBe(
      "failed to list tools for MCP server 's': MCP server repeated a 'tools/list' pagination cursor 'again'"
    )
  }, 20_000)

  test("16 MiB of descriptions and schemas at most", async () => {
    expect(await listError({ MCP_FIXTURE_MODE: "big-metadata" })).toBe(
      "failed to list tools for MCP server 's': MCP tool descriptions and schemas exceed the cumulative limit of 16777216 bytes"
    )
  }, 30_000)

  test("a stdio frame over 16 MiB breaks the connection", async () => {
    const message = await listError({ MCP_FIXTURE_MODE: "big-frame" })
    expect(message).toStartWith("failed to list tools for MCP server 's': ")
    expect(message).toEndWith("MCP stdio JSON-RPC frame exceeds 16777216 bytes")
  }, 30_000)

  test("the I/O timeout ends a call (exit class: interrupted) and drops the connection", async () => {
    const pids = pidFile()
    const mcp = registry({ s: scripted({ MCP_FIXTURE_MODE: "slow-call", MCP_FIXTURE_PID_FILE: pids }) }, 300)
    const [ping] = await run(mcp.entries(["s"]))
    const failure = await failureWithCode(ping!.call(""))
    expect(failure).toEqual({ message: "MCP server 's' timed out after 0.3s while running tool 'ping'", tag: "McpError", code: 5 })
    // The timed-out server may still be working on that call: it is stopped, and a retry gets a new one.
    expect(await waitFor(() => pidsIn(pids).filter(alive).length === 0, 3000)).toBe(true)
    await failureOf(ping!.call(""))
    expect(pidsIn(pids)).toHaveLength(2)
    await run(mcp.shutdown)
    expect(pidsIn(pids).filter(alive)).toEqual([])
    const silent = registry({ s: scripted({ MCP_FIXTURE_MODE: "silent" }) }, 300)
    expect(await failureWithCode(silent.entries(["s"]))).toEqual({
      message: "timed out after 0.3s while initializing MCP server 's'",
      tag: "McpError",
      code: 5
    })
    await run(silent.shutdown)
  }, 20_000)
})

describe("servers that break the protocol fail the request at once, not at the I/O timeout", () => {
  const stdioCases = [
    ["close-stdout-on-call", "MCP error -32000: Connection closed: the server closed its stdout"],
    ["wrong-id-on-call", "MCP error -32000: Connection closed: the server answered with id 1002, which matches no request lait sent"]
  ] as const
  for (const [mode, detail] of stdioCases) {
    test(`stdio: ${mode}; the server is stopped`, async () => {
      const pids = pidFile()
      const mcp = registry({ s: scripted({ MCP_FIXTURE_MODE: mode, MCP_FIXTURE_PID_FILE: pids }) }, 60_000)
      const [ping] = await run(mcp.entries(["s"]))
      // The message is the failure's own, not the 60 s call timeout's, which the test's bound precedes.
      expect(await failureWithCode(ping!.call(""))).toEqual({
        message: `MCP server 's' failed while running tool 'ping': ${detail}`,
        tag: "McpError",
        code: 1
      })
      expect(pidsIn(pids).filter(alive)).toEqual([])
      await run(mcp.shutdown)
    }, 20_000)
  }

  const notJsonRpc = "MCP error -32000: Connection closed: the server answered with something that is not a JSON-RPC message"
  const httpCases: ReadonlyArray<readonly [string, JunkOptions, string]> = [
    ["JSON at initialize", { junkOn: "initialize" }, `failed to initialize MCP server 'h': ${notJsonRpc}`],
    ["JSON at tools/call", { junkOn: "tools/call" }, `MCP server 'h' failed while running tool 'ping': ${notJsonRpc}`],
    ["an SSE event at tools/call", { junkOn: "tools/call", sse: true }, `MCP server 'h' failed while running tool 'ping': ${notJsonRpc}`],
    [
      "a result that is not a tool result",
      { junkOn: "tools/call", badResult: true },
      "MCP server 'h' failed while running tool 'ping': the server's answer does not have the shape MCP requires " +
        "at 'content': Invalid input: expected array, received string (and 1 more problem)"
    ]
  ]
  for (const [title, options, message] of httpCases) {
    test(`HTTP: ${title} gives one line`, async () => {
      const junk = startJunkMcpServer(options)
      try {
        // The message is the junk's own, not the 60 s timeout's, which the test's bound precedes.
        const mcp = registry({ h: { url: junk.url } }, 60_000)
        const failure = await failureOf(Effect.flatMap(mcp.entries(["h"]), (entries) => entries[0]!.call("")))
        expect(failure.message).toBe(message)
        await run(mcp.shutdown)
      } finally {
        await junk.stop()
      }
    }, 20_000)
  }
})

test("renderToolResult: text as is, other blocks as JSON, structured content labelled", () => {
  expect(renderToolResult({ content: [{ type: "text", text: "a" }, { type: "image", data: "AA==", mimeType: "image/png" }] }))
    .toBe(`a\n\n{"type":"image","data":"AA==","mimeType":"image/png"}`)
  expect(renderToolResult({ structuredContent: { answer: 42 } })).toBe(`structuredContent:\n{"answer":42}`)
  expect(renderToolResult({ content: [] })).toBe("")
})

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
    server.on("error", reject)
  })

describe("streamable HTTP", () => {
  test("server-everything over HTTP: list, call, and the session is ended at shutdown", async () => {
    const port = await freePort()
    const server = Bun.spawn(["node", everythingBin, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdout: "pipe",
      stderr: "pipe"
    })
    try {
      let log = ""
      const collect = async (stream: ReadableStream<Uint8Array>) => {
        for await (const chunk of stream) log += new TextDecoder().decode(chunk)
      }
      void collect(server.stdout)
      void collect(server.stderr)
      expect(await waitFor(() => log.includes(`listening on port ${port}`), 10_000)).toBe(true)
      const mcp = registry({ web: { url: `http://127.0.0.1:${port}/mcp` } })
      const entries = await run(mcp.entries(["web"]))
      const echo = entries.find((e) => e.name === "web__echo")!
      expect(await run(echo.call(`{"message":"over http"}`))).toBe("Echo: over http")
      await run(mcp.shutdown)
      expect(await waitFor(() => log.includes("Received session termination request"), 3000)).toBe(true)
    } finally {
      server.kill("SIGKILL")
      await server.exited
    }
  }, 30_000)

  test("headers get ${VAR} expansion; a redirect is not followed", async () => {
    const seen: Array<Record<string, string>> = []
    const elsewhere: Array<string> = []
    const target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => (elsewhere.push(r.url), new Response("{}")) })
    const redirecting = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (r) => {
        seen.push(Object.fromEntries(r.headers.entries()))
        return new Response(null, { status: 307, headers: { location: `http://127.0.0.1:${target.port}/mcp` } })
      }
    })
    try {
      const mcp = registry(
        { r: { url: `http://127.0.0.1:${redirecting.port}/mcp`, headers: { Authorization: "Bearer ${MCP_TOKEN}" } } },
        undefined,
        { ...process.env, MCP_TOKEN: "t0ken" }
      )
      const failure = await failureOf(mcp.entries(["r"]))
      expect(failure.message).toStartWith("failed to initialize MCP server 'r': ")
      expect(failure.message).toContain(
        `the server answered HTTP 307 with a redirect to 'http://127.0.0.1:${target.port}/mcp'; ` +
          "lait does not follow redirects from MCP servers"
      )
      expect(seen[0]?.["authorization"]).toBe("Bearer t0ken")
      expect(elsewhere).toEqual([])
      await run(mcp.shutdown)
    } finally {
      redirecting.stop(true)
      target.stop(true)
    }
  }, 20_000)

  test("an HTTP error that repeats a header value or the URL's token is masked in the failure", async () => {
    const token = "tok-4b1d-secret-value"
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (r) => new Response(`denied ${r.headers.get("authorization")} ${r.headers.get("x-key")} ${new URL(r.url).search}`, { status: 403 })
    })
    try {
      const mcp = registry(
        {
          h: {
            url: `http://127.0.0.1:${server.port}/mcp?token=url-${token}`,
            headers: { Authorization: "Bearer ${MCP_TOKEN}", "X-Key": `raw-${token}` }
          }
        },
        undefined,
        { ...process.env, MCP_TOKEN: token }
      )
      const failure = await failureOf(mcp.entries(["h"]))
      expect(failure.message).toStartWith("failed to initialize MCP server 'h': ")
      expect(failure.message).toEndWith("denied <redacted> <redacted> ?token=<redacted>")
      expect(failure.message).not.toContain(token)
      await run(mcp.shutdown)
    } finally {
      server.stop(true)
    }
  }, 20_000)

  test("a response body over 16 MiB is refused, with or without a content-length", async () => {
    const big = "x".repeat(MAX_HTTP_BODY_BYTES + 1)
    for (const chunked of [false, true]) {
      const server = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: () => {
          if (!chunked) return new Response(big, { headers: { "content-type": "application/json" } })
          const stream = new ReadableStream({
            start(controller) {
              for (let i = 0; i < 17; i++) controller.enqueue(new TextEncoder().encode("y".repeat(1024 * 1024)))
              controller.close()
            }
          })
          return new Response(stream, { headers: { "content-type": "application/json" } })
        }
      })
      try {
        const mcp = registry({ big: { url: `http://127.0.0.1:${server.port}/mcp` } })
        const failure = await failureOf(mcp.entries(["big"]))
        expect(failure.message).toStartWith("failed to initialize MCP server 'big': ")
        expect(failure.message).toContain(`HTTP response body exceeds ${MAX_HTTP_BODY_BYTES} bytes`)
        await run(mcp.shutdown)
      } finally {
        server.stop(true)
      }
    }
  }, 30_000)
})
