// Traces as a user meets them: `lait run --trace-file` on a workflow with prompt (with a real shell
// tool loop), for_each and run steps against the fixture OpenAI server, then `lait trace show` with
// each option and `lait trace export` to a local OTLP receiver that checks bodies and headers,
// including a 404, a refused connection and Ctrl-C.
import { describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { VERSION } from "../../src/version.ts"
import { otlpSuite, outcome, refusedBaseUrl, server } from "./model-harness.ts"
import { repoRoot } from "./util.ts"

const suite = otlpSuite("e2e-trace")
const { ws } = suite

const golden = path.join(repoRoot, "test", "trace", "golden")

const WORKFLOW = `name: traced
description: a prompt with a tool, a concurrent for_each of prompts, a command
steps:
  - id: plan
    prompt: 'Use the tool on {{ input }}'
    tools: [echo]
  - id: items
    jq: '["a", "b", "c"]'
  - id: each
    for_each: '.'
    max_concurrency: 2
    steps:
      - id: ask
        prompt: 'Item {{ input }}'
  - id: shout
    run: [sh, -c, 'tr a-z A-Z']
`

const config = (baseUrl: string) => `base_url: '${baseUrl}'
default:
  model: fixture-model
tools:
  echo:
    command: [sh, -c, 'printf "echoed %s" "{{ input.text }}"']
    description: Echo some text
    parameters: { type: object, properties: { text: { type: string } } }
`

/** The scripted model: plan calls the tool once, then answers; every item gets the same reply. */
const script = [
  { match: "\"role\":\"tool\"", content: "plan done", usage: { prompt_tokens: 20, completion_tokens: 4 } },
  {
    match: "Use the tool",
    tool_calls: [{ id: "call_1", name: "tool__echo", arguments: "{\"text\":\"hi\"}" }],
    usage: { prompt_tokens: 12, completion_tokens: 3 }
  },
  { content: "item reply", repeat: true }
]

interface Line {
  readonly seq: number
  readonly operation: string
  readonly label: string
  readonly start: string
  readonly end: string
  readonly duration_ms: number
  readonly attributes: Record<string, unknown>
  readonly span_id: string
  readonly parent_span_id: string | null
}

const readLines = (file: string): Array<Line> =>
  fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line)

/** `operation label <- parent operation label`, the tree as the file states it. */
const tree = (events: ReadonlyArray<Line>) => {
  const byId = new Map(events.map((e) => [e.span_id, e]))
  return events.map((e) => {
    const parent = e.parent_span_id === null ? undefined : byId.get(e.parent_span_id)
    return `${e.operation} ${e.label} <- ${parent === undefined ? "(root)" : `${parent.operation} ${parent.label}`}`
  })
}

/** Timing varies from run to run: durations, clock times and totals become placeholders. */
const normalize = (text: string) =>
  text
    .replace(/\[ *\d+ms\]/g, "[Nms]")
    .replace(/\u2014 \d\d:\d\d:\d\d\.\d{3}/g, "\u2014 HH:MM:SS.mmm")
    .replace(/total=\d+ms/g, "total=Nms")

let projectDir = ""
let traceFile = ""
let flatFile = ""

const SEED_KEYS = ["seq", "operation", "label", "start", "end", "duration_ms", "attributes"]

