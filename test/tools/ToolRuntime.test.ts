// The tool loop with a scripted ModelClient (so every request can be inspected exactly) and real tools:
// shell commands, agent files, and the scripted MCP server.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import type { ConfigFile } from "../../src/config/schema.ts"
import { ModelClient, type ModelCall, type ModelResult } from "../../src/model/ModelClient.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import type { ChatMessage, ChatRequest, ResponseFormat } from "../../src/model/types.ts"
import { GENERIC_SUBAGENT_PARAMETERS } from "../../src/tools/subagents.ts"
import type { ToolNames } from "../../src/tools/request.ts"
import { makeToolRuntime } from "../../src/tools/ToolRuntime.ts"
import { RunTracer, type TraceEvent } from "../../src/trace/RunTracer.ts"
import { alive, bun, failureOf, pidsIn, scriptedServer, tempDir, waitFor } from "./helpers.ts"

const dir = tempDir("loop")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

interface Reply {
  readonly content?: string | null
  readonly calls?: ReadonlyArray<readonly [id: string, name: string, args: string]>
}

/** Replies are taken per label (a step, `subagent 'x'`); every call is logged. */
const scriptedModel = (script: Record<string, Array<Reply>>) => {
  const calls: Array<ModelCall> = []
  const layer = Layer.succeed(
    ModelClient,
    ModelClient.of({
      complete: (call) =>
        Effect.sync((): ModelResult => {
          calls.push(call)
          const reply = script[call.label]?.shift() ?? { content: `no script for ${call.label}` }
          return {
            content: reply.content === undefined ? "" : reply.content,
            reasoning: null,
            toolCalls: (reply.calls ?? []).map(([id, name, args]) => ({ id, type: "function", function: { name, arguments: args } })),
            usage: undefined,
            source: "live",
            endpoint: call.endpoints[0],
            raw: {}
          }
        })
    })
  )
  return { calls, layer }
}

const baseConfig = (extra: Partial<ConfigFile> = {}): ConfigFile => ({ base_url: "http://model.test/v1", ...extra })

const userTurn: ReadonlyArray<ChatMessage> = [{ role: "user", content: "go" }]

interface Options {
  readonly names: ToolNames
  readonly responseFormat?: ResponseFormat | null
  readonly maxToolRounds?: number
  readonly model?: string
  readonly cancelled?: Effect.Effect<void>
}

/** One step's request through a fresh runtime; resolves to the result and the run's trace. */
const runStep = (config: ConfigFile, model: ReturnType<typeof scriptedModel>, options: Options) =>
  Effect.gen(function*() {
    const laitConfig = yield* LaitConfig
    const runtime = yield* makeToolRuntime()
    const endpoints = yield* laitConfig.resolveEndpoints(options.model ?? "step-model")
    const request: ChatRequest = { messages: userTurn, tools: [], response_format: options.responseFormat ?? null }
    const result = yield* runtime.complete({
      label: "step1",
      endpoints,
      request,
      names: options.names,
      maxToolRounds: options.maxToolRounds,
      cancelled: options.cancelled
    })
    const events = yield* (yield* RunTracer).events
    return { result, events }
  }).pipe(
    Effect.scoped,
    Effect.provide(
      Layer.mergeAll(
        LaitConfig.layerTest(config, { env: { ...process.env, LOOP_DIR: dir }, cwd: dir }),
        FileLoader.layer,
        RunUsage.layer,
        RunTracer.layer,
        model.layer
      )
    )
  )

const echoTool = { command: ["echo", "{{input.text}}"], parameters: { type: "object", properties: { text: { type: "string" } } }, timeout: 30 }

const schemaFormat: ResponseFormat = {
  type: "json_schema",
  json_schema: { name: "out", schema: { type: "object", properties: { n: { type: "integer" } } }, strict: true }
}

const toolMessages = (call: ModelCall) => call.request.messages.filter((m) => m.role === "tool")

