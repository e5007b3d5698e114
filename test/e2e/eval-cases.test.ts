// `lait eval` for teams (issue 21), driven as a process against the fixture OpenAI server: named
// cases in every report, inputs of any YAML value, per-case `inputs:` and `vars`, cases files
// (JSONL, JSON, CSV, YAML) and their line-numbered errors, `default_assert:`, several `targets:` compared
// side by side, the per-run details of the JSON report, and the HTML report opened in Chromium.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { OpenAiServer, ScriptedReply } from "../fixtures/openai-server.ts"
import { evalSuite } from "./eval-harness.ts"
import { childrenNamed, parseXml } from "../eval/xml.ts"
import { dumpDom, findChromium, pngStats, screenshot } from "./browser.ts"
import { binaryPath, ensureBinary, makeTempDir, run, runCli } from "./util.ts"

const { serve, project, usesBinary } = evalSuite("e2e-eval-cases", { pricing: "target", timeoutMs: 120_000 })

const userTexts = (server: OpenAiServer) =>
  server.requests.map((q) =>
    (q.body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === "user")!.content
  )

const judgeReply = (score: number, reasoning: string): ScriptedReply => ({
  match: "llm_judge_score",
  content: JSON.stringify({ score, reasoning }),
  repeat: true
})

describe("named cases", () => {
  const evalFile = [
    "target: { model: m, prompt: '{{input}}' }",
    "cases:",
    "  - name: greets back",
    "    input: hello",
    "    assert: [{ type: contains, value: hello }]",
    "  - input: bye",
    "    assert: [{ type: contains, value: nope }]",
    ""
  ].join("\n")

  test("text: the name leads the case line; an unnamed case is `case <n>`", async () => {
    const p = project(serve().baseUrl)
    p.write("eval.yml", evalFile)
    const r = await p.lait(["eval", "eval.yml"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe([
      "greets back: 1/1 (100%) PASS",
      "case 2: 0/1 (0%) FAIL",
      "  run 1: assertion 1: expected output to contain \"nope\", got \"echo: bye\"",
      "1 of 2 case(s) fully passed",
      ""
    ].join("\n"))
  })

  test("json: every case has its name; junit: the name is the test name (unnamed cases keep `case <n>: <input>`)", async () => {
    const p = project(serve().baseUrl)
    p.write("eval.yml", evalFile)
    const json = JSON.parse((await p.lait(["eval", "eval.yml", "--format", "json"])).stdout)
    expect(json.map((c: { name: string; case: number }) => [c.case, c.name])).toEqual([[1, "greets back"], [2, "case 2"]])
    const xml = parseXml((await p.lait(["eval", "eval.yml", "--format", "junit"])).stdout)
    const cases = childrenNamed(childrenNamed(xml, "testsuite")[0]!, "testcase")
    expect(cases.map((c) => c.attributes["name"])).toEqual(["greets back", "case 2: bye"])
  })

  test("two cases with one name are a validation error", async () => {
    const p = project("http://127.0.0.1:9/v1")
    p.write("eval.yml", "target: { model: m, prompt: x }\ncases:\n  - { name: a, input: x }\n  - { name: a, input: y }\n")
    const r = await p.lait(["eval", "eval.yml"])
    expect([r.code, r.stderr]).toEqual([
      3,
      "lait: failed to parse eval definition 'eval.yml': cases[1].name: duplicate case name 'a' (line 4)\n"
    ])
  })
})

describe("inputs, vars and default_assert", () => {
  test("a prompt target reads {{vars.x}} and a structured input; default_assert is added after each case's own", async () => {
    const server = serve([judgeReply(0.9, "fine")])
    const p = project(server.baseUrl)
    p.write(
      "eval.yml",
      [
        "target: { model: m, prompt: 'Reply {{vars.tone}} to {{input.who}} in {{input.lang}}' }",
        "default_assert:",
        "  - { type: llm_judge, criteria: polite, model: judge }",
        "cases:",
        "  - input: { who: Ada, lang: en }",
        "    vars: { tone: warmly }",
        "    assert: [{ type: contains, value: Ada }]",
        "  - input: { who: Bob, lang: fr }",
        "    vars: { tone: briefly }",
        ""
      ].join("\n")
    )
    const r = await p.lait(["eval", "eval.yml", "--format", "json"])
    expect(r.code).toBe(0)
    const targetTexts = userTexts(server).filter((t) => !t.startsWith("You are grading"))
    expect(targetTexts.sort()).toEqual(["Reply briefly to Bob in fr", "Reply warmly to Ada in en"])
    const json = JSON.parse(r.stdout)
    expect(json[0].input).toEqual({ who: "Ada", lang: "en" })
    expect(json[0].runs[0].assertions.map((a: { type: string }) => a.type)).toEqual(["contains", "llm_judge"])
    expect(json[1].runs[0].assertions.map((a: { assertion: number; type: string }) => [a.assertion, a.type])).toEqual([
      [1, "llm_judge"]
    ])
    // The judge saw the structured input as JSON text.
    expect(userTexts(server).some((t) => t.includes("Original input:\n{\"who\":\"Ada\",\"lang\":\"en\"}"))).toBe(true)
  })

  test("a workflow target takes a typed input as it is and a case's inputs over target.inputs", async () => {
    const server = serve()
    const p = project(server.baseUrl)
    p.write(
      "flows/greet.yml",
      [
        "inputs:",
        "  lang: { type: string }",
        "  punct: { type: string, default: '!' }",
        "input_schema: { type: object, properties: { who: { type: string } }, required: [who] }",
        "steps:",
        "  - jq: '\"hi \" + .who + \" (\" + $inputs.lang + \")\" + $inputs.punct'",
        ""
      ].join("\n")
    )
    p.write(
      "evals/greet.yml",
      [
        "target: { workflow: ../flows/greet.yml, inputs: { lang: en } }",
        "cases:",
        "  - input: { who: Ada }",
        "    assert: [{ type: equals, value: 'hi Ada (en)!' }]",
        "  - input: '{\"who\": \"Bob\"}'",
        "    inputs: { lang: fr, punct: '?' }",
        "    assert: [{ type: equals, value: 'hi Bob (fr)?' }]",
        "  - input: { who: Cy }",
        "    inputs: { colour: red }",
        ""
      ].join("\n")
    )
    const r = await p.lait(["eval", "evals/greet.yml"])
    expect(r.stdout.split("\n").slice(0, 4)).toEqual([
      "case 1: 1/1 (100%) PASS",
      "case 2: 1/1 (100%) PASS",
      "case 3: 0/1 (0%) FAIL",
      "  run 1: workflow 'flows/greet.yml': unknown input 'colour'; the workflow declares: lang, punct"
    ])
  })
})

describe("cases files", () => {
  test("JSONL relative to the eval file: one case a line, blank lines skipped", async () => {
    const server = serve()
    const p = project(server.baseUrl)
    p.write(
      "data/cases.jsonl",
      [
        JSON.stringify({ name: "first", input: "one", assert: [{ type: "contains", value: "one" }] }),
        "",
        JSON.stringify({ input: { n: 2 }, assert: [{ type: "contains", value: "\"n\":2" }] }),
        ""
      ].join("\n")
    )
    p.write("evals/e.yml", "target: { model: m, prompt: 'Q {{input}}' }\ncases: { file: ../data/cases.jsonl }\n")
    const r = await p.lait(["eval", "evals/e.yml"])
    expect([r.code, r.stdout]).toEqual([0, "first: 1/1 (100%) PASS\ncase 2: 1/1 (100%) PASS\n2 of 2 case(s) fully passed\n"])
    expect(new Set(userTexts(server))).toEqual(new Set(["Q {\"n\":2}", "Q one"]))
  })

  test("CSV: quoted commas, doubled quotes and line breaks in a field; vars.* columns; assert as JSON", async () => {
    const server = serve()
    const p = project(server.baseUrl)
    p.write(
      "cases.csv",
      [
        "name,input,vars.tone,assert",
        "plain,hello,warm,\"[{\"\"type\"\":\"\"contains\"\",\"\"value\"\":\"\"hello\"\"}]\"",
        "\"with, comma\",\"say \"\"hi\"\"\",cool,",
        ",\"two\r\nlines\",dry,\"[{\"\"type\"\":\"\"contains\"\",\"\"value\"\":\"\"absent\"\"}]\"",
        ""
      ].join("\r\n")
    )
    p.write("e.yml", "target: { model: m, prompt: '{{vars.tone}}: {{input}}' }\ncases: { file: cases.csv }\n")
    const r = await p.lait(["eval", "e.yml", "--format", "json"])
    expect(r.code).toBe(1)
    expect(userTexts(server).sort()).toEqual(["cool: say \"hi\"", "dry: two\r\nlines", "warm: hello"])
    const json = JSON.parse(r.stdout)
    expect(json.map((c: { name: string; input: string; passed: number }) => [c.name, c.input, c.passed])).toEqual([
      ["plain", "hello", 1],
      ["with, comma", "say \"hi\"", 1],
      ["case 3", "two\r\nlines", 0]
    ])
  })

  test("YAML: a list of cases", async () => {
    const p = project(serve().baseUrl)
    p.write("cases.yaml", "- name: y1\n  input: a\n  assert: [{ type: contains, value: 'echo: a' }]\n- input: b\n")
    p.write("e.yml", "target: { model: m, prompt: '{{input}}' }\ncases: { file: cases.yaml }\n")
    const r = await p.lait(["eval", "e.yml"])
    expect([r.code, r.stdout]).toEqual([0, "y1: 1/1 (100%) PASS\ncase 2: 1/1 (100%) PASS\n2 of 2 case(s) fully passed\n"])
  })

  test("JSON: an array of cases, read as JSON only", async () => {
    const server = serve()
    const p = project(server.baseUrl)
    p.write(
      "cases.json",
      JSON.stringify(
        [
          { name: "j1", input: "a", assert: [{ type: "contains", value: "echo: a" }] },
          { input: { n: 2 }, vars: { tone: "dry" }, assert: [{ type: "contains", value: "absent" }] }
        ],
        null,
        2
      )
    )
    p.write("e.yml", "target: { model: m, prompt: '{{input}}' }\ncases: { file: cases.json }\n")
    const r = await p.lait(["eval", "e.yml", "--format", "json"])
    expect(r.code).toBe(1)
    const json = JSON.parse(r.stdout)
    expect(json.map((c: { name: string; input: unknown; passed: number }) => [c.name, c.input, c.passed])).toEqual([
      ["j1", "a", 1],
      ["case 2", { n: 2 }, 0]
    ])
    expect(userTexts(server).sort()).toEqual(["a", "{\"n\":2}"])
    // lint reads it as the eval does.
    const lint = await p.lait(["lint", "e.yml"])
    expect(lint.code).toBe(0)
  })

  test.each([
    ["cases.json", "[\n  {\"input\": \"a\"},\n  {\"input\": \"b\",\n   \"asert\": []}\n]\n", "lait: data/cases.json:4: unknown key 'asert'; "],
    ["cases.json", "{\"input\": \"a\"}\n", "lait: data/cases.json:1: expected a JSON array of cases, got a mapping\n"],
    ["cases.json", "[{input: a}]\n", "lait: data/cases.json: invalid JSON: "],
    [
      "cases.jsonl",
      "{\"input\": \"a\"}\n\n{\"input\": \"b\", \"asert\": []}\n",
      "lait: data/cases.jsonl:3: unknown key 'asert'; cases accept: name, input, inputs, vars, assert\n"
    ],
    ["cases.jsonl", "{\"input\": \"a\"}\n{\"input\": \n", "lait: data/cases.jsonl:2: invalid JSON: "],
    [
      "cases.jsonl",
      "{\"input\": \"a\", \"assert\": [{\"type\": \"similar\"}]}\n",
      "lait: data/cases.jsonl:1: assert[0].type: unknown assertion type 'similar'; expected one of: "
    ],
    ["cases.csv", "input,name\na,b\n\"open,x\n", "lait: data/cases.csv:3: a quoted field is not closed\n"],
    ["cases.csv", "input,expected\na,b\n", "lait: data/cases.csv:1: unknown column 'expected'; case files accept: "],
    ["cases.csv", "input,assert\na,[oops\n", "lait: data/cases.csv:2: assert: invalid JSON: "],
    ["cases.csv", "input,name\na\n", "lait: data/cases.csv:2: expected 2 field(s) as in the header, got 1\n"],
    ["cases.yml", "- input: a\n- input: b\n  vars: [x]\n", "lait: data/cases.yml:3: vars: expected "],
    ["cases.txt", "input\n", "lait: cases file 'data/cases.txt': unknown extension '.txt'; expected one of: "]
  ])("%s %j: exit 3 naming the file and line", async (name, text, message) => {
    const p = project("http://127.0.0.1:9/v1")
    p.write(`data/${name}`, text)
    p.write("e.yml", `target: { model: m, prompt: x }\ncases: { file: data/${name} }\n`)
    const r = await p.lait(["eval", "e.yml"])
    expect(r.code).toBe(3)
    expect(r.stderr).toStartWith(message)
    expect(r.stderr.split("\n")).toHaveLength(2)
  })

  test("a cases file over 16 MiB is refused", async () => {
    const p = project("http://127.0.0.1:9/v1")
    p.write("big.jsonl", " ".repeat(16 * 1024 * 1024 + 1))
    p.write("e.yml", "target: { model: m, prompt: x }\ncases: { file: big.jsonl }\n")
    const r = await p.lait(["eval", "e.yml"])
    expect([r.code, r.stderr]).toEqual([
      1,
      "lait: failed to read cases file 'big.jsonl': file contents exceed the configured read limit of 16777216 bytes\n"
    ])
  })

  test("a missing cases file is a read error", async () => {
    const p = project("http://127.0.0.1:9/v1")
    p.write("e.yml", "target: { model: m, prompt: x }\ncases: { file: none.jsonl }\n")
    const r = await p.lait(["eval", "e.yml"])
    expect([r.code, r.stderr]).toEqual([1, "lait: failed to read cases file 'none.jsonl': no such file or directory\n"])
  })
})

const comparison = [
  "targets:",
  "  - { name: terse, model: m, prompt: 'terse {{input}}' }",
  "  - { name: chatty, model: m, prompt: 'chatty {{input}}' }",
  "default_assert:",
  "  - { type: llm_judge, criteria: friendly, model: judge }",
  "cases:",
  "  - name: greeting",
  "    input: hello",
  "    assert: [{ type: contains, value: hello }]",
  "  - name: farewell <b>&</b>",
  "    input: bye",
  "    assert: [{ type: contains, value: 'chatty bye' }]",
  ""
].join("\n")

describe("comparing targets", () => {
  test("text: one column per target, failures marked with their target, a footer per target", async () => {
    const server = serve([judgeReply(0.8, "warm enough")])
    const p = project(server.baseUrl)
    p.write("eval.yml", comparison)
    const r = await p.lait(["eval", "eval.yml", "--repeat", "2"])
    expect(r.code).toBe(1)
    expect(r.stdout.split("\n")).toEqual([
      "case               terse            chatty",
      "greeting           2/2 (100%) PASS  2/2 (100%) PASS",
      "farewell <b>&</b>  0/2 (0%) FAIL    2/2 (100%) PASS",
      "  [terse] run 1: assertion 1: expected output to contain \"chatty bye\", got \"echo: terse bye\"",
      "  [terse] run 2: assertion 1: expected output to contain \"chatty bye\", got \"echo: terse bye\"",
      "terse: 1 of 2 case(s) fully passed",
      "chatty: 2 of 2 case(s) fully passed",
      "reliability over 2 runs per case (Wilson 95% interval):",
      "  case               terse                                                    chatty",
      "  greeting           stable-pass  pass@1=1.00  pass^2=1  95% CI [0.34, 1.00]  stable-pass  pass@1=1.00  pass^2=1  95% CI [0.34, 1.00]",
      "  farewell <b>&</b>  stable-fail  pass@1=0.00  pass^2=0  95% CI [0.00, 0.66]  stable-pass  pass@1=1.00  pass^2=1  95% CI [0.34, 1.00]",
      "  terse: mean pass@1=0.50  pass^2 1 of 2 case(s)  stable-pass 1, flaky 0, stable-fail 1",
      "  chatty: mean pass@1=1.00  pass^2 2 of 2 case(s)  stable-pass 2, flaky 0, stable-fail 0",
      ""
    ])
    // 2 cases x 2 targets x 2 repeats, each with one judge.
    expect(server.requests).toHaveLength(16)
    expect(r.stderr).toContain("eval: 2 case(s) x 2 target(s) x 2 run(s) = 8 run(s)")
    expect(r.stderr).toContain("eval: case 2 [terse] done: 0/2 passed")
  })

  test("json: a matrix of cases by targets, each run with output, assertions, judge score and reasoning, duration, tokens, cost", async () => {
    const server = serve([judgeReply(0.8, "warm <enough>")])
    const p = project(server.baseUrl)
    p.write("eval.yml", comparison)
    const r = await p.lait(["eval", "eval.yml", "--format", "json"])
    const json = JSON.parse(r.stdout)
    expect(json.targets.map((t: { name: string; fully_passed: number }) => [t.name, t.fully_passed])).toEqual([
      ["terse", 1],
      ["chatty", 2]
    ])
    expect(json.cases.map((c: { case: number; name: string }) => [c.case, c.name])).toEqual([
      [1, "greeting"],
      [2, "farewell <b>&</b>"]
    ])
    const cell = json.cases[1].results[0]
    expect(cell).toMatchObject({ target: "terse", passed: 0, total: 1, label: "stable-fail" })
    const runJson = cell.runs[0]
    expect(runJson).toMatchObject({
      passed: false,
      output: "echo: terse bye",
      assertions: [
        {
          assertion: 1,
          type: "contains",
          passed: false,
          message: "expected output to contain \"chatty bye\", got \"echo: terse bye\""
        },
        { assertion: 2, type: "llm_judge", passed: true, score: 0.8, reasoning: "warm <enough>" }
      ],
      // The fixture server counts 10 prompt and 5 completion tokens a request; the target is priced.
      tokens: { prompt: 20, completion: 10, total: 30 },
      requests: 2,
      cost_usd: 0.02
    })
    expect(runJson.duration_ms).toBeGreaterThanOrEqual(0)
    expect(json.cases[1].results[1]).toMatchObject({ target: "chatty", passed: 1, label: "stable-pass" })
  })

  test("junit: one testsuite per target", async () => {
    const p = project(serve([judgeReply(0.8, "ok")]).baseUrl)
    p.write("eval.yml", comparison)
    const xml = parseXml((await p.lait(["eval", "eval.yml", "--format", "junit"])).stdout)
    expect(xml.attributes).toMatchObject({ tests: "4", failures: "1" })
    const suites = childrenNamed(xml, "testsuite")
    expect(suites.map((s) => [s.attributes["name"], s.attributes["failures"]])).toEqual([
      ["eval.yml [terse]", "1"],
      ["eval.yml [chatty]", "0"]
    ])
    expect(childrenNamed(suites[0]!, "testcase").map((c) => c.attributes["name"])).toEqual([
      "greeting",
      "farewell <b>&</b>"
    ])
  })

  test("--dry-run counts every target's runs and requests; nothing is sent", async () => {
    const server = serve()
    const p = project(server.baseUrl)
    p.write("eval.yml", comparison)
    const r = await p.lait(["eval", "eval.yml", "--dry-run", "--repeat", "3"])
    expect(r.code).toBe(0)
    expect(r.stdout.split("\n").slice(0, 3)).toEqual([
      "dry run: nothing is sent",
      "runs: 2 case(s) x 2 target(s) x 3 repeat(s) = 12",
      "requests: 24 = 12 to the target + 12 llm_judge"
    ])
    expect(server.requests).toHaveLength(0)
  })

  test("target and targets together, or an empty targets list, are validation errors", async () => {
    const p = project("http://127.0.0.1:9/v1")
    p.write("a.yml", "target: { model: m, prompt: x }\ntargets: [{ model: m, prompt: y }]\ncases: []\n")
    p.write("b.yml", "targets: []\ncases: []\n")
    p.write("c.yml", "targets:\n  - { name: a, model: m, prompt: x }\n  - { name: a, model: m, prompt: y }\ncases: []\n")
    const [a, b, c] = await Promise.all(["a.yml", "b.yml", "c.yml"].map((f) => p.lait(["eval", f])))
    expect([a!.code, a!.stderr]).toEqual([
      3,
      "lait: failed to parse eval definition 'a.yml': 'target' and 'targets' cannot be used together; use one (line 2)\n"
    ])
    expect([b!.code, b!.stderr]).toEqual([
      3,
      "lait: failed to parse eval definition 'b.yml': targets: expected a non-empty list of targets, got an empty list (line 1)\n"
    ])
    expect([c!.code, c!.stderr]).toEqual([
      3,
      "lait: failed to parse eval definition 'c.yml': targets[1].name: duplicate target name 'a' (line 3)\n"
    ])
  })
})

describe("html report in a real browser", () => {
  test("-o report.html: summary, a row per case, runs with output and judge reasoning, the matrix; not blank", async () => {
    const browser = await findChromium()
    if ("reason" in browser) {
      console.log(`skipped: ${browser.reason}`)
      return
    }
    const server = serve([judgeReply(0.8, "warm <em>enough</em> & kind")])
    const p = project(server.baseUrl)
    p.write("eval.yml", comparison.replace("name: greeting", "name: greeting <img src=x onerror=alert(1)>"))
    const r = await p.lait(["eval", "eval.yml", "--repeat", "3", "--format", "html", "-o", "report.html"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    const file = path.join(p.dir, "report.html")
    const html = fs.readFileSync(file, "utf8")
    // Self-contained: nothing to fetch.
    expect(html).not.toMatch(/<(link|img|iframe)\b|src=["']?http|href=["']?http|@import|url\(/i)

    const dom = await dumpDom(browser.path, file)
    expect(dom.code).toBe(0)
    const page = dom.stdout
    expect(page).toContain("lait eval report")
    expect(page).toContain("<h2>Comparison</h2>")
    expect(page).toContain("<th>terse</th><th>chatty</th>")
    expect(page).toContain("Target: chatty")
    // User text stays text: the name and the judge's reasoning are escaped, never elements.
    expect(page).toContain("greeting &lt;img src=x onerror=alert(1)&gt;")
    expect(page).toContain("farewell &lt;b&gt;&amp;&lt;/b&gt;")
    expect(page).toContain("warm &lt;em&gt;enough&lt;/em&gt; &amp; kind")
    expect(page).not.toContain("<img")
    expect(page).toContain("3/3 (100%)")
    expect(page).toContain("0/3 (0%)")
    expect(page).toContain("[0.00, 0.56]")
    expect(page).toContain("stable-fail")
    expect(page).toContain("echo: terse bye")
    expect(page).toContain("score 0.80")
    expect((page.match(/<details class="run /g) ?? []).length).toBe(12)

    // Outside the project directory, so the path printed below stays valid after the test.
    const png = path.join(os.tmpdir(), "lait-eval-report.png")
    const shot = await screenshot(browser.path, file, png)
    expect(shot.code).toBe(0)
    const stats = pngStats(fs.readFileSync(png))
    console.log(`html report screenshot: ${png} (${stats.width}x${stats.height}, grey variance ${stats.variance.toFixed(1)})`)
    expect([stats.width, stats.height]).toEqual([1280, 1600])
    expect(stats.levels).toBeGreaterThan(20)
    expect(stats.variance).toBeGreaterThan(50)
  }, 900_000)
})
