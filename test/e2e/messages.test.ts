// What the user reads when something is off, through the compiled binary: labels of unnamed steps
// that come from where the step is in the file (not from how many steps ran before it), servers that
// cannot be reached (model, MCP over HTTP, an eval's judge), usage of a run the cache answered, a
// model step without a model, and tool calls the model got wrong.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import type { OpenAiServer } from "../fixtures/openai-server.ts"
import { outcome, prepareCli, refusedBaseUrl, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-messages")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

/** A directory with the given files; `config` (when given) is its lait.config.yml. */
const project = (name: string, files: Readonly<Record<string, string>>, config?: string) => {
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(dir, { recursive: true })
  if (config !== undefined) fs.writeFileSync(path.join(dir, "lait.config.yml"), config)
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text)
  return { dir, lait: (args: ReadonlyArray<string>) => ws.lait(args, { cwd: dir, env: { LAIT_HTTP_ATTEMPTS: "1" } }) }
}

const configFor = (s: OpenAiServer, extra = "") => `base_url: '${s.baseUrl}'\ndefault:\n  model: fixture-model\n${extra}`

interface TraceLine {
  readonly operation: string
  readonly label: string
  readonly attributes: Record<string, unknown>
}

const traceOf = (file: string): Array<TraceLine> =>
  fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as TraceLine)

describe("labels of unnamed steps", () => {
  test("come from the position in the file, whatever ran before", async () => {
    const p = project("after-loop", {
      "wf.yml": "steps:\n  - for_each: '[range(5)]'\n    steps:\n      - jq: '. + 1'\n  - jq: 'error(\"boom\")'\n"
    })
    const r = await p.lait(["run", "wf.yml", "x"])
    expect(r.code).toBe(1)
    // The counter still counts what ran; the label says which step it was.
    expect(r.stderr).toContain("[7] step-2 (jq)\n")
    expect(r.stderr).toEndWith("lait: step 'step-2 (jq)': jq filter \"error(\\\"boom\\\")\" failed: boom\n")
  })

  test("nested steps: the same label in progress, errors, --show-usage, traces, dry run and graph", async () => {
    const s = server({ script: [{ content: "ok", repeat: true }] })
    const p = project("nested", {
      "wf.yml": "steps:\n" +
        "  - for_each: '[1, 2, 3]'\n    steps:\n      - prompt: 'item {{ input }}'\n" +
        "  - parallel:\n      fast:\n        - prompt: 'fast'\n      slow:\n        - jq: '.'\n" +
        "  - prompt: 'last'\n"
    }, configFor(s))
    const r = await p.lait(["run", "wf.yml", "x", "--show-usage", "--trace-file", "t.jsonl"])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain("[2] step-1.1 (prompt)\n")
    expect(r.stderr).toContain("[4] step-1.1 (prompt)\n")
    expect(r.stderr).toContain("[fast] [1] step-2.fast.1 (prompt)\n")
    expect(r.stderr).toContain(
      "usage:\n" +
        "  step-1.1 (prompt): prompt=30 completion=15 total=45 (3 requests)\n" +
        "  step-2.fast.1 (prompt): prompt=10 completion=5 total=15\n" +
        "  step-3 (prompt): prompt=10 completion=5 total=15\n" +
        "  total: prompt=50 completion=25 total=75 (5 requests)\n"
    )
    const chats = traceOf(path.join(p.dir, "t.jsonl")).filter((e) => e.operation === "chat").map((e) => e.label)
    expect(chats).toEqual([...Array(3).fill("step-1.1 (prompt)"), "step-2.fast.1 (prompt)", "step-3 (prompt)"])

    const plan = await p.lait(["run", "wf.yml", "x", "--dry-run"])
    expect(plan.stdout).toContain("        [1] step-1.1  (prompt)\n")
    expect(plan.stdout).toContain("        [1] step-2.fast.1  (prompt)\n")
    expect(plan.stdout).toContain("[3] step-3  (prompt)\n")
    const graph = await p.lait(["graph", "wf.yml"])
    for (const label of ["step-1.1", "step-2.fast.1", "step-2.slow.1", "step-3"]) expect(graph.stdout).toContain(`"[${label}]<br/>`)

    const failing = project("nested-fail", {
      "wf.yml": "steps:\n  - jq: '1'\n  - switch:\n      - when: 'true'\n        steps:\n          - jq: '.'\n          - jq: 'error(\"no\")'\n"
    })
    expect((await failing.lait(["run", "wf.yml", "x"])).stderr).toEndWith(
      "lait: step 'step-2.case1.2 (jq)': jq filter \"error(\\\"no\\\")\" failed: no\n"
    )
  })
})