describe("the loop", () => {
  test("without tools: one request, response_format attached", async () => {
    const model = scriptedModel({ step1: [{ content: `{"n":1}` }] })
    const { result } = await Effect.runPromise(runStep(baseConfig(), model, { names: { tools: [] }, responseFormat: schemaFormat }))
    expect(result.content).toBe(`{"n":1}`)
    expect(model.calls).toHaveLength(1)
    expect(model.calls[0]!.request).toEqual({ messages: userTurn, tools: [], response_format: schemaFormat })
  })

  test("tool rounds: tools sent without response_format; calls answered in the model's order", async () => {
    const model = scriptedModel({
      step1: [
        { content: "thinking", calls: [["c1", "tool__echo", `{"text":"one"}`], ["c2", "tool__echo", `{"text":"two"}`]] },
        { content: "final answer" }
      ]
    })
    const config = baseConfig({ tools: { echo: echoTool } })
    const { result } = await Effect.runPromise(runStep(config, model, { names: { tools: ["echo"] } }))
    expect(result.content).toBe("final answer")
    expect(model.calls).toHaveLength(2)
    const [first, second] = model.calls
    expect(first!.request.response_format).toBeNull()
    expect(first!.request.tools.map((t) => t.function.name)).toEqual(["tool__echo"])
    expect(second!.request.messages).toEqual([
      ...userTurn,
      {
        role: "assistant",
        content: "thinking",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "tool__echo", arguments: `{"text":"one"}` } },
          { id: "c2", type: "function", function: { name: "tool__echo", arguments: `{"text":"two"}` } }
        ]
      },
      { role: "tool", content: "one", tool_call_id: "c1" },
      { role: "tool", content: "two", tool_call_id: "c2" }
    ])
    expect(second!.label).toBe("step1")
  })

  test("structured output: the final answer is asked again with tools: [] and the schema, same messages", async () => {
    const model = scriptedModel({
      step1: [{ calls: [["c1", "tool__echo", `{"text":"x"}`]] }, { content: "not json yet" }, { content: `{"n":2}` }]
    })
    const config = baseConfig({ tools: { echo: echoTool } })
    const { result } = await Effect.runPromise(runStep(config, model, { names: { tools: ["echo"] }, responseFormat: schemaFormat }))
    expect(result.content).toBe(`{"n":2}`)
    expect(model.calls).toHaveLength(3)
    const [, second, final] = model.calls
    expect(second!.request.response_format).toBeNull()
    expect(final!.request.tools).toEqual([])
    expect(final!.request.response_format).toEqual(schemaFormat)
    expect(final!.request.messages).toEqual(second!.request.messages)
  })

  test("max_tool_rounds: the documented error after that many requests", async () => {
    const looping = { calls: [["c", "tool__echo", `{"text":"again"}`]] as const }
    const model = scriptedModel({ step1: [looping, looping, looping] })
    const config = baseConfig({ tools: { echo: echoTool } })
    const failure = await failureOf(runStep(config, model, { names: { tools: ["echo"] }, maxToolRounds: 2 }))
    expect(failure).toEqual({
      message: "tool loop exceeded max_tool_rounds (2) without the model producing a final response",
      tag: "ToolError"
    })
    expect(model.calls).toHaveLength(2)
  })

  test("the default is 8 rounds", async () => {
    const looping = { calls: [["c", "tool__echo", `{"text":"again"}`]] as const }
    const model = scriptedModel({ step1: Array.from({ length: 10 }, () => looping) })
    const config = baseConfig({ tools: { echo: echoTool } })
    const failure = await failureOf(runStep(config, model, { names: { tools: ["echo"] } }))
    expect(failure.message).toBe("tool loop exceeded max_tool_rounds (8) without the model producing a final response")
    expect(model.calls).toHaveLength(8)
  })

  test("a call the model got wrong (unknown name, broken or non-object arguments) is answered, not fatal", async () => {
    const model = scriptedModel({
      step1: [
        {
          calls: [
            ["c1", "tool__nope", "{}"],
            ["c2", "tool__echo", `{"text":`],
            ["c3", "tool__echo", "[1]"],
            ["c4", "tool__echo", `{"text":"fine"}`]
          ]
        },
        { content: "recovered" }
      ]
    })
    // The policy would deny tool__nope if it existed; an unknown name is still reported as unknown.
    const config = baseConfig({ tools: { echo: echoTool, date: { command: ["date"], parameters: { type: "object", properties: {} }, timeout: 30 } }, tool_policy: { allow: [], deny: ["*nope"] } })
    const { result, events } = await Effect.runPromise(runStep(config, model, { names: { tools: ["echo", "date"] } }))
    expect(result.content).toBe("recovered")
    const answers = toolMessages(model.calls[1]!)
    expect(answers.map((m) => [m.tool_call_id, m.content])).toEqual([
      ["c1", "unknown tool 'tool__nope'; available: tool__echo, tool__date"],
      ["c2", expect.stringMatching(/^arguments are not valid JSON: \S/)],
      ["c3", "arguments must be a JSON object, got [1]"],
      ["c4", "fine"]
    ])
    const tools = events.filter((e: TraceEvent) => e.operation === "execute_tool")
    // Calls of a round run concurrently: compare by arguments, not by the order events were recorded.
    const byArgs = Object.fromEntries(
      tools.map((e) => [e.attributes["gen_ai.tool.arguments"], [e.attributes["gen_ai.tool.name"], e.attributes["lait.tool.decision"]]])
    )
    expect(byArgs).toEqual({
      "{}": ["tool__nope", "error"],
      [`{"text":`]: ["tool__echo", "error"],
      "[1]": ["tool__echo", "error"],
      [`{"text":"fine"}`]: ["tool__echo", "allowed"]
    })
    expect(tools.find((e) => e.attributes["gen_ai.tool.name"] === "tool__nope")!.attributes["lait.tool.error"]).toBe("unknown tool 'tool__nope'; available: tool__echo, tool__date")
  })

  test("tool_policy denials become the tool result; every call is an execute_tool event", async () => {
    const model = scriptedModel({
      step1: [{ calls: [["c1", "tool__echo", `{"text":"ok"}`], ["c2", "tool__rm", `{"path":"/"}`]] }, { content: "done" }]
    })
    const config = baseConfig({
      tools: { echo: echoTool, rm: { command: ["false"], parameters: { type: "object", properties: {} }, timeout: 30 } },
      tool_policy: { allow: [], deny: ["*rm"] }
    })
    const { events } = await Effect.runPromise(runStep(config, model, { names: { tools: ["echo", "rm"] } }))
    expect(toolMessages(model.calls[1]!)).toEqual([
      { role: "tool", content: "ok", tool_call_id: "c1" },
      { role: "tool", content: "denied by 'tool_policy' in lait.config.yml", tool_call_id: "c2" }
    ])
    const tools = events.filter((e: TraceEvent) => e.operation === "execute_tool")
    expect(tools.map((e) => e.label).sort()).toEqual(["tool 'tool__echo'", "tool 'tool__rm'"])
    const denied = tools.find((e) => e.label === "tool 'tool__rm'")!
    expect(Object.entries(denied.attributes)).toEqual([
      ["gen_ai.tool.name", "tool__rm"],
      ["gen_ai.tool.arguments", `{"path":"/"}`],
      ["lait.step.label", "step1"],
      ["lait.tool.round", 1],
      ["lait.tool.decision", "denied"],
      ["lait.tool.denial_reason", "denied by 'tool_policy' in lait.config.yml"]
    ])
    const allowed = tools.find((e) => e.label === "tool 'tool__echo'")!
    expect(Object.entries(allowed.attributes)).toEqual([
      ["gen_ai.tool.name", "tool__echo"],
      ["gen_ai.tool.arguments", `{"text":"ok"}`],
      ["lait.step.label", "step1"],
      ["lait.tool.round", 1],
      ["lait.tool.decision", "allowed"]
    ])
  })

  test("calls of one reply run at most 8 at a time and are answered in order", async () => {
    const calls = Array.from({ length: 16 }, (_, i) => [`c${i}`, "tool__nap", `{"n":${i}}`] as const)
    const model = scriptedModel({ step1: [{ calls }, { content: "rested" }] })
    // Each call marks itself running, waits until eight have been running at once (the first to see
    // it leaves a note for the rest; 30 s at most), notes how many it saw, and unmarks itself: counts,
    // not durations. Unbounded, a call would see more than 8; with a lower bound none would see 8.
    const running = fs.mkdtempSync(path.join(dir, "running-"))
    const count = `ls ${running} | grep -c '^run'`
    const script = `touch ${running}/run.$1; i=0; until [ -e ${running}/eight ] || [ $i -ge 600 ]; do ` +
      `[ "$(${count})" -ge 8 ] && touch ${running}/eight || sleep 0.05; i=$((i+1)); done; ` +
      `${count} > ${running}/seen.$1; rm ${running}/run.$1; echo $1`
    const nap = {
      command: ["sh", "-c", script, "nap", "{{input.n}}"],
      parameters: { type: "object", properties: {} },
      timeout: 60
    }
    await Effect.runPromise(runStep(baseConfig({ tools: { nap } }), model, { names: { tools: ["nap"] } }))
    const seen = Array.from({ length: 16 }, (_, i) => Number(fs.readFileSync(path.join(running, `seen.${i}`), "utf8")))
    expect(Math.max(...seen), `calls running at once, as each call saw them: ${seen.join(" ")}`).toBe(8)
    expect(toolMessages(model.calls[1]!).map((m) => (m as { content: string }).content)).toEqual(
      Array.from({ length: 16 }, (_, i) => String(i))
    )
  }, 60_000)

  test("tool names of two sources may not collide", async () => {
    const model = scriptedModel({})
    const config = baseConfig({
      tools: { echo: echoTool },
      mcp_servers: { tool: { command: bun, args: [scriptedServer], env: { MCP_FIXTURE_TOOLS: "echo" } } }
    })
    expect((await failureOf(runStep(config, model, { names: { mcp: ["tool"], tools: ["echo"] } }))).message).toBe(
      "tool name collision: an MCP tool and a shell tool both qualify to 'tool__echo'"
    )
    expect(model.calls).toHaveLength(0)
  }, 20_000)

  test("MCP tools come first, then subagents, then shell tools; the run's servers stop with its scope", async () => {
    const pids = path.join(dir, "order-pids.txt")
    const agent = path.join(dir, "helper.md")
    fs.writeFileSync(agent, "---\ndescription: Helps\n---\nYou help.\n")
    const model = scriptedModel({ step1: [{ content: "no tools needed" }] })
    const config = baseConfig({
      tools: { echo: echoTool },
      agents: { helper: agent },
      mcp_servers: { srv: { command: bun, args: [scriptedServer], env: { MCP_FIXTURE_TOOLS: "a,b", MCP_FIXTURE_PID_FILE: pids } } }
    })
    await Effect.runPromise(runStep(config, model, { names: { tools: ["echo"], subagents: ["helper"], mcp: ["srv"] } }))
    expect(model.calls[0]!.request.tools.map((t) => t.function.name)).toEqual(["srv__a", "srv__b", "agent__helper", "tool__echo"])
    expect(pidsIn(pids)).toHaveLength(1)
    expect(await waitFor(() => pidsIn(pids).filter(alive).length === 0, 3000)).toBe(true)
  }, 20_000)

  test("the run's cancellation ends the loop and stops a running tool", async () => {
    const pids = path.join(dir, "cancel-pids.txt")
    const model = scriptedModel({ step1: [{ calls: [["c1", "tool__slow", "{}"]] }] })
    const slow = {
      command: ["sh", "-c", `echo $$ >> ${pids}; sleep 30 & echo $! >> ${pids}; wait`],
      parameters: { type: "object", properties: {} },
      timeout: 60
    }
    const failure = await failureOf(
      runStep(baseConfig({ tools: { slow } }), model, {
        names: { tools: ["slow"] },
        cancelled: Effect.andThen(
          Effect.promise(() => waitFor(() => pidsIn(pids).length === 2, 5000)),
          Effect.void
        )
      })
    )
    expect(failure).toEqual({ message: "workflow execution was cancelled", tag: "InterruptedError" })
    expect(pidsIn(pids)).toHaveLength(2)
    expect(await waitFor(() => pidsIn(pids).filter(alive).length === 0, 4000)).toBe(true)
  }, 20_000)
})

