// Issues 40 and 41 through the compiled binary (dist/lait), against one fixture OpenAI server for the
// whole file: the behaviours their in-process tests prove (skills.test.ts, chat.test.ts, stream.test.ts,
// lait-files.test.ts, original-messages.test.ts, models-doctor.test.ts, run.test.ts,
// assertions-added.test.ts), checked once more where users meet them, a few runs each. `serve --mcp`'s
// `isError: false` is left to serve.test.ts, which already drives the binary with the MCP SDK's client,
// and the REPL's editing commands to repl.test.ts, which types into the binary in tmux.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { ORDER, ORDER_SCHEMA, PROSE, textAssertions } from "../fixtures/addedAssertions.ts"
import { startOpenAiServer } from "../fixtures/openai-server.ts"
import { modelsYaml, projectsIn, workspace } from "./model-harness.ts"
import { ensureBinary, runCli } from "./util.ts"

// Several binary runs per test: generous under load, where bun's default 5 s is not.
setDefaultTimeout(60_000)

/** A stream that ends with neither text nor a tool call. */
const EMPTY_CHUNK = JSON.stringify({
  id: "e",
  object: "chat.completion.chunk",
  choices: [{ index: 0, delta: {}, finish_reason: "stop" }]
})

const s = startOpenAiServer({
  script: [
    // The skill tool's result comes back with the call's id: the second request of that exchange.
    { match: "skillcall1", content: "reviewed", repeat: true },
    {
      match: "check-skill",
      content: null,
      tool_calls: [{ id: "skillcall1", name: "skill__review", arguments: "{}" }],
      repeat: true
    },
    { match: "say-nothing", sse: [`data: ${EMPTY_CHUNK}\n\n`, "data: [DONE]\n\n"], repeat: true },
    // The eval's PROSE case: slow and expensive, for `latency` and `cost` to fail on it alone. Held
    // back 4 s against a 3 s bound that the quick case (about 0.1 s) keeps on a machine ten times slower.
    { match: "PROSE eval", content: PROSE, delay_ms: 4000, usage: { prompt_tokens: 100, completion_tokens: 50 }, repeat: true },
    { match: "PROSE", content: PROSE, repeat: true },
    { match: "ORDER", content: ORDER, repeat: true }
  ]
})
const ws = workspace("e2e-binary-sweep")
beforeAll(ensureBinary, 300_000)
afterAll(async () => {
  await s.stop()
  ws.remove()
})

/** A fresh project directory holding `files`; `lait` runs the binary there. */
const project = projectsIn(ws, { binary: true })

/** The bodies the server received from here on. */
const mark = () => {
  const from = s.requests.length
  return () => s.requests.slice(from).map((r) => r.body as Record<string, unknown>)
}

const outcome = (r: { code: number | null; stdout: string; stderr: string }) => ({
  code: r.code,
  stdout: r.stdout,
  stderr: r.stderr
})

type Message = { role: string; content: unknown; tool_call_id?: string }
const messagesOf = (body: Record<string, unknown>) => body["messages"] as Array<Message>
const toolNames = (body: Record<string, unknown>) =>
  (body["tools"] as Array<{ function: { name: string } }> | undefined)?.map((t) => t.function.name)