describe("lait run --trace-file", () => {
  test("by default: only the seed's chat and execute_tool events, seq from 0, the note counts the lines", async () => {
    const s = server({ script })
    projectDir = path.join(ws.dir, "project")
    ws.write("project/lait.config.yml", config(s.baseUrl))
    ws.write("project/wf.yml", WORKFLOW)
    const r = await ws.lait(["run", "wf.yml", "go", "--trace-file", "traces/flat.jsonl"], { cwd: projectDir })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("[\"ITEM REPLY\",\"ITEM REPLY\",\"ITEM REPLY\"]\n")
    flatFile = path.join(projectDir, "traces", "flat.jsonl")
    const lines = fs.readFileSync(flatFile, "utf8").trimEnd().split("\n")
    expect(lines).toHaveLength(6)
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe("note: trace written to 'traces/flat.jsonl' (6 events)")
    const events = lines.map((l) => JSON.parse(l) as Line)
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5])
    for (const event of events) expect(Object.keys(event)).toEqual(SEED_KEYS)
    expect(events.map((e) => `${e.operation} ${e.label}`).sort()).toEqual([
      "chat ask",
      "chat ask",
      "chat ask",
      "chat plan",
      "chat plan",
      "execute_tool tool 'tool__echo'"
    ])

    const shown = await ws.lait(["trace", "show", "traces/flat.jsonl"], { cwd: projectDir })
    expect(shown.stdout.trimEnd().split("\n")).toHaveLength(6)
    const summary = await ws.lait(["trace", "show", "--summary", "traces/flat.jsonl"], { cwd: projectDir })
    expect(normalize(summary.stdout)).toBe(
      "plan: chat=2 execute_tool=0 compact=0 total=Nms tokens(in=32 out=7)\n" +
        "tool 'tool__echo': chat=0 execute_tool=1 compact=0 total=Nms tokens(in=0 out=0)\n" +
        "ask: chat=3 execute_tool=0 compact=0 total=Nms tokens(in=30 out=15)\n"
    )
  })

  test("--trace-spans writes the run as a span tree: run → steps → model calls and the tool call", async () => {
    const s = server({ script })
    ws.write("project/lait.config.yml", config(s.baseUrl))
    const r = await ws.lait(["run", "wf.yml", "go", "--trace-file", "traces/run.jsonl", "--trace-spans"], { cwd: projectDir })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("[\"ITEM REPLY\",\"ITEM REPLY\",\"ITEM REPLY\"]\n")
    traceFile = path.join(projectDir, "traces", "run.jsonl")
    const events = readLines(traceFile)
    // The answer is emitted first, then the trace is written: its note is the last line.
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(`note: trace written to 'traces/run.jsonl' (14 events)`)

    expect(events.map((e) => e.seq)).toEqual([...Array(14).keys()])
    for (const line of fs.readFileSync(traceFile, "utf8").trimEnd().split("\n")) {
      expect(Object.keys(JSON.parse(line) as object)).toEqual([...SEED_KEYS, "span_id", "parent_span_id"])
    }
    const shape = tree(events)
    const count = (line: string) => shape.filter((l) => l === line).length
    expect(count("chat plan <- step plan")).toBe(2)
    expect(count("execute_tool tool 'tool__echo' <- step plan")).toBe(1)
    expect(count("step plan <- invoke_workflow traced")).toBe(1)
    expect(count("step items <- invoke_workflow traced")).toBe(1)
    expect(count("chat ask <- step ask")).toBe(3)
    expect(count("step ask <- step each")).toBe(3)
    expect(count("step each <- invoke_workflow traced")).toBe(1)
    expect(count("step shout <- invoke_workflow traced")).toBe(1)
    expect(shape.at(-1)).toBe("invoke_workflow traced <- (root)")

    const tool = events.find((e) => e.operation === "execute_tool")!
    expect(tool.attributes).toEqual({
      "gen_ai.tool.name": "tool__echo",
      "gen_ai.tool.arguments": "{\"text\":\"hi\"}",
      "lait.step.label": "plan",
      "lait.tool.round": 1,
      "lait.tool.decision": "allowed"
    })
    const chats = events.filter((e) => e.operation === "chat" && e.label === "plan")
    expect(chats.map((e) => e.attributes)).toEqual([12, 20].map((input, i) => ({
      "gen_ai.request.model": "fixture-model",
      "lait.source": "live",
      "gen_ai.usage.input_tokens": input,
      "gen_ai.usage.output_tokens": [3, 4][i],
      "gen_ai.provider.name": "openai",
      "server.address": "127.0.0.1",
      "server.port": s.port,
      "gen_ai.response.finish_reasons": [["tool_calls"], ["stop"]][i]
    })))
    // The tool ran between the two model calls of its step.
    expect(chats[0]!.seq < tool.seq && tool.seq < chats[1]!.seq).toBe(true)
  })

  test("default.trace_spans: true in lait.config.yml writes the tree; --no-trace-spans overrides it", async () => {
    // The script is used up by a run: each run gets its own server.
    const configure = () => ws.write("spans/lait.config.yml", config(server({ script }).baseUrl).replace("default:\n", "default:\n  trace_spans: true\n"))
    configure()
    ws.write("spans/wf.yml", WORKFLOW)
    const cwd = path.join(ws.dir, "spans")
    expect(outcome(await ws.lait(["lint", "lait.config.yml"], { cwd })).code).toBe(0)
    const tree = await ws.lait(["run", "wf.yml", "go", "--trace-file", "t.jsonl"], { cwd })
    expect(tree.stderr).toContain("note: trace written to 't.jsonl' (14 events)\n")
    expect(readLines(path.join(cwd, "t.jsonl")).at(-1)!.operation).toBe("invoke_workflow")
    configure()
    const flat = await ws.lait(["run", "wf.yml", "go", "--trace-file", "t.jsonl", "--no-trace-spans"], { cwd })
    expect(flat.stderr).toContain("note: trace written to 't.jsonl' (6 events)\n")
  })

  test("--trace-spans without --trace-file is a usage error", async () => {
    const r = await ws.lait(["run", "wf.yml", "go", "--trace-spans"], { cwd: projectDir })
    expect(outcome(r)).toEqual({ code: 2, stdout: "", stderr: "lait: the argument '--trace-spans' requires '--trace-file <PATH>'\n" })
  })

  test("a failed run writes its trace (unlike the original lait): the failing call, its error, the same exit code", async () => {
    const s = server({ script: [{ status: 400, body: { error: { message: "no such model" } } }] })
    ws.write("failing/lait.config.yml", config(s.baseUrl))
    ws.write("failing/wf.yml", WORKFLOW)
    const r = await ws.lait(["run", "wf.yml", "go", "--trace-file", "traces/run.jsonl"], { cwd: path.join(ws.dir, "failing") })
    expect(r.code).toBe(4)
    const error = `lait: the model server at '${s.baseUrl}' answered HTTP 400: no such model`
    expect(r.stderr.trimEnd().split("\n").slice(-2)).toEqual([
      "note: trace written to 'traces/run.jsonl' (3 events, run failed)",
      error
    ])
    const events = readLines(path.join(ws.dir, "failing", "traces", "run.jsonl"))
    expect(events.map((e) => `${e.operation} ${e.label} ${e.attributes["error.type"]}`)).toEqual([
      "chat plan 400",
      "step plan 400",
      "invoke_workflow traced 400"
    ])
    expect(events[0]!.attributes["error.message"]).toBe(error.slice("lait: ".length))
  })
})

