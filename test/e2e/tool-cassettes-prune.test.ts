// Tool cassettes under `lait cassettes prune` and `lait test`, as real processes against the fixture
// OpenAI server (scripting tool_calls) and a shell tool: prune judges tool cassettes only for tests
// that replay tools (`--replay-tools`, `replay_tools: true`) and otherwise leaves them alone with a
// note, so a later `lait test --replay-tools` still finds them; a tool cassette that is missing under
// replay makes the file an ERROR (it could not run), as a missing model cassette does.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import YAML from "yaml"
import { lait, toolWorkspace } from "./tools-util.ts"

const workspace = toolWorkspace("e2e-toolprune")
const { model, project, writeConfig } = workspace

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) })
const echo = {
  description: "Echo",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  command: ["echo", "{{input.text}}"]
}
const files = (dir: string) => fs.readdirSync(dir).sort()
const toolFiles = (dir: string) => files(dir).filter((n) => n.startsWith("tool-"))
const testFile = (over: Record<string, unknown> = {}) =>
  YAML.stringify({
    workflow: "wf.yml",
    input: "alpha",
    replay: "cas",
    assert: [{ type: "equals", value: "said" }, { type: "tool_called", name: "tool__echo", args_jq: ".text == \"alpha\"" }],
    ...over
  })

describe("lait cassettes prune and tool cassettes", () => {
  test("tests that run tools live leave the tool cassettes alone; --replay-tools judges them", async () => {
    const server = model([
      { match: `"say alpha"`, content: null, tool_calls: [call("c1", "tool__echo", { text: "alpha" })] },
      { match: `"say beta"`, content: null, tool_calls: [call("c1", "tool__echo", { text: "beta" })] },
      { content: "said", repeat: true }
    ])
    const dir = project(server, { tools: { echo } }, {
      "wf.yml": "steps:\n  - id: say\n    prompt: 'say {{input}}'\n    tools: [echo]\n",
      "t.yml": testFile()
    })
    const recorded = await lait(dir, ["test", "--record", "t.yml"])
    expect([recorded.code, recorded.stdout]).toEqual([0, "t.yml: PASS (recorded 2)\n1 passed, 0 failed, 1 total\n"])
    const cas = path.join(dir, "cas")
    const used = files(cas)
    // A run with another input leaves two model cassettes and a tool cassette no test reads.
    expect((await lait(dir, ["run", "wf.yml", "beta", "--record", "cas"])).code).toBe(0)
    const staleModel = files(cas).filter((n) => !used.includes(n) && !n.startsWith("tool-"))
    const staleTool = toolFiles(cas).filter((n) => !used.includes(n))
    expect([staleModel.length, staleTool.length]).toEqual([2, 1])

    const note = "note: left 2 tool cassette(s) alone: no test replays tools (run prune with --replay-tools to judge them)\n"
    const pruned = await lait(dir, ["cassettes", "prune", "--delete", "t.yml"])
    expect([pruned.code, pruned.stdout, pruned.stderr]).toEqual([
      0,
      staleModel.map((n) => `cas/${n}\n`).join(""),
      `${note}deleted 2 unused cassette file(s)\n`
    ])
    expect(toolFiles(cas)).toEqual([...used.filter((n) => n.startsWith("tool-")), ...staleTool].sort())

    // From here on a tool that ran live would fail the test: only a replayed one passes.
    writeConfig(dir, server, { tools: { echo: { ...echo, command: ["false"] } } })
    const replayed = await lait(dir, ["test", "--replay-tools", "t.yml"])
    expect([replayed.code, replayed.stdout]).toEqual([0, "t.yml: PASS\n1 passed, 0 failed, 1 total\n"])

    // With --replay-tools prune runs the tools from their cassettes and judges those too.
    const judged = await lait(dir, ["cassettes", "prune", "--replay-tools", "--delete", "t.yml"])
    expect([judged.code, judged.stdout, judged.stderr]).toEqual([
      0,
      `cas/${staleTool[0]}\n`,
      "deleted 1 unused cassette file(s)\n"
    ])
    expect(files(cas)).toEqual(used)
    const after = await lait(dir, ["test", "--replay-tools", "t.yml"])
    expect([after.code, after.stdout]).toEqual([0, "t.yml: PASS\n1 passed, 0 failed, 1 total\n"])
  }, 120_000)

  test("replay_tools: true in the file judges them; a live-tools test sharing the directory keeps them", async () => {
    const server = model([
      { match: `"say alpha"`, content: null, tool_calls: [call("c1", "tool__echo", { text: "alpha" })] },
      { content: "said", repeat: true }
    ])
    const dir = project(server, { tools: { echo } }, {
      "wf.yml": "steps:\n  - id: say\n    prompt: 'say {{input}}'\n    tools: [echo]\n",
      "replays/t.yml": testFile({ workflow: "../wf.yml", replay: "../cas", replay_tools: true }),
      "live/t.yml": testFile({ workflow: "../wf.yml", replay: "../cas" })
    })
    expect((await lait(dir, ["test", "--record", "replays/t.yml"])).code).toBe(0)
    // An MCP server's tool list nobody asks for any more.
    fs.writeFileSync(
      path.join(dir, "cas", "tool-list-gone.json"),
      JSON.stringify({ kind: "tool-list", server: "gone", recorded_at: "2026-01-01T00:00:00Z", tools: [] })
    )
    const own = await lait(dir, ["cassettes", "prune", "replays"])
    expect([own.code, own.stdout, own.stderr]).toEqual([0, "cas/tool-list-gone.json\n", ""])
    const shared = await lait(dir, ["cassettes", "prune", "replays", "live"])
    expect([shared.code, shared.stdout, shared.stderr]).toEqual([
      0,
      "",
      "note: left 2 tool cassette(s) alone: a test that replays from their directory runs its tools live " +
        "(run prune with --replay-tools to judge them)\n"
    ])
  }, 120_000)
})

