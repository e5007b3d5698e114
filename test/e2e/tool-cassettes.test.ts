// Recorded tools as a user meets them: `lait run --record` against the fixture OpenAI server (scripting
// tool_calls) writes tool cassettes beside the model cassettes; `--replay --replay-tools`, `lait test
// --replay-tools` and `replay_tools: true` answer from them without running a shell tool or starting
// the real MCP server (server-everything from npm), which markers written by the tool and by a
// wrapper around the server prove.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import YAML from "yaml"
import { everythingBin, lait, toolWorkspace } from "./tools-util.ts"

const workspace = toolWorkspace("e2e-toolcas")
const { model, project, writeConfig } = workspace

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) })

const toolFiles = (dir: string) => fs.readdirSync(dir).filter((n) => n.startsWith("tool-")).sort()
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>

/** Counts its calls in the file `n` and leaves `ran-marker`: "call 1", then "call 2" for the same arguments. */
const counterTool = {
  description: "Counts its calls",
  parameters: { type: "object", properties: { who: { type: "string" } } },
  command: ["sh", "-c", "n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; touch ran-marker; echo call $n"]
}

describe("shell tools", () => {
  test("record, then --replay --replay-tools: each repeat of the same call replays its own answer; the tool never runs", async () => {
    const server = model([
      // The same call twice (arguments spelled differently): the second must get the second answer.
      { match: `"count twice"`, content: null, tool_calls: [call("c1", "tool__count", { who: "me" })] },
      { match: `"call 1"`, content: null, tool_calls: [{ id: "c2", name: "tool__count", arguments: `{ "who" : "me" }` }] },
      { match: `"call 2"`, content: "done after two" }
    ])
    const dir = project(server, { tools: { count: counterTool } }, {
      "wf.yml": "steps:\n  - id: ask\n    prompt: 'count twice'\n    tools: [count]\n"
    })
    const recorded = await lait(dir, ["run", "wf.yml", "x", "--record", "cas"])
    expect({ code: recorded.code, stdout: recorded.stdout }).toEqual({ code: 0, stdout: "done after two\n" })
    const names = toolFiles(path.join(dir, "cas"))
    expect(names).toHaveLength(2)
    expect(names.every((n) => /^tool-[0-9a-f]{64}\.json$/.test(n))).toBe(true)
    const cassettes = names.map((n) => readJson(path.join(dir, "cas", n)))
      .sort((a, b) => Number(a.occurrence) - Number(b.occurrence))
    const stamped = cassettes.map(({ recorded_at, ...rest }): Record<string, unknown> => ({
      ...rest,
      stamped: typeof recorded_at === "string"
    }))
    expect(stamped).toEqual([
      { kind: "tool", tool: "tool__count", arguments: { who: "me" }, occurrence: 1, result: "call 1", stamped: true },
      { kind: "tool", tool: "tool__count", arguments: { who: "me" }, occurrence: 2, result: "call 2", stamped: true }
    ])
    const requests = server.requests.length

    // Under replay the tool would now count from 1 again; it must not run at all.
    fs.rmSync(path.join(dir, "n"))
    fs.rmSync(path.join(dir, "ran-marker"))
    const replayed = await lait(dir, ["run", "wf.yml", "x", "--replay", "cas", "--replay-tools"])
    expect({ code: replayed.code, stdout: replayed.stdout, stderr: replayed.stderr })
      .toEqual({ code: 0, stdout: "done after two\n", stderr: "[1] ask\n" })
    expect(fs.existsSync(path.join(dir, "ran-marker"))).toBe(false)
    expect(fs.existsSync(path.join(dir, "n"))).toBe(false)
    expect(server.requests.length).toBe(requests)

    // Without --replay-tools tools run live, as always; the model replay ignores the tool cassettes.
    const live = await lait(dir, ["run", "wf.yml", "x", "--replay", "cas"])
    expect({ code: live.code, stdout: live.stdout }).toEqual({ code: 0, stdout: "done after two\n" })
    expect(fs.existsSync(path.join(dir, "ran-marker"))).toBe(true)
  }, 60_000)

  test("lait test --record records the file's tool calls too; --record-missing then replays them", async () => {
    const server = model([
      { match: `"count once"`, content: null, tool_calls: [call("c1", "tool__count", { who: "me" })] },
      { match: `"call 1"`, content: "counted" }
    ])
    const dir = project(server, { tools: { count: counterTool } }, {
      "wf.yml": "steps:\n  - id: ask\n    prompt: 'count once'\n    tools: [count]\n",
      "t.yml": YAML.stringify({
        workflow: "wf.yml",
        input: "x",
        replay: "cas",
        replay_tools: true,
        assert: [{ type: "equals", value: "counted" }, { type: "tool_called", name: "tool__count" }]
      })
    })
    const recorded = await lait(dir, ["test", "--record", "t.yml"])
    expect({ code: recorded.code, stdout: recorded.stdout })
      .toEqual({ code: 0, stdout: "t.yml: PASS (recorded 2)\n1 passed, 0 failed, 1 total\n" })
    expect(fs.existsSync(path.join(dir, "ran-marker"))).toBe(true)
    const names = toolFiles(path.join(dir, "cas"))
    expect(names.map((n) => readJson(path.join(dir, "cas", n)))).toMatchObject([
      { kind: "tool", tool: "tool__count", arguments: { who: "me" }, occurrence: 1, result: "call 1" }
    ])

    // From now on the tool never runs: plain `lait test` (replay_tools) and --record-missing, which
    // finds every request and call recorded, pass with the server and the tool gone.
    fs.rmSync(path.join(dir, "ran-marker"))
    await server.stop()
    writeConfig(dir, server, { tools: { count: { ...counterTool, command: ["false"] } } })
    const plain = await lait(dir, ["test", "t.yml"])
    expect({ code: plain.code, stdout: plain.stdout }).toEqual({ code: 0, stdout: "t.yml: PASS\n1 passed, 0 failed, 1 total\n" })
    const missing = await lait(dir, ["test", "--record-missing", "t.yml"])
    expect({ code: missing.code, stdout: missing.stdout })
      .toEqual({ code: 0, stdout: "t.yml: PASS (recorded 0, replayed 2)\n1 passed, 0 failed, 1 total\n" })
    expect(fs.existsSync(path.join(dir, "ran-marker"))).toBe(false)
  }, 60_000)

  test("two identical calls in one round (run side by side) replay in the model's order", async () => {
    const claim = {
      description: "Claims",
      parameters: { type: "object", properties: {} },
      command: ["sh", "-c", "if mkdir claimed 2>/dev/null; then echo first; else echo second; fi"]
    }
    const server = model([
      { match: `"claim twice"`, content: null, tool_calls: [call("c1", "tool__claim", {}), call("c2", "tool__claim", {})] },
      { content: "claimed" }
    ])
    const dir = project(server, { tools: { claim } }, {
      "wf.yml": "steps:\n  - id: c\n    prompt: 'claim twice'\n    tools: [claim]\n"
    })
    const recorded = await lait(dir, ["run", "wf.yml", "x", "--record", "cas"])
    expect({ code: recorded.code, stdout: recorded.stdout }).toEqual({ code: 0, stdout: "claimed\n" })
    const answers = (server.requests[1]!.body as { messages: Array<{ role: string; content: string }> }).messages
      .filter((m) => m.role === "tool").map((m) => m.content)
    expect(answers.sort()).toEqual(["first", "second"])
    fs.rmSync(path.join(dir, "claimed"), { recursive: true })
    // The second model request holds both answers in the model's order: any other order would miss.
    const replayed = await lait(dir, ["run", "wf.yml", "x", "--replay", "cas", "--replay-tools"])
    expect({ code: replayed.code, stdout: replayed.stdout }).toEqual({ code: 0, stdout: "claimed\n" })
    expect(fs.existsSync(path.join(dir, "claimed"))).toBe(false)
  }, 60_000)

  test("--replay-tools without --replay is a usage error", async () => {
    const dir = project(model([]), {}, { "wf.yml": "steps:\n  - id: a\n    prompt: hi\n" })
    const r = await lait(dir, ["run", "wf.yml", "x", "--replay-tools"])
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--replay-tools' requires '--replay <DIR>'\n"
    })
  }, 60_000)

  test("a missing tool cassette names the tool and the closest recorded arguments (exit 1)", async () => {
    const echo = {
      description: "Echo",
      parameters: { type: "object", properties: { text: { type: "string" } } },
      command: ["echo", "{{input.text}}"]
    }
    const server = model([
      { match: `"say alpha"`, content: null, tool_calls: [call("c1", "tool__echo", { text: "alpha" })] },
      { match: `"say beta"`, content: null, tool_calls: [call("c1", "tool__echo", { text: "beta" })] },
      { content: "said", repeat: true }
    ])
    const dir = project(server, { tools: { echo } }, {
      "wf.yml": "steps:\n  - id: say\n    prompt: 'say {{input}}'\n    tools: [echo]\n"
    })
    for (const word of ["alpha", "beta"]) {
      const r = await lait(dir, ["run", "wf.yml", word, "--record", "cas"])
      expect(r.code).toBe(0)
    }
    const cas = path.join(dir, "cas")
    const beta = toolFiles(cas).find((n) => readJson(path.join(cas, n)).result === "beta")!
    const alpha = toolFiles(cas).find((n) => readJson(path.join(cas, n)).result === "alpha")!
    fs.rmSync(path.join(cas, beta))
    const r = await lait(dir, ["run", "wf.yml", "beta", "--replay", "cas", "--replay-tools"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" })
    expect(r.stderr).toBe(
      "[1] say\n" +
        `lait: no recorded tool cassette for tool 'tool__echo' (call 1 with arguments {"text":"beta"}) at ` +
        `'cas/${beta}'; run \`lait run wf.yml --record cas\` first against the same input and vars, or drop ` +
        "--replay-tools (replay_tools) to run the tools live; the closest recording of 'tool__echo', " +
        `'cas/${alpha}', differs at arguments.text (recorded "alpha", requested "beta")\n`
    )
  }, 60_000)

  test("the API key in use is never written into a tool cassette", async () => {
    const key = "sk-e2e-toolcas-secret-4242"
    const server = model([
      { match: `"show env"`, content: null, tool_calls: [call("c1", "tool__env", {})] },
      { content: "seen" }
    ])
    const env = {
      description: "Prints the key",
      parameters: { type: "object", properties: {} },
      command: ["sh", "-c", "echo \"key=$OPENAI_API_KEY b64=$(printf %s \"$OPENAI_API_KEY\" | base64)\""]
    }
    const dir = project(server, { tools: { env } }, {
      "wf.yml": "steps:\n  - id: s\n    prompt: 'show env'\n    tools: [env]\n"
    })
    const r = await lait(dir, ["run", "wf.yml", "x", "--record", "cas"], { env: { OPENAI_API_KEY: key } })
    // The key reached the conversation: the model cassette after the tool call refuses to be written.
    expect(r.stderr).toContain("refusing to write cassette")
    const names = toolFiles(path.join(dir, "cas"))
    expect(names).toHaveLength(1)
    const text = fs.readFileSync(path.join(dir, "cas", names[0]!), "utf8")
    // Base64 keeps the few characters at its edges that also depend on the bytes around the key.
    expect(JSON.parse(text).result).toMatch(/^key=<redacted> b64=[A-Za-z0-9+/]?<redacted>[A-Za-z0-9+/]{0,2}=*$/)
    expect(text).not.toContain(key)
    expect(text).not.toContain(Buffer.from(key).toString("base64").slice(0, 20))
  }, 60_000)
})

