// `lait eval` as a user meets it: the CLI as a real process (dist/lait when it builds and starts, else
// `bun src/main.ts`) against the fixture OpenAI server on 127.0.0.1, whose answers are partly random
// draws from a seeded generator. Covers repeat statistics for known seeds, every llm_judge outcome,
// the --max-cost stop, the json/junit reports, --min-pass-rate, --dry-run, --record/--replay, the
// cache rule, workflow targets, progress on stderr and the error exits.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import type { OpenAiServer, ScriptedReply } from "../fixtures/openai-server.ts"
import { evalSuite } from "./eval-harness.ts"
import { childrenNamed, parseXml } from "../eval/xml.ts"
import { binaryPath, ensureBinary, makeTempDir, run, type RunResult, runCli } from "./util.ts"

const { serve, project, usesBinary } = evalSuite("e2e-eval", { pricing: "none", timeoutMs: 60_000 })

const outcome = (r: RunResult) => ({ code: r.code, stdout: r.stdout, stderr: r.stderr })

const userText = (body: unknown): string =>
  ((body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === "user")?.content) ?? ""

/** The reference Wilson interval, written out independently of src/eval/stats.ts. */
const wilson = (k: number, n: number) => {
  const z = 1.959963984540054
  const p = k / n
  const mid = (p + (z * z) / (2 * n)) / (1 + (z * z) / n)
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))
  return [k === 0 ? 0 : mid - half, k === n ? 1 : mid + half]
}

// Four cases whose answers are drawn at random: alpha passes 2 times in 3, beta 1 in 2, gamma always,
// delta never. Which runs pass depends on the server's seed alone.
const seededScript: ReadonlyArray<ScriptedReply> = [
  { match: "alpha", choices: ["alpha PASS", "alpha PASS", "alpha fail"], repeat: true },
  { match: "beta", choices: ["beta PASS", "beta fail"], repeat: true },
  { match: "gamma", choices: ["gamma PASS"], repeat: true },
  { match: "delta", choices: ["delta fail"], repeat: true }
]
const seededEval = [
  "target: { model: m, prompt: '{{input}}' }",
  "cases:",
  ...["alpha", "beta", "gamma", "delta"].map((c) => `  - input: ${c}\n    assert: [{ type: contains, value: PASS }]`),
  ""
].join("\n")

interface JsonCase {
  readonly case: number
  readonly input: string
  readonly passed: number
  readonly total: number
  readonly success_rate: number | null
  readonly runs: ReadonlyArray<{ readonly passed: boolean; readonly failures: ReadonlyArray<string> }>
  readonly k: number
  readonly pass_at_1: number | null
  readonly pass_hat_k: boolean
  readonly wilson_95: { readonly lower: number; readonly upper: number }
  readonly label: string
  readonly accepted: boolean
  readonly not_started: number
}

const seededRun = async (seed: number, extraArgs: ReadonlyArray<string> = []) => {
  const server = serve(seededScript, seed)
  const p = project(server.baseUrl)
  p.write("eval.yml", seededEval)
  const r = await p.lait(["eval", "eval.yml", "--repeat", "10", "--format", "json", ...extraArgs])
  return { server, r, cases: JSON.parse(r.stdout) as ReadonlyArray<JsonCase> }
}

