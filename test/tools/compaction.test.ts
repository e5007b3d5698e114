import { describe, expect, test } from "bun:test"
import { Effect, Redacted } from "effect"
import { ConfigError } from "../../src/config/configErrors.ts"
import { LaitError } from "../../src/core/errors.ts"
import type { Endpoint, Endpoints } from "../../src/config/endpoints.ts"
import type { ModelResult } from "../../src/model/ModelClient.ts"
import type { ChatMessage, ChatRequest } from "../../src/model/types.ts"
import {
  canCompact,
  COMPACTION_INSTRUCTION,
  compactMessages,
  isCompactionDue,
  makeCompactor,
  summaryMessage,
  summaryRequest,
  validateCompaction
} from "../../src/tools/compaction.ts"
import { makeRunTracer } from "../../src/trace/RunTracer.ts"
import { failureOf } from "./helpers.ts"

const sys: ChatMessage = { role: "system", content: "S" }
const user: ChatMessage = { role: "user", content: "U" }
const assistant = (n: number): ChatMessage => ({
  role: "assistant",
  tool_calls: [{ id: `c${n}`, type: "function", function: { name: "tool__echo", arguments: "{}" } }]
})
const tool = (n: number): ChatMessage => ({ role: "tool", content: `r${n}`, tool_call_id: `c${n}` })
const rounds = (n: number): Array<ChatMessage> => Array.from({ length: n }, (_, i) => [assistant(i + 1), tool(i + 1)]).flat()

const endpoint = (modelId: string, sampling: Endpoint["sampling"] = {}): Endpoints => [{
  baseUrl: "http://127.0.0.1:1/v1",
  modelId,
  apiKey: Effect.succeed(Redacted.make("k")),
  apiKeySource: "none",
  baseUrlSource: "provider",
  api: "chat_completions",
  sampling,
  index: 0
}]

const result = (content: string | null, promptTokens?: number): ModelResult => ({
  content,
  reasoning: null,
  toolCalls: [],
  usage: promptTokens === undefined
    ? undefined
    : { prompt_tokens: promptTokens, completion_tokens: 1, total_tokens: promptTokens + 1 },
  source: "live",
  endpoint: endpoint("m")[0],
  raw: {}
})

describe("validateCompaction", () => {
  test("needs a trigger", () => {
    expect(validateCompaction({ keep_last_n: 4 })?.message).toBe("default.compaction needs trigger_rounds or trigger_tokens")
    expect(validateCompaction({ keep_last_n: 4, model: "fast" })).toBeInstanceOf(ConfigError)
  })
  test("zero values", () => {
    expect(validateCompaction({ trigger_rounds: 0, keep_last_n: 4 })?.message).toBe(
      "default.compaction.trigger_rounds must be at least 1"
    )
    expect(validateCompaction({ trigger_rounds: 2, trigger_tokens: 0, keep_last_n: 4 })?.message).toBe(
      "default.compaction.trigger_tokens must be at least 1"
    )
  })
  test("either trigger alone is enough", () => {
    expect(validateCompaction({ trigger_rounds: 1, keep_last_n: 0 })).toBeUndefined()
    expect(validateCompaction({ trigger_tokens: 1, keep_last_n: 4 })).toBeUndefined()
  })
})

describe("isCompactionDue", () => {
  test("round trigger: round % trigger_rounds == 0, rounds counted from 1", () => {
    const due = [1, 2, 3, 4, 5, 6, 7].filter((r) => isCompactionDue({ trigger_rounds: 3 }, r, undefined))
    expect(due).toEqual([3, 6])
    expect([1, 2, 3].filter((r) => isCompactionDue({ trigger_rounds: 1 }, r, undefined))).toEqual([1, 2, 3])
  })
  test("token trigger: the previous round's prompt_tokens reached the threshold", () => {
    expect(isCompactionDue({ trigger_tokens: 400 }, 2, 399)).toBe(false)
    expect(isCompactionDue({ trigger_tokens: 400 }, 2, 400)).toBe(true)
    expect(isCompactionDue({ trigger_tokens: 400 }, 2, undefined)).toBe(false)
  })
  test("either trigger fires", () => {
    expect(isCompactionDue({ trigger_rounds: 5, trigger_tokens: 100 }, 5, 1)).toBe(true)
    expect(isCompactionDue({ trigger_rounds: 5, trigger_tokens: 100 }, 4, 100)).toBe(true)
    expect(isCompactionDue({ trigger_rounds: 5, trigger_tokens: 100 }, 4, 99)).toBe(false)
  })
})

