// `--trace-file` where a trace is needed most, against the compiled binary and the fixture OpenAI
// server: a run that fails (the tool loop runs out of rounds) or is stopped by SIGINT or SIGTERM
// while the server is slow to answer still writes what happened, with the failing events; the
// exit code does not change. `--trace-content` adds prompts, answers and tool results with every
// secret masked; `lait trace show` prints them, and reads several files or a directory at once.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OtlpReceiver, startOtlpReceiver } from "../fixtures/otlp-receiver.ts"
import { cleanEnv, server, stopServers, workspace } from "./model-harness.ts"
import { ensureBinary } from "./util.ts"

const ws = workspace("e2e-trace-failed")
let binary = ""
beforeAll(async () => {
  binary = await ensureBinary()
}, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

interface Line {
  readonly seq: number
  readonly operation: string
  readonly label: string
  readonly attributes: Record<string, unknown>
}

const readLines = (file: string): Array<Line> =>
  fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line)

const lait = async (dir: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const proc = Bun.spawn([binary, ...args], {
    cwd: path.join(ws.dir, dir),
    env: Object.fromEntries(
      Object.entries({ ...cleanEnv(ws.dir), ...env }).filter((e): e is [string, string] => e[1] !== undefined)
    ),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  const out = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  return {
    proc,
    done: async () => {
      const [stdout, stderr] = await out
      return { code: await proc.exited, stdout, stderr }
    }
  }
}

const run = async (dir: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  (await lait(dir, args, env)).done()

const config = (baseUrl: string, extra = "") => `base_url: '${baseUrl}'
default:
  model: fixture-model
  max_tool_rounds: 2
${extra}tools:
  echo:
    command: [sh, -c, 'printf "echoed %s" "{{ input.text }}"']
    description: Echo some text
    parameters: { type: object, properties: { text: { type: string } } }
`

const LOOPING = `name: looping
steps:
  - id: plan
    prompt: 'Use the tool on {{ input }}'
    tools: [echo]
`

/** A model that never stops calling the tool. */
const looping = () =>
  server({ script: [{ tool_calls: [{ id: "call_1", name: "tool__echo", arguments: "{\"text\":\"hi\"}" }], repeat: true }] })

describe("a failed run writes its trace", () => {
  test("tool loop exceeded max_tool_rounds: every call so far, the failing step and run, the note", async () => {
    ws.write("loop/lait.config.yml", config(looping().baseUrl))
    ws.write("loop/wf.yml", LOOPING)
    const r = await run("loop", ["run", "wf.yml", "go", "--trace-file", "traces/failed.jsonl"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    const lines = r.stderr.trimEnd().split("\n")
    expect(lines.at(-2)).toBe("note: trace written to 'traces/failed.jsonl' (6 events, run failed)")
    expect(lines.at(-1)).toBe(
      "lait: tool loop exceeded max_tool_rounds (2) without the model producing a final response"
    )
    const events = readLines(path.join(ws.dir, "loop", "traces", "failed.jsonl"))
    expect(events.map((e) => `${e.seq} ${e.operation} ${e.label}`)).toEqual([
      "0 chat plan",
      "1 execute_tool tool 'tool__echo'",
      "2 chat plan",
      "3 execute_tool tool 'tool__echo'",
      "4 step plan",
      "5 invoke_workflow looping"
    ])
    const message = "tool loop exceeded max_tool_rounds (2) without the model producing a final response"
    for (const failed of events.slice(4)) {
      expect(failed.attributes["error.type"]).toBe("LaitError")
      expect(failed.attributes["error.message"]).toBe(message)
    }
    // Without the flag, nothing else changes: no content, the same exit code.
    expect(events.some((e) => "gen_ai.input.messages" in e.attributes)).toBe(false)
    ws.write("loop/lait.config.yml", config(looping().baseUrl))
    const untraced = await run("loop", ["run", "wf.yml", "go"])
    expect(untraced.code).toBe(1)
    expect(untraced.stderr.trimEnd().split("\n").at(-1)).toBe(lines.at(-1)!)
  }, 30_000)

  test("with --trace-spans the file is the whole tree, the failed spans marked", async () => {
    ws.write("loop/lait.config.yml", config(looping().baseUrl))
    const r = await run("loop", ["run", "wf.yml", "go", "--trace-file", "traces/tree.jsonl", "--trace-spans"])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("note: trace written to 'traces/tree.jsonl' (6 events, run failed)\n")
    const events = readLines(path.join(ws.dir, "loop", "traces", "tree.jsonl"))
    expect(events.at(-1)!.operation).toBe("invoke_workflow")
    expect(events.at(-1)!.attributes["error.type"]).toBe("LaitError")
    expect(events.filter((e) => e.operation === "chat").every((e) => !("error.type" in e.attributes))).toBe(true)
  }, 30_000)
})

describe("a failed run's trace read back", () => {
  let receiver: OtlpReceiver | undefined
  beforeAll(() => {
    receiver = startOtlpReceiver()
  })
  afterAll(async () => {
    await receiver?.stop()
  })

  const failedTrace = async (dir: string) => {
    ws.write(`${dir}/lait.config.yml`, config(looping().baseUrl))
    ws.write(`${dir}/wf.yml`, LOOPING)
    expect((await run(dir, ["run", "wf.yml", "go", "--trace-file", "failed.jsonl"])).code).toBe(1)
  }

  test("exported without --trace-spans, the failed events' spans have status ERROR with the message", async () => {
    await failedTrace("export")
    const url = `${receiver!.url}/v1/traces`
    const r = await run("export", ["trace", "export", "failed.jsonl", "--otlp", url])
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: `note: exported 6 spans to '${url}'\n` })
    expect(receiver!.requests).toHaveLength(1)
    expect(receiver!.requests[0]!.problems).toEqual([])
    const spans = (JSON.parse(receiver!.requests[0]!.body) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; parentSpanId?: string; status?: unknown }> }> }>
    }).resourceSpans[0]!.scopeSpans[0]!.spans
    const message = "tool loop exceeded max_tool_rounds (2) without the model producing a final response"
    expect(spans.map((span) => [span.name, "parentSpanId" in span, span.status ?? null])).toEqual([
      ["chat plan", false, null],
      ["execute_tool tool 'tool__echo'", false, null],
      ["chat plan", false, null],
      ["execute_tool tool 'tool__echo'", false, null],
      ["step plan", false, { code: 2, message }],
      ["invoke_workflow looping", false, { code: 2, message }]
    ])
  }, 30_000)

  test("trace show --tree on a file without spans prints it flat and says how to record the tree", async () => {
    await failedTrace("tree")
    const flat = await run("tree", ["trace", "show", "failed.jsonl"])
    const tree = await run("tree", ["trace", "show", "--tree", "failed.jsonl"])
    expect(flat.code).toBe(0)
    // The same events, each a root (in start order rather than recording order).
    const sorted = (text: string) => text.split("\n").sort()
    expect({ ...tree, stdout: sorted(tree.stdout) }).toEqual({
      code: 0,
      stdout: sorted(flat.stdout),
      stderr: "note: 'failed.jsonl' has no spans, so --tree prints its events flat; record the run with " +
        "--trace-spans (or default.trace_spans: true) to see the tree\n"
    })
    expect(tree.stdout.split("\n").filter((l) => l.startsWith("[")).length).toBe(6)
    // With spans there is a tree, and no note.
    expect((await run("tree", ["run", "wf.yml", "go", "--trace-file", "spans.jsonl", "--trace-spans"])).code).toBe(1)
    const spans = await run("tree", ["trace", "show", "--tree", "spans.jsonl"])
    expect({ code: spans.code, stderr: spans.stderr }).toEqual({ code: 0, stderr: "" })
    expect(spans.stdout).toContain("\n  [")
  }, 30_000)

  test("an error message of several lines keeps its event on one line; --json has it as it is", async () => {
    const message = "step 'pick': the model's response is not valid JSON for output schema 'x': Sure!\nHere:\n{}"
    const event = {
      seq: 0,
      operation: "step",
      label: "pick",
      start: "2026-01-02T03:04:05.000000000Z",
      end: "2026-01-02T03:04:05.010000000Z",
      duration_ms: 10,
      attributes: { "lait.step.kind": "prompt", "error.type": "LaitError", "error.message": message }
    }
    ws.write("lines/old.jsonl", `${JSON.stringify(event)}\n`)
    const shown = await run("lines", ["trace", "show", "old.jsonl"])
    expect(shown).toEqual({
      code: 0,
      stdout: "[    10ms] step         pick — 03:04:05.000  (lait.step.kind=prompt error.type=LaitError error.message=" +
        `${message.replaceAll("\n", "\\n")})\n`,
      stderr: ""
    })
    const json = await run("lines", ["trace", "show", "--json", "old.jsonl"])
    expect((JSON.parse(json.stdout) as Array<{ attributes: Record<string, string> }>)[0]!.attributes["error.message"])
      .toBe(message)
  }, 30_000)
})

