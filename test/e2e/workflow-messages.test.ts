// What the workflow language says when a file or a run goes wrong, through the CLI against the fixture
// OpenAI server: a run on `inputs:` alone whose templates print the unset `input` (and the lint
// warning about it), a misspelt step kind (run and lint), and one-line errors that quote a model's
// answer or a command's stderr as an escaped excerpt, with -v printing the whole text.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import type { OpenAiServer } from "../fixtures/openai-server.ts"
import { bodies, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-workflow-messages")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

/** A directory with the given files; `lait.config.yml` in it points the default base_url at `s`. */
const project = (name: string, s: OpenAiServer | undefined, files: Readonly<Record<string, string>>) => {
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "lait.config.yml"), s === undefined ? "{}\n" : `base_url: '${s.baseUrl}'\n`)
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text)
  return {
    lait: (args: ReadonlyArray<string>, stdin?: string) =>
      ws.lait(args, { cwd: dir, ...(stdin === undefined ? {} : { stdin }) })
  }
}

const userMessages = (s: OpenAiServer) =>
  bodies(s).map((b) => (b["messages"] as Array<{ role: string; content: string }>).at(-1)!.content)

const lastLine = (stderr: string) => stderr.trimEnd().split("\n").at(-1)

const TRANSLATE = `inputs:
  lang: string
default:
  model: m
steps:
  - id: translate
    prompt: 'Translate into {{ inputs.lang }}: {{ input }}'
`

const NO_PROMPT = `the run was given no PROMPT; pass one (lait run wf.yml "TEXT", or pipe it on stdin)`

describe("a run on inputs: alone (no PROMPT)", () => {
  test("a prompt that prints input fails before any request, naming the step, its field and what to pass", async () => {
    const s = server()
    const p = project("unset-prompt", s, { "wf.yml": TRANSLATE })
    const r = await p.lait(["run", "wf.yml", "--input", "lang=fr"])
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] translate\n" +
        `lait: step 'translate': 'prompt' template "Translate into {{ inputs.lang }}: {{ input }}" prints 'input', ` +
        `which is not set: ${NO_PROMPT}, or print it only inside {{#if input}}...{{/if}}\n`
    })
    expect(s.requests).toHaveLength(0)
    // With a PROMPT, or one piped on stdin, the same file runs.
    expect(outcome(await p.lait(["run", "wf.yml", "bonjour", "--input", "lang=fr"]))).toMatchObject({ code: 0 })
    expect(outcome(await p.lait(["run", "wf.yml", "--input", "lang=fr"], "salut"))).toMatchObject({ code: 0 })
    expect(userMessages(s)).toEqual(["Translate into fr: bonjour", "Translate into fr: salut"])
  })

  test("{{#if input}} tests for it; a write passes it on unset; a value of a step's own is set", async () => {
    const s = server()
    const p = project("unset-guarded", s, {
      "wf.yml": `inputs:
  lang: string
default:
  model: m
steps:
  - write: kept.txt
  - id: ask
    prompt: '{{#if input}}Translate: {{ input }}{{else}}Say hello in {{ inputs.lang }}{{/if}}'
  - jq: 'null'
  - id: again
    prompt: 'Was: {{ input }}'
`
    })
    const r = await p.lait(["run", "wf.yml", "--input", "lang=fr"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "echo: Was: null\n", stderr: "[1] step-1 (write)\n[2] ask\n[3] step-3 (jq)\n[4] again\n" })
    expect(userMessages(s)).toEqual(["Say hello in fr", "Was: null"])
  })

  test("run and write templates and agent steps fail the same way; a later step's template does not", async () => {
    const p = project("unset-kinds", undefined, {
      "run.yml": "inputs:\n  n: integer\nsteps:\n  - write: out.txt\n  - id: show\n    run: [echo, '{{ json input }}']\n",
      "write.yml": "inputs:\n  n: integer\nsteps:\n  - id: save\n    write: 'out-{{ input.name }}.txt'\n",
      "agent.yml": "inputs:\n  n: integer\nagents:\n  helper: {model: m, system: Help.}\nsteps:\n  - id: help\n    agent: helper\n",
      "later.yml": "inputs:\n  n: integer\nsteps:\n  - jq: '$inputs.n * 2'\n  - run: [echo, 'twice: {{ input }}']\n"
    })
    const run = await p.lait(["run", "run.yml", "--input", "n=2"])
    expect({ code: run.code, last: lastLine(run.stderr) }).toEqual({
      code: 1,
      last: `lait: step 'show': 'run' template "{{ json input }}" prints 'input', which is not set: ` +
        `the run was given no PROMPT; pass one (lait run run.yml "TEXT", or pipe it on stdin), ` +
        "or print it only inside {{#if input}}...{{/if}}"
    })
    const write = await p.lait(["run", "write.yml", "--input", "n=2"])
    expect(lastLine(write.stderr)).toStartWith(`lait: step 'save': 'write' template "out-{{ input.name }}.txt" prints 'input'`)
    const agent = await p.lait(["run", "agent.yml", "--input", "n=2"])
    expect({ code: agent.code, last: lastLine(agent.stderr) }).toEqual({
      code: 1,
      last: "lait: step 'help': 'agent' sends 'input' to the model, which is not set: " +
        `the run was given no PROMPT; pass one (lait run agent.yml "TEXT", or pipe it on stdin)`
    })
    expect(outcome(await p.lait(["run", "later.yml", "--input", "n=2"]))).toMatchObject({ code: 0, stdout: "twice: 4\n" })
  })

  test("lait lint warns about those templates, unless input_schema says the workflow takes a PROMPT", async () => {
    const p = project("unset-lint", undefined, {
      "wf.yml": TRANSLATE,
      "schema.yml": `input_schema: {type: string}\n${TRANSLATE}`
    })
    const r = await p.lait(["lint", "wf.yml", "schema.yml"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "wf.yml:\n" +
        "  warning: step 'translate': 'prompt' uses 'input', but a run on 'inputs:' alone (no PROMPT) has no input " +
        "there and fails; use it inside {{#if input}}...{{/if}}, or declare 'input_schema:' if the workflow needs a PROMPT\n" +
        "schema.yml: OK\n",
      stderr: ""
    })
  })
})

