// The assertions issue 41 added (docs/testing.md#assertions), through the CLI in this process against the
// fixture OpenAI server: every one passing once and failing once under `lait test` (recorded, then
// replayed) and under `lait eval` (live, measured: cost and latency; then replayed, where those two are
// skipped with a note), as the text, JSON, HTML and JUnit reports show them; `lait lint` catching what
// would fail only at run time; `lait schema test|eval` listing every type.
import { afterAll, afterEach, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { childrenNamed, parseXml } from "../eval/xml.ts"
import { ORDER, ORDER_SCHEMA, PROSE, textAssertions } from "../fixtures/addedAssertions.ts"
import { modelsYaml, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-assertions-added")
afterEach(stopServers)
afterAll(() => ws.remove())


const replies = () =>
  server({
    script: [
      { match: "ORDER", content: ORDER, repeat: true },
      { match: "PROSE", content: PROSE, repeat: true }
    ]
  })

let counter = 0
/** A project whose model `m` (priced) answers from `baseUrl`, with a workflow, a schema and a judge script. */
const project = (baseUrl: string) => {
  const name = `p${++counter}`
  const dir = path.join(ws.dir, name)
  const write = (file: string, text: string) => ws.write(`${name}/${file}`, text)
  write(
    "lait.config.yml",
    `${
      modelsYaml({
        m: [{ baseUrl, modelId: "target-model", extra: "pricing: { input_per_1m: 1000, output_per_1m: 2000 }" }]
      })
    }\ndefault:\n  model: m\n`
  )
  write("wf.yml", "steps:\n  - id: answer\n    prompt: '{{ input }}'\n")
  write("schemas/order.yml", ORDER_SCHEMA)
  // A judge of the user's: passes what was shipped; its reason quotes the case it was told about.
  write(
    "tests/judge.sh",
    [
      `payload=$(cat)`,
      `case "$payload" in`,
      `  *shipped*) echo '{"pass": true, "score": 0.9, "reason": "shipped"}' ;;`,
      `  *) echo '{"pass": false, "score": 0.2, "reason": "nothing was shipped"}' ;;`,
      `esac`,
      ``
    ].join("\n")
  )
  return { dir, write, lait: (args: ReadonlyArray<string>) => ws.lait(args, { cwd: dir }) }
}

/** Every added assertion, each written to pass on ORDER (and fail on PROSE); paths from `dir`. */
const added = (dir: string) => [
  ...textAssertions(`${dir}schemas/order.yml`),
  `{ type: script, command: [sh, ${dir}tests/judge.sh] }`,
  `{ not: { type: contains, value: cancelled } }`
]
const ADDED = added("../")

const testFile = (input: string, extra: ReadonlyArray<string> = []) =>
  `workflow: ../wf.yml\ninput: ${input}\nreplay: cassettes/${input.split(" ")[0]}\nassert:\n` +
  [...ADDED, ...extra].map((a) => `  - ${a}\n`).join("")

describe("lait test", () => {
  test("every added assertion passes on one output and fails on another, recorded and then replayed", async () => {
    const s = replies()
    const p = project(s.baseUrl)
    p.write("tests/pass.test.yml", testFile("ORDER please"))
    p.write(
      "tests/fail.test.yml",
      testFile("PROSE please", [
        `{ not: { type: icontains, value: hello } }`,
        `{ type: script, command: "sh -c 'echo boom >&2; exit 3'" }`,
        `{ not: { type: regex, value: '(' } }`,
        `{ type: latency, max: 60000 }`
      ])
    )
    const recorded = await p.lait(["test", "--record", "tests"])
    expect(recorded.stdout).toContain("tests/pass.test.yml: PASS (recorded 1)\n")
    expect(recorded.code).toBe(1)

    // Replayed with the server gone: the same verdicts, each failure on its own line.
    await s.stop()
    const r = await p.lait(["test", "tests"])
    expect(r.stdout.split("\n")).toEqual([
      "tests/fail.test.yml: FAIL",
      `  assertion 1: expected output to match /"order": *\\d+/, got "Hello World from lait today"`,
      `  assertion 2: expected output to contain "SHIPPED" (ignoring case), got "Hello World from lait today"`,
      `  assertion 3: expected output to start with "{\\"order\\"", got "Hello World from lait today"`,
      `  assertion 4: expected output to contain any of ["cancelled", "shipped"], got "Hello World from lait today"`,
      `  assertion 5: expected output to contain all of ["order", "shipped"], missing ["order", "shipped"]; got ` +
      `"Hello World from lait today"`,
      `  assertion 6: expected output to be JSON (JSON Parse error: Unexpected identifier "Hello"), got ` +
      `"Hello World from lait today"`,
      `  assertion 7: expected output to be JSON for json_schema (JSON Parse error: Unexpected identifier "Hello"), ` +
      `got "Hello World from lait today"`,
      `  assertion 8: expected output to be JSON for json_schema (JSON Parse error: Unexpected identifier "Hello"), ` +
      `got "Hello World from lait today"`,
      `  assertion 9: expected output within edit distance 1 of "{\\"order\\": 42, \\"status\\": \\"shipped!\\"}" ` +
      `(it is more than 1), got "Hello World from lait today"`,
      "  assertion 10: expected output of at least 30 characters, got 27",
      "  assertion 11: expected output of at most 4 words, got 5",
      "  assertion 12: script failed the output: nothing was shipped",
      "  assertion 14: expected the negated 'icontains' assertion to fail, but it held",
      "  assertion 15: script failed: command 'sh' exited with exit status: 3: boom",
      `  assertion 16: invalid regular expression "(": Invalid regular expression: missing )`,
      "  assertion 17: latency assertions are measured only by `lait eval` (this run has no measurements)",
      "tests/pass.test.yml: PASS",
      "1 passed, 1 failed, 2 total",
      ""
    ])
    expect(r.code).toBe(1)
    // JSON and JUnit carry the same lines.
    const json = JSON.parse((await p.lait(["test", "tests", "--format", "json"])).stdout)
    expect(json[0].failures).toEqual(r.stdout.split("\n").slice(1, 17).map((line) => line.slice(2)))
    const junit = await p.lait(["test", "tests", "--format", "junit"])
    expect(junit.stdout).toContain("assertion 12: script failed the output: nothing was shipped\n")
  }, 60_000)
})

/** What a script was told, as it wrote it down (payload-<case>.json in the eval's directory). */
const RECORD_PAYLOAD = `{ type: script, command: [node, -e, "const fs = require('fs'); const d = JSON.parse(` +
  `fs.readFileSync(0, 'utf8')); fs.writeFileSync('payload-' + d.case + '.json', JSON.stringify(d)); ` +
  `console.log(JSON.stringify({ pass: true }))"] }`

const evalFile = [
  "target: { model: m, prompt: '{{input}}' }",
  "cases:",
  "  - name: order",
  "    input: ORDER please",
  "    vars: { shop: north }",
  "    assert:",
  ...[...added(""), "{ type: cost, max: 1 }", "{ type: latency, max: 600000 }"].map((a) => `      - ${a}`),
  "  - name: prose",
  "    input: PROSE please",
  "    assert:",
  ...[...added(""), "{ type: cost, max: 0.01 }", "{ type: latency, max: 0 }"].map((a) => `      - ${a}`),
  "default_assert:",
  `  - ${RECORD_PAYLOAD}`,
  ""
].join("\n")

const TYPES = [
  "regex",
  "icontains",
  "starts_with",
  "contains_any",
  "contains_all",
  "is_json",
  "json_schema",
  "json_schema",
  "levenshtein",
  "length",
  "length",
  "script",
  "not contains",
  "cost",
  "latency",
  "script"
]

interface JsonAssertion {
  readonly assertion: number
  readonly type: string
  readonly passed: boolean
  readonly message?: string
  readonly score?: number
  readonly skipped?: string
}
const assertionsOf = (stdout: string, name: string): ReadonlyArray<JsonAssertion> => {
  const cases: ReadonlyArray<{ name: string; runs: ReadonlyArray<{ assertions: ReadonlyArray<JsonAssertion> }> }> =
    JSON.parse(stdout)
  return cases.find((c) => c.name === name)!.runs[0]!.assertions
}

describe("lait eval", () => {
  test("every added assertion passes on one case and fails on the other, live (recorded) and replayed", async () => {
    const s = replies()
    const p = project(s.baseUrl)
    p.write("eval.yml", evalFile)
    const r = await p.lait(["eval", "eval.yml", "--record", "cas", "--format", "json"])
    expect(r.code).toBe(1)
    const order = assertionsOf(r.stdout, "order")
    expect(order.map((a) => [a.type, a.passed])).toEqual(TYPES.map((t) => [t, true]))
    // The script's verdict carries its score and reason; cost and latency were measured, not skipped.
    expect(order[11]).toMatchObject({ score: 0.9, reasoning: "shipped" })
    expect(order.filter((a) => a.skipped !== undefined)).toEqual([])
    const prose = assertionsOf(r.stdout, "prose")
    expect(prose.map((a) => [a.type, a.passed])).toEqual(
      TYPES.map((t, i) => [t, t === "not contains" || i === TYPES.length - 1])
    )
    expect(prose[13]!.message).toBe("cost $0.0200 exceeded max $0.0100")
    expect(prose[14]!.message).toMatch(/^latency \d+ ms exceeded max 0 ms$/)
    expect(prose[11]).toMatchObject({ message: "script failed the output: nothing was shipped", score: 0.2 })

    // The script was told the output, the case input, its vars and its name, on stdin.
    expect(JSON.parse(fs.readFileSync(path.join(p.dir, "payload-order.json"), "utf8"))).toEqual({
      output: ORDER,
      input: "ORDER please",
      vars: { shop: "north" },
      case: "order"
    })

    const html = await p.lait(["eval", "eval.yml", "--format", "html"])
    expect(html.stdout).toContain(`<li>assertion 1 (regex) <span class="ok">pass</span></li>`)
    expect(html.stdout).toContain(`<li>assertion 13 (not contains) <span class="ok">pass</span></li>`)
    expect(html.stdout).toContain(
      `<li>assertion 14 (cost) <span class="bad">fail</span>: cost $0.0200 exceeded max $0.0100</li>`
    )

    // Replayed with the server gone, cost and latency measure nothing: skipped, with a note.
    await s.stop()
    const replayed = await p.lait(["eval", "eval.yml", "--replay", "cas", "--format", "json"])
    expect(replayed.code).toBe(1)
    expect(replayed.stderr).toContain("note: 4 cost/latency assertion(s) skipped: not measured: the run's answers were replayed\n")
    for (const name of ["order", "prose"]) {
      const measured = assertionsOf(replayed.stdout, name).slice(13, 15)
      expect(measured.map((a) => [a.type, a.passed, a.skipped])).toEqual([
        ["cost", true, "not measured: the run's answers were replayed"],
        ["latency", true, "not measured: the run's answers were replayed"]
      ])
    }
    // The rest judge as live: prose fails all but the negation and the payload script (the last one).
    expect(assertionsOf(replayed.stdout, "prose").map((a) => a.passed)).toEqual(
      TYPES.map((t, i) => ["not contains", "cost", "latency"].includes(t) || i === TYPES.length - 1)
    )
    const junit = await p.lait(["eval", "eval.yml", "--replay", "cas", "--format", "junit"])
    const cases = childrenNamed(childrenNamed(parseXml(junit.stdout), "testsuite")[0]!, "testcase")
    expect(childrenNamed(cases[0]!, "failure")).toEqual([])
    const failure = childrenNamed(cases[1]!, "failure")[0]!.text
    expect(failure).toContain(`run 1: assertion 1: expected output to match /"order": *\\d+/, got`)
    expect(failure).toContain("run 1: assertion 12: script failed the output: nothing was shipped")
    expect(junit.stdout).toContain("run 1: assertion 14 (cost) skipped: not measured: the run&apos;s answers were replayed")
    const replayedHtml = await p.lait(["eval", "eval.yml", "--replay", "cas", "--format", "html"])
    expect(replayedHtml.stdout).toContain(`<li>assertion 15 (latency) <span class="meta">skipped (not measured: the run&#39;s`)
  }, 60_000)
})

describe("lait lint", () => {
  test("finds what would fail only at run time, in test and eval files alike", async () => {
    const p = project("http://127.0.0.1:9/v1")
    fs.mkdirSync(path.join(p.dir, "tests/cas"), { recursive: true })
    const checks = [
      `{ type: regex, value: '(' }`,
      `{ type: script, command: [sh, missing.sh] }`,
      `{ type: script, command: "no-such-program-lait --flag" }`,
      `{ type: script, command: "sh -c 'unterminated" }`,
      `{ not: { type: latency, max: 5 } }`,
      `{ type: json_schema }`,
      `{ type: json_schema, file: nope.json }`,
      `{ type: json_schema, value: { type: strin } }`,
      `{ type: length, unit: words }`,
      `{ type: length, min: 5, max: 2 }`,
      `{ type: script, command: [sh, judge.sh] }`
    ]
    p.write("tests/bad.test.yml", `workflow: ../wf.yml\ninput: hi\nreplay: cas\nassert:\n${checks.map((c) => `  - ${c}\n`).join("")}`)
    p.write("tests/unknown.test.yml", "workflow: ../wf.yml\nreplay: cas\nassert:\n  - { not: { type: regexp, value: x } }\n")
    p.write(
      "eval.yml",
      "target: { model: m, prompt: x }\ncases:\n  - input: a\n    assert: [{ type: latency, max: 5 }]\n" +
        "default_assert:\n  - { type: regex, value: 'a[' }\n  - { type: script, command: [sh, tests/nope.sh] }\n"
    )
    const r = await p.lait(["lint", "tests/bad.test.yml", "tests/unknown.test.yml", "eval.yml"])
    expect(r.code).toBe(3)
    const types = "equals, contains, jq, llm_judge, tool_called, usage, step_output, regex, icontains, starts_with, " +
      "contains_any, contains_all, is_json, json_schema, levenshtein, length, cost, latency, script"
    expect(r.stdout.split("\n")).toEqual([
      "tests/bad.test.yml:",
      `  error: assert[0].value: invalid regular expression "(": Invalid regular expression: missing )`,
      "  error: assert[1].command: the script 'tests/missing.sh' does not exist",
      "  error: assert[2].command: the program 'no-such-program-lait' is not on PATH",
      `  error: assert[3].command: command "sh -c 'unterminated": unterminated single quote`,
      "  error: assert[4].not: latency assertions always fail under 'lait test' (nothing is measured there); " +
      "move this check to an eval file",
      "  error: assert[5]: json_schema needs exactly one of 'value' and 'file'",
      `  error: assert[6].file: cannot use 'tests/nope.json': failed to read '${p.dir}/tests/nope.json': ` +
      "no such file or directory",
      "  error: assert[7].value: invalid JSON Schema: type must be JSONType or JSONType[]: strin",
      "  error: assert[8]: length needs 'min' or 'max'",
      "  error: assert[9]: 'min' (5) is greater than 'max' (2); the assertion can never pass",
      "tests/unknown.test.yml:",
      "  error: failed to parse test definition 'tests/unknown.test.yml': assert[0].not.type: unknown assertion " +
      `type 'regexp'; expected one of: ${types} (line 4)`,
      "eval.yml:",
      `  error: default_assert[0].value: invalid regular expression "a[": Invalid regular expression: missing terminating ] for character class`,
      "  error: default_assert[1].command: the script 'tests/nope.sh' does not exist",
      ""
    ])
  }, 60_000)
})

describe("lait schema", () => {
  test("test and eval list every added assertion, and `not:` around any of them", async () => {
    for (const kind of ["test", "eval"]) {
      const r = await ws.lait(["schema", kind])
      expect(r.code).toBe(0)
      const forms: ReadonlyArray<{ properties: Record<string, { enum?: ReadonlyArray<string>; $ref?: string }> }> =
        JSON.parse(r.stdout).$defs.Assertion.anyOf
      expect(forms.map((f) => f.properties["type"]?.enum?.[0] ?? Object.keys(f.properties).join())).toEqual([
        ...["equals", "contains", "jq", "llm_judge", "tool_called", "usage", "step_output"],
        ...["regex", "icontains", "starts_with", "contains_any", "contains_all", "is_json", "json_schema"],
        ...["levenshtein", "length", "cost", "latency", "script", "not"]
      ])
      expect(forms.at(-1)!.properties["not"]!.$ref).toBe("#/$defs/Assertion")
    }
  })
})