describe("subagents", () => {
  const writeAgent = (name: string, text: string) => {
    const file = path.join(dir, `${name}.md`)
    fs.writeFileSync(file, text)
    return file
  }

  test("its own frontmatter and the config defaults; label subagent '<name>'; the reply is the tool result", async () => {
    const helper = writeAgent("helper", "---\nmodel: sub-model\ntemperature: 0.7\n---\nYou are {{input}}'s helper.\n")
    const model = scriptedModel({
      step1: [{ calls: [["c1", "agent__helper", `{"input":"Ann"}`]] }, { content: "thanks" }],
      "subagent 'helper'": [{ content: "helped" }]
    })
    const config = baseConfig({ agents: { helper }, default: { top_p: 0.5, max_tokens: 99 } })
    const { result, events } = await Effect.runPromise(runStep(config, model, { names: { subagents: ["helper"] } }))
    expect(result.content).toBe("thanks")
    const first = model.calls[0]!
    expect(first.request.tools).toEqual([{
      type: "function",
      function: {
        name: "agent__helper",
        description: "Runs the 'helper' subagent for a delegated task.",
        parameters: GENERIC_SUBAGENT_PARAMETERS
      }
    }])
    const sub = model.calls[1]!
    expect(sub.label).toBe("subagent 'helper'")
    expect(sub.endpoints[0].modelId).toBe("sub-model")
    expect(sub.request).toEqual({
      messages: [{ role: "system", content: "You are Ann's helper." }, { role: "user", content: "Ann" }],
      tools: [],
      response_format: null,
      temperature: 0.7,
      top_p: 0.5,
      max_tokens: 99
    })
    expect(toolMessages(model.calls[2]!)).toEqual([{ role: "tool", content: "helped", tool_call_id: "c1" }])
    expect(events.filter((e) => e.operation === "execute_tool").map((e) => e.attributes["lait.step.label"])).toEqual(["step1"])
  })

  test("with an input_schema the whole arguments object is the input, validated; its tools are its own", async () => {
    const writer = writeAgent(
      "writer",
      "---\nmodel: sub-model\ninput_schema: {type: object, properties: {topic: {type: string}}, required: [topic]}\n" +
        "tools: [echo]\n---\nWrite about {{input.topic}}.\n"
    )
    const model = scriptedModel({
      step1: [{ calls: [["c1", "agent__writer", `{"topic":"tea"}`]] }, { content: "ok" }],
      "subagent 'writer'": [{ calls: [["s1", "tool__echo", `{"text":"inner"}`]] }, { content: "essay" }]
    })
    const config = baseConfig({ agents: { writer }, tools: { echo: echoTool } })
    const { events } = await Effect.runPromise(runStep(config, model, { names: { subagents: ["writer"] } }))
    expect(model.calls[0]!.request.tools[0]!.function.parameters).toEqual({
      type: "object",
      properties: { topic: { type: "string" } },
      required: ["topic"]
    })
    expect(model.calls[1]!.request.messages).toEqual([
      { role: "system", content: "Write about tea." },
      { role: "user", content: `{"topic":"tea"}` }
    ])
    expect(model.calls[1]!.request.tools.map((t) => t.function.name)).toEqual(["tool__echo"])
    expect(toolMessages(model.calls[3]!)).toEqual([{ role: "tool", content: "essay", tool_call_id: "c1" }])
    const labels = events.filter((e) => e.operation === "execute_tool").map((e) => [e.label, e.attributes["lait.step.label"]])
    expect(labels).toEqual([["tool 'tool__echo'", "subagent 'writer'"], ["tool 'agent__writer'", "step1"]])

    const invalid = scriptedModel({ step1: [{ calls: [["c1", "agent__writer", `{"topic":5}`]] }] })
    expect((await failureOf(runStep(config, invalid, { names: { subagents: ["writer"] } }))).message).toBe(
      "subagent 'writer': input.topic must be of type string (got number)"
    )
  })

  test("a subagent that calls itself is a cycle", async () => {
    const loop = writeAgent("loop", "---\nmodel: m\nsubagents: [loop]\n---\nLoop.\n")
    const model = scriptedModel({
      step1: [{ calls: [["c1", "agent__loop", `{"input":"x"}`]] }],
      "subagent 'loop'": [{ calls: [["c2", "agent__loop", `{"input":"y"}`]] }]
    })
    const config = baseConfig({ agents: { loop } })
    expect((await failureOf(runStep(config, model, { names: { subagents: ["loop"] } }))).message).toBe(
      `subagent 'loop': calling subagent 'loop' would create a cycle ('${loop}' is already running)`
    )
  })

  test("16 nested subagents run; the 17th is too deep", async () => {
    const agents: Record<string, string> = {}
    const script: Record<string, Array<Reply>> = { step1: [{ calls: [["c", "agent__a0", `{"input":"go"}`]] }, { content: "top" }] }
    for (let i = 0; i <= 16; i++) {
      agents[`a${i}`] = writeAgent(`a${i}`, `---\nmodel: m\nsubagents: [a${i + 1}]\n---\nLevel ${i}.\n`)
      script[`subagent 'a${i}'`] = [{ calls: [["c", `agent__a${i + 1}`, `{"input":"deeper"}`]] }, { content: `a${i} done` }]
    }
    agents["a17"] = writeAgent("a17", "---\nmodel: m\n---\nLeaf.\n")
    // a15 answers instead of calling a16: 16 levels.
    const fits = { ...script, "subagent 'a15'": [{ content: "a15 done" }] }
    const ok = scriptedModel(structuredClone(fits))
    const { result } = await Effect.runPromise(runStep(baseConfig({ agents }), ok, { names: { subagents: ["a0"] } }))
    expect(result.content).toBe("top")

    const deep = scriptedModel(structuredClone(script))
    const failure = await failureOf(runStep(baseConfig({ agents }), deep, { names: { subagents: ["a0"] } }))
    const chain = Array.from({ length: 16 }, (_, i) => `subagent 'a${i}'`).join(": ")
    expect(failure.message).toBe(`${chain}: calling subagent 'a16' exceeded the maximum subagent nesting depth of 16`)
  }, 20_000)

  test("unknown subagent, missing model, missing 'input'", async () => {
    const bare = writeAgent("bare", "---\ndescription: No model here\n---\nHi.\n")
    const config = baseConfig({ agents: { bare } })
    expect((await failureOf(runStep(config, scriptedModel({}), { names: { subagents: ["ghost"] } }))).message).toBe(
      "unknown subagent 'ghost'; define it under 'agents:' in lait.config.yml"
    )
    const noModel = scriptedModel({ step1: [{ calls: [["c", "agent__bare", `{"input":"x"}`]] }] })
    expect((await failureOf(runStep(config, noModel, { names: { subagents: ["bare"] } }))).message).toBe(
      `subagent 'bare': model is required for subagent 'bare' (no lait.config.yml found from '${dir}' upward); set it in its frontmatter`
    )
    const noInput = scriptedModel({ step1: [{ calls: [["c", "agent__bare", `{"task":"x"}`]] }] })
    expect(
      (await failureOf(runStep({ ...config, default: { model: "m" } }, noInput, { names: { subagents: ["bare"] } }))).message
    ).toBe("subagent 'bare': subagent tool call is missing the required 'input' field")
  })
})