describe("compactMessages", () => {
  test("system, then the summary, then the last keep_last_n messages", () => {
    const messages = [sys, user, ...rounds(3)]
    expect(compactMessages(messages, "so far", 4)).toEqual([
      sys,
      { role: "assistant", content: "(summary of the conversation so far, produced by compaction: so far)" },
      assistant(2),
      tool(2),
      assistant(3),
      tool(3)
    ])
  })
  test("without a system message the summary comes first", () => {
    expect(compactMessages([user, ...rounds(2)], "x", 2)).toEqual([summaryMessage("x"), assistant(2), tool(2)])
  })
  test("keep_last_n 0 keeps only the system message and the summary", () => {
    expect(compactMessages([sys, user, ...rounds(1)], "x", 0)).toEqual([sys, summaryMessage("x")])
  })
  test("nothing when no more than keep_last_n non-system messages exist", () => {
    expect(canCompact([sys, user, ...rounds(2)], 4)).toBe(true)
    expect(canCompact([sys, user, ...rounds(2)], 5)).toBe(false)
    expect(compactMessages([sys, user, ...rounds(2)], "x", 4)).toEqual([sys, summaryMessage("x"), ...rounds(2)])
    expect(compactMessages([sys, user, ...rounds(2)], "x", 5)).toBeUndefined()
    expect(compactMessages([user], "x", 0)).toEqual([summaryMessage("x")])
    expect(compactMessages([sys], "x", 0)).toBeUndefined()
  })
  test("an earlier summary is summarised again like any message", () => {
    const once = compactMessages([sys, user, ...rounds(3)], "one", 2)!
    const twice = compactMessages([...once, ...rounds(4).slice(6)], "two", 2)!
    expect(twice).toEqual([sys, summaryMessage("two"), assistant(4), tool(4)])
  })
})

describe("summaryRequest", () => {
  test("the conversation plus the instruction; no tools, no format; sampling kept", () => {
    const base: ChatRequest = {
      messages: [user],
      tools: [{ type: "function", function: { name: "tool__echo" } }],
      response_format: { type: "json_schema", json_schema: { name: "out", schema: {}, strict: true } },
      temperature: 0.2
    }
    expect(summaryRequest(base, [sys, user, tool(1)])).toEqual({
      messages: [sys, user, tool(1), { role: "user", content: COMPACTION_INSTRUCTION }],
      tools: [],
      response_format: null,
      temperature: 0.2
    })
  })
})

