import { describe, expect, test } from "bun:test"
import { buildReport, jsonReport, junitReport, textReport } from "../../src/eval/report.ts"
import type { CaseOutcome, EvalOutcome, RunOutcome } from "../../src/eval/runner.ts"
import { childrenNamed, parseXml } from "./xml.ts"

const run = (failures: ReadonlyArray<string> = [], durationMs = 250): RunOutcome => ({
  failures,
  usage: { prompt: 0, completion: 0, total: 0, requests: 1, costUsd: undefined },
  usageEntries: [],
  durationMs
})

const caseOf = (index: number, input: string, runs: ReadonlyArray<RunOutcome>, notStarted = 0): CaseOutcome => ({
  index,
  input,
  runs,
  notStarted
})

const fail = (n: number) => run([`assertion 1: jq expression \`contains("結論")\` was false for output "run ${n}"`])

const outcome = (cases: ReadonlyArray<CaseOutcome>, repeat: number, extra: Partial<EvalOutcome> = {}): EvalOutcome => ({
  cases,
  repeat,
  budgetStop: undefined,
  costUsd: undefined,
  ...extra
})

const mixed = outcome([
  caseOf(1, "flaky <one> & \"two\"", [run(), fail(2), run(), run(), run()]),
  caseOf(2, "always", [run(), run(), run(), run(), run()]),
  caseOf(3, "never", [fail(1), run(["run error: boom", "second"]), fail(3), fail(4), fail(5)])
], 5)

describe("text report", () => {
  test("upstream's lines first; with --repeat > 1 the reliability block after the footer", () => {
    expect(textReport(buildReport(mixed))).toBe([
      "case 1: 4/5 (80%) FAIL",
      "  run 2: assertion 1: jq expression `contains(\"結論\")` was false for output \"run 2\"",
      "case 2: 5/5 (100%) PASS",
      "case 3: 0/5 (0%) FAIL",
      "  run 1: assertion 1: jq expression `contains(\"結論\")` was false for output \"run 1\"",
      "  run 2: run error: boom",
      "  run 2: second",
      "  run 3: assertion 1: jq expression `contains(\"結論\")` was false for output \"run 3\"",
      "  run 4: assertion 1: jq expression `contains(\"結論\")` was false for output \"run 4\"",
      "  run 5: assertion 1: jq expression `contains(\"結論\")` was false for output \"run 5\"",
      "1 of 3 case(s) fully passed",
      "reliability over 5 runs per case (Wilson 95% interval):",
      "  case 1: flaky  pass@1=0.80  pass^5=0  95% CI [0.38, 0.96]",
      "  case 2: stable-pass  pass@1=1.00  pass^5=1  95% CI [0.57, 1.00]",
      "  case 3: stable-fail  pass@1=0.00  pass^5=0  95% CI [0.00, 0.43]",
      "  all: mean pass@1=0.60  pass^5 1 of 3 case(s)  stable-pass 1, flaky 1, stable-fail 1"
    ].join("\n"))
  })

  test("--repeat 1 prints exactly upstream's report (seed 001)", () => {
    const report = buildReport(outcome([caseOf(1, "x", [run()])], 1))
    expect(textReport(report)).toBe("case 1: 1/1 (100%) PASS\n1 of 1 case(s) fully passed")
    expect(report.ok).toBe(true)
  })

  test("percentages round half to even like Rust's {:.0}", () => {
    const cases = [1, 3, 5, 7].map((passed, i) =>
      caseOf(i + 1, "x", Array.from({ length: 8 }, (_, r) => (r < passed ? run() : fail(r + 1))))
    )
    const lines = textReport(buildReport(outcome(cases, 8))).split("\n").filter((l) => l.startsWith("case "))
    expect(lines).toEqual([
      "case 1: 1/8 (12%) FAIL",
      "case 2: 3/8 (38%) FAIL",
      "case 3: 5/8 (62%) FAIL",
      "case 4: 7/8 (88%) FAIL"
    ])
  })

  test("--min-pass-rate: an accepted flaky case is marked and the report is ok", () => {
    const report = buildReport(mixed, { minPassRate: 0.8 })
    expect(textReport(report).split("\n")).toContain(
      "  case 1: flaky  pass@1=0.80  pass^5=0  95% CI [0.38, 0.96] (accepted: pass@1 >= --min-pass-rate 0.80)"
    )
    expect(report.ok).toBe(false) // case 3 is a stable failure
    const flakyOnly = buildReport(outcome(mixed.cases.slice(0, 2), 5), { minPassRate: 0.8 })
    expect(flakyOnly.ok).toBe(true)
    expect(buildReport(outcome(mixed.cases.slice(0, 2), 5), { minPassRate: 0.81 }).ok).toBe(false)
    expect(buildReport(outcome(mixed.cases.slice(0, 2), 5)).ok).toBe(false)
  })

  test("a budget stop: partial and unrun cases say so, and the report is not ok", () => {
    const stopped = outcome(
      [caseOf(1, "a", [run(), run(), run()]), caseOf(2, "b", [run()], 2), caseOf(3, "c", [], 3)],
      3,
      { budgetStop: { budgetUsd: 1, spentUsd: 0.9, started: 4, total: 9 } }
    )
    const report = buildReport(stopped)
    expect(report.ok).toBe(false)
    expect(textReport(report)).toBe([
      "case 1: 3/3 (100%) PASS",
      "case 2: 1/1 (100%) PASS (2 of 3 run(s) not started)",
      "case 3: not run (stopped by --max-cost)",
      "2 of 3 case(s) fully passed",
      "reliability over 3 runs per case (Wilson 95% interval):",
      "  case 1: stable-pass  pass@1=1.00  pass^3=1  95% CI [0.44, 1.00]",
      "  case 2: stable-pass  pass@1=1.00  pass^3=0  95% CI [0.21, 1.00] (1 of 3 runs)",
      "  case 3: not-run",
      "  all: mean pass@1=1.00  pass^3 1 of 3 case(s)  stable-pass 2, flaky 0, stable-fail 0, not-run 1"
    ].join("\n"))
  })
})

