// One-shot chat (`lait [FLAGS] PROMPT`), judged by what the fixture OpenAI server received: every
// flag group, stdin, sessions across invocations, named prompts, record/replay, traces, and the
// usage errors of the root command.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import type { OpenAiServer } from "../fixtures/openai-server.ts"
import { findLeaks, makeKey } from "../hardening/secrets-util.ts"
import { everythingBin } from "./tools-util.ts"
import { bodies, filesUnder, outcome, prepareCli, projectsIn, refusedBaseUrl, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-chat")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const project = projectsIn(ws)

const at = (s: OpenAiServer) => ["--base-url", s.baseUrl]

// A 1×1 transparent PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64"
)

describe("one-shot chat", () => {
  test("PROMPT goes out as the user message to --model at --base-url; the answer is stdout", async () => {
    const s = server()
    const r = await project().lait(["--model", "m1", ...at(s), "hello"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "echo: hello\n", stderr: "" })
    expect(bodies(s)).toEqual([{ model: "m1", messages: [{ role: "user", content: "hello" }], stream: false }])
  })

  test("sampling flags, their LLM_* variables, and --max-tokens as max_completion_tokens", async () => {
    const s = server({ script: [{ content: "a", repeat: true }] })
    const p = project()
    const flags = await p.lait([
      "--model", "m", ...at(s), "--temperature", "0.5", "--top-p", "0.9", "--max-tokens", "64",
      "--reasoning-effort", "low", "q"
    ])
    expect(flags.code).toBe(0)
    const env = await p.lait(["q", ...at(s)], {
      LLM_MODEL: "envm", LLM_TEMPERATURE: "1.5", LLM_TOP_P: "0.1", LLM_MAX_TOKENS: "7", LLM_REASONING_EFFORT: "high"
    })
    expect(env.code).toBe(0)
    const [a, b] = bodies(s)
    expect(a).toMatchObject({ model: "m", temperature: 0.5, top_p: 0.9, max_completion_tokens: 64, reasoning_effort: "low" })
    expect(b).toMatchObject({ model: "envm", temperature: 1.5, top_p: 0.1, max_completion_tokens: 7, reasoning_effort: "high" })
    const bad = await p.lait(["--model", "m", ...at(s), "--temperature", "3", "q"])
    expect(outcome(bad)).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: invalid value '3' for '--temperature <TEMPERATURE>': expected a number from 0 to 2\n"
    })
    const badEnv = await p.lait(["--model", "m", ...at(s), "q"], { LLM_MAX_TOKENS: "0" })
    expect(badEnv.code).toBe(2)
    expect(bodies(s)).toHaveLength(2)
  })

  test("--system, --system-file, default.system; --system with --system-file is a usage error", async () => {
    const s = server({ script: [{ content: "a", repeat: true }] })
    const p = project({ "sys.txt": "From a file.\n\n", "lait.config.yml": "default:\n  system: From config.\n" })
    for (const args of [["--system", "Inline."], ["--system-file", "sys.txt"], []]) {
      expect((await p.lait(["--model", "m", ...at(s), ...args, "q"])).code).toBe(0)
    }
    expect(bodies(s).map((b) => (b["messages"] as Array<unknown>)[0])).toEqual([
      { role: "system", content: "Inline." },
      { role: "system", content: "From a file." },
      { role: "system", content: "From config." }
    ])
    const both = await p.lait(["--model", "m", ...at(s), "--system", "a", "--system-file", "sys.txt", "q"])
    expect(outcome(both)).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--system <TEXT>' cannot be used with '--system-file <FILE>'\n"
    })
  })

  test("--file as fenced blocks, --image as image_url parts (a data URL for a local file, a URL as given)", async () => {
    const s = server()
    const p = project({ "notes.md": "some ```code``` here", "dot.png": PNG })
    const r = await p.lait([
      "--model", "m", ...at(s), "--file", "notes.md", "--image", "dot.png", "--image", "https://example.com/x.jpg", "look"
    ])
    expect(r.code).toBe(0)
    expect(bodies(s)[0]!["messages"]).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look\n\n````notes.md\nsome ```code``` here\n````" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
          { type: "image_url", image_url: { url: "https://example.com/x.jpg" } }
        ]
      }
    ])
  })

  test("--file with a PDF sends a file part (a data URL and its name); other binaries are refused", async () => {
    const s = server({ script: [{ content: "read it", repeat: true }] })
    // Not valid UTF-8 past its header, as a real PDF's binary streams are not.
    const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0xff, 0x00]), Buffer.from("\n%%EOF\n")])
    const p = project({
      "docs/report.pdf": pdf,
      "notes.txt": "plain",
      "blob.bin": new Uint8Array([0xff, 0xfe, 0x00, 0x41]),
      "wf.yml": "steps:\n  - model: m\n    prompt: 'Summarise'\n    files: ['docs/report.pdf']\n"
    })
    const r = await p.lait([
      "--model", "m", ...at(s), "--file", "notes.txt", "--file", "docs/report.pdf", "--record", "cas", "summarise"
    ])
    expect(outcome(r)).toEqual({ code: 0, stdout: "read it\n", stderr: "" })
    const sent = [{
      role: "user",
      content: [
        { type: "text", text: "summarise\n\n```notes.txt\nplain\n```" },
        { type: "file", file: { file_data: `data:application/pdf;base64,${pdf.toString("base64")}`, filename: "report.pdf" } }
      ]
    }]
    expect(bodies(s)[0]!["messages"]).toEqual(sent)
    // The part is in the request key: the recording replays, with no server.
    await stopServers()
    const replayed = await p.lait(["--model", "m", ...at(s), "--file", "notes.txt", "--file", "docs/report.pdf", "--replay", "cas", "summarise"])
    expect(outcome(replayed)).toEqual({ code: 0, stdout: "read it\n", stderr: "" })
    const refused = await p.lait(["--model", "m", ...at(s), "--file", "blob.bin", "look"])
    expect(outcome(refused)).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: attachment 'blob.bin' is neither UTF-8 text nor a PDF; other binary files are not supported\n"
    })
    expect(s.requests).toHaveLength(1)
    // A workflow step's files: the same part; a trace with content names the PDF without its bytes.
    const s2 = server({ script: [{ content: "read it" }] })
    fs.writeFileSync(path.join(p.dir, "lait.config.yml"), `base_url: '${s2.baseUrl}'\n`)
    const run = await p.lait(["run", "wf.yml", "x", "--trace-file", "t.jsonl", "--trace-content"])
    expect(outcome(run)).toMatchObject({ code: 0, stdout: "read it\n" })
    expect((bodies(s2)[0]!["messages"] as Array<{ content: Array<unknown> }>)[0]!.content[1]).toEqual(sent[0]!.content[1])
    const [event] = fs.readFileSync(path.join(p.dir, "t.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(event.attributes["gen_ai.input.messages"][0].parts[1]).toEqual({
      type: "blob",
      modality: "document",
      mime_type: "application/pdf",
      content: `(${28 + pdf.toString("base64").length} characters of 'report.pdf' omitted)`
    })
  })

  test("an image over 16 MiB fails before any request", async () => {
    const s = server()
    const p = project()
    fs.writeFileSync(path.join(p.dir, "big.png"), Buffer.concat([PNG, Buffer.alloc(16 * 1024 * 1024)]))
    const r = await p.lait(["--model", "m", ...at(s), "--image", "big.png", "look"])
    expect(r.code).toBe(1)
    expect(r.stderr).toStartWith("lait: failed to read image file 'big.png': ")
    expect(r.stderr).toContain("exceed the configured read limit of 16777216 bytes")
    expect(s.requests).toHaveLength(0)
  })

  test("--json-schema sends a strict response_format named by --schema-name (default structured_output)", async () => {
    const s = server({ script: [{ content: "{\"a\":1}", repeat: true }] })
    const schema = { type: "object", properties: { a: { type: "integer" } } }
    const p = project({ "s.json": JSON.stringify(schema) })
    expect((await p.lait(["--model", "m", ...at(s), "--json-schema", "s.json", "q"])).code).toBe(0)
    expect((await p.lait(["--model", "m", ...at(s), "--json-schema", "s.json", "--schema-name", "thing", "q"])).code)
      .toBe(0)
    expect(bodies(s).map((b) => b["response_format"])).toEqual([
      { type: "json_schema", json_schema: { name: "structured_output", schema, strict: true } },
      { type: "json_schema", json_schema: { name: "thing", schema, strict: true } }
    ])
    const orphan = await p.lait(["--model", "m", ...at(s), "--schema-name", "x", "q"])
    expect(orphan.code).toBe(2)
    expect(orphan.stderr).toBe("lait: the argument '--schema-name <NAME>' requires '--json-schema <FILE>'\n")
  })

  test("piped stdin is the prompt, or is appended to PROMPT; '-' reads stdin alone", async () => {
    const s = server()
    const p = project()
    expect((await p.lait(["--model", "m", ...at(s)], {}, "from pipe\n")).stdout).toBe("echo: from pipe\n")
    expect((await p.lait(["--model", "m", ...at(s), "Summarise:"], {}, "text")).stdout)
      .toBe("echo: Summarise:\n\ntext\n")
    expect((await p.lait(["--model", "m", ...at(s), "-"], {}, "dash")).stdout).toBe("echo: dash\n")
    const none = await p.lait(["--model", "m", ...at(s)], {}, "")
    expect(outcome(none)).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: a PROMPT is required; provide one, pipe input via stdin, or use `lait run <FILE> <PROMPT>`\n"
    })
  })

  test("--json, --show-reasoning, --show-usage, --quiet and -o", async () => {
    const reply = {
      body: {
        choices: [{ message: { role: "assistant", content: "42", reasoning: "thought hard" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }
      },
      repeat: true
    }
    const s = server({ script: [reply] })
    const p = project()
    const base = ["--model", "m", ...at(s)]
    expect(outcome(await p.lait([...base, "--json", "q"]))).toEqual({
      code: 0,
      stdout: "{\"content\":\"42\",\"reasoning\":\"thought hard\",\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5},\"finish_reason\":\"stop\"}\n",
      stderr: ""
    })
    expect(outcome(await p.lait([...base, "--show-reasoning", "--show-usage", "q"]))).toEqual({
      code: 0,
      stdout: "Reasoning:\nthought hard\n\n42\n",
      stderr: "usage: prompt=3 completion=2 total=5\n"
    })
    expect(outcome(await p.lait([...base, "--show-reasoning", "--show-usage", "--quiet", "q"])))
      .toEqual({ code: 0, stdout: "42\n", stderr: "" })
    expect(outcome(await p.lait([...base, "--show-reasoning", "-o", "out.txt", "q"])))
      .toEqual({ code: 0, stdout: "", stderr: "Reasoning:\nthought hard\n\n" })
    expect(fs.readFileSync(path.join(p.dir, "out.txt"), "utf8")).toBe("42\n")
  })

  test("no model anywhere, and an API error (exit 4)", async () => {
    const s = server({ script: [{ status: 400, body: { error: { message: "no such model" } } }] })
    const p = project()
    const none = await p.lait([...at(s), "q"])
    expect(outcome(none)).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: model is required; provide --model, set LLM_MODEL, or specify default.model in lait.config.yml\n"
    })
    const api = await p.lait(["--model", "m", ...at(s), "q"])
    expect(api.code).toBe(4)
    expect(api.stderr).toContain("no such model")
    expect(api.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1)
  })

  test("a root-only chat flag before a subcommand is a usage error; subcommands win over PROMPT", async () => {
    const p = project({ "wf.yml": "steps:\n  - id: a\n    jq: '\"ran\"'\n" })
    const r = await p.lait(["--model", "m", "run", "wf.yml", "x"])
    expect(outcome(r)).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--model <MODEL>' cannot be used with subcommand 'run'\n"
    })
    const ok = await p.lait(["-v", "run", "wf.yml", "x"])
    expect({ code: ok.code, stdout: ok.stdout }).toEqual({ code: 0, stdout: "ran\n" })
  })

  test("--tool runs the tool loop for chat as for a prompt step", async () => {
    const s = server({
      script: [
        { tool_calls: [{ id: "c1", name: "tool__echo", arguments: JSON.stringify({ text: "pong" }) }] },
        { content: "the tool said pong" }
      ]
    })
    const p = project({
      "lait.config.yml": "tools:\n  echo:\n    command: [echo, '{{input.text}}']\n" +
        "    parameters: {type: object, properties: {text: {type: string}}}\n"
    })
    const r = await p.lait(["--model", "m", ...at(s), "--tool", "echo", "ping"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "the tool said pong\n" })
    const [first, second] = bodies(s)
    expect((first!["tools"] as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(["tool__echo"])
    expect((second!["messages"] as Array<{ role: string; content: string }>).at(-1)).toMatchObject({
      role: "tool",
      content: "pong"
    })
    // --approve-tools asks before the call; with no terminal to ask, the turn fails instead of running it.
    s.script.push({ tool_calls: [{ id: "c2", name: "tool__echo", arguments: JSON.stringify({ text: "x" }) }] })
    const asked = await p.lait(["--model", "m", ...at(s), "--tool", "echo", "--approve-tools", "again"])
    expect(outcome(asked)).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: '--approve-tools' requires an interactive stdin to confirm calling 'tool__echo', " +
        "but stdin is not a terminal\n"
    })
  })
  test("--mcp and --subagent: an MCP server's tool and a subagent answer within the turn", async () => {
    const s = server({
      script: [
        {
          match: "\"add them\"",
          content: null,
          tool_calls: [
            { id: "c1", name: "everything__get-sum", arguments: JSON.stringify({ a: 2, b: 3 }) },
            { id: "c2", name: "agent__helper", arguments: JSON.stringify({ input: "summarise 5" }) }
          ]
        },
        { match: "You summarise.", content: "five, in short" },
        { content: "2 + 3 = 5" }
      ]
    })
    const p = project({
      "lait.config.yml": `base_url: '${s.baseUrl}'\ndefault: { model: m }\n` +
        `mcp_servers:\n  everything: { command: node, args: ['${everythingBin}', stdio] }\n` +
        "agents:\n  helper: agents/helper.md\n",
      "agents/helper.md": "---\ndescription: Summarises numbers\n---\nYou summarise.\n"
    })
    const r = await p.lait(["--mcp", "everything", "--subagent", "helper", "add them"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "2 + 3 = 5\n" })
    const last = bodies(s).at(-1)!["messages"] as Array<{ role: string; content: string }>
    expect(last.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      expect.stringContaining("5"),
      "five, in short"
    ])
  }, 60_000)
})

