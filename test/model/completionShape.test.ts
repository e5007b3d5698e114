// Reading an answer (readCompletion): an answer the schema rejects is unreadable, one without choices
// says so, any other gives the first choice's fields as the schema decoded them. Recorded answers read.
import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Endpoint } from "../../src/model/call.ts"
import { decodeCassette } from "../../src/model/cassette/schema.ts"
import { readCompletion } from "../../src/model/completion.ts"
import { ChatCompletionSchema } from "../../src/model/completionSchema.ts"

const endpoint: Endpoint = {
  baseUrl: "http://127.0.0.1:1/v1",
  modelId: "m",
  api: "chat_completions",
  apiKey: Effect.succeed(undefined)
}
const decode = Schema.decodeUnknownExit(ChatCompletionSchema)

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

describe("readCompletion", () => {
  test("reads what the decoder accepts, the same fields; the rest is unreadable", async () => {
    let accepted = 0
    for (const raw of answers()) {
      const exit = decode(raw)
      const read = await Effect.runPromise(readCompletion(raw, endpoint, "replay"))
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
      accepted++
    }
    // Well-formed answers are read, not only declined.
    expect(accepted).toBeGreaterThan(50)
  })

  test("recorded answers read", async () => {
    const dir = path.join(import.meta.dir, "..", "..", "examples", "release-notes", "cassettes")
    const names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"))
    expect(names.length).toBeGreaterThan(0)
    for (const name of names) {
      const text = fs.readFileSync(path.join(dir, name), "utf8")
      const cassette = decodeCassette(text)
      expect(cassette).toBeDefined()
      const read = await Effect.runPromise(readCompletion(cassette!.response, endpoint, "replay"))
      expect("result" in read).toBe(true)
    }
  })
})
