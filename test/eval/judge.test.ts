import { afterEach, describe, expect, test } from "bun:test"
import { Cause, Effect, Exit, Layer } from "effect"
import { ModelHttp } from "../../src/model/ModelHttp.ts"
import { renderChain } from "../../src/core/errors.ts"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import type { ConfigFile } from "../../src/config/schema.ts"
import {
  LLM_JUDGE_NO_MODEL,
  llmJudgePrompt,
  llmJudgeResponseFormat,
  makeLlmJudge,
  parseJudgeScore
} from "../../src/eval/judge.ts"
import { ModelClient } from "../../src/model/ModelClient.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { requestKey } from "../../src/model/cassette/key.ts"
import { RunTracer } from "../../src/trace/RunTracer.ts"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"

let server: OpenAiServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const configFor = (baseUrl: string, extra: Partial<ConfigFile> = {}): ConfigFile => ({
  models: {
    judge: [{ provider: { base_url: baseUrl }, model_id: "judge-model", default_temperature: 0 }],
    target: [{ provider: { base_url: baseUrl }, model_id: "target-model" }]
  },
  ...extra
})

/** Scores with a judge bound to a fresh run context; returns the score or the error chain, and the run's usage/trace. */
const score = (
  script: ReadonlyArray<ScriptedReply>,
  request: { model?: string; defaultModel?: string; input?: string },
  config?: (baseUrl: string) => ConfigFile
) => {
  server = startOpenAiServer({ script })
  const layer = Layer.mergeAll(
    ModelClient.layerLive({ attempts: 1 }).pipe(Layer.provide(ModelHttp.layer)),
    LaitConfig.layerTest((config ?? configFor)(server.baseUrl)),
    RunUsage.layer,
    RunTracer.layer
  )
  return Effect.runPromise(
    Effect.gen(function*() {
      const judge = yield* makeLlmJudge({
        config: yield* LaitConfig,
        client: yield* ModelClient,
        defaultModel: request.defaultModel
      })
      const exit = yield* Effect.exit(
        judge.score({ criteria: "is polite", output: "Hello there", input: request.input, model: request.model })
      )
      return {
        result: Exit.isSuccess(exit) ? exit.value : renderChain(Cause.squash(exit.cause)),
        usage: yield* (yield* RunUsage).entries,
        events: yield* (yield* RunTracer).events
      }
    }).pipe(Effect.provide(layer))
  )
}

