// Messages whose words the original lait's own tests assert, through the CLI against the fixture
// OpenAI server: unreadable --system-file, --file and --json-schema files, a model definition's
// out-of-range sampling default, a version 1 workflow, a `workflow:` cycle found by lint, and what a
// Responses API model refuses (issue 40; docs/chat.md, docs/config.md, docs/workflows.md).
import { afterAll, afterEach, describe, expect, test } from "bun:test"
import { outcome, projectsIn, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-original-messages")
const project = projectsIn(ws)
afterEach(stopServers)
afterAll(() => ws.remove())

const READ_LIMIT = 16 * 1024 * 1024

describe("files named on the command line", () => {
  test("--system-file past the read limit, a missing --file, an unreadable or invalid --json-schema", async () => {
    const s = server()
    const p = project({ "big.txt": "a".repeat(READ_LIMIT + 1), "bad.json": "{not json", "list.json": "[1]" })
    const chat = (...args: Array<string>) => p.lait(["--model", "m", "--base-url", s.baseUrl, ...args, "hi"])
    expect(outcome(await chat("--system-file", "big.txt"))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read system prompt file 'big.txt': " +
        `file contents exceed the configured read limit of ${READ_LIMIT} bytes\n`
    })
    expect(outcome(await chat("--file", "missing.txt"))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read file 'missing.txt': no such file or directory\n"
    })
    expect(outcome(await chat("--json-schema", "missing.json"))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read JSON schema file 'missing.json': no such file or directory\n"
    })
    const invalid = await chat("--json-schema", "bad.json")
    expect({ code: invalid.code, stdout: invalid.stdout }).toEqual({ code: 1, stdout: "" })
    expect(invalid.stderr).toStartWith("lait: failed to parse JSON schema file 'bad.json': ")
    expect(invalid.stderr.split("\n")).toHaveLength(2)
    expect((await chat("--json-schema", "list.json")).stderr)
      .toBe("lait: failed to parse JSON schema file 'list.json': the schema must be a JSON object\n")
    expect(s.requests).toHaveLength(0)
  })

  test("a workflow step's missing files: entry says the same", async () => {
    const p = project({ "wf.yml": "steps:\n  - prompt: 'Read it'\n    model: m\n    files: [gone.md]\n" })
    const r = await p.lait(["run", "wf.yml", "x"])
    expect(r.code).toBe(1)
    expect(r.stderr).toEndWith("failed to read file 'gone.md': no such file or directory\n")
  })
})

describe("model definitions", () => {
  const definition = (field: string) =>
    "models:\n  fast:\n    - provider: {base_url: 'http://127.0.0.1:1/v1'}\n" +
    `      model_id: gpt-fast\n      ${field}\n`

  test("an out-of-range default temperature names the model id, in lait.config.yml and in a workflow", async () => {
    const p = project({
      "lait.config.yml": definition("default_temperature: 3"),
      "wf.yml": `${definition("default_top_p: 1.5")}steps:\n  - prompt: hi\n    model: fast\n`
    })
    expect(outcome(await p.lait(["--model", "fast", "hi"]))).toEqual({
      code: 3,
      stdout: "",
      stderr: `lait: failed to parse YAML configuration file '${p.dir}/lait.config.yml': ` +
        "models.fast[0].default_temperature: expected a value between 0 and 2 for model 'gpt-fast' (line 5)\n"
    })
    const run = await p.lait(["run", "wf.yml", "x", "--no-config"])
    expect(run.code).toBe(3)
    expect(run.stderr).toBe(
      "lait: failed to load workflow 'wf.yml' (line 5): " +
        "models.fast[0].default_top_p: Expected a value between 0 and 1 for model 'gpt-fast'\n"
    )
  })
})

describe("workflow files", () => {
  test("a version 1 workflow points to the migration guide, in run and in lint", async () => {
    const p = project({ "old.yml": "version: 1\nnodes:\n  a:\n    use: transform\n" })
    const message = "failed to load workflow 'old.yml' (line 2): this is a version 1 workflow ('nodes:'/'use:'), " +
      "which this build of lait no longer runs; rewrite it for version 2 " +
      "(see the migration guide in docs/workflows.md#migrating-from-version-1)"
    expect(outcome(await p.lait(["run", "old.yml", "x"]))).toEqual({ code: 3, stdout: "", stderr: `lait: ${message}\n` })
    const lint = await p.lait(["lint", "old.yml"])
    expect(lint.code).toBe(3)
    expect(lint.stdout).toContain(`error: ${message}`)
  })

  test("lint reports a workflow: cycle in 'workflow: <file>'", async () => {
    const p = project({
      "a.yml": "steps:\n  - workflow: b.yml\n",
      "b.yml": "steps:\n  - workflow: a.yml\n"
    })
    const r = await p.lait(["lint", "a.yml"])
    expect(r.code).toBe(3)
    expect(r.stdout).toBe(
      "a.yml:\n  error: in 'workflow: b.yml': step 1 (workflow) runs workflow 'a.yml', " +
        "which would create a cycle ('a.yml' is already being linted)\n"
    )
  })
})

describe("a Responses API model", () => {
  const responsesModel = (baseUrl: string) =>
    `models:\n  r:\n    - provider: {base_url: '${baseUrl}'}\n      model_id: resp-model\n      api: responses\n` +
    "tools:\n  echo:\n    command: [echo, '{{ input.text }}']\n"

  test("refuses tools, --image and --stream, naming each", async () => {
    const s = server()
    const p = project({ "lait.config.yml": responsesModel(s.baseUrl), "pic.png": "\x89PNG\r\n\x1a\nrest" })
    const refusal = (feature: string, remedy = "use a chat_completions model for this step") =>
      `lait: model 'resp-model' uses 'api: responses', which does not support ${feature}; ${remedy}\n`
    expect(outcome(await p.lait(["--model", "r", "--tool", "echo", "hi"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: refusal("tools ('mcp:', 'subagents:', 'tools:')")
    })
    expect(outcome(await p.lait(["--model", "r", "--image", "pic.png", "hi"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: refusal("image attachments (--image, 'images:')")
    })
    expect(outcome(await p.lait(["--model", "r", "--stream", "hi"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: refusal(
        "streaming (--stream)",
        "drop --stream (the answer then prints whole) or use a chat_completions model"
      )
    })
    expect(s.requests).toHaveLength(0)
    // Without them, the same model answers.
    expect((await p.lait(["--model", "r", "hi"])).code).toBe(0)
    expect(s.requests.map((q) => q.path)).toEqual(["/v1/responses"])
  })
})
