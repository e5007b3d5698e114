// The HTML report as text: self-contained, every text from the eval escaped, the sections present.
// (test/e2e/eval-cases.test.ts opens a page in Chromium.)
import { describe, expect, test } from "bun:test"
import { htmlEscape, htmlReport } from "../../src/eval/html.ts"
import { buildReport } from "../../src/eval/report.ts"
import type { CaseOutcome, RunOutcome } from "../../src/eval/runner.ts"

const usage = { prompt: 12, completion: 3, total: 15, requests: 2, costUsd: 0.0125 }

const runOf = (passed: boolean, output: string): RunOutcome => ({
  failures: passed ? [] : ["assertion 1: llm_judge score 0.20 is below threshold 0.70 for criteria \"<kind>\""],
  output,
  assertions: [{
    position: 1,
    type: "llm_judge",
    passed,
    ...(passed ? {} : { message: "llm_judge score 0.20 is below threshold 0.70 for criteria \"<kind>\"" }),
    score: passed ? 0.9 : 0.2,
    reasoning: "</pre><script>alert('x')</script>"
  }],
  usage,
  usageEntries: [],
  durationMs: 1500
})

const caseOf = (index: number, name: string, runs: ReadonlyArray<RunOutcome>, target?: string): CaseOutcome => ({
  index,
  input: `input <${index}> & "more"`,
  name,
  named: true,
  runs,
  notStarted: 0,
  ...(target === undefined ? {} : { target })
})

describe("htmlReport", () => {
  test("escapes &, <, >, quotes", () => {
    expect(htmlEscape(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
  })

  test("one target: summary and a row per case with runs; no matrix; nothing external, nothing unescaped", () => {
    const page = htmlReport(
      buildReport({
        cases: [caseOf(1, "kind <reply>", [runOf(true, "ok"), runOf(false, "<b>rude</b>")]), caseOf(2, "b", [runOf(true, "x")])],
        repeat: 2,
        budgetStop: undefined,
        costUsd: 0.0375
      }),
      { file: "evals/<e>.yml" }
    )
    expect(page).toStartWith("<!DOCTYPE html>")
    expect(page).toContain("default-src 'none'")
    expect(page).not.toMatch(/<(link|img|iframe)\b|\bsrc=|https?:/)
    expect(page).not.toContain("<h2>Comparison</h2>")
    expect(page).toContain("<title>lait eval: evals/&lt;e&gt;.yml</title>")
    expect(page).toContain("<td>kind &lt;reply&gt;</td>")
    expect(page).toContain("input &lt;1&gt; &amp; &quot;more&quot;")
    expect(page).toContain("1/2 (50%)")
    expect(page).toContain("[0.09, 0.91]")
    expect(page).toContain(`<span class="label flaky">flaky</span>`)
    expect(page).toContain("<pre>&lt;b&gt;rude&lt;/b&gt;</pre>")
    expect(page).toContain("&lt;/pre&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
    expect(page).toContain("score 0.20")
    expect(page).toContain("1.50 s · 15 tokens (12 prompt + 3 completion) · $0.0125")
    // The only script is the page's own.
    expect(page.match(/<script>/g)).toHaveLength(1)
    // The failed case's runs and its failed run are open; the passed case's are not.
    expect(page).toContain(`<details open><summary>2 run(s)</summary>`)
    expect(page).toContain(`<details class="run fail" open><summary>run 2: FAIL</summary>`)
    expect(page).toContain(`<details><summary>1 run(s)</summary>`)
  })

  test("several targets: the comparison matrix and a section per target", () => {
    const page = htmlReport(
      buildReport({
        cases: [caseOf(1, "a", [runOf(true, "x")], "t<1>"), caseOf(1, "a", [runOf(false, "y")], "t2")],
        targets: ["t<1>", "t2"],
        repeat: 1,
        budgetStop: undefined,
        costUsd: undefined
      }),
      { file: "e.yml" }
    )
    expect(page).toContain("<h2>Comparison</h2>")
    expect(page).toContain("<th>case</th><th>t&lt;1&gt;</th><th>t2</th>")
    expect(page).toContain(`<td class="cell-stable-pass">1/1 (100%)`)
    expect(page).toContain(`<td class="cell-stable-fail">0/1 (0%)`)
    expect(page).toContain("<h2>Target: t&lt;1&gt;</h2>")
    expect(page).toContain("<h2>Target: t2</h2>")
  })
})
