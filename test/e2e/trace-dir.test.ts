// `--trace-dir DIR` of `lait test` and `lait eval`, against the compiled binary and the fixture OpenAI
// server: one trace file per test file (passing, failing and ERROR alike; a failing file's report
// names it) and per eval (case, repeat) with the judge's calls labelled; content with its secrets
// masked; `lait trace show DIR --summary` over them; a DIR that is a file refused before any request.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { cleanEnv, prepareCli, server, stopServers, workspace } from "./model-harness.ts"
import { binaryPath, ensureBinary } from "./util.ts"

const ws = workspace("e2e-trace-dir")
beforeAll(async () => {
  await ensureBinary()
  await prepareCli()
}, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

interface Line {
  readonly seq: number
  readonly operation: string
  readonly label: string
  readonly attributes: Record<string, unknown>
  readonly span_id?: string
  readonly parent_span_id?: string | null
}

const readLines = (file: string): Array<Line> =>
  fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line)

const SECRET = "tok-SECRET-4711"

const config = (baseUrl: string) => `base_url: '${baseUrl}'
default:
  model: fixture-model
tools:
  echo:
    command: [sh, -c, 'printf "echoed %s" "{{ input.text }}"']
    description: Echo some text
    parameters: { type: object, properties: { text: { type: string } } }
    env: { TOKEN: '${SECRET}' }
`

const WORKFLOW = `name: echoer
steps:
  - id: plan
    prompt: 'Use the tool on {{ input }}'
    tools: [echo]
`

const testFile = (expected: string) => `workflow: ../wf.yml
replay: ../cassettes
input: go ${SECRET}
assert:
  - { type: contains, value: '${expected}' }
`

/** A project whose tests replay one recorded run: a tool call, then `all done`. */
const recordedProject = async (dir: string) => {
  const s = server({
    script: [
      { tool_calls: [{ id: "call_1", name: "tool__echo", arguments: "{\"text\":\"hi\"}" }] },
      { content: "all done" }
    ]
  })
  ws.write(`${dir}/lait.config.yml`, config(s.baseUrl))
  ws.write(`${dir}/wf.yml`, WORKFLOW)
  const recorded = await ws.lait(["run", "wf.yml", `go ${SECRET}`, "--record", "cassettes"], { cwd: path.join(ws.dir, dir) })
  expect({ code: recorded.code, stdout: recorded.stdout }).toEqual({ code: 0, stdout: "all done\n" })
  ws.write(`${dir}/tests/pass.yml`, testFile("all done"))
  ws.write(`${dir}/tests/fail.yml`, testFile("nope"))
  // Cannot even start: its workflow does not exist.
  ws.write(`${dir}/tests/sub/broken.yml`, "workflow: ../../missing.yml\nreplay: ../../cassettes\ninput: x\nassert: []\n")
  return s
}