describe("llm_judge prompt and request", () => {
  test("the documented prompt, with and without the original input", () => {
    expect(llmJudgePrompt("is polite", "say hi", "Hello")).toBe(
      "You are grading a language model's output against a criterion.\n\n" +
        "Criteria: is polite\n\n" +
        "Original input:\nsay hi\n\n" +
        "Output to grade:\nHello\n\n" +
        "Rate how well the output satisfies the criteria, from 0.0 (not at all) to 1.0 (fully)."
    )
    expect(llmJudgePrompt("c", undefined, "o")).toBe(
      "You are grading a language model's output against a criterion.\n\nCriteria: c\n\nOutput to grade:\no\n\n" +
        "Rate how well the output satisfies the criteria, from 0.0 (not at all) to 1.0 (fully)."
    )
  })

  test("strict json_schema llm_judge_score with {score: number, reasoning: string}, both required, closed", () => {
    expect(llmJudgeResponseFormat).toEqual({
      type: "json_schema",
      json_schema: {
        name: "llm_judge_score",
        strict: true,
        schema: {
          type: "object",
          properties: {
            score: { type: "number", description: "0.0 (does not satisfy the criteria at all) to 1.0 (fully satisfies it)" },
            reasoning: { type: "string" }
          },
          required: ["score", "reasoning"],
          additionalProperties: false
        }
      }
    })
  })

  test("the response format serialises with serde_json's sorted keys (request keys match the Rust lait's)", () => {
    expect(JSON.stringify(llmJudgeResponseFormat.json_schema.schema)).toBe(
      '{"additionalProperties":false,"properties":{"reasoning":{"type":"string"},"score":{"description":"0.0 (does not satisfy the criteria at all) to 1.0 (fully satisfies it)","type":"number"}},"required":["score","reasoning"],"type":"object"}'
    )
    // A stable key, so a recorded judge replays.
    expect(requestKey({
      base_url: "http://x",
      model_id: "m",
      messages: [{ role: "user", content: llmJudgePrompt("c", "i", "o") }],
      tools: [],
      response_format: llmJudgeResponseFormat
    })).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe("parseJudgeScore", () => {
  test.each([
    ['{"score": 0.8, "reasoning": "fine"}', 0.8],
    ['{"score": 1}', 1],
    ['{"score": 0.25, "reasoning": "x", "extra": true}', 0.25],
    ['```json\n{"score": 0.5, "reasoning": "fenced"}\n```', 0.5]
  ])("%j → %d", (content, expected) => {
    expect(parseJudgeScore(content)).toBe(expected)
  })

  test.each([
    ["not json", 'failed to parse llm_judge response as JSON: "not json"'],
    ["", 'failed to parse llm_judge response as JSON: ""'],
    ['{"reasoning": "no score"}', 'failed to parse llm_judge response as JSON: "{\\"reasoning\\": \\"no score\\"}": missing field `score`'],
    ['{"score": "high"}', 'failed to parse llm_judge response as JSON: "{\\"score\\": \\"high\\"}": invalid type for `score`: expected a number'],
    ["[1]", 'failed to parse llm_judge response as JSON: "[1]": expected a JSON object'],
    ["line1\nline2\t", 'failed to parse llm_judge response as JSON: "line1\\nline2\\t"']
  ])("%j fails", (content, message) => {
    const result = parseJudgeScore(content)
    expect(typeof result).not.toBe("number")
    expect(renderChain(result)).toBe(message)
  })
})

describe("makeLlmJudge against the fixture server", () => {
  test("one request: user message only, strict response format, the model's sampling defaults; labelled llm_judge in usage and trace", async () => {
    const r = await score(
      [{ content: '{"score": 0.9, "reasoning": "polite"}', usage: { prompt_tokens: 40, completion_tokens: 7 } }],
      { model: "judge", input: "greet me" }
    )
    expect(r.result).toEqual({ score: 0.9, reasoning: "polite" })
    expect(server!.requests).toHaveLength(1)
    const body = server!.requests[0]!.body as Record<string, unknown>
    expect(body).toEqual({
      model: "judge-model",
      stream: false,
      messages: [{ role: "user", content: llmJudgePrompt("is polite", "greet me", "Hello there") }],
      response_format: llmJudgeResponseFormat,
      temperature: 0
    })
    expect(r.usage).toEqual([
      { label: "llm_judge", prompt: 40, completion: 7, total: 47, requests: 1, costUsd: undefined }
    ])
    expect(r.events.map((e) => [e.operation, e.label])).toEqual([["chat", "llm_judge"]])
  })

  test("without model: the default model is used; config default: sampling applies under the model's own", async () => {
    const r = await score(
      [{ content: '{"score": 0.1, "reasoning": "rude"}' }],
      { defaultModel: "target" },
      (url) => configFor(url, { default: { temperature: 0.3, max_tokens: 64 } })
    )
    expect(r.result).toEqual({ score: 0.1, reasoning: "rude" })
    const body = server!.requests[0]!.body as Record<string, unknown>
    expect(body["model"]).toBe("target-model")
    expect(body["temperature"]).toBe(0.3)
    expect(body["max_completion_tokens"]).toBe(64)
  })

  test("no model anywhere: the documented error, and no request", async () => {
    const r = await score([], {})
    expect(r.result).toBe(LLM_JUDGE_NO_MODEL)
    expect(LLM_JUDGE_NO_MODEL).toBe("llm_judge requires a `model:` (no default model is available in this eval context)")
    expect(server!.requests).toHaveLength(0)
  })

  test("a server error is the judge's error", async () => {
    const r = await score([{ status: 400, body: { error: { message: "bad judge" } } }], { model: "judge" })
    expect(r.result).toBe(`the model server at '${server!.baseUrl}' answered HTTP 400: bad judge`)
  })

  test("an unparseable answer", async () => {
    const r = await score([{ content: "I think 0.8" }], { model: "judge" })
    expect(r.result).toBe('failed to parse llm_judge response as JSON: "I think 0.8"')
  })
})
