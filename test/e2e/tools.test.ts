// The tool loop as a user meets it: `lait run` as a real process against the fixture OpenAI server
// (scripting tool_calls), real MCP servers from npm (server-everything over stdio and streamable HTTP,
// server-filesystem), shell tools from lait.config.yml and subagents from agent files.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import YAML from "yaml"
import type { OpenAiServer, ScriptedReply } from "../fixtures/openai-server.ts"
import {
  everythingBin,
  filesystemBin,
  freePort,
  lait,
  type LoggedBody,
  newMarker,
  toolWorkspace,
  waitFor,
  watchProcesses,
  wrappedEverything,
  write
} from "./tools-util.ts"

const workspace = toolWorkspace("e2e-tools")
const { model, project } = workspace

const bodies = (server: OpenAiServer) => server.requests.map((r) => r.body as LoggedBody)
const toolMessages = (body: LoggedBody) => body.messages.filter((m) => m.role === "tool")

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) })

const echoTool = {
  command: ["echo", "{{input.text}}"],
  description: "Echo text back",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
}

describe("lait run with tools", () => {
  test("server-everything (stdio), a shell tool and a subagent in one step", async () => {
    const server = model([
      {
        match: `"hello tools"`,
        content: null,
        tool_calls: [
          call("c1", "everything__get-sum", { a: 2, b: 3 }),
          call("c2", "tool__echo", { text: "from the shell" }),
          call("c3", "agent__helper", { input: "summarise 5" })
        ]
      },
      { match: "You summarise.", content: "the sum is five" },
      { content: "all three answered" }
    ])
    const dir = project(
      server,
      {
        tools: { echo: echoTool },
        agents: { helper: "agents/helper.md" },
        mcp_servers: { everything: { command: "node", args: [everythingBin, "stdio"] } }
      },
      {
        "agents/helper.md": "---\ndescription: Summarises numbers\n---\nYou summarise.\n",
        "wf.yml": "steps:\n  - id: ask\n    prompt: 'hello tools'\n    mcp: [everything]\n    subagents: [helper]\n    tools: [echo]\n"
      }
    )
    const r = await lait(dir, ["run", "wf.yml", "x"])
    expect(r.stderr).toContain("[1] ask\n")
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "all three answered\n" })
    const [first, sub, last] = bodies(server)
    const names = first!.tools!.map((t) => t.function.name)
    expect(names.slice(-2)).toEqual(["agent__helper", "tool__echo"])
    expect(names).toContain("everything__get-sum")
    expect(names.every((n, i) => i >= names.length - 2 || n.startsWith("everything__"))).toBe(true)
    expect(first!.response_format).toBeUndefined()
    expect(sub!.messages).toEqual([{ role: "system", content: "You summarise." }, { role: "user", content: "summarise 5" }])
    expect(toolMessages(last!)).toEqual([
      { role: "tool", content: "The sum of 2 and 3 is 5.", tool_call_id: "c1" },
      { role: "tool", content: "from the shell", tool_call_id: "c2" },
      { role: "tool", content: "the sum is five", tool_call_id: "c3" }
    ])
  }, 60_000)

  test("server-everything over streamable HTTP", async () => {
    const port = await freePort()
    const mcp = Bun.spawn(["node", everythingBin, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdout: "pipe",
      stderr: "pipe"
    })
    let log = ""
    const collect = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream) log += new TextDecoder().decode(chunk)
    }
    void collect(mcp.stdout)
    void collect(mcp.stderr)
    try {
      expect(await waitFor(() => log.includes(`listening on port ${port}`), 15_000)).toBe(true)
      const server = model([
        { tool_calls: [call("h1", "remote__echo", { message: "via http" })] },
        { content: "http done" }
      ])
      const dir = project(
        server,
        { mcp_servers: { remote: { url: `http://127.0.0.1:\${MCP_PORT}/mcp` } } },
        { "wf.yml": "steps:\n  - prompt: 'over http'\n    mcp: [remote]\n" }
      )
      const r = await lait(dir, ["run", "wf.yml", "x"], { env: { MCP_PORT: String(port) } })
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "http done\n" })
      expect(toolMessages(bodies(server)[1]!)).toEqual([{ role: "tool", content: "Echo: via http", tool_call_id: "h1" }])
      expect(await waitFor(() => log.includes("Received session termination request"), 5000)).toBe(true)
    } finally {
      mcp.kill("SIGKILL")
      await mcp.exited
    }
  }, 60_000)

  test("server-filesystem; tool_policy denies a call (the reason goes back to the model) AND-ed with allowed_tools", async () => {
    const server = model([
      {
        tool_calls: [
          call("f1", "filesystem__read_text_file", { path: "__ROOT__/note.txt" }),
          call("f2", "filesystem__write_file", { path: "__ROOT__/evil.txt", content: "x" })
        ]
      },
      { content: "read but not written" }
    ])
    const dir = project(server, {}, { "data/note.txt": "file contents", "wf.yml": "steps:\n  - prompt: 'files'\n    mcp: [filesystem]\n" })
    const root = path.join(dir, "data")
    const first = server.script[0]!
    server.script[0] = {
      ...first,
      tool_calls: first.tool_calls!.map((c) => ({ ...c, arguments: c.arguments.replace("__ROOT__", root) }))
    }
    write(
      dir,
      "lait.config.yml",
      YAML.stringify({
        base_url: server.baseUrl,
        default: { model: "fixture-model" },
        mcp_servers: { filesystem: { command: "node", args: [filesystemBin, root], allowed_tools: ["read_text_file", "write_file"] } },
        tool_policy: { deny: ["*write*"] }
      })
    )
    const r = await lait(dir, ["run", "wf.yml", "x", "--trace-file", "trace.jsonl"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "read but not written\n" })
    const messages = toolMessages(bodies(server)[1]!)
    expect(messages[0]!.content).toStartWith("file contents")
    expect(messages[1]).toEqual({ role: "tool", content: "denied by 'tool_policy' in lait.config.yml", tool_call_id: "f2" })
    expect(fs.existsSync(path.join(root, "evil.txt"))).toBe(false)
    // Both calls are execute_tool events of the run's trace, the denied one with its reason.
    const events = fs.readFileSync(path.join(dir, "trace.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    const tools = events.filter((e) => e.operation === "execute_tool").sort((a, b) => a.label.localeCompare(b.label))
    expect(tools.map((e) => [e.label, e.attributes])).toEqual([
      ["tool 'filesystem__read_text_file'", {
        "gen_ai.tool.name": "filesystem__read_text_file",
        "gen_ai.tool.arguments": JSON.stringify({ path: `${root}/note.txt` }),
        "lait.step.label": "step-1 (prompt)",
        "lait.tool.round": 1,
        "lait.tool.decision": "allowed"
      }],
      ["tool 'filesystem__write_file'", {
        "gen_ai.tool.name": "filesystem__write_file",
        "gen_ai.tool.arguments": JSON.stringify({ path: `${root}/evil.txt`, content: "x" }),
        "lait.step.label": "step-1 (prompt)",
        "lait.tool.round": 1,
        "lait.tool.decision": "denied",
        "lait.tool.denial_reason": "denied by 'tool_policy' in lait.config.yml"
      }]
    ])
  }, 60_000)

  test("a call outside allowed_tools stops the run", async () => {
    const server = model([{ tool_calls: [call("e1", "everything__get-env", {})] }])
    const dir = project(
      server,
      { mcp_servers: { everything: { command: "node", args: [everythingBin, "stdio"], allowed_tools: ["echo"] } } },
      { "wf.yml": "steps:\n  - id: s\n    prompt: 'env?'\n    mcp: [everything]\n" }
    )
    const r = await lait(dir, ["run", "wf.yml", "x"])
    expect(r.code).toBe(1)
    expect(r.stderr).toEndWith(
      "lait: MCP server 'everything' does not allow calling tool 'get-env' (not listed in its 'allowed_tools' in " +
        "lait.config.yml); add it there if this call should be permitted\n"
    )
  }, 60_000)

  test("a structured-output step that used tools: tools first, then the schema with tools: []", async () => {
    const server = model([
      { tool_calls: [call("s1", "tool__echo", { text: "7" })] },
      { content: "the answer is 7" },
      { content: `{"answer": 7}` }
    ])
    const dir = project(server, { tools: { echo: echoTool } }, {
      "wf.yml": "schemas:\n  result: {type: object, properties: {answer: {type: integer}}, required: [answer]}\n" +
        "steps:\n  - id: s\n    prompt: 'compute'\n    tools: [echo]\n    output_schema: result\n    output: .answer\n"
    })
    const r = await lait(dir, ["run", "wf.yml", "x"])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "7\n", stderr: "[1] s\n" })
    const [round1, round2, final] = bodies(server)
    expect(round1!.response_format).toBeUndefined()
    expect(round2!.response_format).toBeUndefined()
    expect(round2!.tools!.map((t) => t.function.name)).toEqual(["tool__echo"])
    expect(final!.tools).toBeUndefined()
    expect(final!.response_format).toEqual({
      type: "json_schema",
      json_schema: {
        name: "result",
        schema: { type: "object", properties: { answer: { type: "integer" } }, required: ["answer"] },
        strict: true
      }
    })
    expect(final!.messages).toEqual(round2!.messages)
  }, 60_000)

  test("shell tools: parameters validation, non-zero exit and timeout go back to the model", async () => {
    const server = model([
      {
        tool_calls: [
          call("a", "tool__echo", { text: 5 }),
          call("b", "tool__fail", {}),
          call("c", "tool__slow", {})
        ]
      },
      { content: "handled" }
    ])
    const dir = project(server, {
      tools: {
        echo: echoTool,
        fail: { command: ["sh", "-c", "echo broken >&2; exit 2"] },
        // Left to finish, it would take 300 s, far past the test's own 60 s bound.
        slow: { command: ["sleep", "300"], timeout: 1 }
      }
    }, { "wf.yml": "steps:\n  - prompt: 'try'\n    tools: [echo, fail, slow]\n" })
    const r = await lait(dir, ["run", "wf.yml", "x"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "handled\n" })
    expect(toolMessages(bodies(server)[1]!).map((m) => m.content)).toEqual([
      "tool arguments failed validation: arguments.text must be of type string (got number)",
      "tool command failed: command 'sh' exited with exit status: 2: broken",
      `tool command failed: command timed out after 1s: ["sleep", "300"]`
    ])
  }, 60_000)

  test("max_tool_rounds from the step; an unknown tool is answered; a collision", async () => {
    const looping: ScriptedReply = { tool_calls: [call("l", "tool__echo", { text: "again" })], repeat: true }
    const server = model([looping])
    const dir = project(server, { tools: { echo: echoTool } }, {
      "wf.yml": "steps:\n  - id: busy\n    prompt: 'loop'\n    tools: [echo]\n    max_tool_rounds: 3\n"
    })
    const r = await lait(dir, ["run", "wf.yml", "x"])
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr: "[1] busy\nlait: tool loop exceeded max_tool_rounds (3) without the model producing a final response\n"
    })
    expect(server.requests).toHaveLength(3)

    const unknown = model([{ tool_calls: [call("u", "tool__nope", {})] }, { content: "corrected" }])
    const dir2 = project(unknown, { tools: { echo: echoTool } }, { "wf.yml": "steps:\n  - prompt: 'x'\n    tools: [echo]\n" })
    const r2 = await lait(dir2, ["run", "wf.yml", "x"])
    expect({ code: r2.code, stdout: r2.stdout }).toEqual({ code: 0, stdout: "corrected\n" })
    expect(toolMessages(bodies(unknown)[1]!)).toEqual([
      { role: "tool", content: "unknown tool 'tool__nope'; available: tool__echo", tool_call_id: "u" }
    ])

    const collide = model([])
    const dir3 = project(collide, {
      tools: { echo: echoTool },
      mcp_servers: { tool: { command: "node", args: [everythingBin, "stdio"] } }
    }, { "wf.yml": "steps:\n  - prompt: 'x'\n    tools: [echo]\n    mcp: [tool]\n" })
    const r3 = await lait(dir3, ["run", "wf.yml", "x"])
    expect(r3.code).toBe(1)
    expect(r3.stderr).toEndWith("lait: tool name collision: an MCP tool and a shell tool both qualify to 'tool__echo'\n")
    expect(collide.requests).toHaveLength(0)
  }, 60_000)

  test("tools fall back step → agent → workflow default → config default", async () => {
    const server = model([{ content: "1" }, { content: "2" }, { content: "3" }, { content: "4" }])
    const dir = project(server, {
      tools: { echo: echoTool, other: { command: ["true"] }, date: { command: ["date"] } },
      default: { model: "fixture-model", tools: ["other"] }
    }, {
      "agents/a.md": "---\ntools: [date]\n---\nAgent.\n",
      "agents/plain.md": "---\ndescription: no tools of its own\n---\nPlain.\n",
      "wf.yml": "default:\n  tools: [echo]\nsteps:\n  - prompt: 'workflow default'\n  - agent: agents/a.md\n" +
        "  - agent: agents/plain.md\n  - prompt: 'step wins'\n    tools: []\n",
      "plain.yml": "steps:\n  - prompt: 'config default'\n"
    })
    const r = await lait(dir, ["run", "wf.yml", "x"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "4\n" })
    const r2 = await lait(dir, ["run", "plain.yml", "x"])
    expect({ code: r2.code, stdout: r2.stdout }).toEqual({ code: 0, stdout: "echo: config default\n" })
    const toolNames = bodies(server).map((b) => b.tools?.map((t) => t.function.name))
    expect(toolNames).toEqual([["tool__echo"], ["tool__date"], ["tool__echo"], undefined, ["tool__other"]])
  }, 60_000)
})

