// App targets of `lait eval` and `lait test` (docs/apps.md): an exec target recorded with `--record`
// against the fixture server and replayed with `--replay` once the server is stopped (its tool
// calls and usage assertions holding both times), an app that exits non-zero as an ERROR, and http
// targets asking a running service, with templates and output_jq, in an eval and in a test file.
import { afterAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { server, workspace } from "./model-harness.ts"

const ws = workspace("e2e-app-targets")
afterAll(() => ws.remove())

// A plain-fetch app (any language would do): one question per input line, the answer on stdout.
const app = `const input = require("node:fs").readFileSync(0, "utf8").trim()
const base = process.env.OPENAI_BASE_URL
const ask = async (messages) => {
  const r = await fetch(base + "/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer " + process.env.OPENAI_API_KEY },
    body: JSON.stringify({ model: "fast", messages, tools: [{ type: "function", function: { name: "search" } }] })
  })
  if (!r.ok) { console.error("model said", r.status, await r.text()); process.exit(3) }
  return (await r.json()).choices[0].message
}
const first = await ask([{ role: "user", content: input }])
const calls = first.tool_calls ?? []
const final = calls.length === 0 ? first : await ask([
  { role: "user", content: input }, first,
  ...calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: "found it" }))
])
console.log(final.content)
`

test("an eval's exec target is recorded, then replayed with the server stopped", async () => {
  const s = server({
    script: [
      { match: "found it", content: "the answer is 42", usage: { prompt_tokens: 30, completion_tokens: 5 } },
      { match: "question", tool_calls: [{ id: "t1", name: "search", arguments: '{"q":"life"}' }] }
    ]
  })
  ws.write("lait.config.yml", `models:\n  fast:\n    - provider: {base_url: '${s.baseUrl}'}\n      model_id: fixture-model\n`)
  ws.write("app.cjs", app.replace("const first", "void (async () => {\nconst first") + "})()\n")
  ws.write(
    "eval.yml",
    `target:
  exec: node app.cjs
cases:
  - input: the question
    assert:
      - type: contains
        value: "42"
      - type: tool_called
        name: search
        args_jq: '.q == "life"'
      - type: usage
        max_total_tokens: 100
`
  )
  const recorded = await ws.lait(["eval", "eval.yml", "--record", "cassettes"])
  expect(recorded.stdout).toContain("1 of 1 case(s) fully passed")
  expect(recorded.code).toBe(0)
  expect(s.requests).toHaveLength(2)
  await s.stop()
  const replayed = await ws.lait(["eval", "eval.yml", "--replay", "cassettes", "--format", "json"])
  expect(replayed.code).toBe(0)
  const report = JSON.parse(replayed.stdout)
  expect(JSON.stringify(report)).toContain("the answer is 42")

  // Another input misses the cassettes: the app exits 3, and the eval says it could not run.
  ws.write("miss.yml", fs.readFileSync(path.join(ws.dir, "eval.yml"), "utf8").replace("the question", "a question"))
  const missed = await ws.lait(["eval", "miss.yml", "--replay", "cassettes"])
  expect(missed.code).toBe(4)
  expect(missed.stdout + missed.stderr).toContain("exec target 'node app.cjs' failed")
  expect(missed.stdout + missed.stderr).toContain("lait_replay_miss")
}, 60_000)

test("http targets: a running service asked per case (eval) and per file (test)", async () => {
  const service = Bun.serve({
    port: 0,
    fetch: async (request) => {
      const body = (await request.json()) as { text: string; lang: string }
      return Response.json({ result: { label: body.text.includes("refund") ? "billing" : "other", lang: body.lang } })
    }
  })
  try {
    ws.write(
      "http-eval.yml",
      `target:
  http:
    url: http://127.0.0.1:${service.port}/classify
    headers: {x-lang: "{{vars.lang}}"}
    body: {text: "{{input}}", lang: "{{vars.lang}}"}
  output_jq: .result.label
cases:
  - input: I want a refund
    vars: {lang: en}
    assert: [{type: equals, value: billing}]
  - input: hello
    vars: {lang: fr}
    assert: [{type: equals, value: billing}]
`
    )
    const r = await ws.lait(["eval", "http-eval.yml"])
    expect(r.stdout).toContain("case 1: 1/1 (100%) PASS")
    expect(r.stdout).toContain("case 2: 0/1 (0%) FAIL")
    ws.write(
      "http.test.yml",
      `http:
  url: http://127.0.0.1:${service.port}/classify
  body: {text: "{{input}}", lang: de}
output_jq: .result
input: refund please
replay: unused
assert:
  - type: jq
    expr: '.label == "billing" and .lang == "de"'
`
    )
    const t = await ws.lait(["test", "http.test.yml"])
    expect(t.stdout).toContain("http.test.yml: PASS")
    expect(t.code).toBe(0)
  } finally {
    await service.stop(true)
  }
  ws.write("down.test.yml", "http: {url: 'http://127.0.0.1:1/x'}\ninput: x\nreplay: unused\n")
  const down = await ws.lait(["test", "down.test.yml"])
  expect(down.stdout).toContain("down.test.yml: ERROR")
  expect(down.stdout).toContain("http target 'http://127.0.0.1:1/x' failed")
})
