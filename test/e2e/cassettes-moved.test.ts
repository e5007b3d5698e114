// Replays that survive a moved server, driven through the compiled CLI: a recording made against
// one base URL answers a replay that asks another (OPENAI_BASE_URL, another port) with a note and no
// request sent; two such recordings are a miss that lists both; --strict-replay turns the note into a
// miss, in `lait run`, `lait test` and `lait eval`.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { requestKey } from "../../src/model/cassette/key.ts"
import { modelsYaml, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-cassettes-moved")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const workflow = (baseUrl: string) => `name: notes
${modelsYaml({ writer: [{ baseUrl, modelId: "fixture-model" }] })}
default:
  model: writer
steps:
  - id: draft
    prompt: 'Draft a note for: {{ input }}'
    max_tokens: 64
  - id: tighten
    prompt: 'Tighten: {{ input }}'
`

const keyOf = (baseUrl: string, content: string, extra: Record<string, unknown> = {}) =>
  requestKey({
    base_url: baseUrl,
    model_id: "fixture-model",
    messages: [{ role: "user", content }],
    tools: [],
    response_format: null,
    ...extra
  })

/** Records `workflow(baseUrl)` with PROMPT `topic` into `dir` against a fresh fixture server. */
const record = async (dir: string, topic: string) => {
  const s = server()
  const file = ws.write(`${dir}.yml`, workflow(s.baseUrl))
  const r = await ws.lait(["run", file, topic, "--record", dir])
  expect(outcome(r)).toMatchObject({ code: 0, stdout: `echo: Tighten: echo: Draft a note for: ${topic}\n` })
  await s.stop()
  return s.baseUrl
}

describe("a recording made for another base URL", () => {
  test("replays with a note per request, and the server now configured is never asked", async () => {
    const recordedUrl = await record("moved/c", "ports")
    const now = server({ script: [{ content: "live answer", repeat: true }] })
    const r = await ws.lait(["run", ws.write("moved/wf.yml", workflow(recordedUrl)), "ports", "--replay", "moved/c"], {
      env: { OPENAI_BASE_URL: now.baseUrl }
    })
    const draft = keyOf(recordedUrl, "Draft a note for: ports", { max_tokens: 64 })
    const tighten = keyOf(recordedUrl, "Tighten: echo: Draft a note for: ports")
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "echo: Tighten: echo: Draft a note for: ports\n",
      stderr: "==> notes\n[1] draft\n" +
        `note: replayed moved/c/${draft}.json recorded for ${recordedUrl} (requested ${now.baseUrl})\n` +
        "[2] tighten\n" +
        `note: replayed moved/c/${tighten}.json recorded for ${recordedUrl} (requested ${now.baseUrl})\n`
    })
    expect(now.requests).toHaveLength(0)

    // --strict-replay: the same replay is a miss that names the recording it refused.
    const strict = await ws.lait(
      ["run", ws.write("moved/wf.yml", workflow(recordedUrl)), "ports", "--replay", "moved/c", "--strict-replay"],
      { env: { OPENAI_BASE_URL: now.baseUrl } }
    )
    expect(strict.code).toBe(1)
    expect(strict.stdout).toBe("")
    expect(strict.stderr).toEndWith(
      `; 'moved/c/${draft}.json' (recorded for ${recordedUrl}) matches everything but the base URL ` +
        `(requested ${now.baseUrl}), and --strict-replay refuses it\n`
    )
    expect(strict.stderr).toStartWith("==> notes\n[1] draft\nlait: no recorded cassette for this request")
    expect(now.requests).toHaveLength(0)
  })

  test("two recordings for two other base URLs are a miss that lists both", async () => {
    const first = await record("two/c", "twice")
    const second = await record("two/c", "twice")
    expect(first).not.toBe(second)
    const now = server()
    const r = await ws.lait(["run", ws.write("two/wf.yml", workflow(now.baseUrl)), "twice", "--replay", "two/c"])
    const listed = [first, second]
      .map((url) => [`two/c/${keyOf(url, "Draft a note for: twice", { max_tokens: 64 })}.json`, url] as const)
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([file, url]) => `'${file}' (recorded for ${url})`)
    expect(r.code).toBe(1)
    expect(r.stderr).toEndWith(
      `; 2 recordings match everything but the base URL (requested ${now.baseUrl}): ${listed.join(", ")}; ` +
        "lait cannot tell which one to replay\n"
    )
    expect(now.requests).toHaveLength(0)
  })

  test("a cassette of the original lait (no sampling fields) is found by its key", async () => {
    const old = "http://127.0.0.1:9/v1"
    const key = keyOf(old, "hello", { temperature: 1 })
    ws.write(
      `rust/c/${key}.json`,
      JSON.stringify({
        recorded_at: "2025-01-01T00:00:00Z",
        request: { base_url: old, model_id: "fixture-model", messages: [{ role: "user", content: "hello" }], tools: [], response_format: null },
        response: { choices: [{ message: { role: "assistant", content: "recorded by the Rust lait" } }] }
      })
    )
    const file = ws.write("rust/wf.yml", `${modelsYaml({ m: [{ baseUrl: "http://127.0.0.1:10/v1", modelId: "fixture-model" }] })}
steps:
  - prompt: 'hello'
    model: m
    temperature: 1.0
`)
    const r = await ws.lait(["run", file, "x", "--replay", "rust/c"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "recorded by the Rust lait\n",
      stderr: `[1] step-1 (prompt)\nnote: replayed rust/c/${key}.json recorded for ${old} (requested http://127.0.0.1:10/v1)\n`
    })
    // Another temperature is another request, whatever the base URL.
    fs.writeFileSync(path.join(ws.dir, "rust/wf.yml"), fs.readFileSync(path.join(ws.dir, "rust/wf.yml"), "utf8").replace("1.0", "0.5"))
    expect((await ws.lait(["run", file, "x", "--replay", "rust/c"])).code).toBe(1)
  })

  test("a recording whose base URL held credentials (stored masked) matches on its other fields", async () => {
    const old = "http://user:s3cret@127.0.0.1:9/v1"
    const key = keyOf(old, "hello")
    ws.write(
      `masked/c/${key}.json`,
      JSON.stringify({
        recorded_at: "2025-01-01T00:00:00Z",
        request: {
          base_url: "http://user:<redacted>@127.0.0.1:9/v1",
          model_id: "fixture-model",
          reasoning_effort: null,
          temperature: null,
          top_p: null,
          max_tokens: null,
          messages: [{ role: "user", content: "hello" }],
          tools: [],
          response_format: null
        },
        response: { choices: [{ message: { role: "assistant", content: "from behind a proxy" } }] }
      })
    )
    const file = ws.write("masked/wf.yml", `${modelsYaml({ m: [{ baseUrl: "http://127.0.0.1:10/v1", modelId: "fixture-model" }] })}
steps:
  - prompt: 'hello'
    model: m
`)
    const r = await ws.lait(["run", file, "x", "--replay", "masked/c"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "from behind a proxy\n",
      stderr: "[1] step-1 (prompt)\n" +
        `note: replayed masked/c/${key}.json recorded for http://user:<redacted>@127.0.0.1:9/v1 ` +
        "(requested http://127.0.0.1:10/v1)\n"
    })
  })

  test("--strict-replay needs --replay", async () => {
    const file = ws.write("flags/wf.yml", workflow("http://127.0.0.1:9/v1"))
    const r = await ws.lait(["run", file, "x", "--strict-replay"])
    expect(outcome(r)).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--strict-replay' requires '--replay <DIR>'\n"
    })
  })
})