describe("sessions", () => {
  test("--session keeps the exchange and sends it next time; sessions list/show/delete", async () => {
    const s = server({ script: [{ content: "hi there" }, { content: "doing well" }] })
    const p = project()
    expect((await p.lait(["--model", "m", ...at(s), "--system", "Be kind.", "--session", "demo", "hello"])).code).toBe(0)
    expect((await p.lait(["--model", "m", ...at(s), "--session", "demo", "how are you?"])).stdout).toBe("doing well\n")
    expect(bodies(s)[1]!["messages"]).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi there" },
      { role: "user", content: "how are you?" }
    ])
    expect(fs.readFileSync(path.join(p.dir, ".lait/sessions/demo.jsonl"), "utf8")).toBe(
      "{\"role\":\"user\",\"content\":\"hello\"}\n{\"role\":\"assistant\",\"content\":\"hi there\"}\n" +
        "{\"role\":\"user\",\"content\":\"how are you?\"}\n{\"role\":\"assistant\",\"content\":\"doing well\"}\n"
    )
    expect(outcome(await p.lait(["sessions", "list"]))).toEqual({ code: 0, stdout: "demo  (2 turns)\n", stderr: "" })
    expect((await p.lait(["sessions", "show", "demo"])).stdout).toBe(
      "user: hello\nassistant: hi there\nuser: how are you?\nassistant: doing well\n"
    )
    expect(outcome(await p.lait(["sessions", "delete", "demo"])))
      .toEqual({ code: 0, stdout: "deleted session 'demo'\n", stderr: "" })
    expect((await p.lait(["sessions", "list"])).stdout)
      .toBe("no sessions saved yet; start one with `lait --session <NAME> ...`\n")
    expect(outcome(await p.lait(["sessions", "show", "demo"])))
      .toEqual({ code: 1, stdout: "", stderr: "lait: no such session 'demo'\n" })
  })

  test("a failed turn is not stored; names with path separators or '..' are refused", async () => {
    const p = project()
    const refused = await p.lait(["--model", "m", "--base-url", await refusedBaseUrl(), "--session", "s", "q"], {
      LAIT_HTTP_ATTEMPTS: "1"
    })
    expect(refused.code).toBe(4)
    expect(fs.existsSync(path.join(p.dir, ".lait/sessions/s.jsonl"))).toBe(false)
    for (const name of ["../x", "a/b", ".."]) {
      const r = await p.lait(["--model", "m", "--session", name, "q"])
      expect(outcome(r)).toEqual({
        code: 1,
        stdout: "",
        stderr: `lait: invalid session name '${name}'; session names may only contain letters, digits, '_', and '-'\n`
      })
    }
    expect((await p.lait(["sessions", "delete", "../x"])).code).toBe(1)
  })
})