describe("lait test --trace-dir", () => {
  test("one file per test file, passing, failing and ERROR; the failing lines name theirs", async () => {
    const s = await recordedProject("suite")
    const cwd = path.join(ws.dir, "suite")
    const r = await ws.lait(["test", "tests", "--trace-dir", "traces"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe(
      [
        "tests/fail.yml: FAIL",
        "  assertion 1: expected output to contain \"nope\", got \"all done\"",
        "  trace: traces/tests__fail.yml.jsonl",
        "tests/pass.yml: PASS",
        "tests/sub/broken.yml: ERROR",
        `  failed to load workflow 'tests/sub/../../missing.yml': failed to read 'tests/sub/../../missing.yml': no such file or directory`,
        "  trace: traces/tests__sub__broken.yml.jsonl",
        "1 passed, 1 failed, 1 error, 3 total",
        ""
      ].join("\n")
    )
    expect(r.stderr).toContain("note: traces written to 'traces' (3 files)\n")
    expect(fs.readdirSync(path.join(cwd, "traces")).sort()).toEqual([
      "tests__fail.yml.jsonl",
      "tests__pass.yml.jsonl",
      "tests__sub__broken.yml.jsonl"
    ])
    for (const name of ["tests__pass.yml.jsonl", "tests__fail.yml.jsonl"]) {
      const lines = readLines(path.join(cwd, "traces", name))
      expect(lines.map((l) => [l.seq, l.operation, l.label])).toEqual([
        [0, "chat", "plan"],
        [1, "execute_tool", "tool 'tool__echo'"],
        [2, "chat", "plan"]
      ])
      expect(lines[0]!.attributes["lait.source"]).toBe("replay")
      // Content is opt-in; the secret in the prompt is nowhere without it.
      expect(lines[0]!.attributes["gen_ai.input.messages"]).toBeUndefined()
    }
    expect(fs.readFileSync(path.join(cwd, "traces", "tests__sub__broken.yml.jsonl"), "utf8")).toBe("")
    // Replay only: the tests sent nothing.
    expect(s.requests).toHaveLength(2)

    const json = await ws.lait(["test", "tests", "--trace-dir", "traces", "--format", "json"], { cwd })
    expect((JSON.parse(json.stdout) as Array<{ file: string; trace?: string }>).map((o) => [o.file, o.trace])).toEqual([
      ["tests/fail.yml", "traces/tests__fail.yml.jsonl"],
      ["tests/pass.yml", "traces/tests__pass.yml.jsonl"],
      ["tests/sub/broken.yml", "traces/tests__sub__broken.yml.jsonl"]
    ])
    const junit = await ws.lait(["test", "tests", "--trace-dir", "traces", "--format", "junit"], { cwd })
    expect(junit.stdout).toContain("got \"all done\"\ntrace: traces/tests__fail.yml.jsonl</failure>")

    const summary = await ws.lait(["trace", "show", "--summary", "traces"], { cwd })
    expect(summary.code).toBe(0)
    expect(summary.stdout).toContain("3 files, 2 runs: chat=4 execute_tool=2 compact=0")
  }, 120_000)

  test("--trace-spans and --trace-content: a tree per file, content with its secrets masked", async () => {
    await recordedProject("content")
    const cwd = path.join(ws.dir, "content")
    const r = await ws.lait(["test", "tests/pass.yml", "--trace-dir", "out/traces", "--trace-spans", "--trace-content"], {
      cwd
    })
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "tests/pass.yml: PASS\n1 passed, 0 failed, 1 total\n" })
    const file = path.join(cwd, "out/traces/tests__pass.yml.jsonl")
    const lines = readLines(file)
    expect(lines.map((l) => l.operation)).toEqual(["chat", "execute_tool", "chat", "step", "invoke_workflow"])
    expect(lines.every((l) => l.span_id !== undefined)).toBe(true)
    const text = fs.readFileSync(file, "utf8")
    expect(text).toContain("gen_ai.input.messages")
    expect(text).toContain("echoed hi")
    expect(text).toContain("go <redacted>")
    expect(text).not.toContain(SECRET)
  }, 120_000)

  test("a DIR that is a file fails before any test runs", async () => {
    const s = await recordedProject("dirfile")
    const cwd = path.join(ws.dir, "dirfile")
    const before = s.requests.length
    ws.write("dirfile/traces", "not a directory\n")
    // --record would send every request live: none may go out.
    const r = await ws.lait(["test", "tests", "--record", "--trace-dir", "traces"], { cwd })
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: cannot write traces into 'traces': not a directory\n"
    })
    expect(s.requests.length).toBe(before)
  }, 120_000)

  test("a trace file that cannot be written is a warning; the results stay", async () => {
    await recordedProject("blocked")
    const cwd = path.join(ws.dir, "blocked")
    fs.mkdirSync(path.join(cwd, "traces", "tests__fail.yml.jsonl"), { recursive: true })
    const r = await ws.lait(["test", "tests/fail.yml", "tests/pass.yml", "--trace-dir", "traces"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe(
      "tests/fail.yml: FAIL\n  assertion 1: expected output to contain \"nope\", got \"all done\"\n" +
        "tests/pass.yml: PASS\n1 passed, 1 failed, 2 total\n"
    )
    expect(r.stderr).toContain("warning: failed to write trace file 'traces/tests__fail.yml.jsonl': ")
    expect(r.stderr).toContain("note: traces written to 'traces' (1 file)\n")
  }, 120_000)

  test("--trace-spans without --trace-dir is a usage error", async () => {
    const r = await ws.lait(["test", "tests", "--trace-spans"])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--trace-dir")
  })
})

