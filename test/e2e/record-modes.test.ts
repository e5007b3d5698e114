// Record modes through the CLI against the fixture OpenAI server: `lait run --record-missing` sends
// only what has no cassette and leaves the others byte for byte; `lait test --record` and
// `--record-missing` record into each test file's `replay:` directory, after which plain `lait test`
// passes with the server gone; `lait eval --record --repeat N` keeps every repeat's answers (judges
// included) so that `--replay` reproduces the recorded pass rate and label, and a directory with one
// answer per key (as the original lait writes) still replays.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { bodies, modelsYaml, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-record-modes")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

let counter = 0

/** A project directory whose lait.config.yml points model `m` (and `judge`) at `baseUrl`. */
const project = (baseUrl: string) => {
  const name = `p${++counter}`
  ws.write(
    `${name}/lait.config.yml`,
    `${modelsYaml({ m: [{ baseUrl, modelId: "target-model" }], judge: [{ baseUrl, modelId: "judge-model" }] })}\n` +
      "default:\n  model: m\n"
  )
  const dir = path.join(ws.dir, name)
  return {
    dir,
    write: (file: string, text: string) => ws.write(`${name}/${file}`, text),
    lait: (args: ReadonlyArray<string>) => ws.lait(args, { cwd: dir }),
    /** name → bytes of every file in `sub`. */
    files: (sub: string): Record<string, string> =>
      Object.fromEntries(
        fs.readdirSync(path.join(dir, sub)).sort().map((f) => [f, fs.readFileSync(path.join(dir, sub, f), "utf8")])
      )
  }
}

const twoSteps = (second: string) =>
  `steps:\n  - id: draft\n    prompt: 'Draft: {{ input }}'\n  - id: polish\n    prompt: '${second}: {{ input }}'\n`

describe("lait run --record-missing", () => {
  test("replays what is recorded, sends and records only the rest, and leaves existing cassettes alone", async () => {
    const s = server({ script: [{ match: "Draft", content: "draft one", repeat: true }, { repeat: true }] })
    const p = project(s.baseUrl)
    p.write("wf.yml", twoSteps("Polish"))
    expect((await p.lait(["run", "wf.yml", "x", "--record", "cas"])).code).toBe(0)
    const before = p.files("cas")
    expect(Object.keys(before)).toHaveLength(2)

    // The second step changes: its request has no cassette any more, the first one's still has.
    p.write("wf.yml", twoSteps("Shorten"))
    s.requests.length = 0
    const r = await p.lait(["run", "wf.yml", "x", "--record-missing", "cas"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "echo: Shorten: draft one\n", stderr: expect.any(String) })
    expect(bodies(s).map((b) => (b["messages"] as Array<{ content: string }>)[0]!.content)).toEqual([
      "Shorten: draft one"
    ])
    const after = p.files("cas")
    expect(Object.keys(after)).toHaveLength(3)
    for (const [name, text] of Object.entries(before)) expect(after[name]).toBe(text)

    // Everything the workflow asks is recorded now: a plain replay runs with the server gone.
    await s.stop()
    const replayed = await p.lait(["run", "wf.yml", "x", "--replay", "cas"])
    expect(outcome(replayed)).toEqual({ code: 0, stdout: "echo: Shorten: draft one\n", stderr: expect.any(String) })
  })

  test("is a usage error with --record or --replay", async () => {
    const p = project("http://127.0.0.1:9/v1")
    p.write("wf.yml", twoSteps("Polish"))
    for (const other of ["--record", "--replay"]) {
      const r = await p.lait(["run", "wf.yml", "x", "--record-missing", "a", other, "b"])
      expect(outcome(r)).toEqual({
        code: 2,
        stdout: "",
        stderr: `lait: the argument '--record-missing <DIR>' cannot be used with '${other} <DIR>'\n`
      })
    }
  })
})