describe("lait trace show", () => {
  const show = (...args: Array<string>) => ws.lait(["trace", "show", ...args], { cwd: projectDir })

  test("one line per event in seq order", async () => {
    const r = await show("traces/run.jsonl")
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split("\n")
    expect(lines).toHaveLength(14)
    for (const line of lines) {
      expect(line).toMatch(/^\[ *\d+ms\] [a-z_]+ +.+ \u2014 \d\d:\d\d:\d\d\.\d{3}( {2}\(.*\))?$/)
    }
    const normalized = normalize(r.stdout).split("\n")
    expect(normalized).toContain(
      "[Nms] execute_tool tool 'tool__echo' \u2014 HH:MM:SS.mmm  (gen_ai.tool.name=tool__echo gen_ai.tool.arguments={\"text\":\"hi\"} lait.step.label=plan lait.tool.round=1 lait.tool.decision=allowed)"
    )
    expect(normalized[0]).toMatch(
      /^\[Nms\] chat {9}plan \u2014 HH:MM:SS\.mmm {2}\(gen_ai\.request\.model=fixture-model lait\.source=live gen_ai\.usage\.input_tokens=12 gen_ai\.usage\.output_tokens=3 gen_ai\.provider\.name=openai server\.address=127\.0\.0\.1 server\.port=\d+ gen_ai\.response\.finish_reasons=\["tool_calls"\]\)$/
    )
    expect(normalized.at(-2)).toBe(`[Nms] invoke_workflow traced \u2014 HH:MM:SS.mmm  (lait.workflow.path=${path.join(projectDir, "wf.yml")})`)
  })

  test("--json is the events of the file, pretty", async () => {
    const r = await show("--json", "traces/run.jsonl")
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual(readLines(traceFile))
    expect(r.stdout).toStartWith("[\n  {\n    \"seq\": 0,\n    \"operation\": \"chat\",\n")
  })

  test("--operation and --label filter", async () => {
    const tools = await show("traces/run.jsonl", "--operation", "execute_tool")
    expect(normalize(tools.stdout)).toBe(
      "[Nms] execute_tool tool 'tool__echo' \u2014 HH:MM:SS.mmm  (gen_ai.tool.name=tool__echo gen_ai.tool.arguments={\"text\":\"hi\"} lait.step.label=plan lait.tool.round=1 lait.tool.decision=allowed)\n"
    )
    const asks = await show("traces/run.jsonl", "--label", "ask")
    const heads = normalize(asks.stdout).trimEnd().split("\n").map((l) => l.slice(0, l.indexOf(" \u2014")))
    expect(heads.filter((h) => h === "[Nms] chat         ask")).toHaveLength(3)
    expect(heads.filter((h) => h === "[Nms] step         ask")).toHaveLength(3)
    expect(heads).toHaveLength(6)
    const both = await show("traces/run.jsonl", "--label", "ask", "--operation", "step")
    expect(both.stdout.trimEnd().split("\n")).toHaveLength(3)
    const none = await show("traces/run.jsonl", "--operation", "compact")
    expect(outcome(none)).toEqual({ code: 0, stdout: "(no events)\n", stderr: "" })
  })

  test("--operation outside the five operations is a usage error, not an empty list", async () => {
    const r = await show("traces/run.jsonl", "--operation", "tool")
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toStartWith("lait: Invalid value for flag --operation: \"tool\". Expected: \"chat\" | \"execute_tool\" | \"compact\" | \"step\" | \"invoke_workflow\"")
  })

  test("--tree indents children under their parent in start order; the plain list stays flat", async () => {
    const r = await show("--tree", "traces/run.jsonl")
    expect(r.code).toBe(0)
    const heads = r.stdout.trimEnd().split("\n").map((l) => l.slice(0, l.indexOf(" \u2014")).replace(/\[ *\d+ms\] /, ""))
    expect(heads).toEqual([
      "invoke_workflow traced",
      "  step         plan",
      "    chat         plan",
      "    execute_tool tool 'tool__echo'",
      "    chat         plan",
      "  step         items",
      "  step         each",
      "    step         ask",
      "      chat         ask",
      "    step         ask",
      "      chat         ask",
      "    step         ask",
      "      chat         ask",
      "  step         shout"
    ])
    const plainList = await show("traces/run.jsonl")
    expect(plainList.stdout.split("\n").every((l) => !l.startsWith(" "))).toBe(true)
    expect(outcome(await show("--tree", "--summary", "traces/run.jsonl"))).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--tree' cannot be used with '--summary'\n"
    })
  })

  test("--summary and --json --summary", async () => {
    const summary = await show("traces/run.jsonl", "--summary")
    expect(summary.code).toBe(0)
    expect(normalize(summary.stdout)).toBe(
      "plan: chat=2 execute_tool=0 compact=0 total=Nms tokens(in=32 out=7)\n" +
        "tool 'tool__echo': chat=0 execute_tool=1 compact=0 total=Nms tokens(in=0 out=0)\n" +
        "ask: chat=3 execute_tool=0 compact=0 total=Nms tokens(in=30 out=15)\n"
    )
    const json = await show("traces/run.jsonl", "--summary", "--json", "--label", "tool")
    const parsed = JSON.parse(json.stdout) as Array<Record<string, unknown>>
    expect(parsed.map(({ duration_ms, ...rest }) => [typeof duration_ms, rest])).toEqual([[
      "number",
      { label: "tool 'tool__echo'", chat: 0, execute_tool: 1, compact: 0, input_tokens: 0, output_tokens: 0 }
    ]])
  })

  test("a file of the original lait shows exactly as the seed describes", async () => {
    const r = await ws.lait(["trace", "show", path.join(golden, "upstream.jsonl")])
    expect(outcome(r)).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        "[    42ms] chat         summarize \u2014 14:03:11.204  (gen_ai.request.model=workflow-model lait.source=live gen_ai.usage.input_tokens=120 gen_ai.usage.output_tokens=48)",
        "[     3ms] execute_tool tool 'tool__ripgrep' \u2014 14:03:11.260  (gen_ai.tool.name=tool__ripgrep gen_ai.tool.arguments={\"pattern\":\"TODO\"} lait.step.label=summarize lait.tool.round=1 lait.tool.decision=allowed)",
        "[     0ms] compact      summarize \u2014 14:03:11.270  (lait.compaction.round=2 lait.compaction.messages_before=9 lait.compaction.messages_after=4)",
        "[    58ms] chat         summarize \u2014 14:03:11.280  (gen_ai.request.model=workflow-model lait.source=cache gen_ai.usage.input_tokens=30 gen_ai.usage.output_tokens=7 weird=[1,{\"x\":null}] ratio=0.5 flag=true nothing=null)",
        ""
      ].join("\n")
    })
    const summary = await ws.lait(["trace", "show", "--summary", path.join(golden, "upstream.jsonl")])
    expect(summary.stdout).toBe(
      "summarize: chat=2 execute_tool=0 compact=1 total=100ms tokens(in=150 out=55)\n" +
        "tool 'tool__ripgrep': chat=0 execute_tool=1 compact=0 total=3ms tokens(in=0 out=0)\n"
    )
  })

  test("an empty file, a bad line, a missing file", async () => {
    ws.write("empty.jsonl", "\n")
    expect(outcome(await ws.lait(["trace", "show", "empty.jsonl"]))).toEqual({ code: 0, stdout: "(no events)\n", stderr: "" })
    ws.write("bad.jsonl", `${fs.readFileSync(path.join(golden, "upstream.jsonl"), "utf8").split("\n")[0]}\n{oops}\n`)
    expect(outcome(await ws.lait(["trace", "show", "bad.jsonl"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to parse trace event on line 2 of 'bad.jsonl': key must be a string at column 2\n"
    })
    expect(outcome(await ws.lait(["trace", "show", "nope.jsonl"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read trace file 'nope.jsonl': no such file or directory\n"
    })
  })
})

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
  readonly status?: { readonly code: number }
}

interface Body {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<unknown> }
    readonly scopeSpans: ReadonlyArray<{ readonly scope: unknown; readonly spans: ReadonlyArray<Span> }>
  }>
}