const JUDGED_EVAL = `target: { model: m, prompt: 'Greet {{input}}' }
cases:
  - input: Ada
    assert: [{ type: llm_judge, criteria: polite, model: judge }]
  - input: Bob
    assert: [{ type: llm_judge, criteria: polite, model: judge }]
`

const evalProject = (dir: string) => {
  const s = server({
    script: [
      { match: "llm_judge_score", content: "{\"score\":0.9,\"reasoning\":\"polite\"}", repeat: true },
      { content: "Hello there", repeat: true }
    ]
  })
  ws.write(
    `${dir}/lait.config.yml`,
    `models:
  m:
    - provider: { base_url: '${s.baseUrl}' }
      model_id: target-model
  judge:
    - provider: { base_url: '${s.baseUrl}' }
      model_id: judge-model
`
  )
  ws.write(`${dir}/eval.yml`, JUDGED_EVAL)
  return s
}

describe("lait eval --trace-dir", () => {
  test("2 cases x 2 repeats: 4 files, each with the target's and the judge's chat, the judge's labelled", async () => {
    const s = evalProject("eval")
    const cwd = path.join(ws.dir, "eval")
    const r = await ws.lait(["eval", "eval.yml", "--repeat", "2", "--trace-dir", "traces"], { cwd })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain("note: traces written to 'traces' (4 files)\n")
    expect(s.requests).toHaveLength(8)
    const names = fs.readdirSync(path.join(cwd, "traces")).sort()
    expect(names).toEqual([
      "case-1.repeat-1.jsonl",
      "case-1.repeat-2.jsonl",
      "case-2.repeat-1.jsonl",
      "case-2.repeat-2.jsonl"
    ])
    for (const name of names) {
      const lines = readLines(path.join(cwd, "traces", name))
      expect(lines.map((l) => [l.operation, l.label, l.attributes["gen_ai.request.model"], l.attributes["lait.judge"]]))
        .toEqual([
          ["chat", "eval target 'm'", "target-model", undefined],
          ["chat", "llm_judge", "judge-model", true]
        ])
    }

    const summary = await ws.lait(["trace", "show", "--summary", "traces"], { cwd })
    expect(summary.code).toBe(0)
    expect(summary.stdout).toContain("eval target 'm': chat=4 ")
    expect(summary.stdout).toContain("llm_judge: chat=4 ")
    expect(summary.stdout).toContain("4 files, 4 runs: chat=8 ")
  }, 120_000)

  test("targets: each target's runs of a case get files of their own, named by the target", async () => {
    evalProject("evaltargets")
    ws.write(
      "evaltargets/eval.yml",
      JUDGED_EVAL.replace(
        "target: { model: m, prompt: 'Greet {{input}}' }",
        "targets:\n  - { name: terse, model: m, prompt: 'Greet {{input}}' }\n  - { name: Chatty One, model: m, prompt: 'Hi {{input}}' }"
      )
    )
    const cwd = path.join(ws.dir, "evaltargets")
    const r = await ws.lait(["eval", "eval.yml", "--trace-dir", "traces"], { cwd })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain("note: traces written to 'traces' (4 files)\n")
    const names = fs.readdirSync(path.join(cwd, "traces")).sort()
    expect(names).toHaveLength(4)
    expect(names.filter((n) => n.includes("terse"))).toHaveLength(2)
    expect(names.every((n) => /^case-[12]\.target-[a-z0-9-]+\.repeat-1\.jsonl$/i.test(n))).toBe(true)
  }, 120_000)

  test("--trace-content records the judge's prompt and answer", async () => {
    evalProject("evalcontent")
    const cwd = path.join(ws.dir, "evalcontent")
    const r = await ws.lait(["eval", "eval.yml", "--trace-dir", "traces", "--trace-content"], { cwd })
    expect(r.code).toBe(0)
    const judge = readLines(path.join(cwd, "traces", "case-2.repeat-1.jsonl")).find((l) => l.label === "llm_judge")!
    expect(JSON.stringify(judge.attributes["gen_ai.input.messages"])).toContain("Criteria: polite")
    expect(JSON.stringify(judge.attributes["gen_ai.output.messages"])).toContain("\\\"score\\\":0.9")
  }, 120_000)

  test("a DIR that is a file fails before any request", async () => {
    const s = evalProject("evaldirfile")
    ws.write("evaldirfile/traces", "")
    const r = await ws.lait(["eval", "eval.yml", "--trace-dir", "traces"], { cwd: path.join(ws.dir, "evaldirfile") })
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: cannot write traces into 'traces': not a directory\n"
    })
    expect(s.requests).toHaveLength(0)
  }, 120_000)
})

