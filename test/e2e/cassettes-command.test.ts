// `lait cassettes ls` and `lait cassettes prune` through the compiled CLI: recordings made with
// `lait run --record` against the fixture server are listed oldest first; prune runs the tests in
// replay, lists exactly the cassette nobody used, deletes only it, and refuses when a test fails.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { requestKey } from "../../src/model/cassette/key.ts"
import { modelsYaml, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-cassettes-cmd")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const workflow = (baseUrl: string) => `${modelsYaml({ m: [{ baseUrl, modelId: "fixture-model" }] })}
default:
  model: m
steps:
  - prompt: 'Summarise: {{ input }}'
`

const keyOf = (baseUrl: string, content: string) =>
  requestKey({ base_url: baseUrl, model_id: "fixture-model", messages: [{ role: "user", content }], tools: [], response_format: null })

const names = (dir: string) => fs.readdirSync(path.join(ws.dir, dir)).sort()

describe("lait cassettes ls", () => {
  test("one line per cassette, oldest first; files that are not cassettes are warned about", async () => {
    const s = server()
    const file = ws.write("ls/wf.yml", workflow(s.baseUrl))
    for (const topic of ["the second   recording", "x".repeat(80)]) {
      expect((await ws.lait(["run", file, topic, "--record", "ls/c"])).code).toBe(0)
    }
    const second = keyOf(s.baseUrl, "Summarise: the second   recording")
    const long = keyOf(s.baseUrl, `Summarise: ${"x".repeat(80)}`)
    // An older recording, written by hand, and a tool cassette; then two files that are not cassettes.
    ws.write("ls/c/" + "a".repeat(64) + ".json", JSON.stringify({
      recorded_at: "2020-01-01T00:00:00Z",
      request: { base_url: s.baseUrl, model_id: "old-model", messages: [{ role: "system", content: "s" }, { role: "user", content: "first\nline" }] },
      response: {}
    }))
    ws.write("ls/c/tool-word_count-1.json", JSON.stringify({ kind: "tool", recorded_at: "2021-01-01T00:00:00Z", tool: "word_count", arguments: { text: "a b" } }))
    ws.write("ls/c/notes.json", "[1, 2]")
    ws.write("ls/c/broken.json", "{")
    const recordedAt = (key: string) => JSON.parse(ws.read(`ls/c/${key}.json`)).recorded_at as string

    const r = await ws.lait(["cassettes", "ls", "ls/c"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: [
        `aaaaaaaaaaaa  2020-01-01T00:00:00Z  old-model  "first line"`,
        `tool-word_co  2021-01-01T00:00:00Z  tool:word_count  "{\\"text\\":\\"a b\\"}"`,
        `${second.slice(0, 12)}  ${recordedAt(second)}  fixture-model  "Summarise: the second recording"`,
        `${long.slice(0, 12)}  ${recordedAt(long)}  fixture-model  "Summarise: ${"x".repeat(48)}…"`,
        ""
      ].join("\n"),
      stderr: expect.stringContaining("warning: not a cassette: 'ls/c/broken.json': not valid JSON") as unknown as string
    })
    expect(r.stderr).toContain("warning: not a cassette: 'ls/c/notes.json': expected a JSON object\n")
    expect(r.stderr.split("\n").filter((l) => l !== "")).toHaveLength(2)

    const json = await ws.lait(["cassettes", "ls", "ls/c", "--format", "json"])
    expect(json.code).toBe(0)
    const rows = JSON.parse(json.stdout) as Array<Record<string, unknown>>
    expect(rows.map((row) => [row.kind, row.key, row.model])).toEqual([
      ["model", "aaaaaaaaaaaa", "old-model"],
      ["tool", "tool-word_co", "word_count"],
      ["model", second.slice(0, 12), "fixture-model"],
      ["model", long.slice(0, 12), "fixture-model"]
    ])
    expect(rows[2]).toMatchObject({ file: `ls/c/${second}.json`, recorded_at: recordedAt(second) })
  })

  test("a missing directory is an error", async () => {
    expect(outcome(await ws.lait(["cassettes", "ls", "nowhere"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read cassette directory 'nowhere': no such file or directory\n"
    })
  })
})

describe("lait cassettes prune", () => {
  const testFile = (topic: string, expected: string) =>
    `workflow: ../wf.yml\ninput: ${topic}\nreplay: ../cassettes\nassert:\n  - type: equals\n    value: '${expected}'\n`

  test("lists exactly the cassette no test used; --delete removes only it", async () => {
    const s = server()
    const file = ws.write("pr/wf.yml", workflow(s.baseUrl))
    for (const topic of ["alpha", "beta", "stale"]) {
      expect((await ws.lait(["run", file, topic, "--record", "pr/cassettes"])).code).toBe(0)
    }
    await s.stop()
    ws.write("pr/tests/a.yml", testFile("alpha", "echo: Summarise: alpha"))
    ws.write("pr/more/b.yml", testFile("beta", "echo: Summarise: beta"))
    ws.write("pr/cassettes/README.json", "not json")
    const stale = `pr/cassettes/${keyOf(s.baseUrl, "Summarise: stale")}.json`
    const before = names("pr/cassettes")

    const listed = await ws.lait(["cassettes", "prune", "pr/tests", "pr/more"])
    expect(outcome(listed)).toEqual({
      code: 0,
      stdout: `${stale}\n`,
      stderr: expect.stringMatching(/^warning: not a cassette, left alone: 'pr\/cassettes\/README.json': not valid JSON/) as unknown as string
    })
    expect(names("pr/cassettes")).toEqual(before)

    const deleted = await ws.lait(["cassettes", "prune", "pr/more/b.yml", "pr/tests", "--delete"])
    expect(deleted.code).toBe(0)
    expect(deleted.stdout).toBe(`${stale}\n`)
    expect(deleted.stderr).toEndWith("deleted 1 unused cassette file(s)\n")
    expect(names("pr/cassettes")).toEqual(before.filter((n) => `pr/cassettes/${n}` !== stale))
    // What is left still replays every test, and nothing more is unused.
    expect((await ws.lait(["test", "pr/tests", "pr/more"])).code).toBe(0)
    expect(outcome(await ws.lait(["cassettes", "prune", "pr/tests", "pr/more", "--delete"]))).toMatchObject({
      code: 0,
      stdout: "",
      stderr: expect.stringContaining("deleted 0 unused cassette file(s)\n") as unknown as string
    })
  })

  test("refuses, deleting nothing, when a test fails in replay", async () => {
    const s = server()
    const file = ws.write("bad/wf.yml", workflow(s.baseUrl))
    for (const topic of ["alpha", "stale"]) {
      expect((await ws.lait(["run", file, topic, "--record", "bad/cassettes"])).code).toBe(0)
    }
    await s.stop()
    ws.write("bad/t/ok.yml", testFile("alpha", "echo: Summarise: alpha"))
    ws.write("bad/t/wrong.yml", testFile("alpha", "something else"))
    const before = names("bad/cassettes")
    const r = await ws.lait(["cassettes", "prune", "bad/t", "--delete"])
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: "",
      stderr: "bad/t/wrong.yml: FAIL\n" +
        "  assertion 1: expected output to equal \"something else\", got \"echo: Summarise: alpha\"\n" +
        "lait: refusing to prune: 1 of 2 test file(s) did not pass in replay, so which cassettes they use is unknown; " +
        "nothing was deleted\n"
    })
    expect(names("bad/cassettes")).toEqual(before)

    expect(outcome(await ws.lait(["cassettes", "prune", "bad/none"]))).toMatchObject({ code: 1, stdout: "" })
  })
})