const spansOf = (body: string) => (JSON.parse(body) as Body).resourceSpans[0]!.scopeSpans[0]!.spans

describe("lait trace export", () => {
  const exportTo = (url: string, extra: ReadonlyArray<string> = [], env: Readonly<Record<string, string>> = {}) =>
    ws.lait(["trace", "export", "traces/run.jsonl", "--otlp", url, ...extra], { cwd: projectDir, env })

  test("one POST of OTLP/JSON, headers with ${VAR} from the environment and .env, the tree as parent ids", async () => {
    ws.write("project/.env", "OTLP_TENANT=tenant-from-dotenv\n")
    const url = `${suite.receiver.url}/v1/traces`
    const r = await exportTo(
      url,
      ["--header", "Authorization=Bearer ${OTLP_TOKEN}", "--header", " X-Scope-OrgID =${OTLP_TENANT}", "--service-name", "lait-e2e"],
      { OTLP_TOKEN: "s3cret-token" }
    )
    expect(outcome(r)).toEqual({ code: 0, stdout: "", stderr: `note: exported 14 spans to '${url}'\n` })
    expect(suite.receiver.requests).toHaveLength(1)
    const request = suite.receiver.requests[0]!
    expect(request.method).toBe("POST")
    expect(request.path).toBe("/v1/traces")
    expect(request.headers["content-type"]).toBe("application/json")
    expect(request.headers["authorization"]).toBe("Bearer s3cret-token")
    expect(request.headers["x-scope-orgid"]).toBe("tenant-from-dotenv")
    expect(request.headers["traceparent"]).toBeUndefined()
    expect(request.problems).toEqual([])

    const body = JSON.parse(request.body) as Body
    expect(body.resourceSpans).toHaveLength(1)
    expect(body.resourceSpans[0]!.resource.attributes).toEqual([{ key: "service.name", value: { stringValue: "lait-e2e" } }])
    expect(body.resourceSpans[0]!.scopeSpans.map((s) => s.scope)).toEqual([{ name: "lait", version: VERSION }])
    const spans = spansOf(request.body)
    const events = readLines(traceFile)
    expect(spans).toHaveLength(events.length)
    const traceId = createHash("sha256").update(fs.readFileSync(traceFile)).digest("hex").slice(0, 32)
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceId]))
    // Every parent in the file is the parent in the export, through the derived ids.
    const exportedIdOfFileId = new Map(events.map((e, i) => [e.span_id, spans[i]!.spanId]))
    events.forEach((e, i) => {
      expect(spans[i]!.parentSpanId).toBe(e.parent_span_id === null ? undefined : exportedIdOfFileId.get(e.parent_span_id))
    })
    const named = (name: string) => spans.filter((s) => s.name === name)
    expect(named("chat fixture-model").map((s) => s.kind)).toEqual([3, 3, 3, 3, 3])
    expect(named("execute_tool tool__echo").map((s) => s.kind)).toEqual([1])
    expect(named("step plan").map((s) => s.kind)).toEqual([1])
    expect(named("invoke_workflow traced").map((s) => "parentSpanId" in s)).toEqual([false])
    const chat = named("chat fixture-model")[0]!
    expect(chat.attributes.slice(0, 3)).toEqual([
      { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
      { key: "lait.label", value: { stringValue: "plan" } },
      { key: "lait.seq", value: { intValue: "0" } }
    ])
    expect(chat.attributes).toContainEqual({ key: "gen_ai.usage.input_tokens", value: { intValue: "12" } })
    expect(chat.attributes).toContainEqual({ key: "server.address", value: { stringValue: "127.0.0.1" } })
    expect(spans.every((s) => s.status === undefined)).toBe(true)
  })

  test("a file written without --trace-spans exports flat, exactly as upstream", async () => {
    const url = `${suite.receiver.url}/v1/traces`
    const r = await ws.lait(["trace", "export", "traces/flat.jsonl", "--otlp", url], { cwd: projectDir })
    expect(outcome(r)).toEqual({ code: 0, stdout: "", stderr: `note: exported 6 spans to '${url}'\n` })
    const spans = spansOf(suite.receiver.requests[0]!.body)
    const events = readLines(flatFile)
    expect(spans.map((s) => [s.name, s.kind, "parentSpanId" in s, "status" in s])).toEqual(
      events.map((e) => [`${e.operation} ${e.label}`, 3, false, false])
    )
    expect(spans.map((s) => s.attributes.find((a) => a.key === "lait.seq")!.value)).toEqual(
      events.map((e) => ({ intValue: String(e.seq) }))
    )
  })

  test("exporting the same file twice yields identical trace and span ids", async () => {
    const url = `${suite.receiver.url}/v1/traces`
    expect((await exportTo(url)).code).toBe(0)
    expect((await exportTo(url)).code).toBe(0)
    const [first, second] = suite.receiver.requests.map((r) => spansOf(r.body).map((s) => [s.traceId, s.spanId, s.parentSpanId]))
    expect(second).toEqual(first!)
    expect(new Set(first!.map((s) => s[1])).size).toBe(14)
  })

  test("a file of the original lait exports exactly as upstream does", async () => {
    const url = `${suite.receiver.url}/v1/traces`
    const r = await ws.lait(["trace", "export", path.join(golden, "upstream.jsonl"), "--otlp", url, "--service-name", "svc"])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe(`note: exported 4 spans to '${url}'\n`)
    const expected = fs.readFileSync(path.join(golden, "upstream.otlp.json"), "utf8")
      .replace("\"version\":\"0.1.0\"", `"version":${JSON.stringify(VERSION)}`)
    expect(suite.receiver.requests[0]!.body).toBe(expected)
    expect(suite.receiver.requests[0]!.problems).toEqual([])
  })

  test("a 404 names the endpoint, the status and the body", async () => {
    const url = `${suite.receiver.url}/missing`
    expect(outcome(await exportTo(url))).toEqual({
      code: 1,
      stdout: "",
      stderr: `lait: OTLP endpoint '${url}' answered 404 Not Found: no such route: /missing\n`
    })
    expect(suite.receiver.requests.map((r) => r.path)).toEqual(["/missing"])
  })

  test("a refused connection", async () => {
    const url = `${(await refusedBaseUrl()).replace(/\/v1$/, "")}/v1/traces`
    expect(outcome(await exportTo(url))).toEqual({
      code: 1,
      stdout: "",
      stderr: `lait: failed to send spans to '${url}': connection refused\n`
    })
  })

  test("an empty file is not sent", async () => {
    ws.write("project/empty.jsonl", "")
    const r = await ws.lait(["trace", "export", "empty.jsonl", "--otlp", `${suite.receiver.url}/v1/traces`], { cwd: projectDir })
    expect(outcome(r)).toEqual({ code: 0, stdout: "", stderr: "note: 'empty.jsonl' has no events; nothing to export\n" })
    expect(suite.receiver.requests).toEqual([])
  })

  test("bad --header values", async () => {
    const url = `${suite.receiver.url}/v1/traces`
    expect(outcome(await exportTo(url, ["--header", "X-Token"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: --header 'X-Token' must be NAME=VALUE\n"
    })
    expect(outcome(await exportTo(url, ["--header", "Authorization=Bearer ${LAIT_E2E_UNSET}"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: --header 'Authorization': environment variable 'LAIT_E2E_UNSET' referenced by '${LAIT_E2E_UNSET}' is not set\n"
    })
    expect(suite.receiver.requests).toEqual([])
  })

  test("Ctrl-C while the collector has not answered: trace export was cancelled, exit 130", async () => {
    const child = Bun.spawn(
      [process.execPath, path.join(repoRoot, "src", "main.ts"), "trace", "export", "traces/run.jsonl", "--otlp", `${suite.receiver.url}/slow`],
      { cwd: projectDir, env: { ...process.env, NO_COLOR: "1", HOME: ws.dir }, stdin: "ignore", stdout: "pipe", stderr: "pipe" }
    )
    const deadline = Date.now() + 20_000
    while (suite.receiver.requests.length === 0 && Date.now() < deadline) await Bun.sleep(25)
    expect(suite.receiver.requests.map((r) => r.path), "the export's request to /slow").toEqual(["/slow"])
    child.kill("SIGINT")
    // /slow never answers: exiting at all, and with the cancellation below, shows nothing waited for it.
    expect(await child.exited).toBe(130)
    const stderr = await new Response(child.stderr).text()
    expect(stderr).toContain("lait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...\n")
    expect(stderr).toContain("lait: trace export was cancelled\n")
    expect(stderr).not.toContain("exported")
  }, 30_000)
})