describe("lait eval --trace-dir, workflow target", () => {
  test("--trace-spans: the workflow's tree, then the judge's call, marked", async () => {
    evalProject("evalwf")
    const cwd = path.join(ws.dir, "evalwf")
    ws.write("evalwf/wf.yml", "name: greeter\nsteps:\n  - id: greet\n    model: m\n    prompt: 'Greet {{ input }}'\n")
    ws.write(
      "evalwf/eval.yml",
      "target: { workflow: wf.yml }\ncases:\n  - input: Ada\n    assert: [{ type: llm_judge, criteria: polite, model: judge }]\n"
    )
    const r = await ws.lait(["eval", "eval.yml", "--trace-dir", "traces", "--trace-spans"], { cwd })
    expect(r.code).toBe(0)
    const lines = readLines(path.join(cwd, "traces", "case-1.repeat-1.jsonl"))
    expect(lines.map((l) => [l.operation, l.label, l.attributes["lait.judge"] ?? null])).toEqual([
      ["chat", "greet", null],
      ["step", "greet", null],
      ["invoke_workflow", "greeter", null],
      ["chat", "llm_judge", true]
    ])
    const root = lines.find((l) => l.operation === "invoke_workflow")!
    expect(lines.find((l) => l.operation === "step")!.parent_span_id).toBe(root.span_id!)
  }, 120_000)

  test("Ctrl-C: the run in flight keeps its trace, its request cancelled; exit 130", async () => {
    const slow = server({ script: [{ content: "too late", delay_ms: 30_000, repeat: true }] })
    ws.write(
      "evalstop/lait.config.yml",
      `models:\n  m:\n    - provider: { base_url: '${slow.baseUrl}' }\n      model_id: target-model\n`
    )
    ws.write("evalstop/eval.yml", "target: { model: m, prompt: 'Greet {{input}}' }\ncases:\n  - input: Ada\n    assert: []\n")
    const proc = Bun.spawn([binaryPath, "eval", "eval.yml", "--trace-dir", "traces"], {
      cwd: path.join(ws.dir, "evalstop"),
      env: Object.fromEntries(Object.entries(cleanEnv(ws.dir)).filter((e): e is [string, string] => e[1] !== undefined)),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
    const stderr = new Response(proc.stderr).text()
    const deadline = Date.now() + 10_000
    while (slow.requests.length === 0 && Date.now() < deadline) await Bun.sleep(20)
    expect(slow.requests.length).toBe(1)
    proc.kill("SIGINT")
    expect(await proc.exited).toBe(130)
    expect(await stderr).toContain("note: traces written to 'traces' (1 file)\n")
    const lines = readLines(path.join(ws.dir, "evalstop", "traces", "case-1.repeat-1.jsonl"))
    expect(lines.map((l) => [l.operation, l.label, l.attributes["error.type"]])).toEqual([
      ["chat", "eval target 'm'", "cancelled"]
    ])
  }, 60_000)
})