describe("an interrupted run writes its trace", () => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    test(`${signal} while the server is slow: what happened so far, exit ${code}`, async () => {
      const slow = server({ script: [{ content: "too late", delay_ms: 30_000, repeat: true }] })
      const dir = `stop-${signal}`
      ws.write(`${dir}/lait.config.yml`, config(slow.baseUrl))
      ws.write(`${dir}/wf.yml`, "steps:\n  - id: first\n    run: [echo, hi]\n  - id: ask\n    prompt: 'Say {{ input }}'\n")
      const started = await lait(dir, ["run", "wf.yml", "go", "--trace-file", "t.jsonl", "--trace-spans"])
      const deadline = Date.now() + 10_000
      while (slow.requests.length === 0 && Date.now() < deadline) await Bun.sleep(20)
      expect(slow.requests.length, "the model request").toBe(1)
      started.proc.kill(signal)
      const r = await started.done()
      expect(r.code).toBe(code)
      // Stopped while the server still held its 30 s answer: the run did not wait for it.
      expect(slow.inFlight, "model requests still being answered when lait exited").toBe(1)
      expect(r.stderr.trimEnd().split("\n").at(-1)).toBe("note: trace written to 't.jsonl' (4 events, run interrupted)")
      const events = readLines(path.join(ws.dir, dir, "t.jsonl"))
      expect(events.map((e) => `${e.operation} ${e.label} ${e.attributes["error.type"] ?? "ok"}`)).toEqual([
        "step first ok",
        "chat ask cancelled",
        "step ask cancelled",
        "invoke_workflow wf cancelled"
      ])
      expect(fs.readdirSync(path.join(ws.dir, dir)).filter((f) => f.endsWith(".tmp"))).toEqual([])
    }, 30_000)
  }
})

