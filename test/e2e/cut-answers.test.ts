// Answers the server cut off at its token limit (`finish_reason: "length"`), through the binary: a
// `warning:` naming the limit, `finish_reason` in `--json` (one-shot chat and `lait run`), in the
// trace's `chat` event, and an output-schema failure that says the answer was cut
// (docs/chat.md, docs/workflows.md#structured-output, docs/traces.md#chat).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"
import { ensureBinary, makeTempDir, runCli } from "./util.ts"

let dir = ""
let server: OpenAiServer | undefined
beforeAll(async () => {
  dir = makeTempDir("cut-answers")
  await ensureBinary()
}, 300_000)
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const env = { ...process.env, NO_COLOR: "1" }
const serve = (script: Array<ScriptedReply>) => (server = startOpenAiServer({ script }))

const chat = (...args: Array<string>) =>
  runCli(["--no-config", "--model", "m", "--base-url", server!.baseUrl, ...args], { cwd: dir, env, binary: true })

/** A project whose workflow asks model `m` once, with `step` added to the step. */
const project = (name: string, step = "") => {
  const cwd = path.join(dir, name)
  fs.mkdirSync(cwd, { recursive: true })
  fs.writeFileSync(path.join(cwd, "lait.config.yml"), `base_url: '${server!.baseUrl}'\n`)
  fs.writeFileSync(path.join(cwd, "wf.yml"), `steps:\n  - id: ask\n    model: m\n    prompt: 'Say {{ input }}'\n${step}`)
  return cwd
}

describe("one-shot chat", () => {
  test("a cut answer prints with a warning naming --max-tokens; --json says finish_reason length", async () => {
    serve([{ content: "The first half of", finish_reason: "length", repeat: true }])
    const r = await chat("--max-tokens", "5", "tell me")
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: "The first half of\n",
      stderr: "warning: chat: the answer was cut off at max_tokens 5 (finish_reason \"length\")\n"
    })
    const json = await chat("--json", "tell me")
    expect(json.stderr).toBe("warning: chat: the answer was cut off at the server's token limit (finish_reason \"length\")\n")
    expect(JSON.parse(json.stdout)).toEqual({
      content: "The first half of",
      reasoning: null,
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      finish_reason: "length"
    })
  })

  test("--stream warns too; a whole answer says finish_reason stop and no warning", async () => {
    serve([{ content: "cut here", finish_reason: "length" }, { content: "whole" }])
    const streamed = await chat("--stream", "a")
    expect({ code: streamed.code, stdout: streamed.stdout }).toEqual({ code: 0, stdout: "cut here\n" })
    expect(streamed.stderr).toContain("the answer was cut off at the server's token limit")
    const whole = await chat("--json", "b")
    expect([whole.stderr, JSON.parse(whole.stdout).finish_reason]).toEqual(["", "stop"])
  })
})

describe("lait run", () => {
  test("--json and the trace carry the finish reason; the warning names the step", async () => {
    serve([{ content: "half", finish_reason: "length" }])
    const cwd = project("run")
    const r = await runCli(["run", "wf.yml", "x", "--json", "--trace-file", "t.jsonl"], { cwd, env, binary: true })
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 0,
      stderr: "[1] ask\nwarning: ask: the answer was cut off at the server's token limit (finish_reason \"length\")\n" +
        "note: trace written to 't.jsonl' (1 event)\n"
    })
    expect(JSON.parse(r.stdout)).toMatchObject({ content: "half", finish_reason: "length" })
    const [event] = fs.readFileSync(path.join(cwd, "t.jsonl"), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l))
    expect(event.attributes["gen_ai.response.finish_reasons"]).toEqual(["length"])
  })

  test("an output-schema failure on a cut answer says it was cut off", async () => {
    serve([{ content: "{\"summary\": \"the beginning of a long", finish_reason: "length" }])
    const cwd = project("schema", "    max_tokens: 8\n    output_schema: {type: object, required: [summary]}\n")
    const r = await runCli(["run", "wf.yml", "x"], { cwd, env, binary: true })
    expect(r.code).not.toBe(0)
    expect(r.stderr.split("\n").at(-2)).toBe(
      "lait: step 'ask': the model's response, cut off at max_tokens 8 (finish_reason \"length\"), is not valid JSON " +
        "for output schema 'structured_output': {\"summary\": \"the beginning of a long"
    )
  })
})
