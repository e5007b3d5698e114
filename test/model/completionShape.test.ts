// The decoder-free reading of answers, cassettes and cache entries (isPlainCompletion, plainCassette,
// plainCachedEntry) against the Effect Schema decoders they stand in for: whatever the fast path
// accepts, the decoder accepts too, with the same fields; whatever it declines is left to the decoder.
// Recorded answers take it.
import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Endpoint } from "../../src/model/call.ts"
import { plainCachedEntry, plainCassette } from "../../src/model/cassette/format.ts"
import { CachedEntry, Cassette } from "../../src/model/cassette/schema.ts"
import { isPlainCompletion, readCompletion } from "../../src/model/completion.ts"
import { ChatCompletionSchema } from "../../src/model/completionSchema.ts"

const endpoint: Endpoint = {
  baseUrl: "http://127.0.0.1:1/v1",
  modelId: "m",
  api: "chat_completions",
  apiKey: Effect.succeed(undefined)
}
const decode = Schema.decodeUnknownExit(ChatCompletionSchema)
const decodeCassette = Schema.decodeUnknownExit(Schema.fromJsonString(Cassette))
const decodeCachedEntry = Schema.decodeUnknownExit(Schema.fromJsonString(CachedEntry))

// Values a field may hold in an answer: right, wrong and absent.
const fieldValues: ReadonlyArray<unknown> = ["x", "", null, 1, true, [], {}, undefined]
const toolCalls: ReadonlyArray<unknown> = [
  [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
  [{ id: "c1", function: { name: "f", arguments: "" } }],
  [{ id: 1, function: { name: "f", arguments: "{}" } }],
  [{ id: "c1", type: null, function: { name: "f", arguments: "{}" } }],
  [{ id: "c1", function: { name: "f" } }],
  [{ id: "c1", function: null }],
  [null],
  []
]

const withKey = (o: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> =>
  value === undefined ? o : { ...o, [key]: value }

/** Answers built from every combination of a few field values, plus odd shapes. */
const answers = (): Array<unknown> => {
  const out: Array<unknown> = [null, "text", 3, [], {}, { choices: null }, { choices: {} }, { choices: [] }]
  for (const content of fieldValues) {
    for (const role of fieldValues) {
      for (const finish of fieldValues) {
        const message = withKey(withKey({}, "content", content), "role", role)
        out.push({ choices: [withKey({ message }, "finish_reason", finish)] })
      }
    }
  }
  for (const calls of [...toolCalls, ...fieldValues]) {
    for (const reasoning of fieldValues) {
      const message = withKey(withKey({ content: null }, "tool_calls", calls), "reasoning_content", reasoning)
      out.push({ id: "x", choices: [{ index: 0, message }], usage: { prompt_tokens: 1 } })
    }
  }
  out.push({ choices: [{ message: { content: "a" } }, { message: null }] })
  out.push({ choices: [{}] })
  out.push({ choices: [{ message: { content: "a" } }], usage: undefined })
  out.push({ choices: [{ message: { content: "a" } }], usage: null })
  out.push(Object.assign(Object.create(null), { choices: [{ message: { content: "a" } }] }))
  out.push(Object.assign(Object.create({ choices: [] }), {}))
  return out
}

describe("isPlainCompletion", () => {
  test("accepts only what the decoder accepts, and reads the same fields", async () => {
    let accepted = 0
    for (const raw of answers()) {
      const exit = decode(raw)
      const read = await Effect.runPromise(readCompletion(raw, endpoint, "replay"))
      if (isPlainCompletion(raw)) {
        accepted++
        expect(exit._tag).toBe("Success")
      }
      if (exit._tag === "Failure") {
        expect(read).toEqual({ problem: { kind: "unreadable" } })
        continue
      }
      const message = exit.value.choices[0]?.message
      if (message === undefined) {
        expect(read).toEqual({ problem: { kind: "no-choices" } })
        continue
      }
      if (!("result" in read)) throw new Error(`unread: ${JSON.stringify(raw)}`)
      expect({
        content: read.result.content,
        reasoning: read.result.reasoning,
        toolCalls: read.result.toolCalls
      }).toEqual({
        content: message.content ?? null,
        reasoning: message.reasoning_content ?? null,
        toolCalls: (message.tool_calls ?? []).map((c) => ({ id: c.id, type: "function", function: c.function }))
      })
      expect(read.result.raw).toBe(raw)
    }
    // The fast path is taken for well-formed answers, not only declined.
    expect(accepted).toBeGreaterThan(50)
  })

  test("recorded answers take the fast path", () => {
    const dir = path.join(import.meta.dir, "..", "..", "examples", "release-notes", "cassettes")
    const names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"))
    expect(names.length).toBeGreaterThan(0)
    for (const name of names) {
      const text = fs.readFileSync(path.join(dir, name), "utf8")
      const cassette = plainCassette(text)
      expect(cassette).toBeDefined()
      expect(isPlainCompletion(cassette!.response)).toBe(true)
    }
  })
})

describe("plainCassette", () => {
  test.each([
    ["a cassette", "{\"recorded_at\": \"t\", \"request\": {}, \"response\": {\"choices\": []}}"],
    ["a null response", "{\"response\": null}"],
    ["no response", "{\"request\": {}}"],
    ["an array", "[{\"response\": 1}]"],
    ["not JSON", "{\"response\": "],
    ["a string", "\"response\""],
    ["null", "null"],
    ["a response from the prototype only", "{\"__proto__\": {\"response\": 1}}"],
    ["a __proto__ key beside it", "{\"__proto__\": 1, \"response\": 2}"]
  ])("%s: the decoder's value when it takes it, else left to the decoder", (_, text) => {
    const fast = plainCassette(text)
    const exit = decodeCassette(text)
    if (fast !== undefined) {
      expect(exit._tag).toBe("Success")
      if (exit._tag === "Success") expect(fast).toEqual(exit.value)
    }
  })
})

describe("plainCachedEntry", () => {
  test.each([
    ["an entry", "{\"created_at\": \"2026-01-01T00:00:00Z\", \"response\": {\"choices\": []}}"],
    ["a null response", "{\"created_at\": \"t\", \"response\": null}"],
    ["no response", "{\"created_at\": \"t\"}"],
    ["no created_at", "{\"response\": 1}"],
    ["a created_at that is not a string", "{\"created_at\": 1, \"response\": 1}"],
    ["an array", "[{\"created_at\": \"t\", \"response\": 1}]"],
    ["not JSON", "{\"response\": "],
    ["null", "null"],
    ["fields from the prototype only", "{\"__proto__\": {\"created_at\": \"t\", \"response\": 1}}"],
    ["a __proto__ key beside them", "{\"__proto__\": 1, \"created_at\": \"t\", \"response\": 2}"]
  ])("%s: the decoder's value when it takes it, else left to the decoder", (_, text) => {
    const fast = plainCachedEntry(text)
    const exit = decodeCachedEntry(text)
    if (fast !== undefined) {
      expect(exit._tag).toBe("Success")
      if (exit._tag === "Success") expect(fast).toEqual(exit.value)
    }
    if (text.startsWith("{\"created_at\": \"")) expect(fast).toEqual(exit._tag === "Success" ? exit.value : undefined)
  })
})