describe("lait test --record", () => {
  const testFile = (input: string, replay: string, expected: string) =>
    `workflow: ../wf.yml\ninput: ${input}\nreplay: ${replay}\nassert:\n  - { type: contains, value: '${expected}' }\n`

  test("records each file's run into its replay: directory; plain lait test then passes offline", async () => {
    const s = server({ script: [{ match: "Draft", content: "draft one", repeat: true }, { repeat: true }] })
    const p = project(s.baseUrl)
    p.write("wf.yml", twoSteps("Polish"))
    p.write("tests/a.test.yml", testFile("alpha", "cassettes/a", "Polish: draft one"))
    p.write("tests/b.test.yml", testFile("beta", "cassettes/b", "nowhere in the answer"))

    const recorded = await p.lait(["test", "--record", "tests"])
    expect(outcome(recorded)).toEqual({
      code: 1,
      stdout: [
        "tests/a.test.yml: PASS (recorded 2)",
        "tests/b.test.yml: FAIL (recorded 2)",
        "  assertion 1: expected output to contain \"nowhere in the answer\", got \"echo: Polish: draft one\"",
        "1 passed, 1 failed, 2 total",
        ""
      ].join("\n"),
      stderr: "lait: 1 of 2 test file(s) failed\n"
    })
    expect(s.requests).toHaveLength(4)
    expect(Object.keys(p.files("tests/cassettes/a"))).toHaveLength(2)
    expect(Object.keys(p.files("tests/cassettes/b"))).toHaveLength(2)

    // The same endpoint resolution as `lait run`: its replay finds the cassettes `lait test` made.
    await s.stop()
    const run = await p.lait(["run", "wf.yml", "alpha", "--replay", "tests/cassettes/a"])
    expect(outcome(run)).toEqual({ code: 0, stdout: "echo: Polish: draft one\n", stderr: expect.any(String) })
    const offline = await p.lait(["test", "tests/a.test.yml"])
    expect(outcome(offline)).toEqual({
      code: 0,
      stdout: "tests/a.test.yml: PASS\n1 passed, 0 failed, 1 total\n",
      stderr: ""
    })
  })

  test("--record-missing keeps existing cassettes and records only what a file lacks", async () => {
    const s = server({ script: [{ match: "Draft", content: "draft one", repeat: true }, { repeat: true }] })
    const p = project(s.baseUrl)
    p.write("wf.yml", twoSteps("Polish"))
    p.write("tests/a.test.yml", testFile("alpha", "cassettes/a", "Polish"))
    expect((await p.lait(["test", "--record", "tests"])).code).toBe(0)
    const before = p.files("tests/cassettes/a")

    p.write("wf.yml", twoSteps("Shorten"))
    p.write("tests/a.test.yml", testFile("alpha", "cassettes/a", "Shorten"))
    s.requests.length = 0
    const r = await p.lait(["test", "--record-missing", "tests", "--format", "json"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: JSON.stringify([{ file: "tests/a.test.yml", status: "pass", failures: [], recorded: 1, replayed: 1 }]) +
        "\n",
      stderr: ""
    })
    expect(bodies(s).map((b) => (b["messages"] as Array<{ content: string }>)[0]!.content)).toEqual([
      "Shorten: draft one"
    ])
    const after = p.files("tests/cassettes/a")
    expect(Object.keys(after)).toHaveLength(3)
    for (const [name, text] of Object.entries(before)) expect(after[name]).toBe(text)
  })

  test("a file without replay: is an error, and --record with --record-missing a usage error", async () => {
    const s = server({ script: [{ repeat: true }] })
    const p = project(s.baseUrl)
    p.write("wf.yml", twoSteps("Polish"))
    p.write("tests/a.test.yml", "workflow: ../wf.yml\ninput: alpha\n")
    const r = await p.lait(["test", "--record", "tests"])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain("tests/a.test.yml: ERROR\n  failed to parse test definition 'tests/a.test.yml': missing required key 'replay'")
    expect(s.requests).toHaveLength(0)
    const both = await p.lait(["test", "--record", "--record-missing", "tests"])
    expect(outcome(both)).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--record' cannot be used with '--record-missing'\n"
    })
  })
})

interface JsonCase {
  readonly passed: number
  readonly total: number
  readonly label: string
  readonly runs: ReadonlyArray<{ readonly passed: boolean }>
}

const evalSummary = (stdout: string) =>
  (JSON.parse(stdout) as ReadonlyArray<JsonCase>).map((c) => ({ passed: c.passed, total: c.total, label: c.label }))