describe("repeat statistics against seeded random answers", () => {
  test("counts, pass@1, pass^k, Wilson interval and label agree with what the server answered", async () => {
    const { server, r, cases } = await seededRun(7)
    expect(r.code).toBe(1)
    expect(r.stderr).toEndWith("lait: one or more eval cases did not fully pass\n")
    expect(server.draws).toHaveLength(40)
    for (const c of cases) {
      // What the server actually sent for this case, counted independently of lait.
      const passedByServer = server.draws.filter((d) => userText(d.body) === c.input && d.content.includes("PASS")).length
      expect(c.total).toBe(10)
      expect(c.k).toBe(10)
      expect(c.passed).toBe(passedByServer)
      expect(c.runs.filter((run) => run.passed)).toHaveLength(passedByServer)
      expect(c.success_rate).toBeCloseTo(passedByServer / 10, 12)
      expect(c.pass_at_1).toBeCloseTo(passedByServer / 10, 12)
      expect(c.pass_hat_k).toBe(passedByServer === 10)
      const [lower, upper] = wilson(passedByServer, 10)
      expect(c.wilson_95.lower).toBeCloseTo(lower!, 12)
      expect(c.wilson_95.upper).toBeCloseTo(upper!, 12)
      expect(c.label).toBe(passedByServer === 10 ? "stable-pass" : passedByServer === 0 ? "stable-fail" : "flaky")
      for (const run of c.runs.filter((run) => !run.passed)) {
        expect(run.failures).toEqual([`assertion 1: expected output to contain "PASS", got "${c.input} fail"`])
      }
    }
    // The known seed: these are the draws of seed 7 (they change only if the fixture's generator does).
    expect(cases.map((c) => [c.input, c.passed, c.label])).toEqual([
      ["alpha", GOLDEN_SEED_7[0], "flaky"],
      ["beta", GOLDEN_SEED_7[1], "flaky"],
      ["gamma", 10, "stable-pass"],
      ["delta", 0, "stable-fail"]
    ])
  })

  test("the same seed gives the same statistics however the 8 concurrent runs interleave; another seed differs", async () => {
    const stats = (cases: ReadonlyArray<JsonCase>) => cases.map((c) => [c.passed, c.wilson_95, c.label])
    const first = await seededRun(7)
    const second = await seededRun(7)
    expect(stats(second.cases)).toEqual(stats(first.cases))
    const other = await seededRun(8)
    expect(other.cases.map((c) => c.passed)).toEqual([GOLDEN_SEED_8[0], GOLDEN_SEED_8[1], 10, 0])
    expect(other.cases.map((c) => c.passed)).not.toEqual(first.cases.map((c) => c.passed))
  })

  test("the text report for the same seed: upstream's lines, then the reliability block", async () => {
    const server = serve(seededScript, 7)
    const p = project(server.baseUrl)
    p.write("eval.yml", seededEval)
    const r = await p.lait(["eval", "eval.yml", "--repeat", "10"])
    const lines = r.stdout.trimEnd().split("\n")
    const [a, b] = GOLDEN_SEED_7
    expect(lines.filter((l) => l.startsWith("case "))).toEqual([
      `case 1: ${a}/10 (${a * 10}%) FAIL`,
      `case 2: ${b}/10 (${b * 10}%) FAIL`,
      "case 3: 10/10 (100%) PASS",
      "case 4: 0/10 (0%) FAIL"
    ])
    expect(lines.filter((l) => l.startsWith("  run ")).length).toBe(10 - a + 10 - b + 10)
    const fmt = (x: number) => x.toFixed(2)
    const interval = (k: number) => `[${fmt(wilson(k, 10)[0]!)}, ${fmt(wilson(k, 10)[1]!)}]`
    expect(lines.slice(-7)).toEqual([
      "1 of 4 case(s) fully passed",
      "reliability over 10 runs per case (Wilson 95% interval):",
      `  case 1: flaky  pass@1=${fmt(a / 10)}  pass^10=0  95% CI ${interval(a)}`,
      `  case 2: flaky  pass@1=${fmt(b / 10)}  pass^10=0  95% CI ${interval(b)}`,
      "  case 3: stable-pass  pass@1=1.00  pass^10=1  95% CI [0.72, 1.00]",
      "  case 4: stable-fail  pass@1=0.00  pass^10=0  95% CI [0.00, 0.28]",
      `  all: mean pass@1=${fmt((a / 10 + b / 10 + 1) / 4)}  pass^10 1 of 4 case(s)  stable-pass 1, flaky 2, stable-fail 1`
    ])
    // Progress on stderr (not a terminal here): a start line and one line per finished case.
    expect(r.stderr).toStartWith("eval: 4 case(s) x 10 run(s) = 40 run(s), 8 at a time\n")
    expect(r.stderr.match(/^eval: case \d done: \d+\/10 passed \[\d+\/40\]$/gm)).toHaveLength(4)
  })

  test("--min-pass-rate accepts flaky cases at or above the rate; the exit code follows", async () => {
    // A fresh server per eval: the draws continue from where a previous eval left them.
    const evalWith = async (rate: string) => {
      const server = serve(seededScript.slice(0, 3), 7)
      const p = project(server.baseUrl)
      p.write("eval.yml", seededEval.split("\n  - input: delta")[0] + "\n")
      return p.lait(["eval", "eval.yml", "--repeat", "10", "--min-pass-rate", rate])
    }
    const ok = await evalWith("0.4")
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain("  case 2: flaky  pass@1=0.40  pass^10=0  95% CI [0.17, 0.69] (accepted: pass@1 >= --min-pass-rate 0.40)")
    expect(ok.stderr).not.toContain("lait:")
    const strict = await evalWith("0.45")
    expect(strict.code).toBe(1)
    expect(strict.stderr).toEndWith("lait: one or more eval cases did not pass (a flaky case needs a pass rate of at least 0.45)\n")
  })

  test("--format junit marks the flaky cases with one flakyFailure per failed run", async () => {
    const server = serve(seededScript, 7)
    const p = project(server.baseUrl)
    p.write("eval.yml", seededEval)
    const r = await p.lait(["eval", "eval.yml", "--repeat", "10", "--format", "junit", "--min-pass-rate", "0.4"])
    const suite = childrenNamed(parseXml(r.stdout), "testsuite")[0]!
    expect(suite.attributes).toMatchObject({ name: "eval.yml", tests: "4", failures: "1", errors: "0", skipped: "0" })
    const cases = childrenNamed(suite, "testcase")
    expect(cases.map((c) => c.attributes["name"])).toEqual(["case 1: alpha", "case 2: beta", "case 3: gamma", "case 4: delta"])
    const [a, b] = GOLDEN_SEED_7
    expect(childrenNamed(cases[0]!, "flakyFailure")).toHaveLength(10 - a)
    expect(childrenNamed(cases[1]!, "flakyFailure")).toHaveLength(10 - b)
    expect(childrenNamed(cases[0]!, "failure")).toHaveLength(0)
    expect(childrenNamed(cases[2]!, "flakyFailure")).toHaveLength(0)
    expect(childrenNamed(cases[3]!, "failure")[0]!.attributes).toEqual({ message: "0/10 runs passed (0%)", type: "stable-fail" })
    expect(childrenNamed(cases[0]!, "flakyFailure")[0]!.text).toBe(
      "assertion 1: expected output to contain \"PASS\", got \"alpha fail\""
    )
    expect(r.code).toBe(1)
  })
})