describe("servers that cannot be reached", () => {
  const prompt = { "wf.yml": "steps:\n  - id: ask\n    prompt: 'hi'\n" }

  test("refused, reset, unknown host: the URL and the reason in plain words", async () => {
    const refused = await refusedBaseUrl()
    const r = await project("refused", prompt, `base_url: '${refused}'\ndefault:\n  model: m\n`).lait(["run", "wf.yml", "x"])
    expect(outcome(r)).toEqual({ code: 4, stdout: "", stderr: `[1] ask\nlait: failed to reach '${refused}': connection refused\n` })

    const resetting = net.createServer((socket) => socket.once("data", () => socket.resetAndDestroy())).listen(0, "127.0.0.1")
    await new Promise((done) => resetting.once("listening", done))
    try {
      const url = `http://127.0.0.1:${(resetting.address() as net.AddressInfo).port}/v1`
      const reset = await project("reset", prompt, `base_url: '${url}'\ndefault:\n  model: m\n`).lait(["run", "wf.yml", "x"])
      expect(reset.stderr).toEndWith(`lait: failed to reach '${url}': connection reset\n`)
    } finally {
      resetting.close()
    }

    const nowhere = "http://no-such-host.invalid/v1"
    const dns = await project("dns", prompt, `base_url: '${nowhere}'\ndefault:\n  model: m\n`).lait(["run", "wf.yml", "x"])
    expect(dns.stderr).toMatch(new RegExp(`lait: failed to reach '${nowhere.replaceAll(".", "\\.")}': host not found.*\\n$`))
    expect(r.stderr + dns.stderr).not.toContain("Is the computer able")
  })

  test("an MCP server over HTTP and an eval's judge say it the same way", async () => {
    const refused = await refusedBaseUrl()
    const mcpUrl = refused.replace(/\/v1$/, "/mcp")
    const s = server({ script: [{ content: "Hello", repeat: true }] })
    const p = project("mcp-judge", {
      "wf.yml": "steps:\n  - prompt: 'hi'\n    mcp: [remote]\n",
      "eval.yml": "target: { model: m, prompt: 'Greet {{input}}' }\ncases:\n" +
        "  - input: Ada\n    assert:\n      - { type: llm_judge, criteria: polite, model: judge }\n"
    }, configFor(s, `mcp_servers:\n  remote:\n    url: '${mcpUrl}'\nmodels:\n` +
      `  m:\n    - provider: { base_url: '${s.baseUrl}' }\n      model_id: target-model\n` +
      `  judge:\n    - provider: { base_url: '${refused}' }\n      model_id: judge-model\n`))
    const mcp = await p.lait(["run", "wf.yml", "x"])
    expect(mcp.stderr).toEndWith(`lait: failed to initialize MCP server 'remote': failed to reach '${mcpUrl}': connection refused\n`)
    const judged = await p.lait(["eval", "eval.yml"])
    expect(judged.stdout).toContain(`llm_judge evaluation failed: failed to reach '${refused}': connection refused\n`)
  })
})

describe("--show-usage with the response cache", () => {
  test("a run answered from the cache says so, entirely or in part", async () => {
    const s = server({ script: [{ content: "answer", repeat: true }] })
    const p = project("cache", {
      "one.yml": "steps:\n  - id: a\n    prompt: 'first'\n",
      "two.yml": "steps:\n  - id: a\n    prompt: 'first'\n  - id: b\n    prompt: 'second'\n"
    }, configFor(s))
    await p.lait(["run", "one.yml", "x", "--cache"])
    const all = await p.lait(["run", "one.yml", "x", "--cache", "--show-usage"])
    expect(all.stderr).toBe("[1] a\nnote: cache hit for a\nusage: 0 tokens (1 request answered from the cache)\n")
    const part = await p.lait(["run", "two.yml", "x", "--cache", "--show-usage"])
    expect(part.stderr).toBe(
      "[1] a\nnote: cache hit for a\n[2] b\nusage: prompt=10 completion=5 total=15; 1 request answered from the cache\n"
    )
    expect(s.requests).toHaveLength(2)
  })
})

