// prompt and agent steps through the CLI, judged by what the fixture OpenAI server received: system
// prompts, attachments, structured output, agents from all three places, the settings chain, aliases,
// the Responses API, and --show-usage/--json usage.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import type { OpenAiServer } from "../fixtures/openai-server.ts"
import { bodies, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-model-steps")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

/** A directory with the given files; `lait.config.yml` in it points the default base_url at `s`. */
const project = (name: string, s: OpenAiServer, files: Readonly<Record<string, string | Uint8Array>>, config = "") => {
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "lait.config.yml"), `base_url: '${s.baseUrl}'\n${config}`)
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  return {
    dir,
    lait: (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) => ws.lait(args, { cwd: dir, env })
  }
}

// A 1×1 transparent PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64"
)

describe("prompt steps", () => {
  test("system, default.system (rendered with inputs), and the prompt as the user message", async () => {
    const s = server()
    const p = project("system", s, {
      "wf.yml": `inputs:
  tone: string
default:
  model: m1
  system: 'Answer in a {{ inputs.tone }} tone.'
steps:
  - id: own
    system: 'You are terse. Input was {{ input }}.'
    prompt: 'First: {{ input }}'
  - id: inherited
    prompt: 'Second: {{ steps.own }}'
`
    })
    const r = await p.lait(["run", "wf.yml", "hi", "--input", "tone=dry"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "echo: Second: echo: First: hi\n", stderr: "[1] own\n[2] inherited\n" })
    expect(bodies(s)).toEqual([
      {
        model: "m1",
        stream: false,
        messages: [
          { role: "system", content: "You are terse. Input was hi." },
          { role: "user", content: "First: hi" }
        ]
      },
      {
        model: "m1",
        stream: false,
        messages: [
          { role: "system", content: "Answer in a dry tone." },
          { role: "user", content: "Second: echo: First: hi" }
        ]
      }
    ])
  })

  test("files become fenced blocks after a blank line; images become image_url parts", async () => {
    const s = server()
    const p = project("attach", s, {
      "notes/a.txt": "alpha\n",
      "notes/b.md": "Use ```js fences``` here",
      "img/dot.png": PNG,
      "wf.yml": `steps:
  - model: vision
    prompt: 'Describe {{ input }}'
    files: ['notes/a.txt', 'notes/{{ input }}.md']
    images: ['img/dot.png', 'https://example.com/cat.jpg']
`
    })
    const r = await p.lait(["run", "wf.yml", "b"])
    expect(r.code).toBe(0)
    expect(bodies(s)[0]).toEqual({
      model: "vision",
      stream: false,
      messages: [{
        role: "user",
        content: [
          { type: "text", text: "Describe b\n\n```notes/a.txt\nalpha\n\n```\n\n````notes/b.md\nUse ```js fences``` here\n````" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } }
        ]
      }]
    })
    // Without images the user message stays a plain string.
    fs.writeFileSync(path.join(p.dir, "files-only.yml"), "steps:\n  - model: m\n    prompt: 'Read'\n    files: ['notes/a.txt']\n")
    await p.lait(["run", "files-only.yml", "x"])
    expect(bodies(s)[1]).toEqual({
      model: "m",
      messages: [{ role: "user", content: "Read\n\n```notes/a.txt\nalpha\n\n```" }],
      stream: false
    })
  })

  test("attachments share one 16 MiB budget; binary text files and unknown images are refused", async () => {
    const s = server()
    const nine = "x".repeat(9 * 1024 * 1024)
    const p = project("budget", s, {
      "big1.txt": nine,
      "big2.txt": nine,
      "blob.bin": new Uint8Array([0xff, 0xfe, 0x00, 0x41]),
      "notimage.dat": "plain text",
      "wf.yml": "steps:\n  - id: read\n    model: m\n    prompt: 'Read'\n    files: ['big1.txt', '{{ input }}']\n",
      "img.yml": "steps:\n  - id: look\n    model: m\n    prompt: 'Look'\n    files: ['big1.txt']\n    images: ['{{ input }}']\n"
    })
    const limit = "lait: attachments exceed the combined size limit of 16777216 bytes\n"
    expect(outcome(await p.lait(["run", "wf.yml", "big2.txt"]))).toEqual({ code: 1, stdout: "", stderr: `[1] read\n${limit}` })
    // An image counts against the same budget as the files.
    fs.writeFileSync(path.join(p.dir, "big.png"), Buffer.concat([PNG, Buffer.alloc(8 * 1024 * 1024)]))
    expect(outcome(await p.lait(["run", "img.yml", "big.png"]))).toEqual({ code: 1, stdout: "", stderr: `[1] look\n${limit}` })
    expect(outcome(await p.lait(["run", "wf.yml", "blob.bin"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] read\nlait: attachment 'blob.bin' is neither UTF-8 text nor a PDF; other binary files are not supported\n"
    })
    expect(outcome(await p.lait(["run", "img.yml", "notimage.dat"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] look\nlait: could not determine the image format of 'notimage.dat'; supported formats are PNG/JPEG/WebP/GIF\n"
    })
    expect(s.requests).toHaveLength(0)
  })

  test("output_schema: strict json_schema response_format, one fence stripped, the parsed value flows on", async () => {
    const s = server({
      script: [
        { match: "Classify", content: "```json\n{\"kind\": \"fix\", \"breaking\": false}\n```" },
        { match: "Inline", content: "[1, 2, 3]" },
        { match: "Named", content: "{\"ok\": true}" }
      ]
    })
    const p = project("schema", s, {
      "wf.yml": `default:
  model: m
schemas:
  change:
    type: object
    required: [kind, breaking]
    properties:
      kind: { type: string, enum: [feature, fix] }
      breaking: { type: boolean }
steps:
  - id: classified
    prompt: 'Classify {{ input }}'
    output_schema: change
  - jq: 'if .breaking then "major" else "patch: " + .kind end'
  - id: listed
    prompt: 'Inline {{ input }}'
    output_schema: { type: array, items: { type: integer } }
  - id: named
    prompt: 'Named'
    output_schema: { type: object }
    schema_name: verdict
  - jq: '{classified: $steps.classified, listed: $steps.listed, named: .}'
`
    })
    const r = await p.lait(["run", "wf.yml", "a typo fix"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "{\"classified\":{\"kind\":\"fix\",\"breaking\":false},\"listed\":[1,2,3],\"named\":{\"ok\":true}}\n",
      stderr: "[1] classified\n[2] step-2 (jq)\n[3] listed\n[4] named\n[5] step-5 (jq)\n"
    })
    const formats = bodies(s).map((b) => b["response_format"])
    expect(formats).toEqual([
      {
        type: "json_schema",
        json_schema: {
          name: "change",
          schema: {
            type: "object",
            required: ["kind", "breaking"],
            properties: { kind: { type: "string", enum: ["feature", "fix"] }, breaking: { type: "boolean" } }
          },
          strict: true
        }
      },
      { type: "json_schema", json_schema: { name: "structured_output", schema: { type: "array", items: { type: "integer" } }, strict: true } },
      { type: "json_schema", json_schema: { name: "verdict", schema: { type: "object" }, strict: true } }
    ])
    expect(bodies(s)[1]!["messages"]).toEqual([{ role: "user", content: "Inline patch: fix" }])
  })

  test("a response that is not JSON, or does not match the schema, fails the step", async () => {
    const s = server({
      script: [
        { match: "one", content: "Sure! Here it is: {\"kind\": \"fix\"}" },
        { match: "two", content: "{\"kind\": \"refactor\", \"breaking\": false}" }
      ]
    })
    const p = project("schema-bad", s, {
      "wf.yml": `steps:
  - id: classified
    model: m
    prompt: 'Classify {{ input }}'
    output_schema:
      type: object
      required: [kind]
      properties:
        kind: { enum: [feature, fix] }
`
    })
    expect(outcome(await p.lait(["run", "wf.yml", "one"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] classified\nlait: step 'classified': the model's response is not valid JSON for output schema " +
        "'structured_output': Sure! Here it is: {\"kind\": \"fix\"}\n"
    })
    const bad = await p.lait(["run", "wf.yml", "two"])
    expect(bad.code).toBe(1)
    expect(outcome(bad)).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] classified\nlait: step 'classified': the model's response does not match its output schema: " +
        "output.kind must be one of [\"feature\",\"fix\"] (got \"refactor\")\n"
    })
  })

  test("input_schema validates the step's input before any request", async () => {
    const s = server()
    const p = project("input-schema", s, {
      "wf.yml": "steps:\n  - id: p\n    model: m\n    prompt: 'x'\n    input_schema: { type: object }\n"
    })
    const r = await p.lait(["run", "wf.yml", "just text"])
    expect(r.code).toBe(1)
    expect(r.stderr).toStartWith("[1] p\nlait: step 'p': input must be of type object")
    expect(s.requests).toHaveLength(0)
  })
})