describe("named prompts", () => {
  const config = (s: OpenAiServer) =>
    `base_url: '${s.baseUrl}'\ndefault:\n  model: dm\nprompts:\n` +
    "  tr:\n    template: 'Translate {{ input }} into {{ vars.lang }}'\n    model: pm\n    vars: { lang: French }\n" +
    "  plain:\n    template: 'Say {{ input }}'\n"

  test("prompt list, prompt run (vars, model, --json, --show-usage), and -p/--var on chat", async () => {
    const s = server()
    const p = project({ "lait.config.yml": config(s) })
    expect(outcome(await p.lait(["prompt", "list"]))).toEqual({ code: 0, stdout: "plain\ntr  (model: pm)\n", stderr: "" })
    expect(outcome(await p.lait(["prompt", "run", "tr", "hello", "--var", "lang=German", "--show-usage"]))).toEqual({
      code: 0,
      stdout: "echo: Translate hello into German\n",
      stderr: "usage: prompt=10 completion=5 total=15\n"
    })
    expect((await p.lait(["prompt", "run", "plain", "--json"], {}, "hi")).stdout).toBe(
      "{\"content\":\"echo: Say hi\",\"reasoning\":null,\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15},\"finish_reason\":\"stop\"}\n"
    )
    expect((await p.lait(["-p", "tr", "--var", "lang=Dutch", "bye"])).stdout).toBe("echo: Translate bye into Dutch\n")
    expect((await p.lait(["-p", "tr", "--model", "over", "x"])).code).toBe(0)
    expect(bodies(s).map((b) => b["model"])).toEqual(["pm", "dm", "pm", "over"])
    const unknown = await p.lait(["prompt", "run", "nope", "x"])
    expect(outcome(unknown)).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: no prompt named 'nope' is configured; configured prompts: plain, tr\n"
    })
    const strict = await project({ "lait.config.yml": `${config(s)}  typo:\n    template: '{{ nope }}'\n` })
      .lait(["prompt", "run", "typo", "x"])
    expect(strict.code).toBe(1)
    expect(strict.stderr).toStartWith("lait: prompt 'typo': ")
  })
})

