// Reported usage is taken only as non-negative integers; anything else counts as absent, and the
// answer it came with stays usable (chat completions and the Responses API alike).
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { interpret } from "../../src/model/completion.ts"
import { readUsage } from "../../src/model/usage.ts"

describe("readUsage", () => {
  test("valid counts are kept as they are", () => {
    expect(readUsage({ prompt_tokens: 10, completion_tokens: 0, total_tokens: 10 })).toEqual({
      usage: { prompt_tokens: 10, completion_tokens: 0, total_tokens: 10 },
      ignored: []
    })
  })

  test("no usage, null usage: none, and nothing to note", () => {
    expect(readUsage(undefined)).toEqual({ usage: undefined, ignored: [] })
    expect(readUsage(null)).toEqual({ usage: undefined, ignored: [] })
  })

  test.each([
    ["negative", -1, "-1"],
    ["fractional", 2.5, "2.5"],
    ["a string", "12", "\"12\""],
    ["huge (past 2^53)", 2 ** 60, String(2 ** 60)],
    ["infinite", Number.POSITIVE_INFINITY, "Infinity"],
    ["NaN", Number.NaN, "NaN"],
    ["a boolean", true, "true"],
    ["an object", { n: 1 }, "{\"n\":1}"]
  ])("a count that is %s is absent, and named", (_, value, shown) => {
    expect(readUsage({ prompt_tokens: value, completion_tokens: 5, total_tokens: 9 })).toEqual({
      usage: { prompt_tokens: 0, completion_tokens: 5, total_tokens: 9 },
      ignored: [`usage.prompt_tokens ${shown} is not a non-negative integer`]
    })
  })

  test("an absent total is prompt + completion; with no valid count there is no usage at all", () => {
    expect(readUsage({ prompt_tokens: 3, completion_tokens: 4, total_tokens: -7 })).toEqual({
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      ignored: ["usage.total_tokens -7 is not a non-negative integer"]
    })
    expect(readUsage({ prompt_tokens: -1, completion_tokens: "x" }).usage).toBeUndefined()
    expect(readUsage({}).usage).toBeUndefined()
  })

  test("a usage that is not an object is absent; a long bad value is cut short in the note", () => {
    expect(readUsage("lots")).toEqual({ usage: undefined, ignored: ["usage \"lots\" is not an object"] })
    expect(readUsage([1, 2])).toEqual({ usage: undefined, ignored: ["usage [1,2] is not an object"] })
    const note = readUsage({ prompt_tokens: "x".repeat(10_000) }).ignored[0]!
    expect(note.length).toBeLessThan(100)
  })
})

describe("interpret (the answer stays usable)", () => {
  const endpoint = (api: "chat_completions" | "responses") => ({
    baseUrl: "http://127.0.0.1:9/v1",
    modelId: "m",
    api,
    apiKey: Effect.succeed(undefined)
  })

  test("chat completions: bad counts are dropped, the content is read, the notes are kept", async () => {
    const raw = {
      choices: [{ message: { role: "assistant", content: "hi" } }],
      usage: { prompt_tokens: "9", completion_tokens: -2, total_tokens: 1.5 }
    }
    const result = await Effect.runPromise(interpret(raw, endpoint("chat_completions"), "live"))
    expect(result.content).toBe("hi")
    expect(result.usage).toBeUndefined()
    expect(result.usageIgnored).toHaveLength(3)
  })

  test("Responses API: the same rules, after renaming input/output tokens", async () => {
    const raw = {
      output: [{ type: "message", content: [{ type: "output_text", text: "hi" }] }],
      usage: { input_tokens: 4, output_tokens: "2", total_tokens: null }
    }
    const result = await Effect.runPromise(interpret(raw, endpoint("responses"), "live"))
    expect(result.content).toBe("hi")
    expect(result.usage).toEqual({ prompt_tokens: 4, completion_tokens: 0, total_tokens: 4 })
    expect(result.usageIgnored).toEqual(["usage.completion_tokens \"2\" is not a non-negative integer"])
  })
})