describe("agent steps", () => {
  const fields = `name: reviewer
description: reviews one change
model: agent-model
reasoning_effort: low
temperature: 0.2
max_tokens: 300
input_schema:
  type: object
  required: [title]
output_schema:
  type: object
  required: [verdict]
  properties:
    verdict: { type: string }
`
  const system = "Review change {{ loop.index }} of {{ inputs.release }} after {{ steps.prep }}: {{ input.title }}"

  test("inline, .md file and config registry agents with the same fields send the same request", async () => {
    const s = server({ script: [{ content: "{\"verdict\": \"ship it\"}", repeat: true }] })
    const indented = fields.trimEnd().split("\n").map((l) => `    ${l}`).join("\n")
    const flow = (agent: string) => `inputs:
  release: string
${agent.startsWith("agents:") ? agent : ""}
steps:
  - id: prep
    jq: '"prep done"'
  - for_each: '[{"title": "fix typo", "files": 2}]'
    steps:
      - id: reviewed
        agent: ${agent.startsWith("agents:") ? "reviewer" : agent}
output: '$steps.reviewed'
`
    const p = project("agents", s, {
      "inline.yml": flow(`agents:\n  reviewer:\n${indented}\n    system: '${system}'`),
      "file.yml": flow("agents/reviewer.md"),
      "registry.yml": flow("reviewer"),
      "agents/reviewer.md": `---\n${fields}---\n\n${system}\n\n`
    }, "agents:\n  reviewer: agents/reviewer.md\n")

    const results = []
    for (const file of ["inline.yml", "file.yml", "registry.yml"]) {
      results.push(outcome(await p.lait(["run", file, "--input", "release=v2"])))
    }
    for (const r of results) {
      expect(r).toEqual({
        code: 0,
        stdout: "{\"verdict\":\"ship it\"}\n",
        stderr: "[1] prep\n[2] step-2 (for_each)\n    -> iterating over 1 item(s)\n    -> item 1/1\n[3] reviewed\n"
      })
    }
    const expected = {
      model: "agent-model",
      stream: false,
      messages: [
        { role: "system", content: "Review change 0 of v2 after prep done: fix typo" },
        // The user message is the text form of the input: compact JSON for an object.
        { role: "user", content: "{\"title\":\"fix typo\",\"files\":2}" }
      ],
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "structured_output",
          schema: { type: "object", required: ["verdict"], properties: { verdict: { type: "string" } } },
          strict: true
        }
      },
      temperature: 0.2,
      max_completion_tokens: 300,
      reasoning_effort: "low"
    }
    expect(bodies(s)).toEqual([expected, expected, expected])
  })

  test("the loader's inline agent and the .md parser build the same definition from the same fields", async () => {
    const dir = path.join(ws.dir, "agent-defs")
    fs.mkdirSync(path.join(dir, "schemas"), { recursive: true })
    fs.writeFileSync(path.join(dir, "schemas", "out.json"), "{\"type\": \"object\"}")
    const all = `${fields.replace(/output_schema:[\s\S]*$/, "output_schema: { file: schemas/out.json }\n")}schema_name: review
top_p: 0.5
max_tool_rounds: 3
mcp: [fs]
skills: [style]
subagents: [helper]
tools: [grep]
`
    const indented = all.trimEnd().split("\n").map((l) => `    ${l}`).join("\n")
    fs.writeFileSync(
      path.join(dir, "wf.yml"),
      `agents:\n  reviewer:\n${indented}\n    system: '${system}'\nsteps:\n  - agent: reviewer\n`
    )
    fs.writeFileSync(path.join(dir, "reviewer.md"), `---\n${all}---\n${system}\n`)
    const [{ loadWorkflow }, { parseAgentText }] = await Promise.all([
      import("../../src/lang/load.ts"),
      import("../../src/lang/agentFile.ts")
    ])
    const inline = await Effect.runPromise(
      loadWorkflow(path.join(dir, "wf.yml")).pipe(Effect.provide(FileLoader.layer))
    )
    const fromFile = await Effect.runPromise(
      parseAgentText(fs.readFileSync(path.join(dir, "reviewer.md"), "utf8"), path.join(dir, "reviewer.md"))
    )
    expect(inline.agents["reviewer"]).toEqual(fromFile)
    expect(fromFile).toMatchObject({
      name: "reviewer",
      top_p: 0.5,
      tools: ["grep"],
      outputSchema: { source: { kind: "file", path: path.join(dir, "schemas", "out.json") } },
      schemaName: "review",
      system
    })
  })

  test("the agent's input_schema rejects a bad input; an unknown agent is named", async () => {
    const s = server()
    const p = project("agent-bad", s, {
      "wf.yml": `agents:
  strict:
    model: m
    input_schema: { type: object, required: [title] }
    system: 'Check'
steps:
  - id: check
    input: 'fromjson'
    agent: strict
`,
      "unknown.yml": "steps:\n  - agent: nobody\n"
    })
    const bad = await p.lait(["run", "wf.yml", "{\"name\": 1}"])
    expect(bad.code).toBe(1)
    expect(outcome(bad)).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] check\nlait: step 'check': input is missing required field(s): title\n"
    })
    expect(outcome(await p.lait(["run", "unknown.yml", "x"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] step-1 (agent)\nlait: agent 'nobody' is neither defined in this workflow's 'agents:' nor registered " +
        "under 'agents:' in lait.config.yml\n"
    })
    expect(s.requests).toHaveLength(0)
  })
})