const SECRET_KEY = "sk-trace-secret-0123456789"
const SECRET_TOKEN = "tok-very-private-98765"

describe("--trace-content", () => {
  const CONTENT = `steps:
  - id: env
    run: [sh, -c, 'printf "key=%s" "$OPENAI_API_KEY"']
  - id: plan
    prompt: 'Check {{ input }}'
    tools: [token]
`
  const contentConfig = (baseUrl: string, extra = "") =>
    `base_url: '${baseUrl}'
default:
  model: fixture-model
${extra}tools:
  token:
    command: [sh, -c, 'printf "the token is %s" "$TOKEN"']
    description: Print the token
    env: { TOKEN: '\${SECRET_TOKEN}' }
`
  // The model calls the tool, then answers by echoing the prompt.
  const model = () =>
    server({
      script: [
        { match: "\"role\":\"tool\"", usage: { prompt_tokens: 5, completion_tokens: 2 } },
        { tool_calls: [{ id: "call_t", name: "tool__token", arguments: "{}" }] }
      ]
    })
  const env = { OPENAI_API_KEY: SECRET_KEY, SECRET_TOKEN }

  test("prompts, answers, tool arguments and results, in the GenAI shape; secrets masked", async () => {
    ws.write("content/lait.config.yml", contentConfig(model().baseUrl))
    ws.write("content/wf.yml", CONTENT)
    const r = await run("content", ["run", "wf.yml", "go", "--trace-file", "c.jsonl", "--trace-content"], env)
    expect(r.code).toBe(0)
    // The answer itself is the user's: stdout is not the trace.
    expect(r.stdout).toBe(`echo: Check key=${SECRET_KEY}\n`)
    const text = fs.readFileSync(path.join(ws.dir, "content", "c.jsonl"), "utf8")
    // The key went into the prompt and the answers, the token into the tool's output.
    expect(text).not.toContain(SECRET_KEY)
    expect(text).not.toContain(SECRET_TOKEN)
    const [first, tool, second] = readLines(path.join(ws.dir, "content", "c.jsonl"))
    expect(first!.attributes["gen_ai.input.messages"]).toEqual([
      { role: "user", parts: [{ type: "text", content: "Check key=<redacted>" }] }
    ])
    expect(first!.attributes["gen_ai.output.messages"]).toEqual([{
      role: "assistant",
      parts: [{ type: "text", content: "echo: Check key=<redacted>" }, {
        type: "tool_call",
        id: "call_t",
        name: "tool__token",
        arguments: {}
      }],
      finish_reason: "tool_calls"
    }])
    expect(tool!.attributes["gen_ai.tool.call.arguments"]).toEqual({})
    expect(tool!.attributes["gen_ai.tool.call.result"]).toBe("the token is <redacted>")
    expect((second!.attributes["gen_ai.input.messages"] as Array<unknown>).at(-1)).toEqual({
      role: "tool",
      parts: [{ type: "tool_call_response", id: "call_t", response: "the token is <redacted>" }]
    })
    expect(second!.attributes["gen_ai.output.messages"]).toEqual([{
      role: "assistant",
      parts: [{ type: "text", content: "echo: Check key=<redacted>" }],
      finish_reason: "stop"
    }])

    const shown = await run("content", ["trace", "show", "c.jsonl"])
    expect(shown.stdout.split("\n").filter((l) => l.startsWith("           ")).map((l) => l.trim())).toEqual([
      "> (1 message) user: Check key=<redacted>",
      "< assistant: echo: Check key=<redacted> tool_call tool__token {} (tool_calls)",
      "> arguments: {}",
      "< result: the token is <redacted>",
      "> (3 messages) tool: tool_call_response call_t: the token is <redacted>",
      "< assistant: echo: Check key=<redacted> (stop)"
    ])
    const whole = await run("content", ["trace", "show", "--content", "--label", "plan", "c.jsonl"])
    expect(whole.stdout).toContain("           > assistant: echo: Check key=<redacted> tool_call tool__token {}\n")
  }, 30_000)

  test("off by default; default.trace_content turns it on; --no-trace-content overrides", async () => {
    const contentOf = async (extra: string, args: ReadonlyArray<string>) => {
      ws.write("content/lait.config.yml", contentConfig(model().baseUrl, extra))
      const r = await run("content", ["run", "wf.yml", "go", "--trace-file", "d.jsonl", ...args], env)
      expect(r.code).toBe(0)
      const events = readLines(path.join(ws.dir, "content", "d.jsonl"))
      return events.some((e) => "gen_ai.input.messages" in e.attributes || "gen_ai.tool.call.result" in e.attributes)
    }
    expect(await contentOf("", [])).toBe(false)
    expect(await contentOf("  trace_content: true\n", [])).toBe(true)
    expect(await contentOf("  trace_content: true\n", ["--no-trace-content"])).toBe(false)
    const usage = await run("content", ["run", "wf.yml", "go", "--trace-content"], env)
    expect(usage.code).toBe(2)
  }, 30_000)
})