describe("lait eval --record with --repeat", () => {
  test("each repeat keeps its own answer: the replay is as flaky as the recording", async () => {
    const s = server({ script: [{ content: "right" }, { content: "wrong" }, { content: "right" }] })
    const p = project(s.baseUrl)
    p.write("eval.yml", "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: q\n    assert: [{ type: contains, value: right }]\n")
    const recorded = await p.lait(["eval", "eval.yml", "--repeat", "3", "--record", "cas", "--format", "json"])
    expect(evalSummary(recorded.stdout)).toEqual([{ passed: 2, total: 3, label: "flaky" }])
    const files = p.files("cas")
    const names = Object.keys(files)
    expect(names).toHaveLength(3)
    const key = names.find((n) => /^[0-9a-f]{64}\.json$/.test(n))!.slice(0, 64)
    expect(names).toEqual([`${key}.json`, `${key}.r1.json`, `${key}.r2.json`])
    // `<key>.json` is a cassette as the original writes and reads it: one `response`.
    expect(Object.keys(JSON.parse(files[`${key}.json`]!))).toEqual(["recorded_at", "request", "response"])
    const answers = names.map((n) => JSON.parse(files[n]!).response.choices[0].message.content).sort()
    expect(answers).toEqual(["right", "right", "wrong"])

    await s.stop()
    const replayed = await p.lait(["eval", "eval.yml", "--repeat", "3", "--replay", "cas", "--format", "json"])
    expect(replayed.code).toBe(1)
    // Repeat i replays repeat i's answer: the same runs, in the same order, the same statistics.
    // Timings aside: each run's `duration_ms` is measured anew.
    const untimed = (json: string) => json.replace(/"duration_ms":\d+/g, '"duration_ms":0')
    expect(untimed(replayed.stdout)).toBe(untimed(recorded.stdout))
  })

  test("the judge's answers are kept per repeat too", async () => {
    const judge = (score: number) => ({ match: "llm_judge_score", content: `{"score": ${score}, "reasoning": "r"}` })
    const s = server({ script: [judge(0.9), judge(0.1), judge(0.9), { content: "same answer", repeat: true }] })
    const p = project(s.baseUrl)
    p.write(
      "eval.yml",
      "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: q\n    assert: [{ type: llm_judge, criteria: good, model: judge }]\n"
    )
    const recorded = await p.lait(["eval", "eval.yml", "--repeat", "3", "--record", "cas", "--format", "json"])
    expect(evalSummary(recorded.stdout)).toEqual([{ passed: 2, total: 3, label: "flaky" }])
    // One target key (three files) and one judge key (three files): the answers were identical requests.
    expect(Object.keys(p.files("cas"))).toHaveLength(6)
    await s.stop()
    const replayed = await p.lait(["eval", "eval.yml", "--repeat", "3", "--replay", "cas", "--format", "json"])
    expect(evalSummary(replayed.stdout)).toEqual([{ passed: 2, total: 3, label: "flaky" }])
  })

  test("a directory with one answer per key, as the original lait records, gives it to every repeat", async () => {
    const s = server({ script: [{ content: "right" }, { content: "wrong" }, { content: "wrong" }] })
    const p = project(s.baseUrl)
    p.write("eval.yml", "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: q\n    assert: [{ type: contains, value: right }]\n")
    expect((await p.lait(["eval", "eval.yml", "--repeat", "3", "--record", "cas"])).code).toBe(1)
    await s.stop()
    // Keep only `<key>.json`, reduced to the fields the original writes.
    const files = p.files("cas")
    const original = path.join(p.dir, "original")
    fs.mkdirSync(original)
    const name = Object.keys(files).find((n) => /^[0-9a-f]{64}\.json$/.test(n))!
    const cassette = JSON.parse(files[name]!)
    const { base_url, model_id, messages, tools, response_format } = cassette.request
    fs.writeFileSync(
      path.join(original, name),
      JSON.stringify(
        {
          recorded_at: cassette.recorded_at,
          request: { base_url, model_id, messages, tools, response_format },
          response: cassette.response
        },
        null,
        2
      )
    )
    const expected = cassette.response.choices[0].message.content === "right"
      ? { passed: 3, total: 3, label: "stable-pass" }
      : { passed: 0, total: 3, label: "stable-fail" }
    const replayed = await p.lait(["eval", "eval.yml", "--repeat", "3", "--replay", "original", "--format", "json"])
    expect(evalSummary(replayed.stdout)).toEqual([expected])
  })
})