describe("json report", () => {
  // Runs without details (as older reports and runs that errored have them).
  const passedRun = {
    passed: true,
    failures: [],
    output: null,
    assertions: [],
    duration_ms: 250,
    tokens: { prompt: 0, completion: 0, total: 0 },
    requests: 1,
    cost_usd: null
  }
  test("upstream's fields (floats as serde writes them) plus the statistics", () => {
    const parsed = JSON.parse(jsonReport(buildReport(mixed, { minPassRate: 0.8 })))
    expect(parsed[0]).toEqual({
      case: 1,
      input: "flaky <one> & \"two\"",
      passed: 4,
      total: 5,
      success_rate: 0.8,
      runs: [
        passedRun,
        {
          ...passedRun,
          passed: false,
          failures: ["assertion 1: jq expression `contains(\"結論\")` was false for output \"run 2\""]
        },
        passedRun,
        passedRun,
        passedRun
      ],
      k: 5,
      pass_at_1: 0.8,
      pass_hat_k: false,
      pass_at_k: 1,
      wilson_95: { lower: expect.closeTo(0.3755, 4), upper: expect.closeTo(0.9638, 4) },
      label: "flaky",
      accepted: true,
      not_started: 0,
      errors: 0,
      name: "case 1"
    })
    const text = jsonReport(buildReport(mixed))
    expect(text).not.toContain("\n")
    expect(text).toContain('"case":2,"input":"always","passed":5,"total":5,"success_rate":1.0,')
    expect(text).toContain('"success_rate":0.0,')
    expect(text).toContain('"wilson_95":{"lower":0.0,')
  })

  test("an unrun case has null rates", () => {
    const parsed = JSON.parse(jsonReport(buildReport(outcome([caseOf(1, "a", [], 2)], 2))))
    expect(parsed[0]).toMatchObject({ passed: 0, total: 0, success_rate: null, pass_at_1: null, label: "not-run", not_started: 2 })
  })
})