describe("record and replay", () => {
  test("a recorded tool run replays without the model; the MCP server still runs under replay", async () => {
    const marker = newMarker("replay")
    const script: Array<ScriptedReply> = [
      { tool_calls: [call("r1", "everything__get-sum", { a: 20, b: 22 }), call("r2", "agent__helper", { input: "help" })] },
      { match: "Helper.", content: "helped" },
      { content: "the answer is 42" }
    ]
    const server = model(script)
    const dir = project(server, {
      agents: { helper: "helper.md" },
      mcp_servers: { everything: wrappedEverything(marker) }
    }, {
      "helper.md": "---\ndescription: helps\n---\nHelper.\n",
      "wf.yml": "steps:\n  - id: s\n    prompt: 'record me'\n    mcp: [everything]\n    subagents: [helper]\n"
    })
    const recording = watchProcesses(marker)
    const recorded = await lait(dir, ["run", "wf.yml", "x", "--record", "cassettes"])
    expect(recording.stop().length).toBeGreaterThan(0)
    expect({ code: recorded.code, stdout: recorded.stdout }).toEqual({ code: 0, stdout: "the answer is 42\n" })
    // One cassette per round, the subagent's request included; the MCP call and the server's tool list
    // are tool cassettes beside them (the subagent is not: its request is a model cassette).
    const files = fs.readdirSync(path.join(dir, "cassettes")).filter((f) => f.endsWith(".json"))
    expect(files.filter((f) => !f.startsWith("tool-"))).toHaveLength(3)
    expect(files.filter((f) => f.startsWith("tool-list-"))).toEqual(["tool-list-everything.json"])
    expect(files.filter((f) => f.startsWith("tool-") && !f.startsWith("tool-list-"))).toHaveLength(1)

    await server.stop()
    const replaying = watchProcesses(marker)
    const replayed = await lait(dir, ["run", "wf.yml", "x", "--replay", "cassettes"])
    const replayPids = replaying.stop()
    expect({ code: replayed.code, stdout: replayed.stdout }).toEqual({ code: 0, stdout: "the answer is 42\n" })
    expect(replayPids.length).toBeGreaterThan(0)
    expect(server.requests).toHaveLength(3)

    // With --replay-tools no process of the server ever exists.
    const replayingTools = watchProcesses(marker)
    const hermetic = await lait(dir, ["run", "wf.yml", "x", "--replay", "cassettes", "--replay-tools"])
    expect(replayingTools.stop()).toEqual([])
    expect({ code: hermetic.code, stdout: hermetic.stdout }).toEqual({ code: 0, stdout: "the answer is 42\n" })
  }, 60_000)
})