const JUDGE_SCRIPT: ReadonlyArray<ScriptedReply> = [
  { match: "Criteria: polite", content: '{"score": 0.9, "reasoning": "polite enough"}', repeat: true },
  { match: "Criteria: concise", content: '{"score": 0.4, "reasoning": "rambles"}', repeat: true },
  { match: "Criteria: strict", content: '{"score": 0.9, "reasoning": "close"}', repeat: true },
  { match: "Criteria: broken", status: 400, body: { error: { message: "judge is down" } }, repeat: true },
  { match: "Criteria: garbled", content: "I would say 0.8", repeat: true },
  { content: "Hello, dear user.", repeat: true }
]

describe("llm_judge", () => {
  test("pass, low score, custom threshold, judge error, unparseable answer; the requests the judge sent", async () => {
    const server = serve(JUDGE_SCRIPT)
    const p = project(server.baseUrl)
    p.write(
      "eval.yml",
      [
        "target: { model: m, prompt: 'Greet {{input}}' }",
        "cases:",
        "  - input: Ada",
        "    assert:",
        "      - { type: llm_judge, criteria: polite }",
        "      - { type: llm_judge, criteria: concise, model: judge }",
        "      - { type: llm_judge, criteria: strict, threshold: 0.95 }",
        "      - { type: llm_judge, criteria: broken }",
        "      - { type: llm_judge, criteria: garbled }",
        ""
      ].join("\n")
    )
    const r = await p.lait(["eval", "eval.yml", "--show-usage"])
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: [
        "case 1: 0/1 (0%) FAIL",
        "  run 1: assertion 2: llm_judge score 0.40 is below threshold 0.70 for criteria \"concise\"",
        "  run 1: assertion 3: llm_judge score 0.90 is below threshold 0.95 for criteria \"strict\"",
        `  run 1: assertion 4: llm_judge evaluation failed: the model server at '${server.baseUrl}' answered HTTP 400: judge is down`,
        "  run 1: assertion 5: llm_judge evaluation failed: failed to parse llm_judge response as JSON: \"I would say 0.8\"",
        // A judge's message does not quote the output: the report shows its start.
        "    output: \"Hello, dear user.\"",
        "0 of 1 case(s) fully passed",
        ""
      ].join("\n"),
      stderr: [
        "eval: 1 case(s) x 1 run(s) = 1 run(s), 8 at a time",
        "eval: case 1 done: 0/1 passed [1/1]",
        "usage:",
        "  eval target 'm': prompt=10 completion=5 total=15",
        "  llm_judge: prompt=40 completion=20 total=60 (4 requests)",
        "  total: prompt=50 completion=25 total=75 (5 requests)",
        "lait: one or more eval cases did not fully pass",
        ""
      ].join("\n")
    })
    const bodies = server.requests.map((q) => q.body as Record<string, any>)
    expect(bodies).toHaveLength(6)
    // The target: one user message, no system message, no response format.
    expect(bodies[0]).toEqual({ model: "target-model", messages: [{ role: "user", content: "Greet Ada" }], stream: false })
    const judges = bodies.slice(1)
    for (const body of judges) {
      expect(body["messages"]).toHaveLength(1)
      expect(body["messages"][0]["role"]).toBe("user")
      expect(body["messages"][0]["content"]).toContain("Original input:\nAda\n\nOutput to grade:\nHello, dear user.\n\n")
      expect(body["response_format"]["type"]).toBe("json_schema")
      expect(body["response_format"]["json_schema"]["name"]).toBe("llm_judge_score")
      expect(body["response_format"]["json_schema"]["strict"]).toBe(true)
    }
    // Without `model:` the judge is the target's model (as written: the alias, hence its endpoint).
    const byCriteria = (c: string) => judges.find((b) => b["messages"][0]["content"].includes(`Criteria: ${c}\n`))!
    expect(byCriteria("polite")["model"]).toBe("target-model")
    expect(byCriteria("concise")["model"]).toBe("judge-model")
  })

  test("a workflow target without any default model: the documented missing-model message, and no judge request", async () => {
    const server = serve([])
    const p = project(server.baseUrl)
    p.write("wf.yml", "steps:\n  - jq: '\"echo \" + .'\n")
    p.write("eval.yml", "target: { workflow: wf.yml }\ncases:\n  - input: hi\n    assert: [{ type: equals, value: echo hi }, { type: llm_judge, criteria: c }]\n")
    const r = await p.lait(["eval", "eval.yml"])
    expect(r.stdout).toBe(
      "case 1: 0/1 (0%) FAIL\n" +
        "  run 1: assertion 2: llm_judge evaluation failed: llm_judge requires a `model:` (no default model is available in this eval context)\n" +
        "    output: \"echo hi\"\n" +
        "0 of 1 case(s) fully passed\n"
    )
    expect(server.requests).toHaveLength(0)
  })

  test("a workflow target's judge defaults to the workflow's default.model, resolved against config models: only", async () => {
    const server = serve([{ match: "llm_judge_score", content: '{"score": 1, "reasoning": "ok"}', repeat: true }])
    const p = project(server.baseUrl)
    p.write("wf.yml", "default: { model: judge }\nsteps:\n  - jq: '.'\n")
    p.write("eval.yml", "target: { workflow: wf.yml }\ncases:\n  - input: hi\n    assert: [{ type: llm_judge, criteria: c }]\n")
    const r = await p.lait(["eval", "eval.yml"])
    expect(outcome(r)).toMatchObject({ code: 0, stdout: "case 1: 1/1 (100%) PASS\n1 of 1 case(s) fully passed\n" })
    expect((server.requests[0]!.body as Record<string, unknown>)["model"]).toBe("judge-model")
  })
})

