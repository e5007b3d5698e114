// Live OTLP export as a user meets it (docs/traces.md#live-export): the compiled CLI with the OTEL_*
// environment pointing at a local OTLP/HTTP receiver (test/fixtures/otlp-receiver.ts) while it runs
// `lait run`, `lait test` (replay cassettes) and `lait eval`; what arrives, when, with which headers
// and resource; OTEL_SDK_DISABLED; a refused port and a collector that never answers; Ctrl-C; and
// `lait trace export` falling back to the same variables.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { cleanEnv, otlpSuite, outcome, refusedBaseUrl, server } from "./model-harness.ts"
import { binaryPath, repoRoot, waitUntil } from "./util.ts"

const suite = otlpSuite("e2e-otlp-live")
const { ws } = suite

interface KeyValue {
  readonly key: string
  readonly value: Record<string, unknown>
}
interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<KeyValue>
  readonly status?: { readonly code: number }
}
interface Body {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<KeyValue> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<Span> }>
  }>
}

const received = (): Array<Span> =>
  suite.receiver.requests.flatMap((r) => (JSON.parse(r.body) as Body).resourceSpans[0]!.scopeSpans[0]!.spans)

const attr = (span: Span, key: string): unknown => {
  const value = span.attributes.find((a) => a.key === key)?.value
  return value === undefined ? undefined : Object.values(value)[0]
}

/** `name <- parent name` for every span, the tree as the collector sees it. */
const tree = (spans: ReadonlyArray<Span>): Array<string> => {
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  return spans.map((s) => {
    const parent = s.parentSpanId === undefined ? undefined : byId.get(s.parentSpanId)
    if (s.parentSpanId !== undefined) expect(parent?.traceId).toBe(s.traceId)
    return `${s.name} <- ${s.parentSpanId === undefined ? "(root)" : parent?.name ?? "(missing)"}`
  }).sort()
}

const CONFIG = (baseUrl: string) => `base_url: '${baseUrl}'
default:
  model: fixture-model
tools:
  echo:
    command: [sh, -c, 'printf "echoed %s" "{{ input.text }}"']
    description: Echo some text
    parameters: { type: object, properties: { text: { type: string } } }
`

const WORKFLOW = `name: traced
steps:
  - id: plan
    prompt: 'Use the tool on {{ input }}'
    tools: [echo]
  - id: shout
    run: [sh, -c, 'tr a-z A-Z']
`

const SCRIPT = [
  { match: "\"role\":\"tool\"", content: "plan done", usage: { prompt_tokens: 20, completion_tokens: 4 } },
  {
    match: "Use the tool",
    tool_calls: [{ id: "call_1", name: "tool__echo", arguments: "{\"text\":\"hi\"}" }],
    usage: { prompt_tokens: 12, completion_tokens: 3 }
  }
]

const runProject = (baseUrl: string, workflow = WORKFLOW) => {
  ws.write("run/lait.config.yml", CONFIG(baseUrl))
  ws.write("run/wf.yml", workflow)
  return path.join(ws.dir, "run")
}

const endpoint = () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: suite.receiver.url })

