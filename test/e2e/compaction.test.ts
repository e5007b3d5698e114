// Tool-round compaction as a user meets it: `lait run` as a real process against the fixture OpenAI
// server, which scripts a loop of six `tool__echo` rounds (a real shell tool) and answers the summary
// requests. The server's request log shows where the summary lands; --trace-file and `trace show
// --summary` show the `compact` events; the run is recorded, then replayed with no server answering.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import YAML from "yaml"
import { COMPACTION_INSTRUCTION } from "../../src/tools/compaction.ts"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"
import { binaryWorks, lait, type LoggedBody, write } from "./tools-util.ts"
import { makeTempDir } from "./util.ts"

let cwd = ""
const servers: Array<OpenAiServer> = []

beforeAll(async () => {
  cwd = fs.realpathSync(makeTempDir("e2e-compaction"))
  await binaryWorks(cwd)
}, 300_000)
afterAll(async () => {
  for (const s of servers) await s.stop()
  fs.rmSync(cwd, { recursive: true, force: true })
})

const echoTool = {
  command: ["echo", "{{input.text}}"],
  description: "Echo text back",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
}

const WORKFLOW = [
  "steps:",
  "  - id: ask",
  "    system: You are a tester.",
  "    prompt: 'start the loop'",
  "    tools: [echo]",
  ""
].join("\n")

/** Only the summary request carries the instruction, so these replies answer nothing else. */
const INSTRUCTION_MARK = "what remains to be done"

const summaryReply = (content: string): ScriptedReply => ({ match: INSTRUCTION_MARK, content })

/** Six rounds that each call tool__echo once, then a final answer; `usage[i]` for round i+1. */
const loopScript = (usage: ReadonlyArray<NonNullable<ScriptedReply["usage"]> | null> = []): Array<ScriptedReply> => {
  const usageOf = (i: number) => {
    const u = usage[i]
    return u === undefined ? {} : { usage: u }
  }
  return [
    ...[1, 2, 3, 4, 5, 6].map((i): ScriptedReply => ({
      content: null,
      tool_calls: [{ id: `c${i}`, name: "tool__echo", arguments: JSON.stringify({ text: `r${i}` }) }],
      ...usageOf(i - 1)
    })),
    { content: "loop done", ...usageOf(6) }
  ]
}

let dirs = 0
const project = (server: OpenAiServer, compaction: Record<string, unknown>, workflow = WORKFLOW) => {
  const dir = path.join(cwd, `p${++dirs}`)
  fs.mkdirSync(dir, { recursive: true })
  write(
    dir,
    "lait.config.yml",
    YAML.stringify({ base_url: server.baseUrl, default: { model: "fixture-model", compaction }, tools: { echo: echoTool } })
  )
  write(dir, "wf.yml", workflow)
  return dir
}

const model = (script: ReadonlyArray<ScriptedReply>) => {
  const server = startOpenAiServer({ script })
  servers.push(server)
  return server
}

/** A message as a short string: `call:<id>` for an assistant tool call, else `<role>:<content>`. */
const shape = (m: LoggedBody["messages"][number] & { tool_calls?: ReadonlyArray<{ id: string }> }): string =>
  m.role === "assistant" && m.tool_calls !== undefined
    ? `call:${m.tool_calls.map((c) => c.id).join(",")}`
    : `${m.role}:${String(m.content)}`

const bodies = (server: OpenAiServer) => server.requests.map((r) => r.body as LoggedBody)
const shapes = (body: LoggedBody) => body.messages.map(shape)
const rounds = (...ns: Array<number>) => ns.flatMap((n) => [`call:c${n}`, `tool:r${n}`])
const summary = (text: string) => `assistant:(summary of the conversation so far, produced by compaction: ${text})`
const SYSTEM = "system:You are a tester."
const USER = "user:start the loop"
const INSTRUCTION = `user:${COMPACTION_INSTRUCTION}`

interface Event {
  readonly seq: number
  readonly operation: string
  readonly label: string
  readonly attributes: Record<string, unknown>
}
const readTrace = (file: string): Array<Event> =>
  fs.readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Event)
const modelAndToolEvents = (events: ReadonlyArray<Event>) =>
  events.filter((e) => e.operation === "chat" || e.operation === "execute_tool" || e.operation === "compact")
const compacts = (events: ReadonlyArray<Event>): Array<Record<string, unknown>> =>
  events.filter((e) => e.operation === "compact").map((e) => ({ label: e.label, ...e.attributes }))

const normalize = (text: string) => text.replace(/total=\d+ms/g, "total=Nms")

/** Replays `dir`'s recording with a server that would fail every request: nothing may reach it. */
const replay = async (dir: string, recorded: OpenAiServer) => {
  const before = recorded.requests.length
  const r = await lait(dir, ["run", "wf.yml", "x", "--replay", "cassettes", "--trace-file", "replay.jsonl"])
  expect(recorded.requests.length).toBe(before)
  return r
}