describe("--max-cost", () => {
  // Every request: 10 prompt and 5 completion tokens at $1000/$2000 per million = $0.02.
  const pricedEval = (cases: number) =>
    ["target: { model: m, prompt: '{{input}}' }", "cases:", ...Array.from({ length: cases }, (_, i) => `  - input: c${i}`), ""].join("\n")

  test("stops starting runs before the budget would be passed, reports what ran, exits 1 with the reason", async () => {
    const server = serve([{ delay_ms: 5, repeat: true }])
    const p = project(server.baseUrl, { pricing: "both" })
    p.write("eval.yml", pricedEval(3))
    const r = await p.lait(["eval", "eval.yml", "--repeat", "3", "--max-cost", "0.1"])
    expect(server.requests).toHaveLength(5)
    expect(outcome(r)).toMatchObject({
      code: 1,
      stdout: [
        "case 1: 3/3 (100%) PASS",
        "case 2: 2/2 (100%) PASS (1 of 3 run(s) not started)",
        "case 3: not run (stopped by --max-cost)",
        "2 of 3 case(s) fully passed",
        "reliability over 3 runs per case (Wilson 95% interval):",
        "  case 1: stable-pass  pass@1=1.00  pass^3=1  95% CI [0.44, 1.00]",
        "  case 2: stable-pass  pass@1=1.00  pass^3=0  95% CI [0.34, 1.00] (2 of 3 runs)",
        "  case 3: not-run",
        "  all: mean pass@1=1.00  pass^3 1 of 3 case(s)  stable-pass 2, flaky 0, stable-fail 0, not-run 1",
        ""
      ].join("\n")
    })
    expect(r.stderr).toEndWith(
      "lait: stopped at the --max-cost budget of $0.1000: $0.1000 spent on 5 of 9 run(s); 4 run(s) not started\n"
    )
  })

  test("--max-cost 0 with a priced target starts nothing", async () => {
    const server = serve([{ repeat: true }])
    const p = project(server.baseUrl, { pricing: "both" })
    p.write("eval.yml", pricedEval(2))
    const r = await p.lait(["eval", "eval.yml", "--max-cost", "0"])
    expect(server.requests).toHaveLength(0)
    expect(outcome(r)).toMatchObject({
      code: 1,
      stdout: "case 1: not run (stopped by --max-cost)\ncase 2: not run (stopped by --max-cost)\n0 of 2 case(s) fully passed\n"
    })
    expect(r.stderr).toBe(
      "eval: 2 case(s) x 1 run(s) = 2 run(s), 8 at a time\n" +
        "lait: stopped at the --max-cost budget of $0.0000: $0.0000 spent on 0 of 2 run(s); 2 run(s) not started\n"
    )
  })

  test("judges count toward the budget; junit marks the runs that never started as skipped", async () => {
    const server = serve([{ match: "llm_judge_score", content: '{"score": 1, "reasoning": "ok"}', repeat: true }, { repeat: true }])
    const p = project(server.baseUrl, { pricing: "both" })
    p.write(
      "eval.yml",
      pricedEval(2).replace("  - input: c0", "  - input: c0\n    assert: [{ type: llm_judge, criteria: c, model: judge }]")
    )
    // Case 1 costs $0.04 a run (target + judge): two runs fit in $0.08, the third would not.
    const r = await p.lait(["eval", "eval.yml", "--repeat", "3", "--max-cost", "0.09", "--format", "junit"])
    expect(server.requests).toHaveLength(4)
    const suite = childrenNamed(parseXml(r.stdout), "testsuite")[0]!
    expect(suite.attributes).toMatchObject({ tests: "2", failures: "0", skipped: "1" })
    expect(r.stderr).toEndWith(
      "lait: stopped at the --max-cost budget of $0.0900: $0.0800 spent on 2 of 6 run(s); 4 run(s) not started\n"
    )
  })

  test("without pricing the budget cannot be enforced, and says so", async () => {
    const server = serve([{ repeat: true }])
    const p = project(server.baseUrl)
    p.write("eval.yml", pricedEval(2))
    const r = await p.lait(["eval", "eval.yml", "--max-cost", "0.01"])
    expect(r.code).toBe(0)
    expect(server.requests).toHaveLength(2)
    expect(r.stderr).toContain("warning: --max-cost was not enforced: no request of this eval went to a model with 'pricing:'\n")
  })

  test("--dry-run counts the requests and estimates the prompt cost; nothing is sent", async () => {
    const server = serve([])
    const p = project(server.baseUrl, { pricing: "both" })
    p.write("eval.yml", pricedEval(2).replace("  - input: c0", "  - input: c0\n    assert: [{ type: llm_judge, criteria: c }]"))
    const r = await p.lait(["eval", "eval.yml", "--repeat", "5", "--dry-run"])
    expect(server.requests).toHaveLength(0)
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split("\n")
    expect(lines.slice(0, 3)).toEqual([
      "dry run: nothing is sent",
      "runs: 2 case(s) x 5 repeat(s) = 10",
      "requests: 15 = 10 to the target + 5 llm_judge"
    ])
    expect(lines[3]).toMatch(/^estimated cost: \$0\.\d{4} for prompt tokens \(about 4 characters per token; completion tokens are not included\)$/)
    expect(r.stderr).toBe("")
  })
})

