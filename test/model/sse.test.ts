// The event-stream decoder and the chunk assembler behind streamed completions, fed in every split.
import { describe, expect, test } from "bun:test"
import { SseDecoder, type SseEvent } from "../../src/model/sse.ts"
import { CompletionAssembler } from "../../src/model/streamAssembly.ts"

const bytes = (text: string) => new TextEncoder().encode(text)

/** Feeds `body` cut at each of `cuts` (byte offsets) and returns every event. */
const decodeCut = (body: Uint8Array, cuts: ReadonlyArray<number>): Array<SseEvent> => {
  const decoder = new SseDecoder()
  const events: Array<SseEvent> = []
  let start = 0
  for (const cut of [...cuts, body.length]) {
    events.push(...decoder.push(body.slice(start, cut)))
    start = cut
  }
  return [...events, ...decoder.end()]
}

describe("SseDecoder", () => {
  const body = bytes(
    ": keep-alive\r\n\r\ndata: {\"a\":\"héllo 🙂\"}\r\n\r\nevent: error\ndata: line one\ndata:line two\n\n" +
      "id: 7\nretry: 10\ndata: [DONE]\r\rdata: no blank line at the end"
  )
  const expected: Array<SseEvent> = [
    { data: "{\"a\":\"héllo 🙂\"}" },
    { event: "error", data: "line one\nline two" },
    { data: "[DONE]" },
    { data: "no blank line at the end" }
  ]

  test("whole body: comments skipped, multi-line data joined, any line ending, a last event without its blank line", () => {
    expect(decodeCut(body, [])).toEqual(expected)
  })

  test("the same events whichever byte the body is cut at (inside a UTF-8 character, between \\r and \\n)", () => {
    for (let cut = 1; cut < body.length; cut++) expect(decodeCut(body, [cut])).toEqual(expected)
  })

  test("one byte at a time", () => {
    expect(decodeCut(body, Array.from({ length: body.length - 1 }, (_, i) => i + 1))).toEqual(expected)
  })
})

describe("CompletionAssembler", () => {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    id: "c1",
    object: "chat.completion.chunk",
    created: 5,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra
  })

  test("content, reasoning under either name and tool calls in fragments become one chat.completion", () => {
    const a = new CompletionAssembler()
    const deltas = [
      chunk({ role: "assistant", content: "" }),
      chunk({ reasoning_content: "think " }),
      chunk({ reasoning: "more" }),
      chunk({ content: "Hel" }),
      chunk({ content: "lo" }),
      chunk({ tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "second", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "fir", arguments: "{\"x\"" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: "st", arguments: ":1}" } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: "{}" } }] }),
      { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      { id: "c1", choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }
    ].flatMap((c) => a.add(c))
    expect(deltas).toEqual([
      { _tag: "Reasoning", text: "think " },
      { _tag: "Reasoning", text: "more" },
      { _tag: "Content", text: "Hel" },
      { _tag: "Content", text: "lo" }
    ])
    expect(a.completion()).toEqual({
      id: "c1",
      object: "chat.completion",
      created: 5,
      model: "m",
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: "Hello",
          reasoning_content: "think more",
          tool_calls: [
            { id: "a", type: "function", function: { name: "first", arguments: "{\"x\":1}" } },
            { id: "b", type: "function", function: { name: "second", arguments: "{}" } }
          ]
        },
        finish_reason: "tool_calls"
      }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }
    })
  })

  test("a stream with no choices at all assembles to none (lait reports 'returned no choices')", () => {
    const a = new CompletionAssembler()
    a.add({ id: "x", choices: [], usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 } })
    expect(a.completion()["choices"]).toEqual([])
  })
})