describe("makeCompactor", () => {
  const setup = (settings: Parameters<typeof makeCompactor>[0]["settings"], replies: Array<string> = ["S1", "S2", "S3"]) => {
    const sent: Array<{ label: string; model: string; request: ChatRequest }> = []
    const tracer = makeRunTracer()
    const compactor = makeCompactor({
      settings,
      label: "ask",
      endpoints: endpoint("step-model"),
      request: { messages: [], tools: [], response_format: null, temperature: 0.5 },
      resolveEndpoints: (model) =>
        model === "fast" ? Effect.succeed(endpoint("fast-id", { temperature: 0.1 })) : Effect.fail(new LaitError({ message: `unknown ${model}` })),
      send: (label, endpoints, request) =>
        Effect.sync(() => {
          sent.push({ label, model: endpoints[0].modelId, request })
          return result(replies.shift() ?? "")
        }),
      tracer
    })
    return { sent, tracer, compactor }
  }

  test("round trigger: summary request through send, surgery in place, compact event", async () => {
    const { compactor, sent, tracer } = setup({ trigger_rounds: 2, keep_last_n: 2 })
    const messages: Array<ChatMessage> = [sys, user, ...rounds(1)]
    await Effect.runPromise(compactor.beforeRound(1, messages))
    expect(sent).toEqual([])
    await Effect.runPromise(compactor.beforeRound(2, messages))
    expect(sent).toEqual([{
      label: "ask",
      model: "step-model",
      request: {
        messages: [sys, user, ...rounds(1), { role: "user", content: COMPACTION_INSTRUCTION }],
        tools: [],
        response_format: null,
        temperature: 0.5
      }
    }])
    expect(messages).toEqual([sys, summaryMessage("S1"), assistant(1), tool(1)])
    const events = await Effect.runPromise(tracer.events)
    expect(events.map((e) => [e.operation, e.label, e.attributes])).toEqual([
      ["compact", "ask", { "lait.compaction.round": 2, "lait.compaction.messages_before": 4, "lait.compaction.messages_after": 4 }]
    ])
  })

  test("due but nothing to summarise: no request, no event", async () => {
    const { compactor, sent, tracer } = setup({ trigger_rounds: 1, keep_last_n: 4 })
    const messages: Array<ChatMessage> = [sys, user, ...rounds(1)]
    await Effect.runPromise(compactor.beforeRound(1, messages))
    expect(sent).toEqual([])
    expect(messages).toEqual([sys, user, ...rounds(1)])
    expect(await Effect.runPromise(tracer.events)).toEqual([])
  })

  test("token trigger remembers the last reported prompt_tokens and resets after firing", async () => {
    const { compactor, sent } = setup({ trigger_tokens: 100, keep_last_n: 0 })
    const messages: Array<ChatMessage> = [user]
    compactor.afterRound(result(null, 150))
    await Effect.runPromise(compactor.beforeRound(2, messages))
    expect(sent.length).toBe(1)
    messages.push(...rounds(1))
    // No usage reported for the next round: without the reset, 150 would fire again.
    compactor.afterRound(result(null))
    await Effect.runPromise(compactor.beforeRound(3, messages))
    expect(sent.length).toBe(1)
    compactor.afterRound(result(null, 99))
    await Effect.runPromise(compactor.beforeRound(4, messages))
    expect(sent.length).toBe(1)
    compactor.afterRound(result(null, 100))
    await Effect.runPromise(compactor.beforeRound(5, messages))
    expect(sent.length).toBe(2)
    expect(messages).toEqual([summaryMessage("S2")])
  })

  test("a compaction model: its endpoints and sampling, label '<label> (compaction)'", async () => {
    const { compactor, sent, tracer } = setup({ trigger_rounds: 1, keep_last_n: 1, model: "fast" })
    const messages: Array<ChatMessage> = [sys, user, tool(1)]
    await Effect.runPromise(compactor.beforeRound(1, messages))
    expect(sent.map((s) => [s.label, s.model, s.request.temperature])).toEqual([["ask (compaction)", "fast-id", 0.1]])
    expect((await Effect.runPromise(tracer.events)).map((e) => e.label)).toEqual(["ask"])
  })

  test("invalid settings fail before each round with the documented message", async () => {
    const { compactor } = setup({ keep_last_n: 4 })
    expect(await failureOf(compactor.beforeRound(1, [user]))).toEqual({
      tag: "ConfigError",
      message: "default.compaction needs trigger_rounds or trigger_tokens"
    })
  })

  test("an unknown compaction model fails the request", async () => {
    const { compactor } = setup({ trigger_rounds: 1, keep_last_n: 0, model: "nope" })
    expect((await failureOf(compactor.beforeRound(1, [user]))).message).toBe("unknown nope")
  })
})