describe("model settings", () => {
  test("model: step → agent → workflow default → config default", async () => {
    const s = server()
    const steps = `agents:
  withModel: { model: agent-model, system: 'a' }
  without: { system: 'b' }
steps:
  - { id: s1, model: step-model, agent: withModel }
  - { id: s2, agent: withModel }
  - { id: s3, agent: without }
  - { id: s4, prompt: 'p' }
`
    const p = project("chain", s, {
      "with-default.yml": `default:\n  model: workflow-model\n${steps}`,
      "without-default.yml": steps
    }, "default:\n  model: config-model\n")
    expect((await p.lait(["run", "with-default.yml", "x"])).code).toBe(0)
    expect((await p.lait(["run", "without-default.yml", "x"])).code).toBe(0)
    expect(bodies(s).map((b) => b["model"])).toEqual([
      "step-model",
      "agent-model",
      "workflow-model",
      "workflow-model",
      "step-model",
      "agent-model",
      "config-model",
      "config-model"
    ])
  })

  test("no model anywhere: the error names every place one could be set", async () => {
    const s = server()
    const p = project("nomodel", s, {
      "prompt.yml": "steps:\n  - id: p\n    prompt: 'x'\n",
      "agent.yml": "agents:\n  a: { system: 's' }\nsteps:\n  - id: q\n    agent: a\n"
    })
    expect(outcome(await p.lait(["run", "prompt.yml", "x"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] p\nlait: model is required for step 'p'; set 'model' on the step, the workflow's default.model, " +
        `or default.model in '${path.join(p.dir, "lait.config.yml")}'\n`
    })
    expect(outcome(await p.lait(["run", "agent.yml", "x"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] q\nlait: model is required for step 'q'; set 'model' on the step, its agent definition, the " +
        `workflow's default.model, or default.model in '${path.join(p.dir, "lait.config.yml")}'\n`
    })
  })

  test("sampling fields fall back one by one; alias defaults fill the rest; unset ones are not sent", async () => {
    const s = server()
    const p = project("sampling", s, {
      "wf.yml": `agents:
  tuned: { top_p: 0.9, system: 's' }
default:
  model: tuned-alias
  max_tokens: 77
steps:
  - { id: all, agent: tuned, temperature: 0.1 }
  - { id: bare, prompt: 'p', model: plain-model }
`
    }, `default:
  reasoning_effort: high
models:
  tuned-alias:
    - provider: { base_url: '${s.baseUrl}' }
      model_id: tuned-model
      default_temperature: 1.5
      default_top_p: 0.1
      default_max_tokens: 5
      default_reasoning_effort: minimal
`)
    expect((await p.lait(["run", "wf.yml", "x"])).code).toBe(0)
    const [all, bare] = bodies(s)
    expect(all).toEqual({
      model: "tuned-model",
      stream: false,
      messages: [{ role: "system", content: "s" }, { role: "user", content: "x" }],
      temperature: 0.1,
      top_p: 0.9,
      max_completion_tokens: 77,
      reasoning_effort: "high"
    })
    expect(bare).toEqual({
      model: "plain-model",
      stream: false,
      messages: [{ role: "user", content: "p" }],
      max_completion_tokens: 77,
      reasoning_effort: "high"
    })

    fs.writeFileSync(path.join(p.dir, "alias-only.yml"), "steps:\n  - prompt: 'q'\n    model: tuned-alias\n")
    fs.writeFileSync(path.join(p.dir, "lait.config.yml"), fs.readFileSync(path.join(p.dir, "lait.config.yml"), "utf8").replace("  reasoning_effort: high\n", "  cache: false\n"))
    expect((await p.lait(["run", "alias-only.yml", "x"])).code).toBe(0)
    expect(bodies(s)[2]).toEqual({
      model: "tuned-model",
      stream: false,
      messages: [{ role: "user", content: "q" }],
      temperature: 1.5,
      top_p: 0.1,
      max_completion_tokens: 5,
      reasoning_effort: "minimal"
    })
  })

  test("a workflow models: alias wins over the config alias of the same name", async () => {
    const configServer = server()
    const workflowServer = server()
    const p = project("alias", configServer, {
      "wf.yml": `models:
  fast:
    - provider: { base_url: '${workflowServer.baseUrl}' }
      model_id: workflow-fast
steps:
  - { prompt: 'p', model: fast }
`,
      "config-only.yml": "steps:\n  - { prompt: 'p', model: fast }\n"
    }, `models:
  fast:
    - provider: { base_url: '${configServer.baseUrl}' }
      model_id: config-fast
`)
    await p.lait(["run", "wf.yml", "x"])
    await p.lait(["run", "config-only.yml", "x"])
    expect(bodies(workflowServer).map((b) => b["model"])).toEqual(["workflow-fast"])
    expect(bodies(configServer).map((b) => b["model"])).toEqual(["config-fast"])
  })
})

describe("api: responses", () => {
  test("posts to /responses and reads its output and usage back", async () => {
    const s = server({ script: [{ content: "{\"n\": 3}", usage: { prompt_tokens: 21, completion_tokens: 4 } }] })
    const p = project("responses", s, {
      "wf.yml": `models:
  r:
    - provider: { base_url: '${s.baseUrl}' }
      model_id: resp-model
      api: responses
steps:
  - id: counted
    model: r
    system: 'Count.'
    prompt: 'How many in {{ input }}?'
    max_tokens: 20
    reasoning_effort: medium
    output_schema: { type: object }
`,
      "image.yml": `models:
  r:
    - provider: { base_url: '${s.baseUrl}' }
      model_id: resp-model
      api: responses
steps:
  - { id: look, model: r, prompt: 'Look', images: ['https://example.com/a.png'] }
`
    })
    const r = await p.lait(["run", "wf.yml", "a b c", "--show-usage"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "{\"n\":3}\n",
      stderr: "[1] counted\nusage: prompt=21 completion=4 total=25\n"
    })
    expect(s.requests.map((q) => `${q.method} ${q.path}`)).toEqual(["POST /v1/responses"])
    expect(bodies(s)[0]).toEqual({
      model: "resp-model",
      input: [{ role: "user", content: "How many in a b c?" }],
      instructions: "Count.",
      text: { format: { type: "json_schema", name: "structured_output", schema: { type: "object" }, strict: true } },
      max_output_tokens: 20,
      reasoning: { effort: "medium" },
      store: false
    })
    expect(outcome(await p.lait(["run", "image.yml", "x"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] look\nlait: model 'resp-model' uses 'api: responses', which does not support image attachments (--image, 'images:'); " +
        "use a chat_completions model for this step\n"
    })
    expect(s.requests).toHaveLength(1)
  })
})

describe("usage", () => {
  test("--show-usage: several labels, repeated requests under one label, cost from pricing; --json totals", async () => {
    const s = server({ script: [{ content: "ok", usage: { prompt_tokens: 1000, completion_tokens: 500 }, repeat: true }] })
    const p = project("usage", s, {
      "wf.yml": `models:
  priced:
    - provider: { base_url: '${s.baseUrl}' }
      model_id: priced-model
      pricing: { input_per_1m: 2.5, output_per_1m: 10 }
steps:
  - for_each: '[1, 2, 3]'
    steps:
      - { id: each, model: priced, prompt: 'item {{ loop.item }}' }
  - { id: unpriced, model: free-model, prompt: 'sum' }
`,
      "one.yml": "steps:\n  - { id: only, model: free-model, prompt: 'x' }\n",
      "one-priced.yml": `models:
  priced:
    - provider: { base_url: '${s.baseUrl}' }
      model_id: priced-model
      pricing: { input_per_1m: 2.5, output_per_1m: 10 }
steps:
  - for_each: '[1, 2]'
    steps:
      - { id: each, model: priced, prompt: 'item {{ loop.item }}' }
`
    })
    const many = await p.lait(["run", "wf.yml", "x", "--show-usage"])
    expect(many.code).toBe(0)
    expect(many.stderr.split("\n").slice(-5)).toEqual([
      "usage:",
      "  each: prompt=3000 completion=1500 total=4500 (3 requests) ($0.0225)",
      "  unpriced: prompt=1000 completion=500 total=1500",
      "  total: prompt=4000 completion=2000 total=6000 (4 requests) ($0.0225)",
      ""
    ])
    expect((await p.lait(["run", "one.yml", "x", "--show-usage"])).stderr).toBe(
      "[1] only\nusage: prompt=1000 completion=500 total=1500\n"
    )
    expect((await p.lait(["run", "one-priced.yml", "x", "--show-usage"])).stderr.split("\n").slice(-2)).toEqual([
      "usage: prompt=2000 completion=1000 total=3000 (2 requests) ($0.0150)",
      ""
    ])
    const json = await p.lait(["run", "wf.yml", "x", "--json"])
    expect(JSON.parse(json.stdout)).toEqual({
      content: "ok",
      reasoning: null,
      usage: { prompt_tokens: 4000, completion_tokens: 2000, total_tokens: 6000 },
      finish_reason: "stop"
    })
  })
})