describe("lait test and lait eval", () => {
  test("a test file replays a recording made for another server; --strict-replay fails it", async () => {
    const recordedUrl = await record("suite/c", "tests")
    // The workflow under test now names another server, as after a port change.
    ws.write("suite/moved.yml", workflow("http://127.0.0.1:10/v1"))
    ws.write(
      "suite/t.yml",
      `workflow: moved.yml
input: tests
replay: c
assert:
  - type: equals
    value: 'echo: Tighten: echo: Draft a note for: tests'
`
    )
    const r = await ws.lait(["test", "suite/t.yml"])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("suite/t.yml: PASS\n1 passed, 0 failed, 1 total\n")
    const draft = keyOf(recordedUrl, "Draft a note for: tests", { max_tokens: 64 })
    expect(r.stderr).toContain(
      `note: replayed suite/c/${draft}.json recorded for ${recordedUrl} (requested http://127.0.0.1:10/v1)\n`
    )
    // Answering from a moved server's recordings counts as using them.
    expect(outcome(await ws.lait(["cassettes", "prune", "suite/t.yml"]))).toMatchObject({ code: 0, stdout: "" })
    const strict = await ws.lait(["test", "suite/t.yml", "--strict-replay"])
    expect(strict.code).toBe(1)
    expect(strict.stdout).toContain("suite/t.yml: ERROR\n")
    expect(strict.stdout).toContain("and --strict-replay refuses it")
  })

  test("lait eval --replay takes the note too, and --strict-replay refuses", async () => {
    const s = server()
    ws.write("ev/eval.yml", "target: { model: m, prompt: 'Say {{input}}' }\ncases:\n  - input: hi\n    assert: [{ type: contains, value: 'echo: Say hi' }]\n")
    ws.write("ev/lait.config.yml", `models:\n  m:\n    - provider: { base_url: '${s.baseUrl}' }\n      model_id: fixture-model\n`)
    const recorded = await ws.lait(["eval", "eval.yml", "--record", "c"], { cwd: path.join(ws.dir, "ev") })
    expect(recorded.code).toBe(0)
    await s.stop()
    const now = server()
    const env = { OPENAI_BASE_URL: now.baseUrl }
    const replayed = await ws.lait(["eval", "eval.yml", "--replay", "c"], { cwd: path.join(ws.dir, "ev"), env })
    expect({ code: replayed.code, stdout: replayed.stdout }).toEqual({ code: 0, stdout: recorded.stdout })
    expect(replayed.stderr).toContain(`recorded for ${s.baseUrl} (requested ${now.baseUrl})`)
    const strict = await ws.lait(["eval", "eval.yml", "--replay", "c", "--strict-replay"], {
      cwd: path.join(ws.dir, "ev"),
      env
    })
    // A cassette miss means the run could not run: an `error` run, exit 4 (not a failed case).
    expect(strict.code).toBe(4)
    expect(strict.stdout).toContain("--strict-replay refuses it")
    expect(strict.stdout).toStartWith("case 1: ERROR (1 run(s) could not run)\n")
    expect(now.requests).toHaveLength(0)
  })
})