describe("reproducible evals with --record/--replay", () => {
  test("a recorded eval, judges included, replays with the server gone", async () => {
    const server = serve([{ match: "llm_judge_score", content: '{"score": 0.8, "reasoning": "ok"}', repeat: true }, { repeat: true }])
    const p = project(server.baseUrl)
    p.write("eval.yml", "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: hello\n    assert: [{ type: contains, value: hello }, { type: llm_judge, criteria: echoes }]\n")
    const recorded = await p.lait(["eval", "eval.yml", "--record", "cassettes", "--format", "json"])
    expect(recorded.code).toBe(0)
    expect(fs.readdirSync(path.join(p.dir, "cassettes")).filter((f) => f.endsWith(".json"))).toHaveLength(2)
    await server.stop()
    const replayed = await p.lait(["eval", "eval.yml", "--replay", "cassettes", "--format", "json", "--repeat", "2"])
    expect(replayed.code).toBe(0)
    const cases = JSON.parse(replayed.stdout) as ReadonlyArray<JsonCase>
    expect(cases[0]).toMatchObject({ passed: 2, total: 2, label: "stable-pass" })
  })

  test("--record and --replay together are a usage error", async () => {
    const p = project("http://127.0.0.1:9/v1")
    p.write("eval.yml", "target: { model: m, prompt: x }\ncases: []\n")
    const r = await p.lait(["eval", "eval.yml", "--record", "a", "--replay", "b"])
    expect(outcome(r)).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--record <DIR>' cannot be used with '--replay <DIR>'\n"
    })
  })
})