describe("junit report", () => {
  test("well-formed; one testcase per case; failures, flakyFailure per failed run of a flaky case, skipped", () => {
    const withSkip = outcome([...mixed.cases, caseOf(4, "later", [], 5)], 5)
    const xml = junitReport(buildReport(withSkip), { file: "evals/e&e.yml" })
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true)
    const root = parseXml(xml)
    expect(root.name).toBe("testsuites")
    expect(root.attributes).toMatchObject({ name: "lait eval", tests: "4", failures: "2", errors: "0", skipped: "1" })
    const [suite] = childrenNamed(root, "testsuite")
    expect(suite!.attributes).toMatchObject({ name: "evals/e&e.yml", tests: "4", failures: "2", skipped: "1", time: "3.750" })
    const cases = childrenNamed(suite!, "testcase")
    expect(cases.map((c) => c.attributes["name"])).toEqual([
      "case 1: flaky <one> & \"two\"",
      "case 2: always",
      "case 3: never",
      "case 4: later"
    ])
    expect(cases.every((c) => c.attributes["classname"] === "evals/e&e.yml")).toBe(true)
    expect(cases[0]!.attributes["time"]).toBe("1.250")

    const flaky = cases[0]!
    expect(childrenNamed(flaky, "failure")).toHaveLength(1)
    expect(childrenNamed(flaky, "failure")[0]!.attributes).toEqual({ message: "4/5 runs passed (80%)", type: "flaky" })
    const flakyFailures = childrenNamed(flaky, "flakyFailure")
    expect(flakyFailures.map((f) => [f.attributes["message"], f.text])).toEqual([[
      "run 2: assertion 1: jq expression `contains(\"結論\")` was false for output \"run 2\"",
      "assertion 1: jq expression `contains(\"結論\")` was false for output \"run 2\""
    ]])
    expect(childrenNamed(flaky, "system-out")[0]!.text).toBe("flaky: pass@1=0.80 pass^5=0 95% CI [0.38, 0.96] over 5 run(s)")

    expect(cases[1]!.children.map((c) => c.name)).toEqual(["system-out"])
    const never = cases[2]!
    expect(childrenNamed(never, "failure")[0]!.attributes).toEqual({ message: "0/5 runs passed (0%)", type: "stable-fail" })
    expect(childrenNamed(never, "failure")[0]!.text.split("\n")).toHaveLength(6)
    expect(childrenNamed(never, "flakyFailure")).toHaveLength(0)
    expect(childrenNamed(cases[3]!, "skipped")[0]!.attributes["message"]).toBe("not started: the --max-cost budget was reached")
  })

  test("an accepted flaky case passes but keeps its flakyFailure entries", () => {
    const xml = junitReport(buildReport(outcome(mixed.cases.slice(0, 1), 5), { minPassRate: 0.5 }), { file: "e.yml" })
    const testcase = childrenNamed(childrenNamed(parseXml(xml), "testsuite")[0]!, "testcase")[0]!
    expect(testcase.children.map((c) => c.name)).toEqual(["flakyFailure", "system-out"])
    expect(parseXml(xml).attributes["failures"]).toBe("0")
  })

  test("control characters in a failure stay well-formed", () => {
    const xml = junitReport(buildReport(outcome([caseOf(1, "bell\u0007", [run(["bad \u0001 byte"])])], 1)), { file: "e.yml" })
    const failure = childrenNamed(childrenNamed(childrenNamed(parseXml(xml), "testsuite")[0]!, "testcase")[0]!, "failure")[0]!
    expect(failure.text).toBe("run 1: bad \uFFFD byte")
  })
})

describe("a failed run's output in the text report (issue 21)", () => {
  const judged = (output: string): RunOutcome => ({
    ...run(["assertion 1: llm_judge score 0.20 is below threshold 0.70 for criteria \"kind\""]),
    output
  })

  test("shown when no failure quotes it, cut at 200 characters; not repeated when a failure quotes it", () => {
    const long = "x".repeat(250)
    const quoted = { ...fail(1), output: "run 1" }
    const lines = textReport(buildReport(outcome([caseOf(1, "a", [judged("short answer"), judged(long), quoted])], 3)))
      .split("\n")
    expect(lines.slice(0, 7)).toEqual([
      "case 1: 0/3 (0%) FAIL",
      "  run 1: assertion 1: llm_judge score 0.20 is below threshold 0.70 for criteria \"kind\"",
      "    output: \"short answer\"",
      "  run 2: assertion 1: llm_judge score 0.20 is below threshold 0.70 for criteria \"kind\"",
      `    output: "${"x".repeat(200)}"...`,
      "  run 3: assertion 1: jq expression `contains(\"結論\")` was false for output \"run 1\"",
      "0 of 1 case(s) fully passed"
    ])
  })

  test("a named case leads with its name in the text and reliability lines", () => {
    const named = { ...caseOf(1, "a", [run(), fail(2)]), name: "greets <back>", named: true }
    const text = textReport(buildReport(outcome([named], 2)))
    expect(text).toStartWith("greets <back>: 1/2 (50%) FAIL\n")
    expect(text).toContain("\n  greets <back>: flaky  pass@1=0.50")
  })
})