describe("issue 40 through the binary", () => {
  const skills = (config: string) =>
    project({
      "skills/review.md": "---\nname: code-review\ndescription: what to look for\n---\n\nLook for off-by-one errors.\n",
      "lait.config.yml": `base_url: '${s.baseUrl}'\nskills:\n  review: skills/review.md\ndefault:\n  model: m\n` +
        `  skills: [review]\n${config}`
    })

  test("1, 6: one-shot chat sends default.skills (with stream: false); progressive disclosure offers skill__", async () => {
    const sent = mark()
    const plain = skills("")
    const skill = "## Skill: code-review\n\nwhat to look for\n\nLook for off-by-one errors."
    expect(outcome(await plain.lait(["--system", "Sys.", "hello-skills"]))).toEqual({
      code: 0,
      stdout: "echo: hello-skills\n",
      stderr: ""
    })
    expect(outcome(await plain.lait(["--stream", "hello-stream"]))).toEqual({ code: 0, stdout: "echo: hello-stream\n", stderr: "" })
    const [whole, streamed] = sent()
    expect(messagesOf(whole!)[0]).toEqual({ role: "system", content: `Sys.\n\n---\n\n${skill}` })
    expect(messagesOf(streamed!)[0]).toEqual({ role: "system", content: skill })
    expect([whole!["tools"], streamed!["tools"]]).toEqual([undefined, undefined])
    // Item 6: a whole answer is asked for explicitly.
    expect([whole!["stream"], streamed!["stream"]]).toEqual([false, true])

    const progressive = mark()
    const r = await skills("  skill_progressive_disclosure: true\n").lait(["check-skill"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "reviewed\n", stderr: "" })
    const [ask, answer] = progressive()
    expect(toolNames(ask!)).toEqual(["skill__review"])
    expect(messagesOf(ask!)[0]!.content).toBe(
      "## Skill: code-review\n\nwhat to look for\n\n" +
        "Call the `skill__review` tool to read this skill's full instructions when you need them."
    )
    expect(messagesOf(answer!).at(-1)).toEqual({
      role: "tool",
      content: "Look for off-by-one errors.",
      tool_call_id: "skillcall1"
    })
  })

  test("2: --file sends a PDF as a file part; another binary file is refused", async () => {
    const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0xff, 0x00]), Buffer.from("\n%%EOF\n")])
    const p = project({ "docs/report.pdf": pdf, "blob.bin": new Uint8Array([0xff, 0xfe, 0x00, 0x41]) })
    const sent = mark()
    const chat = (...args: Array<string>) => p.lait(["--model", "m", "--base-url", s.baseUrl, ...args])
    expect((await chat("--file", "docs/report.pdf", "summarise")).code).toBe(0)
    const content = messagesOf(sent()[0]!)[0]!.content as Array<Record<string, unknown>>
    expect(content.at(-1)).toEqual({
      type: "file",
      file: { file_data: `data:application/pdf;base64,${pdf.toString("base64")}`, filename: "report.pdf" }
    })
    expect(outcome(await chat("--file", "blob.bin", "look"))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: attachment 'blob.bin' is neither UTF-8 text nor a PDF; other binary files are not supported\n"
    })
    expect(sent()).toHaveLength(1)
  })

  test("3: a symlinked sessions directory or session file is refused; delete leaves the target alone", async () => {
    const session = `${JSON.stringify({ role: "user", content: "q" })}\n${JSON.stringify({ role: "assistant", content: "a" })}\n`
    const linkedDir = project({ "outside/s.jsonl": session })
    fs.mkdirSync(linkedDir.at(".lait"))
    fs.symlinkSync("../outside", linkedDir.at(".lait/sessions"))
    const sent = mark()
    const chat = await linkedDir.lait(["--model", "m", "--base-url", s.baseUrl, "--session", "s", "hi"])
    expect(outcome(chat)).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read session file '.lait/sessions/s.jsonl': refusing to follow symbolic link '.lait/sessions'\n"
    })
    const removed = await linkedDir.lait(["sessions", "delete", "s"])
    expect({ code: removed.code, stderr: removed.stderr }).toEqual({
      code: 1,
      stderr: "lait: failed to delete session file '.lait/sessions/s.jsonl': refusing to follow symbolic link '.lait/sessions'\n"
    })
    expect(fs.readFileSync(linkedDir.at("outside/s.jsonl"), "utf8")).toBe(session)

    const linkedFile = project({ "outside.jsonl": session })
    fs.mkdirSync(linkedFile.at(".lait/sessions"), { recursive: true })
    fs.symlinkSync("../../outside.jsonl", linkedFile.at(".lait/sessions/s.jsonl"))
    const r = await linkedFile.lait(["sessions", "delete", "s"])
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr: "lait: failed to delete session file '.lait/sessions/s.jsonl': " +
        "refusing to follow symbolic link '.lait/sessions/s.jsonl'\n"
    })
    expect(fs.readFileSync(linkedFile.at("outside.jsonl"), "utf8")).toBe(session)
    expect(fs.lstatSync(linkedFile.at(".lait/sessions/s.jsonl")).isSymbolicLink()).toBe(true)
    expect(sent()).toEqual([])
  })

  test("5: a stream that ends with no content fails with exit 4", async () => {
    const r = await project().lait(["--model", "m", "--base-url", s.baseUrl, "--stream", "--no-history", "say-nothing"])
    expect(outcome(r)).toEqual({
      code: 4,
      stdout: "",
      stderr: "lait: API response contained no content in its first choice " +
        `(the stream from '${s.baseUrl}' ended without any text or tool call)\n`
    })
  })

  test("7: compare --json has cost_usd, a number from pricing: or null", async () => {
    const p = project({
      "lait.config.yml": `base_url: '${s.baseUrl}'\nmodels:\n  priced:\n    - provider: {base_url: '${s.baseUrl}'}\n` +
        "      model_id: priced\n      pricing: {input_per_1m: 2, output_per_1m: 8}\n"
    })
    const r = await p.lait(["compare", "--model", "priced", "--model", "plain", "--json", "q"])
    expect(r.code).toBe(0)
    const results = JSON.parse(r.stdout) as Array<Record<string, unknown>>
    expect(results.map((o) => o["model"])).toEqual(["priced", "plain"])
    // 10 prompt tokens at $2/1M + 5 completion tokens at $8/1M.
    expect(results[0]!["cost_usd"] as number).toBeCloseTo(0.00006, 12)
    expect(results[1]!["cost_usd"]).toBeNull()
  })

  test("9: doctor fails on missing agent and skill files and warns on an unset default.model", async () => {
    const p = project({
      "lait.config.yml": "agents:\n  gone: agents/gone.md\nskills:\n  lost: skills/lost.md\n  here: skills/here.md\n",
      "skills/here.md": "---\nname: here\ndescription: d\n---\nBody.\n"
    })
    const r = await p.lait(["doctor"])
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      "OK   config: lait.config.yml (parsed, lint clean)",
      "WARN default.model: not set; every command needs --model (or LLM_MODEL)",
      "FAIL agent 'gone': resolves to 'agents/gone.md', which does not exist",
      "OK   skill 'here': skills/here.md (found)",
      "FAIL skill 'lost': resolves to 'skills/lost.md', which does not exist"
    ])
    expect(r.code).toBe(1)
    expect(r.stderr).toEndWith("lait: 2 of 5 checks failed\n")
  })

  test("10: the original's words for a missing --file, an invalid --json-schema and a version 1 workflow", async () => {
    const p = project({ "bad.json": "{not json", "old.yml": "version: 1\nnodes:\n  a:\n    use: transform\n" })
    const sent = mark()
    const chat = (...args: Array<string>) => p.lait(["--model", "m", "--base-url", s.baseUrl, ...args, "hi"])
    expect(outcome(await chat("--file", "missing.txt"))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read file 'missing.txt': no such file or directory\n"
    })
    const schema = await chat("--json-schema", "bad.json")
    expect(schema.code).toBe(1)
    expect(schema.stderr).toStartWith("lait: failed to parse JSON schema file 'bad.json': ")
    const old = await p.lait(["run", "old.yml", "x"])
    expect(old.code).toBe(3)
    expect(old.stderr).toContain("(see the migration guide in docs/workflows.md#migrating-from-version-1)")
    expect(sent()).toEqual([])
  })

  test("11: a write: step replaces its file: a new inode, the mode kept, a hard link keeps the old text", async () => {
    const p = project({ "wf.yml": "steps:\n  - write: out.txt\n", "out.txt": "old text\n" })
    fs.chmodSync(p.at("out.txt"), 0o640)
    fs.linkSync(p.at("out.txt"), p.at("alias.txt"))
    const before = fs.statSync(p.at("out.txt")).ino
    expect(outcome(await p.lait(["run", "wf.yml", "new text"]))).toEqual({
      code: 0,
      stdout: "new text\n",
      stderr: "[1] step-1 (write)\n"
    })
    const after = fs.statSync(p.at("out.txt"))
    expect([after.ino === before, after.mode & 0o777, fs.readFileSync(p.at("out.txt"), "utf8")]).toEqual([false, 0o640, "new text"])
    expect(fs.readFileSync(p.at("alias.txt"), "utf8")).toBe("old text\n")
  })
})

