// Misbehaving processes and MCP servers, as cases of the hostile corpus (run by ../hostile.test.ts):
// a stdio MCP server that closes its stdout or answers with the wrong id, an HTTP MCP server whose
// answer is not JSON-RPC, a `run:` command with a flood of stderr, one that leaves a background
// process holding its stdout. Each must end with its one error line, its own and not a timeout's: the
// MCP I/O timeout (300 s) and the background sleep (600 s) both outlast the corpus's hang guard, so
// a run that waited for either is killed by the guard and fails. The fake model server runs in this
// process; its script makes the model call the MCP tool `s__ping`.
import * as fs from "node:fs"
import * as path from "node:path"
import YAML from "yaml"
import { alive } from "../../e2e/util.ts"
import { startJunkMcpServer, type JunkOptions } from "../../fixtures/mcp/junk-http-server.ts"
import { startOpenAiServer } from "../../fixtures/openai-server.ts"
import type { HostileCase, Workspace } from "./cases.ts"

const scriptedServer = path.join(import.meta.dir, "..", "..", "fixtures", "mcp", "scripted-server.ts")

/** lait.config.yml with the fake model server and MCP server `s`, and mcp.yml, a prompt step offering it. */
const mcpProject = (ws: Workspace, server: Record<string, unknown>) => {
  const model = startOpenAiServer({
    script: [{ tool_calls: [{ id: "c1", name: "s__ping", arguments: "{}" }] }, { content: "done" }]
  })
  ws.keep(() => void model.stop())
  const config = { base_url: model.baseUrl, default: { model: "fixture-model" }, mcp_servers: { s: server } }
  fs.writeFileSync(path.join(ws.dir, "lait.config.yml"), YAML.stringify(config))
  fs.writeFileSync(path.join(ws.dir, "mcp.yml"), "steps:\n  - prompt: 'call the tool'\n    mcp: [s]\n")
}

// Bun's transpiler cache would be written under HOME, which is the workspace: nothing may appear there.
const stdioServer = (mode: string) => ({
  command: process.execPath,
  args: [scriptedServer],
  env: { MCP_FIXTURE_MODE: mode, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" }
})

const junkProject = (options: JunkOptions) => (ws: Workspace) => {
  const junk = startJunkMcpServer(options)
  ws.keep(() => void junk.stop())
  mcpProject(ws, { url: junk.url })
}

const callFailed = (detail: string) => `lait: MCP server 's' failed while running tool 'ping': ${detail}`
const NOT_JSON_RPC = "MCP error -32000: Connection closed: the server answered with something that is not a JSON-RPC message"

/** A `run:` step's stderr: 3000 numbered records on one line, then a last word. */
const FLOOD = Array.from({ length: 3000 }, (_, i) => `record ${String(i).padStart(4, "0")} of the log; `).join("") + "LAST-WORD"

/** What the error line keeps of FLOOD: its last 2048 bytes (ASCII), leading blanks trimmed. */
const floodTail = (): string => {
  const tail = FLOOD.slice(-2048).trimStart()
  return `[last ${tail.length} of ${FLOOD.length} bytes of stderr; -v shows all] ${tail}`
}

export const processCases: ReadonlyArray<HostileCase> = [
  {
    name: "mcp: a stdio server that closes its stdout during a call (and keeps running)",
    args: ["run", "mcp.yml", "x"],
    setup: (ws) => mcpProject(ws, stdioServer("close-stdout-on-call")),
    exit: 1,
    progress: true,
    error: callFailed("MCP error -32000: Connection closed: the server closed its stdout")
  },
  {
    name: "mcp: a stdio server that answers a call with an id lait never sent, then stays silent",
    args: ["run", "mcp.yml", "x"],
    setup: (ws) => mcpProject(ws, stdioServer("wrong-id-on-call")),
    exit: 1,
    progress: true,
    error: new RegExp(
      "^lait: MCP server 's' failed while running tool 'ping': MCP error -32000: Connection closed: " +
        "the server answered with id \\d+, which matches no request lait sent$"
    )
  },
  {
    name: "mcp: an HTTP server answering initialize with 200 and JSON that is not JSON-RPC",
    args: ["run", "mcp.yml", "x"],
    setup: junkProject({ junkOn: "initialize" }),
    exit: 1,
    progress: true,
    error: `lait: failed to initialize MCP server 's': ${NOT_JSON_RPC}`
  },
  {
    name: "mcp: an HTTP server answering a call with 200 and JSON that is not JSON-RPC",
    args: ["run", "mcp.yml", "x"],
    setup: junkProject({ junkOn: "tools/call" }),
    exit: 1,
    progress: true,
    error: callFailed(NOT_JSON_RPC)
  },
  {
    name: "mcp: an HTTP server answering a call with an SSE event that is not JSON-RPC",
    args: ["run", "mcp.yml", "x"],
    setup: junkProject({ junkOn: "tools/call", sse: true }),
    exit: 1,
    progress: true,
    error: callFailed(NOT_JSON_RPC)
  },
  {
    name: "mcp: an HTTP server answering a call with JSON-RPC whose result is not a tool result",
    args: ["run", "mcp.yml", "x"],
    setup: junkProject({ junkOn: "tools/call", badResult: true }),
    exit: 1,
    progress: true,
    error: callFailed(
      "the server's answer does not have the shape MCP requires at 'content': Invalid input: expected array, " +
        "received string (and 1 more problem)"
    )
  },
  {
    name: "run: a failing command's error line carries only the last 2 KiB of its stderr",
    args: ["run", "flood.yml", "x"],
    setup: (ws) => {
      fs.writeFileSync(path.join(ws.dir, "flood.txt"), FLOOD)
      fs.writeFileSync(path.join(ws.dir, "flood.yml"), "steps:\n  - id: noisy\n    run: [sh, -c, 'cat flood.txt >&2; exit 3']\n")
    },
    exit: 1,
    progress: true,
    error: `lait: step 'noisy': command 'sh' exited with exit status: 3: ${floodTail()}`
  },
  {
    name: "run: a command that exits while a background process still holds its stdout",
    args: ["run", "background.yml", "x"],
    setup: (ws) =>
      fs.writeFileSync(
        path.join(ws.dir, "background.yml"),
        "steps:\n  - run: [sh, -c, 'sleep 600 & echo $! > bg.pid; echo hi']\n"
      ),
    after: (ws) => {
      const pid = Number(fs.readFileSync(path.join(ws.dir, "bg.pid"), "utf8"))
      // lait sends SIGKILL to the step's process group before it exits; on a loaded machine the kernel
      // may take a moment to stop the process, so "outlived" means still running 10 s later.
      for (let waited = 0; waited < 10_000 && alive(pid); waited += 20) Bun.sleepSync(20)
      if (alive(pid)) {
        process.kill(pid, "SIGKILL")
        throw new Error(`the background process ${pid} outlived the step`)
      }
    },
    writes: ["bg.pid"],
    exit: 0,
    stdout: "hi\n",
    progress: true,
    // The sleep lasts 600 s; the 1 s grace after the child exits is what ends the run before the hang guard.
    error: null
  }
]