describe("default.compaction in the tool loop", () => {
  test("trigger_rounds: 2 fires before rounds 2, 4 and 6; round 2 has nothing to summarise", async () => {
    const server = model([summaryReply("SUM-A"), summaryReply("SUM-B"), ...loopScript()])
    const dir = project(server, { trigger_rounds: 2 })
    const r = await lait(dir, ["run", "wf.yml", "x", "--trace-file", "trace.jsonl", "--record", "cassettes"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "loop done\n" })

    const sent = bodies(server)
    expect(sent).toHaveLength(9)
    expect(sent.map(shapes)).toEqual([
      [SYSTEM, USER],
      [SYSTEM, USER, ...rounds(1)],
      [SYSTEM, USER, ...rounds(1, 2)],
      // Before round 4: 7 non-system messages > keep_last_n (4).
      [SYSTEM, USER, ...rounds(1, 2, 3), INSTRUCTION],
      [SYSTEM, summary("SUM-A"), ...rounds(2, 3)],
      [SYSTEM, summary("SUM-A"), ...rounds(2, 3, 4)],
      // Before round 6 the earlier summary is part of what gets summarised.
      [SYSTEM, summary("SUM-A"), ...rounds(2, 3, 4, 5), INSTRUCTION],
      [SYSTEM, summary("SUM-B"), ...rounds(4, 5)],
      [SYSTEM, summary("SUM-B"), ...rounds(4, 5, 6)]
    ])
    // The summary request has no tools and no response_format; the rounds keep their tools.
    for (const i of [3, 6]) {
      expect(sent[i]!.tools).toBeUndefined()
      expect(sent[i]!.response_format).toBeUndefined()
      expect(sent[i]!.model).toBe("fixture-model")
    }
    expect(sent[4]!.tools!.map((t) => t.function.name)).toEqual(["tool__echo"])

    const events = readTrace(path.join(dir, "trace.jsonl"))
    expect(modelAndToolEvents(events).map((e) => `${e.operation} ${e.label}`)).toEqual([
      "chat ask",
      "execute_tool tool 'tool__echo'",
      "chat ask",
      "execute_tool tool 'tool__echo'",
      "chat ask",
      "execute_tool tool 'tool__echo'",
      "chat ask", // the summary request
      "compact ask",
      "chat ask",
      "execute_tool tool 'tool__echo'",
      "chat ask",
      "execute_tool tool 'tool__echo'",
      "chat ask",
      "compact ask",
      "chat ask",
      "execute_tool tool 'tool__echo'",
      "chat ask"
    ])
    expect(compacts(events)).toEqual([
      { label: "ask", "lait.compaction.round": 4, "lait.compaction.messages_before": 8, "lait.compaction.messages_after": 6 },
      { label: "ask", "lait.compaction.round": 6, "lait.compaction.messages_before": 10, "lait.compaction.messages_after": 6 }
    ])

    const shown = await lait(dir, ["trace", "show", "--summary", "trace.jsonl"])
    expect({ code: shown.code, stdout: normalize(shown.stdout) }).toEqual({
      code: 0,
      stdout: "ask: chat=9 execute_tool=0 compact=2 total=Nms tokens(in=90 out=45)\n" +
        "tool 'tool__echo': chat=0 execute_tool=6 compact=0 total=Nms tokens(in=0 out=0)\n"
    })
    const only = await lait(dir, ["trace", "show", "--operation", "compact", "trace.jsonl"])
    expect(only.stdout.trimEnd().split("\n").map((l) => l.replace(/^\[ *\d+ms\] /, "").replace(/ \u2014 .*?  \(/, " ("))).toEqual([
      "compact      ask (lait.compaction.round=4 lait.compaction.messages_before=8 lait.compaction.messages_after=6)",
      "compact      ask (lait.compaction.round=6 lait.compaction.messages_before=10 lait.compaction.messages_after=6)"
    ])

    const replayed = await replay(dir, server)
    expect({ code: replayed.code, stdout: replayed.stdout }).toEqual({ code: 0, stdout: "loop done\n" })
    const again = readTrace(path.join(dir, "replay.jsonl"))
    expect(compacts(again)).toEqual(compacts(events))
    const chats = again.filter((e) => e.operation === "chat")
    expect(chats.map((e) => e.attributes["lait.source"])).toEqual(Array(9).fill("replay"))
  }, 120_000)

  test("trigger_tokens with a compaction model: fires after a round's prompt reached it, then forgets it", async () => {
    // Round 3 reports no usage: the remembered 450 was reset by the compaction, so round 4 does not fire.
    const server = model([
      summaryReply("TOK-1"),
      summaryReply("TOK-2"),
      ...loopScript([
        { prompt_tokens: 100, completion_tokens: 1 },
        { prompt_tokens: 450, completion_tokens: 1 },
        null,
        { prompt_tokens: 100, completion_tokens: 1 },
        { prompt_tokens: 500, completion_tokens: 1 },
        { prompt_tokens: 100, completion_tokens: 1 },
        { prompt_tokens: 100, completion_tokens: 1 }
      ])
    ])
    const dir = project(server, { trigger_tokens: 400, keep_last_n: 2, model: "summary-model" })
    const r = await lait(dir, ["run", "wf.yml", "x", "--trace-file", "trace.jsonl", "--record", "cassettes"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "loop done\n" })

    const sent = bodies(server)
    expect(sent.map(shapes)).toEqual([
      [SYSTEM, USER],
      [SYSTEM, USER, ...rounds(1)],
      [SYSTEM, USER, ...rounds(1, 2), INSTRUCTION],
      [SYSTEM, summary("TOK-1"), ...rounds(2)],
      [SYSTEM, summary("TOK-1"), ...rounds(2, 3)],
      [SYSTEM, summary("TOK-1"), ...rounds(2, 3, 4)],
      [SYSTEM, summary("TOK-1"), ...rounds(2, 3, 4, 5), INSTRUCTION],
      [SYSTEM, summary("TOK-2"), ...rounds(5)],
      [SYSTEM, summary("TOK-2"), ...rounds(5, 6)]
    ])
    expect(sent.map((b) => b.model)).toEqual([
      "fixture-model",
      "fixture-model",
      "summary-model",
      "fixture-model",
      "fixture-model",
      "fixture-model",
      "summary-model",
      "fixture-model",
      "fixture-model"
    ])

    const events = readTrace(path.join(dir, "trace.jsonl"))
    expect(compacts(events)).toEqual([
      { label: "ask", "lait.compaction.round": 3, "lait.compaction.messages_before": 6, "lait.compaction.messages_after": 4 },
      { label: "ask", "lait.compaction.round": 6, "lait.compaction.messages_before": 10, "lait.compaction.messages_after": 4 }
    ])
    const summaries = events.filter((e) => e.operation === "chat" && e.label === "ask (compaction)")
    expect(summaries.map((e) => e.attributes["gen_ai.request.model"])).toEqual(["summary-model", "summary-model"])

    const shown = await lait(dir, ["trace", "show", "--summary", "trace.jsonl"])
    expect({ code: shown.code, stdout: normalize(shown.stdout) }).toEqual({
      code: 0,
      stdout: "ask: chat=7 execute_tool=0 compact=2 total=Nms tokens(in=1350 out=6)\n" +
        "tool 'tool__echo': chat=0 execute_tool=6 compact=0 total=Nms tokens(in=0 out=0)\n" +
        "ask (compaction): chat=2 execute_tool=0 compact=0 total=Nms tokens(in=20 out=10)\n"
    })

    const replayed = await replay(dir, server)
    expect({ code: replayed.code, stdout: replayed.stdout }).toEqual({ code: 0, stdout: "loop done\n" })
    expect(compacts(readTrace(path.join(dir, "replay.jsonl")))).toEqual(compacts(events))
  }, 120_000)

  test("compaction requests do not count as rounds: max_tool_rounds still ends the loop", async () => {
    const server = model([summaryReply("SUM"), ...loopScript()])
    const dir = project(
      server,
      { trigger_rounds: 2 },
      WORKFLOW.replace("    tools: [echo]\n", "    tools: [echo]\n    max_tool_rounds: 5\n")
    )
    const r = await lait(dir, ["run", "wf.yml", "x"])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      "tool loop exceeded max_tool_rounds (5) without the model producing a final response"
    )
    // Rounds 1–5 plus the summary before round 4.
    expect(bodies(server).map((b) => shapes(b).at(-1))).toEqual([
      USER,
      "tool:r1",
      "tool:r2",
      INSTRUCTION,
      "tool:r3",
      "tool:r4"
    ])
  }, 60_000)

  test("a compaction without a trigger fails before the first request", async () => {
    const server = model(loopScript())
    const dir = project(server, { keep_last_n: 2 })
    const r = await lait(dir, ["run", "wf.yml", "x"])
    expect(r.code).toBe(1)
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe("lait: default.compaction needs trigger_rounds or trigger_tokens")
    expect(server.requests).toHaveLength(0)
    // A zero never gets that far: the config file itself is rejected (exit 3, with its line).
    const zero = project(server, { trigger_rounds: 0 })
    const z = await lait(zero, ["run", "wf.yml", "x"])
    expect({ code: z.code, last: z.stderr.trimEnd().split("\n").at(-1) }).toEqual({
      code: 3,
      last: `lait: failed to parse YAML configuration file '${path.join(zero, "lait.config.yml")}': ` +
        "default.compaction.trigger_rounds: expected a value greater than or equal to 1 (line 5)"
    })
    expect(server.requests).toHaveLength(0)
  }, 60_000)
})