describe("compare", () => {
  test("two models side by side; one failing is shown in its place and makes the exit code 1", async () => {
    const s = server({
      script: [{ match: "\"model\":\"bad\"", status: 400, body: { error: { message: "unknown model bad" } }, repeat: true }]
    })
    const p = project({ "lait.config.yml": `base_url: '${s.baseUrl}'\n` })
    const ok = await p.lait(["compare", "--model", "a", "--model", "b", "--temperature", "0.2", "--system", "S", "q"])
    expect(ok.code).toBe(0)
    expect(ok.stdout.replace(/time: \d+ms/g, "time: Nms")).toBe(
      "=== a (a) ===\ntime: Nms\nusage: prompt=10 completion=5 total=15\necho: q\n\n" +
        "=== b (b) ===\ntime: Nms\nusage: prompt=10 completion=5 total=15\necho: q\n"
    )
    expect(bodies(s).map((b) => [b["model"], b["temperature"], (b["messages"] as Array<unknown>)[0]]).sort()).toEqual([
      ["a", 0.2, { role: "system", content: "S" }],
      ["b", 0.2, { role: "system", content: "S" }]
    ])
    const failing = await p.lait(["compare", "--model", "a", "--model", "bad", "--json", "q"])
    expect(failing.code).toBe(1)
    expect(failing.stderr).toBe("lait: 1 of 2 model(s) failed\n")
    const results = JSON.parse(failing.stdout) as Array<Record<string, unknown>>
    expect(results.map((r) => [r["model"], r["content"], typeof r["error"]])).toEqual([
      ["a", "echo: q", "object"],
      ["bad", null, "string"]
    ])
    expect(String(results[1]!["error"])).toContain("unknown model bad")
    const md = await p.lait(["compare", "--model", "a", "--model", "b", "--markdown", "q"])
    expect(md.stdout).toContain("## a (`a`)\n")
    expect((await p.lait(["compare", "--model", "a", "--model", "b", "--markdown", "--json", "q"])).code).toBe(2)
    expect((await p.lait(["compare", "--model", "a", "q"])).stderr)
      .toBe("lait: `lait compare` requires at least two `--model` values\n")
  })

  test("--json has cost_usd per model: from the model's pricing:, null without one or without usage", async () => {
    const s = server({ script: [{ match: "\"model\":\"quiet\"", content: "no usage", usage: null, repeat: true }] })
    const entry = (id: string) =>
      `  ${id}:\n    - provider: {base_url: '${s.baseUrl}'}\n      model_id: ${id}\n` +
      "      pricing: {input_per_1m: 2, output_per_1m: 8}\n"
    const models = `models:\n${entry("priced")}${entry("quiet")}`
    const p = project({ "lait.config.yml": `base_url: '${s.baseUrl}'\n${models}` })
    const r = await p.lait(["compare", "--model", "priced", "--model", "plain", "--model", "quiet", "--json", "q"])
    expect(r.code).toBe(0)
    const results = JSON.parse(r.stdout) as Array<Record<string, unknown>>
    expect(results.map((o) => [o["model"], o["cost_usd"] === null ? null : typeof o["cost_usd"]])).toEqual([
      ["priced", "number"],
      ["plain", null],
      ["quiet", null]
    ])
    // 10 prompt tokens at $2/1M + 5 completion tokens at $8/1M.
    expect(results[0]!["cost_usd"] as number).toBeCloseTo(0.00006, 12)
    expect(Object.keys(results[0]!)).toEqual(["model", "model_id", "duration_ms", "usage", "cost_usd", "content", "error"])
    const text = await p.lait(["compare", "--model", "priced", "--model", "plain", "q"])
    expect(text.stdout).toContain("usage: prompt=10 completion=5 total=15 ($0.0001)\necho: q\n")
  })
})

