// --record / --replay through the CLI against the fixture OpenAI server: the recording is replayed
// with the server gone, file names are the Rust-compatible request keys, the network is never
// touched on replay, and a miss explains itself.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { requestKey } from "../../src/model/cassette/key.ts"
import { startOpenAiServer } from "../fixtures/openai-server.ts"
import { bodies, modelsYaml, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-model-rr")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const workflow = (baseUrl: string, extra = "") => `name: notes
description: drafts and tightens a release note
${modelsYaml({ writer: [{ baseUrl, modelId: "fixture-model" }] })}
default:
  model: writer
steps:
  - id: draft
    system: 'You write release notes.'
    prompt: 'Draft a note for: {{ input }}'
    max_tokens: 64${extra}
  - id: tighten
    prompt: 'Tighten: {{ input }}'
`

const keyOf = (baseUrl: string, messages: ReadonlyArray<Record<string, string>>, extra: Record<string, unknown> = {}) =>
  requestKey({
    base_url: baseUrl,
    model_id: "fixture-model",
    messages: messages as never,
    tools: [],
    response_format: null,
    ...extra
  })

const cassetteNames = (dir: string) => fs.readdirSync(path.join(ws.dir, dir)).sort()

describe("record, then replay without a server", () => {
  test("the replay prints what the recording printed; cassettes are named by the request keys", async () => {
    const s = server({
      script: [
        { match: "Draft a note", content: "lait 1.2 adds --replay.", usage: { prompt_tokens: 31, completion_tokens: 9 } },
        { match: "Tighten", content: "lait 1.2: --replay.", usage: { prompt_tokens: 17, completion_tokens: 6 } }
      ]
    })
    const file = ws.write("rr/notes.yml", workflow(s.baseUrl))
    const recorded = await ws.lait(["run", file, "the replay flag", "--record", "rr/cassettes", "--show-usage"])
    const usage = [
      "usage:",
      "  draft: prompt=31 completion=9 total=40",
      "  tighten: prompt=17 completion=6 total=23",
      "  total: prompt=48 completion=15 total=63 (2 requests)"
    ]
    expect(outcome(recorded)).toEqual({
      code: 0,
      stdout: "lait 1.2: --replay.\n",
      stderr: ["==> notes: drafts and tightens a release note", "[1] draft", "[2] tighten", ...usage, ""].join("\n")
    })
    expect(s.requests).toHaveLength(2)
    // max_tokens travels as max_completion_tokens; unset sampling fields are not sent at all.
    expect(bodies(s)[0]).toEqual({
      model: "fixture-model",
      stream: false,
      messages: [
        { role: "system", content: "You write release notes." },
        { role: "user", content: "Draft a note for: the replay flag" }
      ],
      max_completion_tokens: 64
    })

    const draftKey = keyOf(s.baseUrl, [
      { role: "system", content: "You write release notes." },
      { role: "user", content: "Draft a note for: the replay flag" }
    ], { max_tokens: 64 })
    const tightenKey = keyOf(s.baseUrl, [{ role: "user", content: "Tighten: lait 1.2 adds --replay." }])
    expect(cassetteNames("rr/cassettes")).toEqual([`${draftKey}.json`, `${tightenKey}.json`].sort())

    const cassette = JSON.parse(ws.read(`rr/cassettes/${draftKey}.json`)) as Record<string, unknown>
    expect(Object.keys(cassette)).toEqual(["recorded_at", "request", "response"])
    expect(Date.parse(cassette["recorded_at"] as string)).toBeGreaterThan(Date.now() - 120_000)
    expect(cassette["request"]).toMatchObject({
      base_url: s.baseUrl,
      model_id: "fixture-model",
      max_tokens: 64,
      messages: [
        { role: "system", content: "You write release notes." },
        { role: "user", content: "Draft a note for: the replay flag" }
      ],
      tools: [],
      response_format: null
    })
    expect(cassette["response"]).toMatchObject({
      choices: [{ message: { role: "assistant", content: "lait 1.2 adds --replay." } }],
      usage: { prompt_tokens: 31, completion_tokens: 9, total_tokens: 40 }
    })
    // Pretty-printed, atomically written: no temp files are left behind.
    expect(ws.read(`rr/cassettes/${draftKey}.json`)).toStartWith("{\n  \"recorded_at\": ")

    await s.stop()
    const replayed = await ws.lait(["run", file, "the replay flag", "--replay", "rr/cassettes", "--show-usage"])
    expect(outcome(replayed)).toEqual(outcome(recorded))

    // A server on the very same address during a replay: it is never asked anything.
    const listener = startOpenAiServer({ port: s.port })
    try {
      const again = await ws.lait(["run", file, "the replay flag", "--replay", "rr/cassettes", "--json"])
      expect(outcome(again)).toEqual({
        code: 0,
        stdout: JSON.stringify({
          content: "lait 1.2: --replay.",
          reasoning: null,
          usage: { prompt_tokens: 48, completion_tokens: 15, total_tokens: 63 },
          finish_reason: "stop"
        }) + "\n",
        stderr: "==> notes: drafts and tightens a release note\n[1] draft\n[2] tighten\n"
      })
      expect(listener.requests).toHaveLength(0)
    } finally {
      await listener.stop()
    }
  })

  test("a cassette in the Rust lait's format (request without sampling fields) replays", async () => {
    const baseUrl = "http://127.0.0.1:9/v1"
    const file = ws.write("rust/wf.yml", `${modelsYaml({ m: [{ baseUrl, modelId: "fixture-model" }] })}
steps:
  - prompt: 'hello'
    model: m
    temperature: 1.0
`)
    const key = keyOf(baseUrl, [{ role: "user", content: "hello" }], { temperature: 1 })
    // The golden-vector shape from the Rust implementation: temperature is the float 1.0.
    ws.write(
      `rust/cassettes/${key}.json`,
      JSON.stringify({
        recorded_at: "2025-01-01T00:00:00Z",
        request: { base_url: baseUrl, model_id: "fixture-model", messages: [{ role: "user", content: "hello" }], tools: [], response_format: null },
        response: { choices: [{ message: { role: "assistant", content: "recorded by the Rust lait" } }] }
      }, null, 2)
    )
    const r = await ws.lait(["run", file, "x", "--replay", "rust/cassettes", "--show-usage"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "recorded by the Rust lait\n",
      stderr: "[1] step-1 (prompt)\nusage: (the server reported no usage)\n"
    })
  })
})

describe("replay misses", () => {
  test("name the cassette path, then the closest recording and the fields that differ", async () => {
    const s = server()
    const file = ws.write("miss/notes.yml", workflow(s.baseUrl))
    expect((await ws.lait(["run", file, "first", "--record", "miss/c"])).code).toBe(0)
    await s.stop()

    // Another PROMPT and a temperature on the first step: both show up in the diff.
    const changed = ws.write("miss/changed.yml", workflow(s.baseUrl, "\n    temperature: 0.5"))
    const r = await ws.lait(["run", changed, "second", "--replay", "miss/c"])
    const messages = [
      { role: "system", content: "You write release notes." },
      { role: "user", content: "Draft a note for: second" }
    ]
    const wanted = keyOf(s.baseUrl, messages, { max_tokens: 64, temperature: 0.5 })
    const recorded = keyOf(s.baseUrl, [
      { role: "system", content: "You write release notes." },
      { role: "user", content: "Draft a note for: first" }
    ], { max_tokens: 64 })
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: "",
      stderr: "==> notes: drafts and tightens a release note\n[1] draft\n" +
        `lait: no recorded cassette for this request (model 'fixture-model') at 'miss/c/${wanted}.json'; ` +
        `run \`lait run ${changed} --record-missing miss/c\` first against the same input and vars, or check that ` +
        "they still match " +
        `this recording; the closest recording, 'miss/c/${recorded}.json', differs at ` +
        "temperature (recorded null, requested 0.5), " +
        "messages[1].content (recorded \"Draft a note for: first\", requested \"Draft a note for: second\")\n"
    })
  })

  test("a missing or empty cassette directory says so", async () => {
    const file = ws.write("miss2/wf.yml", workflow("http://127.0.0.1:9/v1"))
    const missing = await ws.lait(["run", file, "x", "--replay", "miss2/nowhere"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toEndWith(
      "; the cassette directory 'miss2/nowhere' does not exist or cannot be read\n"
    )
    fs.mkdirSync(path.join(ws.dir, "miss2/empty"))
    const empty = await ws.lait(["run", file, "x", "--replay", "miss2/empty"])
    expect(empty.code).toBe(1)
    expect(empty.stderr).toEndWith("; 'miss2/empty' holds no recordings\n")
  })
})

describe("command line", () => {
  test("--record and --replay together are a usage error", async () => {
    const file = ws.write("both/wf.yml", workflow("http://127.0.0.1:9/v1"))
    const r = await ws.lait(["run", file, "x", "--record", "a", "--replay", "b"])
    expect(outcome(r)).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--record <DIR>' cannot be used with '--replay <DIR>'\n"
    })
  })

  test("a cassette that cannot be written fails the run", async () => {
    const s = server()
    const file = ws.write("nowrite/wf.yml", workflow(s.baseUrl))
    ws.write("nowrite/blocker", "a file where the cassette directory should be")
    const r = await ws.lait(["run", file, "x", "--record", "nowrite/blocker/cassettes"])
    const key = keyOf(s.baseUrl, [
      { role: "system", content: "You write release notes." },
      { role: "user", content: "Draft a note for: x" }
    ], { max_tokens: 64 })
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: "",
      stderr: "==> notes: drafts and tightens a release note\n[1] draft\n" +
        `lait: failed to write 'nowrite/blocker/cassettes/${key}.json': a component of the path is not a directory\n`
    })
    expect(s.requests).toHaveLength(1)
  })
})