describe("a misspelt step kind", () => {
  test("lait run and lait lint name the key and the nearest kind", async () => {
    const p = project("kind", undefined, { "wf.yml": "steps:\n  - id: greet\n    promt: 'Say hello'\n" })
    const message = "failed to load workflow 'wf.yml' (line 3): steps[0] (id 'greet'): unknown step kind 'promt' " +
      "(did you mean 'prompt'?); a step needs exactly one of: prompt, agent, run, workflow, jq, ask, write, group, " +
      "switch, parallel, for_each, while, until, stop, break"
    expect(outcome(await p.lait(["run", "wf.yml", "hi"]))).toEqual({ code: 3, stdout: "", stderr: `lait: ${message}\n` })
    const lint = await p.lait(["lint", "wf.yml"])
    expect({ code: lint.code, stdout: lint.stdout }).toEqual({ code: 3, stdout: `wf.yml:\n  error: ${message}\n` })
  })
})

describe("one-line errors quoting text", () => {
  const ANSWER = `Here you go:\n${"- an item of the list\n".repeat(12)}Hope that helps!`

  test("an answer that is not JSON: an escaped excerpt on the line; -v prints it whole before the line", async () => {
    const s = server({ script: [{ content: ANSWER, repeat: true }] })
    const p = project("excerpt", s, {
      "wf.yml": "steps:\n  - id: pick\n    model: m\n    prompt: 'Pick {{ input }}'\n    output_schema: {type: object}\n"
    })
    const r = await p.lait(["run", "wf.yml", "one"])
    const excerpt = [...ANSWER].slice(0, 200).join("").replaceAll("\n", "\\n")
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] pick\nlait: step 'pick': the model's response is not valid JSON for output schema " +
        `'structured_output': ${excerpt}…\n`
    })
    const verbose = await p.lait(["run", "wf.yml", "one", "-v"])
    expect(verbose.code).toBe(1)
    expect(verbose.stderr).toContain(`note: the model's answer, whole:\n${ANSWER}\n${lastLine(r.stderr)}\n`)
    expect(lastLine(verbose.stderr)).toBe(lastLine(r.stderr))
  })

  test("an answer that does not match the schema: -v prints it; a command's stderr is one line", async () => {
    const s = server({ script: [{ content: "{\"kind\":\n  \"refactor\"}", repeat: true }] })
    const p = project("mismatch", s, {
      "wf.yml": "steps:\n  - id: pick\n    model: m\n    prompt: 'Pick {{ input }}'\n" +
        "    output_schema: {type: object, properties: {kind: {enum: [fix]}}}\n",
      "cmd.yml": "steps:\n  - id: fail\n    run: [sh, -c, 'printf \"first\\nsecond\\n\" >&2; exit 3']\n"
    })
    const plain = await p.lait(["run", "wf.yml", "one"])
    const line = "lait: step 'pick': the model's response does not match its output schema: " +
      "output.kind must be one of [\"fix\"] (got \"refactor\")"
    expect(outcome(plain)).toEqual({ code: 1, stdout: "", stderr: `[1] pick\n${line}\n` })
    const verbose = await p.lait(["run", "wf.yml", "one", "-v"])
    expect(verbose.stderr).toContain(`note: the model's answer, whole:\n{"kind":\n  "refactor"}\n${line}\n`)
    const cmd = await p.lait(["run", "cmd.yml", "x"])
    expect(outcome(cmd)).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] fail\nlait: step 'fail': command 'sh' exited with exit status: 3: first\\nsecond\n"
    })
  })
})