describe("a model step without a model", () => {
  const files = { "wf.yml": "steps:\n  - id: classify\n    prompt: 'hi'\n" }

  test("says where config was looked for, or names the config file that has no default.model", async () => {
    const none = project("no-config", files)
    const expected = `lait: model is required for step 'classify' (no lait.config.yml found from '${none.dir}' upward); ` +
      "set 'model' on the step or the workflow's default.model\n"
    expect(outcome(await none.lait(["run", "wf.yml", "x"]))).toEqual({ code: 1, stdout: "", stderr: `[1] classify\n${expected}` })
    expect((await none.lait(["run", "wf.yml", "x", "--dry-run"])).stderr).toBe(expected)

    const found = project("config-without-model", files, "base_url: 'http://127.0.0.1:1/v1'\n")
    expect((await found.lait(["run", "wf.yml", "x"])).stderr).toEndWith(
      "lait: model is required for step 'classify'; set 'model' on the step, the workflow's default.model, " +
        `or default.model in '${path.join(found.dir, "lait.config.yml")}'\n`
    )
  })
})

describe("tool calls the model gets wrong", () => {
  test("an unknown name and broken JSON arguments are answered to the model and traced; the run goes on", async () => {
    const s = server({
      script: [
        {
          content: null,
          tool_calls: [
            { id: "u1", name: "tool__nope", arguments: "{}" },
            { id: "j1", name: "tool__echo", arguments: "{\"text\": \"unterminated" }
          ]
        },
        { content: "recovered" }
      ]
    })
    const p = project("bad-calls", {
      "wf.yml": "steps:\n  - id: act\n    prompt: 'use tools'\n    tools: [echo, date]\n"
    }, configFor(s, "tools:\n  echo:\n    command: [echo, '{{ input.text }}']\n  date:\n    command: [date]\n"))
    const r = await p.lait(["run", "wf.yml", "x", "--trace-file", "t.jsonl"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "recovered\n" })
    const second = s.requests[1]!.body as { messages: Array<{ role: string; content: string; tool_call_id?: string }> }
    const answers = second.messages.filter((m) => m.role === "tool")
    expect(answers[0]).toEqual({ role: "tool", content: "unknown tool 'tool__nope'; available: tool__echo, tool__date", tool_call_id: "u1" })
    expect(answers[1]!.tool_call_id).toBe("j1")
    expect(answers[1]!.content).toStartWith("arguments are not valid JSON: ")
    // Calls of one reply run concurrently; their events are compared in name order.
    const tools = traceOf(path.join(p.dir, "t.jsonl")).filter((e) => e.operation === "execute_tool")
      .sort((a, b) => (a.label < b.label ? -1 : 1))
    expect(tools.map((e) => [e.label, e.attributes["lait.tool.decision"], e.attributes["lait.step.label"]])).toEqual([
      ["tool 'tool__echo'", "error", "act"],
      ["tool 'tool__nope'", "error", "act"]
    ])
    expect(tools[0]!.attributes["lait.tool.error"]).toBe(answers[1]!.content)
    expect(tools[1]!.attributes["lait.tool.error"]).toBe("unknown tool 'tool__nope'; available: tool__echo, tool__date")
  })

  test("arguments nested 100,000 levels deep are answered to the model in one line; the run goes on", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000)
    const s = server({
      script: [
        { content: null, tool_calls: [{ id: "d1", name: "tool__echo", arguments: `{"text": ${deep}}` }] },
        { content: "recovered" }
      ]
    })
    const p = project("deep-arguments", {
      "wf.yml": "steps:\n  - id: act\n    prompt: 'use tools'\n    tools: [echo]\n"
    }, configFor(s, "tools:\n  echo:\n    command: [echo, '{{ input.text }}']\n"))
    const r = await p.lait(["run", "wf.yml", "x", "--trace-file", "t.jsonl"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "recovered\n", stderr: "[1] act\nnote: trace written to 't.jsonl' (3 events)\n" })
    const second = s.requests[1]!.body as { messages: Array<{ role: string; content: string; tool_call_id?: string }> }
    expect(second.messages.filter((m) => m.role === "tool")).toEqual([
      { role: "tool", content: "arguments are nested deeper than 1000 levels (lait's limit for JSON it reads)", tool_call_id: "d1" }
    ])
  })
})
