import { describe, expect, test } from "bun:test"
import { jsonReport, junitReport, textReport } from "../../src/testing/reporters.ts"
import type { TestOutcome } from "../../src/testing/runner.ts"
import { parseXml, validateJunit, type XmlElement } from "./junit.ts"

const outcome = (file: string, failures: ReadonlyArray<string> = [], errored = false, durationMs = 12.3456): TestOutcome => ({
  file,
  status: failures.length === 0 ? "pass" : errored ? "error" : "fail",
  failures,
  durationMs,
  // Assertion failures come from a completed run; what --update needs is irrelevant here.
  ...(failures.length > 0 && !errored ? { evaluated: { text: "", definition: undefined as never, checks: [] } } : {})
})

const outcomes: ReadonlyArray<TestOutcome> = [
  outcome("tests/summarize-case1.yml"),
  outcome("tests/summarize-case2.yml", ["assertion 1: jq expression `contains(\"結論\")` was false for output \"まだ途中です\""]),
  outcome("tests/broken.yml", ["workflow 'wf.yml': no recorded cassette for this request <x> & \"y\"\nsecond line\u001b[0m"], true, 1500)
]

describe("text", () => {
  test("PASS/FAIL lines, indented reasons, then the totals", () => {
    expect(textReport(outcomes)).toBe([
      "tests/summarize-case1.yml: PASS",
      "tests/summarize-case2.yml: FAIL",
      "  assertion 1: jq expression `contains(\"結論\")` was false for output \"まだ途中です\"",
      "tests/broken.yml: ERROR",
      "  workflow 'wf.yml': no recorded cassette for this request <x> & \"y\"\n  second line\u001b[0m",
      "1 passed, 1 failed, 1 error, 3 total"
    ].join("\n"))
  })
  test("without errors the totals line is upstream's", () => {
    expect(textReport(outcomes.slice(0, 2)).split("\n").at(-1)).toBe("1 passed, 1 failed, 2 total")
  })
  test("a workflow that failed (not an error) is a FAIL with its reason", () => {
    const failed: TestOutcome = { file: "a.yml", status: "fail", failures: ["workflow 'w.yml': step 'x': boom"], durationMs: 1 }
    expect(textReport([failed])).toBe("a.yml: FAIL\n  workflow 'w.yml': step 'x': boom\n0 passed, 1 failed, 1 total")
  })
  test("no files", () => {
    expect(textReport([])).toBe("0 passed, 0 failed, 0 total")
  })
})

describe("json", () => {
  test("one compact line: file, status, failures", () => {
    const text = jsonReport(outcomes)
    expect(text).not.toContain("\n")
    expect(JSON.parse(text)).toEqual([
      { file: "tests/summarize-case1.yml", status: "pass", failures: [] },
      { file: "tests/summarize-case2.yml", status: "fail", failures: [outcomes[1]!.failures[0]] },
      { file: "tests/broken.yml", status: "error", failures: [outcomes[2]!.failures[0]] }
    ])
    expect(text.startsWith("[{\"file\":\"tests/summarize-case1.yml\",\"status\":\"pass\",\"failures\":[]}")).toBe(true)
  })
})

describe("junit", () => {
  const startedAt = new Date("2026-12-02T10:20:30.456Z")
  const xml = junitReport(outcomes, { totalMs: 2042.6, startedAt, hostname: "ci-runner" })
  const root = parseXml(xml)
  const find = (el: XmlElement, name: string) => el.children.filter((c) => c.name === name)

  test("is well-formed XML that follows the JUnit report schema", () => {
    expect(xml.startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ")).toBe(true)
    validateJunit(root)
  })

  test("one testsuite, one testcase per file, with counts and times", () => {
    expect(root.attributes).toEqual({ name: "lait test", tests: "3", failures: "1", errors: "1", time: "2.043" })
    const [suite] = find(root, "testsuite")
    expect(suite!.attributes).toEqual({
      name: "lait test",
      tests: "3",
      failures: "1",
      errors: "1",
      skipped: "0",
      time: "2.043",
      timestamp: "2026-12-02T10:20:30",
      hostname: "ci-runner"
    })
    const cases = find(suite!, "testcase")
    expect(cases.map((c) => c.attributes)).toEqual([
      { name: "tests/summarize-case1.yml", classname: "tests.summarize-case1", file: "tests/summarize-case1.yml", time: "0.012" },
      { name: "tests/summarize-case2.yml", classname: "tests.summarize-case2", file: "tests/summarize-case2.yml", time: "0.012" },
      { name: "tests/broken.yml", classname: "tests.broken", file: "tests/broken.yml", time: "1.500" }
    ])
    expect(cases[0]!.children).toEqual([])
  })

  test("a failure carries every reason; markup and control characters survive escaping", () => {
    const cases = find(find(root, "testsuite")[0]!, "testcase")
    const [assertionFailure] = find(cases[1]!, "failure")
    const reason = outcomes[1]!.failures[0]!
    expect(assertionFailure!.attributes).toEqual({ message: reason, type: "assertion" })
    expect(assertionFailure!.text).toBe(reason)
    expect(find(cases[2]!, "failure")).toEqual([])
    const [runError] = find(cases[2]!, "error")
    const expected = "workflow 'wf.yml': no recorded cassette for this request <x> & \"y\"\nsecond line\\u{1b}[0m"
    expect(runError!.attributes).toEqual({ message: expected, type: "error" })
    expect(runError!.text).toBe(expected)
    // A workflow that failed is a <failure> of its own type.
    const failed: TestOutcome = { file: "a.yml", status: "fail", failures: ["workflow 'w.yml': step 'x': boom"], durationMs: 1 }
    const doc = parseXml(junitReport([failed], { totalMs: 1, startedAt, hostname: "h" }))
    validateJunit(doc)
    expect(doc.children[0]!.attributes).toMatchObject({ failures: "1", errors: "0" })
    expect(doc.children[0]!.children[0]!.children[0]!).toMatchObject({ name: "failure", attributes: { type: "workflow" } })
  })

  test("several reasons: the message is the first, the body all of them", () => {
    const doc = parseXml(junitReport([outcome("a.yml", ["assertion 1: x", "assertion 3: y"])], {
      totalMs: 1,
      startedAt,
      hostname: "h"
    }))
    validateJunit(doc)
    const failure = doc.children[0]!.children[0]!.children[0]!
    expect(failure.attributes["message"]).toBe("assertion 1: x")
    expect(failure.text).toBe("assertion 1: x\nassertion 3: y")
  })

  test("an empty run is still a valid report", () => {
    const doc = parseXml(junitReport([], { totalMs: 0, startedAt, hostname: "h" }))
    validateJunit(doc)
    expect(doc.children[0]!.attributes["tests"]).toBe("0")
  })

  test("the validator rejects what CI tools would", () => {
    expect(() => validateJunit(parseXml("<testsuites><testcase name=\"a\"/></testsuites>"))).toThrow("not allowed in <testsuites>")
    expect(() => validateJunit(parseXml("<testsuites><testsuite tests=\"1\"/></testsuites>"))).toThrow("missing required attribute 'name'")
    expect(() => validateJunit(parseXml("<testsuite name=\"s\" tests=\"x\"/>"))).toThrow("not a valid count")
    expect(() => parseXml("<a b=\"1\" b=\"2\"/>")).toThrow("duplicate attribute")
    expect(() => parseXml("<a>x & y</a>")).toThrow("bare '&'")
    expect(() => parseXml("<a>\u0001</a>")).toThrow("does not allow")
  })
})