describe("evals are live", () => {
  test("default.cache does not apply to eval; --cache does", async () => {
    const server = serve([{ repeat: true }])
    const p = project(server.baseUrl, { extraConfig: "default:\n  cache: true" })
    p.write("eval.yml", "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: a\n")
    expect((await p.lait(["eval", "eval.yml", "--repeat", "3"])).code).toBe(0)
    expect(server.requests).toHaveLength(3)
    expect(fs.existsSync(path.join(p.dir, ".lait", "cache"))).toBe(false)
    const cached = await p.lait(["--cache", "eval", "eval.yml", "--repeat", "3"])
    expect(cached.code).toBe(0)
    // The three runs start together and race for the first answer; each may miss the cache once.
    expect(server.requests.length).toBeGreaterThan(3)
    expect(server.requests.length).toBeLessThanOrEqual(6)
    expect(fs.readdirSync(path.join(p.dir, ".lait", "cache"))).toHaveLength(1)
    const before = server.requests.length
    const again = await p.lait(["--cache", "eval", "eval.yml", "--repeat", "3"])
    expect(again.stderr.match(/^note: cache hit for eval target 'm'$/gm)).toHaveLength(3)
    expect(server.requests).toHaveLength(before)
  })
})

describe("workflow targets", () => {
  test("inputs from the eval file, the case input through input_schema, step_output and usage on the run's own trajectory", async () => {
    const server = serve([
      { match: "outline", content: "1. intro 2. body", usage: { prompt_tokens: 30, completion_tokens: 10 }, repeat: true },
      { match: "write", content: "Fine essay about cats.", usage: { prompt_tokens: 50, completion_tokens: 20 }, repeat: true }
    ])
    const p = project(server.baseUrl)
    p.write(
      "flows/essay.yml",
      [
        "inputs:",
        "  tone: { type: string }",
        "input_schema: { type: object, properties: { topic: { type: string } }, required: [topic] }",
        "default: { model: m }",
        "steps:",
        "  - id: outline",
        "    prompt: 'outline {{input.topic}} ({{inputs.tone}})'",
        "  - id: essay",
        "    prompt: 'write from {{steps.outline}}'",
        ""
      ].join("\n")
    )
    p.write(
      "evals/essay.yml",
      [
        "target:",
        "  workflow: ../flows/essay.yml",
        "  inputs: { tone: dry }",
        "cases:",
        "  - input: '{\"topic\": \"cats\"}'",
        "    assert:",
        "      - { type: contains, value: cats }",
        "      - { type: step_output, id: outline, assert: [{ type: contains, value: intro }] }",
        "      - { type: usage, max_prompt_tokens: 80, max_total_tokens: 100 }",
        ""
      ].join("\n")
    )
    const r = await p.lait(["eval", "evals/essay.yml", "--repeat", "2"])
    expect(r.stdout.split("\n").slice(0, 6)).toEqual([
      "case 1: 0/2 (0%) FAIL",
      "  run 1: assertion 3: total_tokens 110 exceeded max_total_tokens 100",
      "    output: \"Fine essay about cats.\"",
      "  run 2: assertion 3: total_tokens 110 exceeded max_total_tokens 100",
      "    output: \"Fine essay about cats.\"",
      "0 of 1 case(s) fully passed"
    ])
    expect(userText(server.requests[0]!.body)).toBe("outline cats (dry)")
  })

  test("an undeclared input in target.inputs is an error before anything runs", async () => {
    const server = serve([])
    const p = project(server.baseUrl)
    p.write("wf.yml", "steps:\n  - jq: '.'\n")
    p.write("eval.yml", "target: { workflow: wf.yml, inputs: { x: 1 } }\ncases: [{ input: a }]\n")
    const r = await p.lait(["eval", "eval.yml"])
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: workflow 'wf.yml': input 'x' was provided, but the workflow declares no 'inputs:'\n"
    })
  })
})