describe("lait run", () => {
  test("every span arrives: the tree, kinds, GenAI attributes, headers and the resource from the environment", async () => {
    const cwd = runProject(server({ script: SCRIPT }).baseUrl)
    const r = await ws.lait(["run", "wf.yml", "go"], {
      cwd,
      env: {
        ...endpoint(),
        OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20s3cret,X-Scope-OrgID = tenant-1",
        OTEL_SERVICE_NAME: "lait-e2e",
        OTEL_RESOURCE_ATTRIBUTES: "service.name=overridden,deployment.environment=e2e,team=a%2Cb"
      }
    })
    expect(outcome(r)).toEqual({ code: 0, stdout: "PLAN DONE\n", stderr: expect.not.stringContaining("warning") })
    expect(suite.receiver.requests.length).toBeGreaterThan(0)
    for (const request of suite.receiver.requests) {
      expect(request.path).toBe("/v1/traces")
      expect(request.problems).toEqual([])
      expect(request.headers["content-type"]).toBe("application/json")
      expect(request.headers["authorization"]).toBe("Bearer s3cret")
      expect(request.headers["x-scope-orgid"]).toBe("tenant-1")
      expect(request.headers["traceparent"]).toBeUndefined()
      expect((JSON.parse(request.body) as Body).resourceSpans[0]!.resource.attributes).toEqual([
        { key: "service.name", value: { stringValue: "lait-e2e" } },
        { key: "deployment.environment", value: { stringValue: "e2e" } },
        { key: "team", value: { stringValue: "a,b" } }
      ])
    }
    const spans = received()
    expect(tree(spans)).toEqual([
      "chat fixture-model <- step plan",
      "chat fixture-model <- step plan",
      "execute_tool tool__echo <- step plan",
      "invoke_workflow traced <- (root)",
      "step plan <- invoke_workflow traced",
      "step shout <- invoke_workflow traced"
    ])
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1)
    const named = (name: string) => spans.filter((s) => s.name === name)
    expect(named("chat fixture-model").map((s) => s.kind)).toEqual([3, 3])
    expect([...named("execute_tool tool__echo"), ...named("step plan"), ...named("invoke_workflow traced")].map((s) => s.kind))
      .toEqual([1, 1, 1])
    const chats = named("chat fixture-model").sort((a, b) => Number(attr(a, "lait.seq")) - Number(attr(b, "lait.seq")))
    expect(chats[0]!.attributes.slice(0, 4)).toEqual([
      { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
      { key: "lait.label", value: { stringValue: "plan" } },
      { key: "lait.seq", value: { intValue: "0" } },
      { key: "gen_ai.request.model", value: { stringValue: "fixture-model" } }
    ])
    expect([attr(chats[0]!, "gen_ai.usage.input_tokens"), attr(chats[0]!, "gen_ai.usage.output_tokens")]).toEqual(["12", "3"])
    expect(attr(chats[0]!, "gen_ai.provider.name")).toBe("openai")
    expect(attr(named("execute_tool tool__echo")[0]!, "gen_ai.tool.name")).toBe("tool__echo")
  })

  test("spans are sent while the run goes on, not only at exit", async () => {
    // Step `wait` lasts until the test has seen the early spans and creates `go-on` (or 60 s, a hang
    // guard): the run is provably still going when they arrive, however slow the machine.
    const goOn = path.join(ws.dir, "run", "go-on")
    fs.rmSync(goOn, { force: true })
    const cwd = runProject(
      server({ script: [{ content: "first", repeat: true }] }).baseUrl,
      "name: slow\nsteps:\n  - id: first\n    prompt: 'hi'\n  - id: wait\n" +
        "    run: [sh, -c, 'i=0; while [ ! -e go-on ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i+1)); done; echo done']\n"
    )
    const child = Bun.spawn([binaryPath, "run", "wf.yml", "go"], {
      cwd,
      env: { ...cleanEnv(ws.dir), ...endpoint(), OTEL_BSP_SCHEDULE_DELAY: "50" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
    await waitUntil("the spans of the chat and step `first`, sent while step `wait` runs", () => received().length >= 2)
    // The step `wait` is still waiting: what arrived is the finished chat and step `first`, whose
    // parent (the run) has not ended yet.
    expect(child.exitCode).toBeNull()
    const early = received()
    fs.writeFileSync(goOn, "")
    expect(early.map((s) => s.name).sort()).toEqual(["chat fixture-model", "step first"])
    expect(early.every((s) => s.parentSpanId !== undefined)).toBe(true)
    expect(await child.exited).toBe(0)
    expect(tree(received())).toEqual([
      "chat fixture-model <- step first",
      "invoke_workflow slow <- (root)",
      "step first <- invoke_workflow slow",
      "step wait <- invoke_workflow slow"
    ])
  }, 30_000)

  test("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none send nothing", async () => {
    const cwd = runProject(server({ script: [...SCRIPT, ...SCRIPT] }).baseUrl)
    for (const off of [{ OTEL_SDK_DISABLED: "true" }, { OTEL_TRACES_EXPORTER: "none" }]) {
      const r = await ws.lait(["run", "wf.yml", "go"], { cwd, env: { ...endpoint(), ...off } })
      expect(outcome(r)).toEqual({ code: 0, stdout: "PLAN DONE\n", stderr: expect.any(String) })
    }
    await Bun.sleep(200)
    expect(suite.receiver.requests).toEqual([])
  })
})

describe("lait test", () => {
  test("a root span per test file, each its own trace, the replayed run under it", async () => {
    fs.cpSync(path.join(repoRoot, "examples", "tests"), path.join(ws.dir, "suite"), { recursive: true })
    const r = await ws.lait(["test", "cases/"], { cwd: path.join(ws.dir, "suite"), env: endpoint() })
    expect(r.code).toBe(0)
    expect(r.stderr).not.toContain("warning")
    const spans = received()
    expect(suite.receiver.requests.every((q) => q.problems.length === 0)).toBe(true)
    const roots = spans.filter((s) => s.parentSpanId === undefined).sort((a, b) => a.name.localeCompare(b.name))
    expect(roots.map((s) => [s.name, s.kind, attr(s, "lait.test.file"), attr(s, "lait.test.status")])).toEqual([
      ["test cases/billing.yml", 1, "cases/billing.yml", "pass"],
      ["test cases/outage.yml", 1, "cases/outage.yml", "pass"]
    ])
    expect(new Set(roots.map((s) => s.traceId)).size).toBe(2)
    const perFile = tree(spans.filter((s) => s.traceId === roots[0]!.traceId))
    expect(perFile).toContain("invoke_workflow triage <- test cases/billing.yml")
    expect(perFile.filter((line) => line.startsWith("chat "))).toEqual([
      "chat qwen2.5-7b-instruct <- step classify",
      "chat qwen2.5-7b-instruct <- step reply"
    ])
    const chats = spans.filter((s) => s.name.startsWith("chat "))
    expect(chats.map((s) => [s.kind, attr(s, "lait.source")])).toEqual(chats.map(() => [3, "replay"]))
  })
})

describe("lait eval", () => {
  test("a root per (case, repeat) run with its case and repeat, the target's and the judge's calls under it", async () => {
    const s = server({
      script: [
        { match: "Criteria: polite", content: "{\"score\": 0.9, \"reasoning\": \"ok\"}", repeat: true },
        { content: "Hello, dear user.", repeat: true }
      ]
    })
    ws.write("eval/lait.config.yml", `base_url: '${s.baseUrl}'\ndefault:\n  model: fixture-model\n`)
    ws.write(
      "eval/eval.yml",
      "target: { model: fixture-model, prompt: 'Greet {{input}}' }\ncases:\n  - input: Ada\n" +
        "    assert: [{ type: llm_judge, criteria: polite }]\n  - input: Bob\n    assert: [{ type: contains, value: nope }]\n"
    )
    const r = await ws.lait(["eval", "eval.yml", "--repeat", "2"], { cwd: path.join(ws.dir, "eval"), env: endpoint() })
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain("warning")
    const spans = received()
    const roots = spans.filter((s) => s.parentSpanId === undefined)
    const fields = (s: Span) =>
      [s.name, attr(s, "lait.eval.case"), attr(s, "lait.eval.repeat"), attr(s, "lait.eval.target"), attr(s, "lait.eval.passed")]
    expect(roots.map(fields).sort()).toEqual([
      ["eval_run case 1 [fixture-model], repeat 1", "1", "1", "fixture-model", true],
      ["eval_run case 1 [fixture-model], repeat 2", "1", "2", "fixture-model", true],
      ["eval_run case 2 [fixture-model], repeat 1", "2", "1", "fixture-model", false],
      ["eval_run case 2 [fixture-model], repeat 2", "2", "2", "fixture-model", false]
    ])
    expect(new Set(roots.map((s) => s.traceId)).size).toBe(4)
    const firstRun = roots.find((s) => s.name === "eval_run case 1 [fixture-model], repeat 1")!
    const inFirst = spans.filter((s) => s.traceId === firstRun.traceId)
    expect(tree(inFirst)).toEqual([
      "chat fixture-model <- eval_run case 1 [fixture-model], repeat 1",
      "chat fixture-model <- eval_run case 1 [fixture-model], repeat 1",
      "eval_run case 1 [fixture-model], repeat 1 <- (root)"
    ])
    expect(inFirst.filter((x) => x.kind === 3).map((x) => attr(x, "lait.label")).sort()).toEqual([
      "eval target 'fixture-model'",
      "llm_judge"
    ])
  })
})

describe("lait eval with targets", () => {
  test("each run's root names its target, so the runs of one case and repeat are told apart", async () => {
    const s = server({ script: [{ content: "Hello", repeat: true }] })
    ws.write("evalt/lait.config.yml", `base_url: '${s.baseUrl}'\ndefault:\n  model: fixture-model\n`)
    ws.write(
      "evalt/eval.yml",
      "targets:\n  - { name: terse, model: fixture-model, prompt: 'Hi {{input}}' }\n" +
        "  - { name: chatty, model: fixture-model, prompt: 'Hello there {{input}}' }\n" +
        "cases:\n  - input: Ada\n    assert: [{ type: contains, value: Hello }]\n"
    )
    const r = await ws.lait(["eval", "eval.yml"], { cwd: path.join(ws.dir, "evalt"), env: endpoint() })
    expect(r.code).toBe(0)
    const roots = received().filter((x) => x.parentSpanId === undefined)
    expect(roots.map((x) => [x.name, attr(x, "lait.eval.target")]).sort()).toEqual([
      ["eval_run case 1 [chatty], repeat 1", "chatty"],
      ["eval_run case 1 [terse], repeat 1", "terse"]
    ])
  })
})

describe("a collector that is not there", () => {
  const runWith = (env: Record<string, string>, cwd: string) => ws.lait(["run", "wf.yml", "go"], { cwd, env })
  const warnings = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("warning:"))

  test("a refused port: one warning, the exit code unchanged, at most the flush bound more", async () => {
    const cwd = runProject(server({ script: [...SCRIPT, ...SCRIPT, { status: 500, body: "down", repeat: true }] }).baseUrl)
    expect((await runWith({}, cwd)).code).toBe(0)
    const dead = await refusedBaseUrl()
    // The exporter retries a refused port until the flush bound at exit (3 s by default): 1 s is
    // still ages for a refusal on loopback, which must come first (the warning says which came).
    const ok = await runWith({ OTEL_EXPORTER_OTLP_ENDPOINT: dead, OTEL_BSP_EXPORT_TIMEOUT: "1000" }, cwd)
    expect(outcome(ok)).toMatchObject({ code: 0, stdout: "PLAN DONE\n" })
    // "connection refused", not the flush bound's "no answer within": lait did not wait for it.
    expect(warnings(ok.stderr)).toEqual([
      `warning: failed to export spans to '${dead}/v1/traces': connection refused (spans may be missing; later failures are not reported)`
    ])
    // A failing run keeps its own exit code and message.
    const failing = await runWith({ OTEL_EXPORTER_OTLP_ENDPOINT: dead, OTEL_BSP_EXPORT_TIMEOUT: "1000", LAIT_HTTP_ATTEMPTS: "1" }, cwd)
    expect(failing.code).toBe(4)
    expect(warnings(failing.stderr)).toHaveLength(1)
    expect(failing.stderr.trimEnd().split("\n").at(-1)).toStartWith("lait: ")
  }, 60_000)

  test("a collector that never answers costs at most OTEL_BSP_EXPORT_TIMEOUT more, with one warning", async () => {
    const cwd = runProject(server({ script: [...SCRIPT, ...SCRIPT] }).baseUrl)
    // /slow never answers: lait's exiting at all, with the bound's own warning, shows it gave up at
    // OTEL_BSP_EXPORT_TIMEOUT.
    const slow = await runWith({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${suite.receiver.url}/slow`, OTEL_BSP_EXPORT_TIMEOUT: "1000" }, cwd)
    expect(outcome(slow)).toMatchObject({ code: 0, stdout: "PLAN DONE\n" })
    expect(warnings(slow.stderr)).toEqual([
      `warning: failed to export spans to '${suite.receiver.url}/slow': no answer within the 1000 ms lait waits at exit ` +
      "(spans may be missing; later failures are not reported)"
    ])
    expect(suite.receiver.requests.map((q) => q.path)).toEqual(["/slow"])
  }, 60_000)

  test("Ctrl-C while the collector has not answered: exit 130 at once", async () => {
    const cwd = runProject(
      server({ script: [{ content: "first", repeat: true }] }).baseUrl,
      "name: slow\nsteps:\n  - id: first\n    prompt: 'hi'\n  - id: wait\n    run: [sh, -c, 'sleep 20']\n"
    )
    const child = Bun.spawn([binaryPath, "run", "wf.yml", "go"], {
      cwd,
      env: {
        ...cleanEnv(ws.dir),
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${suite.receiver.url}/slow`,
        OTEL_BSP_SCHEDULE_DELAY: "50",
        // Waiting the export out would take 100 s, far past this test's own 30 s bound.
        OTEL_BSP_EXPORT_TIMEOUT: "100000"
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
    await waitUntil("the export's first request to /slow", () => suite.receiver.requests.length > 0)
    expect(suite.receiver.requests.map((q) => q.path), "the export's request to /slow").toEqual(["/slow"])
    child.kill("SIGINT")
    expect(await child.exited).toBe(130)
  }, 30_000)
})

describe("lait trace export without --otlp", () => {
  test("falls back to the OTEL_* environment; without it, --otlp is still required", async () => {
    const golden = path.join(repoRoot, "test", "trace", "golden", "upstream.jsonl")
    const url = `${suite.receiver.url}/v1/traces`
    const r = await ws.lait(["trace", "export", golden], {
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url,
        OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20s3cret",
        OTEL_SERVICE_NAME: "from-env",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=e2e"
      }
    })
    expect(outcome(r)).toEqual({ code: 0, stdout: "", stderr: expect.stringMatching(/^note: exported \d+ spans to '.*\/v1\/traces'\n$/) })
    expect(suite.receiver.requests).toHaveLength(1)
    expect(suite.receiver.requests[0]!.headers["authorization"]).toBe("Bearer s3cret")
    expect((JSON.parse(suite.receiver.requests[0]!.body) as Body).resourceSpans[0]!.resource.attributes).toEqual([
      { key: "service.name", value: { stringValue: "from-env" } },
      { key: "deployment.environment", value: { stringValue: "e2e" } }
    ])
    expect(outcome(await ws.lait(["trace", "export", golden], { env: { OTEL_SDK_DISABLED: "true", ...endpoint() } }))).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: Missing required flag: --otlp (see 'lait trace export --help')\n"
    })
  })
})