describe("MCP servers (server-everything)", () => {
  test("record, then replay_tools: the server is never started, not even to list its tools", async () => {
    const server = model([
      { match: `"add please"`, content: null, tool_calls: [call("c1", "everything__get-sum", { a: 2, b: 3 })] },
      { content: "sum done" }
    ])
    const marker = path.join(workspace.cwd(), `mcp-started-${process.pid}`)
    const wrapped = { command: "sh", args: ["-c", `touch '${marker}'; exec node '${everythingBin}' stdio`] }
    const dir = project(server, { mcp_servers: { everything: wrapped } }, {
      "wf.yml": "steps:\n  - id: add\n    prompt: 'add please'\n    mcp: [everything]\n",
      "t.yml": YAML.stringify({
        workflow: "wf.yml",
        input: "x",
        replay: "cas",
        replay_tools: true,
        assert: [{ type: "equals", value: "sum done" }, { type: "tool_called", name: "everything__get-sum" }]
      }),
      "plain/t.yml": YAML.stringify({ workflow: "../wf.yml", input: "x", replay: "../cas", assert: [{ type: "equals", value: "sum done" }] })
    })
    const recorded = await lait(dir, ["run", "wf.yml", "x", "--record", "cas"])
    expect({ code: recorded.code, stdout: recorded.stdout }).toEqual({ code: 0, stdout: "sum done\n" })
    expect(fs.existsSync(marker)).toBe(true)
    const cas = path.join(dir, "cas")
    const list = readJson(path.join(cas, "tool-list-everything.json"))
    expect(list).toMatchObject({ kind: "tool-list", server: "everything" })
    expect((list.tools as Array<{ name: string }>).map((t) => t.name)).toContain("get-sum")
    const calls = toolFiles(cas).filter((n) => !n.startsWith("tool-list-")).map((n) => readJson(path.join(cas, n)))
    expect(calls).toMatchObject([
      { kind: "tool", tool: "everything__get-sum", arguments: { a: 2, b: 3 }, occurrence: 1, result: "The sum of 2 and 3 is 5." }
    ])

    fs.rmSync(marker)
    const test1 = await lait(dir, ["test", "t.yml"])
    expect({ code: test1.code, stdout: test1.stdout }).toEqual({ code: 0, stdout: "t.yml: PASS\n1 passed, 0 failed, 1 total\n" })
    const run = await lait(dir, ["run", "wf.yml", "x", "--replay", "cas", "--replay-tools"])
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "sum done\n" })
    expect(fs.existsSync(marker)).toBe(false)

    // A server command that cannot even start does not matter under replay...
    writeConfig(dir, server, { mcp_servers: { everything: { command: path.join(workspace.cwd(), "no-such-mcp-server") } } })
    const test2 = await lait(dir, ["test", "t.yml"])
    expect({ code: test2.code, stdout: test2.stdout }).toEqual({ code: 0, stdout: "t.yml: PASS\n1 passed, 0 failed, 1 total\n" })
    // `cassettes prune` counts the replayed tool cassettes as used; `ls` names what each one holds.
    const prune = await lait(dir, ["cassettes", "prune", "t.yml"])
    expect({ code: prune.code, stdout: prune.stdout }).toEqual({ code: 0, stdout: "" })
    const ls = await lait(dir, ["cassettes", "ls", "cas"])
    expect(ls.code).toBe(0)
    expect(ls.stdout).toContain("tool:everything__get-sum")
    expect(ls.stdout).toMatch(/tool:list:everything +"\d+ tools"/)
    expect(ls.stderr).toBe("")
    const flag = await lait(dir, ["test", "--replay-tools", "plain/t.yml"])
    expect({ code: flag.code, stdout: flag.stdout }).toEqual({ code: 0, stdout: "plain/t.yml: PASS\n1 passed, 0 failed, 1 total\n" })
    // ...and without the option the tools run live, as before: this one now fails to start.
    const live = await lait(dir, ["test", "plain/t.yml"])
    expect(live.code).toBe(1)
    expect(live.stdout).toContain("failed to spawn MCP server 'everything'")
    expect(fs.existsSync(marker)).toBe(false)
  }, 120_000)

  test("a cassette directory from before tool cassettes: replay_tools names the missing tool list", async () => {
    const server = model([{ content: "never" }])
    const dir = project(server, { mcp_servers: { everything: { command: path.join(workspace.cwd(), "no-such-mcp-server") } } }, {
      "wf.yml": "steps:\n  - id: add\n    prompt: 'add please'\n    mcp: [everything]\n",
      "cas/.keep": ""
    })
    const r = await lait(dir, ["run", "wf.yml", "x", "--replay", "cas", "--replay-tools"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" })
    expect(r.stderr).toContain(
      "lait: no recorded tool list for MCP server 'everything' at 'cas/tool-list-everything.json'; run " +
        "`lait run wf.yml --record cas` first against a workflow that uses it, or drop --replay-tools (replay_tools) to " +
        "start the server"
    )
  }, 60_000)
})