describe("record, replay and traces", () => {
  test("--record then --replay with no server; --trace-file; the API key is in neither", async () => {
    const s = server()
    const p = project()
    const key = "sk-chat-secret-0123456789"
    const recorded = await p.lait(["--model", "m", ...at(s), "--api-key", key, "--record", "cas", "hello"])
    expect(outcome(recorded)).toEqual({ code: 0, stdout: "echo: hello\n", stderr: "" })
    expect(s.requests[0]!.headers["authorization"]).toBe(`Bearer ${key}`)
    await stopServers()
    const replayed = await p.lait([
      "--model", "m", ...at(s), "--replay", "cas", "--trace-file", "t.jsonl", "--show-usage", "hello"
    ])
    expect({ code: replayed.code, stdout: replayed.stdout }).toEqual({ code: 0, stdout: "echo: hello\n" })
    expect(replayed.stderr).toContain("usage: prompt=10 completion=5 total=15\n")
    expect(replayed.stderr).toContain("note: trace written to 't.jsonl' (1 event)")
    const events = fs.readFileSync(path.join(p.dir, "t.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(events.map((e) => [e.operation, e.label])).toEqual([["chat", "chat"]])
    const traced = await p.lait([
      "--model", "m", ...at(s), "--api-key", key, "--replay", "cas", "--trace-file", "t2.jsonl", "hello"
    ])
    expect(traced.code).toBe(0)
    const written = filesUnder(p.dir).filter((f) => f.path.includes("/cas/") || f.path.endsWith(".jsonl"))
    expect(written.length).toBeGreaterThanOrEqual(3)
    for (const file of written) {
      expect(file.bytes.toString("utf8")).not.toContain(key)
    }
    const both = await p.lait(["--model", "m", "--record", "a", "--replay", "b", "q"])
    expect(both.code).toBe(2)
  })

  test("--cache answers a repeated chat from .lait/cache without a request", async () => {
    const s = server()
    const p = project()
    const first = await p.lait(["--model", "m", ...at(s), "--cache", "same question"])
    const second = await p.lait(["--model", "m", ...at(s), "--cache", "--show-usage", "same question"])
    expect([first.stdout, second.stdout]).toEqual(["echo: same question\n", "echo: same question\n"])
    expect(second.stderr).toContain("note: cache hit for chat")
    expect(second.stderr).toContain("answered from the cache")
    expect(s.requests).toHaveLength(1)
  })
})

describe("secrets", () => {
  for (const source of ["--api-key", "OPENAI_API_KEY"] as const) {
    test(`the key from ${source} is in no file and no output of chat, compare or prompt run`, async () => {
      const key = makeKey(source === "--api-key" ? "chatflag" : "chatenv")
      const s = server({ script: [{ content: "the answer", repeat: true }] })
      const bad = server({ script: [{ status: 401, body: { error: { message: `Incorrect API key provided: ${key}` } }, repeat: true }] })
      const p = project({
        "lait.config.yml": `base_url: '${s.baseUrl}'\ndefault: { model: m }\nprompts:\n  t: { template: 'Say {{ input }}' }\n`
      })
      const flag = source === "--api-key" ? ["--api-key", key] : []
      const env = source === "OPENAI_API_KEY" ? { OPENAI_API_KEY: key } : {}
      const texts: Array<readonly [string, string]> = []
      const run = async (args: ReadonlyArray<string>, code: number) => {
        const r = await p.lait(args, env)
        texts.push([`${args.join(" ")} (stdout)`, r.stdout], [`${args.join(" ")} (stderr)`, r.stderr])
        expect({ args, code: r.code }).toEqual({ args, code })
        return r
      }
      await run([...flag, "-vv", "--record", "cas", "--trace-file", "t1.jsonl", "--json", "--show-usage", "--session", "s", "q"], 0)
      await run([...flag, "-vv", "--cache", "-o", "out.txt", "q"], 0)
      await run([...flag, "-vv", "--cache", "--trace-file", "t2.jsonl", "q"], 0)
      await run([...flag, "-vv", "--replay", "cas", "--trace-file", "t3.jsonl", "q"], 0)
      const denied = await run([...flag, "-vv", "--base-url", bad.baseUrl, "q"], 4)
      expect(denied.stderr).toContain("answered HTTP 401: Incorrect API key provided: <redacted>")
      if (source === "OPENAI_API_KEY") {
        await run(["-vv", "compare", "--model", "a", "--model", "b", "q"], 0)
        await run(["-vv", "prompt", "run", "t", "x", "--json"], 0)
      }
      expect([...s.requests, ...bad.requests].every((r) => r.headers["authorization"] === `Bearer ${key}`)).toBe(true)
      expect(findLeaks(key, { roots: [p.dir], owned: [], texts })).toEqual([])
    }, 60_000)
  }
})