describe("issue 41's assertions through the binary", () => {
  /** Each passes on ORDER and fails on PROSE; `up` leads from the file's directory to the project's. */
  const assertions = (up: string) => [
    ...textAssertions(`${up}schema.yml`),
    `{ not: { type: icontains, value: hello } }`,
    `{ type: script, command: [sh, ${up}judge.sh] }`
  ]
  const TYPES = [
    ...["regex", "icontains", "starts_with", "contains_any", "contains_all", "is_json", "json_schema", "json_schema"],
    ...["levenshtein", "length", "length", "not icontains", "script", "cost", "latency"]
  ]
  const assertList = (items: ReadonlyArray<string>, indent: string) => items.map((a) => `${indent}- ${a}\n`).join("")
  const testFile = (input: string) =>
    `workflow: ../wf.yml\ninput: ${input}\nreplay: cassettes/${input.split(" ")[0]}\nassert:\n${assertList(assertions("../"), "  ")}`

  const suite = () =>
    project({
      "lait.config.yml": `${
        modelsYaml({ m: [{ baseUrl: s.baseUrl, modelId: "target", extra: "pricing: { input_per_1m: 1000, output_per_1m: 2000 }" }] })
      }\ndefault:\n  model: m\n`,
      "wf.yml": "steps:\n  - prompt: '{{ input }}'\n",
      "schema.yml": ORDER_SCHEMA,
      "judge.sh": `case "$(cat)" in\n  *shipped*) echo '{"pass": true, "score": 0.9}' ;;\n` +
        `  *) echo '{"pass": false, "score": 0.2, "reason": "nothing was shipped"}' ;;\nesac\n`,
      "tests/pass.test.yml": testFile("ORDER test"),
      "tests/fail.test.yml": testFile("PROSE test"),
      // The same checks for both cases; cost and latency too, which only an eval measures.
      "eval.yml": "target: { model: m, prompt: '{{ input }}' }\ncases:\n  - { name: order, input: ORDER eval }\n" +
        `  - { name: prose, input: PROSE eval }\ndefault_assert:\n${
          assertList([...assertions(""), "{ type: cost, max: 0.05 }", "{ type: latency, max: 3000 }"], "  ")
        }`
    })

  /** The numbers of the assertions a `lait test --format json` file entry failed. */
  const failed = (entry: { failures: ReadonlyArray<string> }) =>
    entry.failures.map((f) => Number(/^assertion (\d+): /.exec(f)?.[1] ?? f))

  test("lait test: every one passes on one output and fails on the other, recorded and then replayed", async () => {
    const p = suite()
    const sent = mark()
    for (const args of [["--record"], []]) {
      const r = await p.lait(["test", ...args, "tests", "--format", "json"])
      expect(r.code).toBe(1)
      const report = JSON.parse(r.stdout) as Array<{ file: string; status: string; failures: ReadonlyArray<string> }>
      expect(report.map((e) => [e.file, e.status, failed(e)])).toEqual([
        ["tests/fail.test.yml", "fail", TYPES.slice(0, 13).map((_, i) => i + 1)],
        ["tests/pass.test.yml", "pass", []]
      ])
      expect(report[0]!.failures.at(-1)).toBe("assertion 13: script failed the output: nothing was shipped")
    }
    // The replay asked the server nothing.
    expect(sent()).toHaveLength(2)
  })

  test("lait eval: every one, cost and latency included, passes on one case and fails on the other", async () => {
    const r = await suite().lait(["eval", "eval.yml", "--format", "json"])
    expect(r.code).toBe(1)
    type Assertion = { type: string; passed: boolean; skipped?: string; message?: string }
    const cases = JSON.parse(r.stdout) as Array<{ name: string; runs: Array<{ assertions: Array<Assertion> }> }>
    const verdicts = (name: string) => cases.find((c) => c.name === name)!.runs[0]!.assertions
    expect(verdicts("order").map((a) => [a.type, a.passed, a.skipped])).toEqual(TYPES.map((t) => [t, true, undefined]))
    expect(verdicts("prose").map((a) => [a.type, a.passed, a.skipped])).toEqual(TYPES.map((t) => [t, false, undefined]))
    // 100 prompt tokens at $1000/1M + 50 completion tokens at $2000/1M.
    expect(verdicts("prose").at(-2)!.message).toBe("cost $0.2000 exceeded max $0.0500")
    expect(verdicts("prose").at(-1)!.message).toMatch(/^latency \d+ ms exceeded max 3000 ms$/)
  })
})