describe("a missing tool cassette under lait test", () => {
  test("is an ERROR, like a missing model cassette", async () => {
    const server = model([
      { match: `"say alpha"`, content: null, tool_calls: [call("c1", "tool__echo", { text: "alpha" })] },
      { content: "said", repeat: true }
    ])
    const dir = project(server, { tools: { echo } }, {
      "wf.yml": "steps:\n  - id: say\n    prompt: 'say {{input}}'\n    tools: [echo]\n",
      "t.yml": testFile({ replay_tools: true })
    })
    expect((await lait(dir, ["test", "--record", "t.yml"])).code).toBe(0)
    const [tool] = toolFiles(path.join(dir, "cas"))
    fs.rmSync(path.join(dir, "cas", tool!))
    const r = await lait(dir, ["test", "t.yml"])
    expect(r.code).toBe(1)
    const [status, reason] = r.stdout.split("\n")
    expect([status, reason]).toEqual([
      "t.yml: ERROR",
      expect.stringContaining(
        `no recorded tool cassette for tool 'tool__echo' (call 1 with arguments {"text":"alpha"}) at 'cas/${tool}'`
      ) as unknown as string
    ])
    expect(r.stderr).toBe("lait: 1 of 1 test file(s) could not run\n")
    const json = await lait(dir, ["test", "--format", "json", "t.yml"])
    expect((JSON.parse(json.stdout) as Array<{ status: string }>).map((o) => o.status)).toEqual(["error"])
  }, 60_000)

  test("so is a missing MCP tool list", async () => {
    const server = model([{ content: "never" }])
    const dir = project(server, { mcp_servers: { everything: { command: path.join(workspace.cwd(), "no-such-mcp-server") } } }, {
      "wf.yml": "steps:\n  - id: add\n    prompt: 'add please'\n    mcp: [everything]\n",
      "t.yml": YAML.stringify({ workflow: "wf.yml", input: "x", replay: "cas", replay_tools: true }),
      "cas/.keep": ""
    })
    const r = await lait(dir, ["test", "t.yml"])
    expect([r.code, r.stdout.split("\n")[0], r.stderr]).toEqual([1, "t.yml: ERROR", "lait: 1 of 1 test file(s) could not run\n"])
    expect(r.stdout).toContain("no recorded tool list for MCP server 'everything' at 'cas/tool-list-everything.json'")
    expect(server.requests).toHaveLength(0)
  }, 60_000)
})
