// `exec:` test files: an app written against the official `openai` client, run by `lait test` with
// its model calls going through the in-process proxy. Recorded against the fixture server with
// `--record`, then replayed with the server stopped: output, `jq`, `tool_called` and `usage`
// assertions hold both times; input as an argument, env:, a non-zero exit as an ERROR with its
// stderr, and a file that names both workflow and exec refused.
import { afterAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { server, workspace } from "./model-harness.ts"
import { repoRoot } from "./util.ts"

const ws = workspace("e2e-exec")
afterAll(() => ws.remove())

const openai = path.join(repoRoot, "node_modules", "openai", "index.mjs")

// A triage app: asks for a tool call, "runs" the tool, sends the result back, prints JSON.
const app = `import OpenAI from ${JSON.stringify(openai)}
const client = new OpenAI()
import { readFileSync } from "node:fs"
const ticket = readFileSync(0, "utf8")
const tools = [{ type: "function", function: { name: "lookup_customer", parameters: { type: "object" } } }]
const messages = [{ role: "system", content: process.env.TRIAGE_PROMPT }, { role: "user", content: ticket }]
const first = await client.chat.completions.create({ model: "fast", messages, tools })
const call = first.choices[0].message.tool_calls[0]
messages.push(first.choices[0].message, { role: "tool", tool_call_id: call.id, content: '{"plan":"pro"}' })
const final = await client.chat.completions.create({ model: "fast", messages, tools })
console.log(JSON.stringify({ category: final.choices[0].message.content, key: process.env.OPENAI_API_KEY }))
`

test("an exec target is recorded, then replayed with the model server stopped", async () => {
  const s = server({
    script: [
      { match: "pro", content: "billing", usage: { prompt_tokens: 20, completion_tokens: 2 } },
      { match: "charged twice", tool_calls: [{ id: "c1", name: "lookup_customer", arguments: '{"id":7}' }] }
    ]
  })
  ws.write("lait.config.yml", `models:\n  fast:\n    - provider: {base_url: '${s.baseUrl}', api_key: real-key}\n      model_id: fixture-model\n`)
  ws.write("app/triage.mjs", app)
  ws.write(
    "triage.test.yml",
    `exec: "node app/triage.mjs"
env: {TRIAGE_PROMPT: "Classify the ticket."}
input: I was charged twice
replay: cassettes
assert:
  - type: jq
    expr: '.category == "billing" and .key == "lait-proxy"'
  - type: tool_called
    name: lookup_customer
    args_jq: '.id == 7'
  - type: usage
    max_total_tokens: 100
`
  )
  const recorded = await ws.lait(["test", "triage.test.yml", "--record"])
  expect(recorded.stdout).toContain("PASS")
  expect(recorded.code).toBe(0)
  expect(s.requests).toHaveLength(2)
  expect(s.requests.every((r) => r.headers["authorization"] === "Bearer real-key")).toBe(true)
  expect(fs.readdirSync(path.join(ws.dir, "cassettes")).filter((f) => f.endsWith(".json"))).toHaveLength(2)

  await s.stop()
  const replayed = await ws.lait(["test", "triage.test.yml"])
  expect(replayed.stdout).toContain("PASS")
  expect(replayed.code).toBe(0)

  // The same file, failing: the trajectory is checked, not assumed.
  ws.write(
    "strict.test.yml",
    `exec: [node, app/triage.mjs]
env: {TRIAGE_PROMPT: "Classify the ticket."}
input: I was charged twice
replay: cassettes
assert:
  - type: tool_called
    name: lookup_customer
    max: 0
  - type: usage
    max_total_tokens: 10
`
  )
  const failing = await ws.lait(["test", "strict.test.yml"])
  expect(failing.code).toBe(1)
  expect(failing.stdout).toContain("expected tool 'lookup_customer' to be called at most 0 time(s), was called 1 time(s)")
  expect(failing.stdout).toContain("exceeded max_total_tokens 10")

  // A changed prompt misses the cassettes: the app's error is the run's ERROR, with its stderr.
  ws.write("miss.test.yml", fs.readFileSync(path.join(ws.dir, "strict.test.yml"), "utf8").replace("Classify", "Sort"))
  const missed = await ws.lait(["test", "miss.test.yml"])
  expect(missed.code).toBe(1)
  expect(missed.stdout).toContain("ERROR")
  expect(missed.stdout).toContain("exited with exit status: 1")
  expect(missed.stdout).toContain("404")
}, 60_000)

test("input_mode: arg, and exec with workflow refused", async () => {
  ws.write("echo.test.yml", "exec: [sh, -c, 'echo \"got $0\"']\ninput_mode: arg\ninput: hi there\nreplay: none\nassert:\n  - type: equals\n    value: got hi there\n")
  const echoed = await ws.lait(["test", "echo.test.yml"])
  expect(echoed.stdout).toContain("PASS")
  ws.write("both.test.yml", "exec: [sh]\nworkflow: x.yml\nreplay: none\n")
  const both = await ws.lait(["test", "both.test.yml"])
  expect(both.code).not.toBe(0)
  expect(both.stdout + both.stderr).toContain("exactly one of 'workflow', 'exec' and 'http'")
})

test("workdir: temp with fixtures, and a timeout that stops the app", async () => {
  ws.write("data/notes.txt", "from the fixture\n")
  ws.write(
    "workdir.test.yml",
    "exec: [sh, -c, 'cat notes.txt; pwd > where.txt']\nworkdir: temp\nfixtures: [data/notes.txt]\n" +
      "replay: none\nassert:\n  - type: equals\n    value: from the fixture\n"
  )
  const inTemp = await ws.lait(["test", "workdir.test.yml"])
  expect(inTemp.stdout).toContain("workdir.test.yml: PASS")
  // The app wrote into the temp directory, which is gone: nothing landed next to the test file.
  expect(fs.existsSync(path.join(ws.dir, "where.txt"))).toBe(false)
  ws.write("slow.test.yml", "exec: [sleep, '300']\ntimeout: 0.5\nreplay: none\n")
  const slow = await ws.lait(["test", "slow.test.yml"])
  expect(slow.stdout).toContain("slow.test.yml: ERROR")
  expect(slow.stdout).toContain("target 'sleep 300' did not finish within 0.5 s")
})

test("lait lint: exec keys are known, a program that is not there is a warning", async () => {
  ws.write("lint-ok.test.yml", "exec: [sh, -c, 'echo hi']\nreplay: none\n")
  ws.write("lint-missing.test.yml", "exec: ./not-here.sh --fast\nreplay: none\n")
  ws.write("lint-eval.yml", "target:\n  exec: [no-such-program-lait]\ncases:\n  - input: x\n")
  const r = await ws.lait(["lint", "lint-ok.test.yml", "lint-missing.test.yml", "lint-eval.yml"])
  expect(r.stdout).toContain("lint-missing.test.yml:\n  warning: 'exec': './not-here.sh' is not an executable file where the app runs")
  expect(r.stdout).toContain("target.exec: 'no-such-program-lait' is not found on PATH")
  expect(r.stdout.split("lint-missing")[0]).not.toContain("'exec'")
  ws.write("lint-bad.test.yml", "exec: [sh]\ninput_mode: file\nreplay: none\n")
  const bad = await ws.lait(["lint", "lint-bad.test.yml"])
  expect(bad.code).toBe(3)
  expect(bad.stdout).toContain("input_mode")
})