describe("lait trace show over several files", () => {
  test("a directory and a list of files; --summary adds them up", async () => {
    const dir = path.join(ws.dir, "many")
    fs.mkdirSync(dir, { recursive: true })
    fs.copyFileSync(path.join(ws.dir, "loop", "traces", "failed.jsonl"), path.join(dir, "a.jsonl"))
    fs.copyFileSync(path.join(ws.dir, "content", "c.jsonl"), path.join(dir, "b.jsonl"))
    fs.writeFileSync(path.join(dir, "notes.txt"), "not a trace\n")
    const normalize = (text: string) => text.replace(/total=\d+ms/g, "total=Nms")
    const expected = "plan: chat=4 execute_tool=0 compact=0 total=Nms tokens(in=35 out=17)\n" +
      "tool 'tool__echo': chat=0 execute_tool=2 compact=0 total=Nms tokens(in=0 out=0)\n" +
      "tool 'tool__token': chat=0 execute_tool=1 compact=0 total=Nms tokens(in=0 out=0)\n" +
      "2 files, 2 runs (1 failed): chat=4 execute_tool=3 compact=0 total=Nms tokens(in=35 out=17)\n"
    const fromDir = await run("many", ["trace", "show", "--summary", "."])
    expect(fromDir.code).toBe(0)
    expect(normalize(fromDir.stdout)).toBe(expected)
    const fromFiles = await run("many", ["trace", "show", "--summary", "a.jsonl", "b.jsonl"])
    expect(normalize(fromFiles.stdout)).toBe(expected)

    const listed = await run("many", ["trace", "show", "--operation", "execute_tool", "."])
    expect(listed.stdout.split("\n").filter((l) => l.startsWith("==>"))).toEqual(["==> a.jsonl <==", "==> b.jsonl <=="])
    const json = JSON.parse((await run("many", ["trace", "show", "--summary", "--json", "."])).stdout)
    expect([json.files, json.runs, json.failed_runs, json.total.chat]).toEqual([2, 2, 1, 4])

    fs.mkdirSync(path.join(dir, "empty"))
    const empty = await run("many", ["trace", "show", "empty"])
    expect(empty.code).toBe(1)
    expect(empty.stderr).toBe("lait: failed to read trace file 'empty': the directory holds no trace files (*.jsonl)\n")
  }, 30_000)
})