describe("command line", () => {
  test("--repeat 0 behaves as 1", async () => {
    const server = serve([{ repeat: true }])
    const p = project(server.baseUrl)
    p.write("eval.yml", "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: a\n")
    const r = await p.lait(["eval", "eval.yml", "--repeat", "0"])
    expect(outcome(r)).toMatchObject({ code: 0, stdout: "case 1: 1/1 (100%) PASS\n1 of 1 case(s) fully passed\n" })
    expect(server.requests).toHaveLength(1)
  })

  test.each([
    [["--repeat", "-1"], "lait: invalid value '-1' for '--repeat <N>': expected an integer from 0 to 10000\n"],
    [["--repeat", "10001"], "lait: invalid value '10001' for '--repeat <N>': expected an integer from 0 to 10000\n"],
    [["--min-pass-rate", "1.5"], "lait: invalid value '1.5' for '--min-pass-rate <R>': expected a number from 0 to 1\n"],
    [["--max-cost", "-2"], "lait: invalid value '-2' for '--max-cost <USD>': expected a non-negative amount\n"]
  ])("%j is a usage error", async (args, stderr) => {
    const p = project("http://127.0.0.1:9/v1")
    p.write("eval.yml", "target: { model: m, prompt: x }\ncases: []\n")
    expect(outcome(await p.lait(["eval", "eval.yml", ...args]))).toEqual({ code: 2, stdout: "", stderr })
  })

  test("--repeat 10000, the bound, is accepted", async () => {
    const p = project("http://127.0.0.1:9/v1")
    p.write("eval.yml", "target: { model: m, prompt: x }\ncases:\n  - input: a\n")
    const r = await p.lait(["eval", "eval.yml", "--repeat", "10000", "--dry-run"])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("runs: 1 case(s) x 10000 repeat(s) = 10000")
  })

  test("an invalid eval file is a validation error (exit 3) naming the line", async () => {
    const p = project("http://127.0.0.1:9/v1")
    p.write("eval.yml", "target: { model: m, prompt: x }\ncases:\n  - input: a\n    asert: []\n")
    expect(outcome(await p.lait(["eval", "eval.yml"]))).toEqual({
      code: 3,
      stdout: "",
      stderr: "lait: failed to parse eval definition 'eval.yml': cases[0]: unknown key 'asert'; cases accept: name, input, inputs, vars, assert (line 4)\n"
    })
  })

  test("a missing eval file", async () => {
    const p = project("http://127.0.0.1:9/v1")
    expect(outcome(await p.lait(["eval", "nope.yml"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read eval definition 'nope.yml': no such file or directory\n"
    })
  })

  test("a prompt template that cannot parse fails before any request", async () => {
    const server = serve([])
    const p = project(server.baseUrl)
    p.write("eval.yml", "target: { model: m, prompt: '{{#if input}}' }\ncases: [{ input: a }]\n")
    const r = await p.lait(["eval", "eval.yml"])
    expect(r.code).toBe(3)
    expect(r.stderr).toStartWith("lait: target.prompt: failed to parse template: \"{{#if input}}\": ")
    expect(server.requests).toHaveLength(0)
  })
})

describe("Ctrl-C", () => {
  test("interrupts the runs in flight: exit 130, no report, nothing recorded", async () => {
    const server = serve([{ delay_ms: 20_000, repeat: true }])
    const p = project(server.baseUrl)
    p.write("eval.yml", "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: a\n  - input: b\n")
    const env: Record<string, string> = {}
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !/^(OPENAI_|LAIT_)/.test(key)) env[key] = value
    const command = usesBinary() ? [binaryPath] : [process.execPath, path.join(import.meta.dir, "..", "..", "src", "main.ts")]
    const child = Bun.spawn([...command, "eval", "eval.yml", "--repeat", "3", "--record", "cassettes"], {
      cwd: p.dir,
      env: { ...env, NO_COLOR: "1", HOME: p.dir },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
    const deadline = Date.now() + 20_000
    while (server.requests.length < 6 && Date.now() < deadline) await Bun.sleep(20)
    expect(server.requests).toHaveLength(6)
    child.kill("SIGINT")
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
    expect(await child.exited).toBe(130)
    expect(stdout).toBe("")
    expect(stderr).toContain("lait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...\n")
    expect(fs.existsSync(path.join(p.dir, "cassettes"))).toBe(false)
  }, 30_000)
})

// Filled in from the seeded fixture (see the test above, which checks them against the server's draws).
const GOLDEN_SEED_7: readonly [number, number] = [8, 4]
const GOLDEN_SEED_8: readonly [number, number] = [7, 6]
