// Tool cassette names, keys and miss hints (src/tools/cassette/format.ts); the record/replay round
// trips run end to end in test/e2e/tool-cassettes.test.ts.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  callFileName,
  canonicalArguments,
  closestToolRecording as searchClosest,
  listFileName,
  readCallResult,
  readToolList
} from "../../src/tools/cassette/format.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { Effect } from "effect"

/** The search reads through FileLoader; run it to its answer. */
const closestToolRecording = (...args: Parameters<typeof searchClosest>) =>
  Effect.runSync(searchClosest(...args).pipe(Effect.provide(FileLoader.layer)))

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-tool-cassettes-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const record = (cassettes: string, tool: string, args: unknown, occurrence: number, result = "r") => {
  fs.mkdirSync(cassettes, { recursive: true })
  const name = callFileName(tool, args, occurrence)
  fs.writeFileSync(path.join(cassettes, name), JSON.stringify({ kind: "tool", tool, arguments: args, occurrence, result }))
  return name
}

describe("tool cassette keys", () => {
  test("arguments are keyed canonically: key order and spacing do not matter, blank and null mean {}", () => {
    expect(canonicalArguments(`{"b": 1, "a": {"d": [2, {"y": 1, "x": 0}], "c": 3}}`))
      .toEqual(canonicalArguments(`{"a":{"c":3,"d":[2,{"x":0,"y":1}]},"b":1}`))
    expect(JSON.stringify(canonicalArguments(`{"b": 1, "a": 2}`))).toBe(`{"a":2,"b":1}`)
    expect(canonicalArguments("  ")).toEqual({})
    expect(canonicalArguments("null")).toEqual({})
  })

  test("the file name depends on the tool, the arguments and the occurrence; it is never a model key", () => {
    const a = callFileName("tool__echo", { text: "a" }, 1)
    expect(a).toMatch(/^tool-[0-9a-f]{64}\.json$/)
    expect(callFileName("tool__echo", { text: "a" }, 1)).toBe(a)
    expect(new Set([
      a,
      callFileName("tool__echo", { text: "a" }, 2),
      callFileName("tool__echo", { text: "b" }, 1),
      callFileName("tool__other", { text: "a" }, 1)
    ]).size).toBe(4)
  })

  test("tool list file names: the server name when it is file-safe, else sanitised with a hash", () => {
    expect(listFileName("everything")).toBe("tool-list-everything.json")
    const odd = listFileName("my server/1")
    expect(odd).toMatch(/^tool-list-my_server_1-[0-9a-f]{16}\.json$/)
    expect(listFileName("my_server_1")).not.toBe(odd)
  })
})

describe("reading tool cassettes", () => {
  test("a call cassette gives its result; anything else says what is wrong", () => {
    expect(readCallResult(JSON.stringify({ kind: "tool", result: "isError: true\n\nboom" })))
      .toEqual({ result: "isError: true\n\nboom" })
    expect(readCallResult("")).toEqual({ problem: "the file is empty" })
    expect(readCallResult("[1]")).toEqual({ problem: "expected a JSON object" })
    expect(readCallResult(JSON.stringify({ response: {} })))
      .toEqual({ problem: "not a tool call cassette (expected \"kind\": \"tool\")" })
    expect(readCallResult(JSON.stringify({ kind: "tool", result: 3 }))).toEqual({ problem: "missing string field 'result'" })
  })

  test("a tool list must hold objects with a string name", () => {
    const tools = [{ name: "echo", inputSchema: { type: "object" } }]
    expect(readToolList(JSON.stringify({ kind: "tool-list", tools }))).toEqual({ tools })
    expect(readToolList(JSON.stringify({ kind: "tool-list", tools: [{ name: "a" }, { title: "b" }] })))
      .toEqual({ problem: "tools[1] is not a tool (an object with a string 'name')" })
  })
})

describe("closestToolRecording", () => {
  test("names the recording of the same tool whose arguments differ least, and where", () => {
    const cassettes = path.join(dir, "closest")
    record(cassettes, "tool__echo", { text: "alpha", n: 1 }, 1)
    const near = record(cassettes, "tool__echo", { text: "alpha", n: 2 }, 1)
    record(cassettes, "tool__other", { text: "beta", n: 2 }, 1)
    expect(closestToolRecording(cassettes, "tool__echo", { text: "beta", n: 2 }, 1)).toBe(
      `the closest recording of 'tool__echo', '${path.join(cassettes, near)}', differs at ` +
        `arguments.text (recorded "alpha", requested "beta")`
    )
  })

  test("the same call recorded fewer times than it is now made", () => {
    const cassettes = path.join(dir, "occurrence")
    record(cassettes, "tool__count", {}, 1)
    expect(closestToolRecording(cassettes, "tool__count", {}, 2))
      .toBe("'tool__count' was recorded with these arguments 1 time, and this is call 2")
  })

  test("no recording of the tool, model cassettes and tool lists aside; a missing directory", () => {
    const cassettes = path.join(dir, "none")
    record(cassettes, "tool__other", {}, 1)
    fs.writeFileSync(path.join(cassettes, "0".repeat(64) + ".json"), JSON.stringify({ request: {}, response: {} }))
    fs.writeFileSync(path.join(cassettes, "tool-list-x.json"), JSON.stringify({ kind: "tool-list", tools: [] }))
    expect(closestToolRecording(cassettes, "tool__echo", {}, 1)).toBe(`'${cassettes}' holds no recordings of tool 'tool__echo'`)
    const missing = path.join(dir, "nowhere")
    expect(closestToolRecording(missing, "tool__echo", {}, 1))
      .toBe(`the cassette directory '${missing}' does not exist or cannot be read`)
  })
})
