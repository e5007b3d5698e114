// What lait tells a user who is about to waste a request or is stuck (docs/cli.md, docs/record-replay.md,
// docs/models-doctor.md): a mistyped subcommand is refused before any request, a replay miss names the
// command that records what is missing where it happened, and a rejected key says where it came from.
// Each as a real process against the fixture OpenAI server.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-guidance")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

let counter = 0
/** A fresh directory holding `files`. */
const project = (files: Readonly<Record<string, string>> = {}) => {
  const dir = path.join(ws.dir, `p${++counter}`)
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  fs.mkdirSync(dir, { recursive: true })
  return {
    dir,
    lait: (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) =>
      ws.lait(args, { cwd: dir, env })
  }
}

describe("a mistyped subcommand", () => {
  test("is refused before any request, exit 2, with the way to send it anyway", async () => {
    const s = server()
    const p = project()
    const at = ["--model", "m", "--base-url", s.baseUrl]
    const typo = await p.lait([...at, "tset"])
    expect(outcome(typo)).toEqual({
      code: 2,
      stdout: "",
      stderr: `lait: 'tset' is not a command (did you mean 'test'?); to send it to the model as a prompt, write: ` +
        `lait --model m --base-url ${s.baseUrl} -- tset\n`
    })
    // Transpositions, a dropped letter, a missing plural, another case: each refused, none sent.
    for (const [word, meant] of [["rnu", "run"], ["etst", "test"], ["evl", "eval"], ["model", "models"], ["Lint", "lint"]]) {
      const r = await p.lait([word!, ...at])
      expect({ code: r.code, stderr: r.stderr }).toEqual({
        code: 2,
        stderr: `lait: '${word}' is not a command (did you mean '${meant}'?); to send it to the model as a prompt, ` +
          `write: lait --model m --base-url ${s.baseUrl} -- ${word}\n`
      })
    }
    expect(s.requests).toHaveLength(0)

    // `--`, a PROMPT with a space, and ordinary words still chat.
    expect(outcome(await p.lait([...at, "--", "tset"]))).toEqual({ code: 0, stdout: "echo: tset\n", stderr: "" })
    expect(outcome(await p.lait([...at, "tset this"]))).toEqual({ code: 0, stdout: "echo: tset this\n", stderr: "" })
    for (const word of ["hello", "what", "best", "thanks"]) {
      expect(outcome(await p.lait([...at, word]))).toEqual({ code: 0, stdout: `echo: ${word}\n`, stderr: "" })
    }
    expect(s.requests.map((r) => (r.body as { messages: Array<{ content: string }> }).messages[0]!.content)).toEqual([
      "tset",
      "tset this",
      "hello",
      "what",
      "best",
      "thanks"
    ])
  }, 120_000)
})

const WORKFLOW = "steps:\n  - prompt: 'Say {{ input }}'\n    model: m\n"
const miss = (key: string, command: string, same: string, dir = "cas") =>
  `lait: no recorded cassette for this request (model 'm') at 'cas/${key}.json'; run \`${command}\` first against ` +
  `${same}, or check that they still match this recording; '${dir}' holds no recordings\n`
/** The file name of the one request a command missed, read from its message. */
const missedKey = (stderr: string) => /at 'cas\/([0-9a-f]{64})\.json'/.exec(stderr)?.[1] ?? "(none)"

describe("a replay miss names the command that records it", () => {
  const files = {
    "wf.yml": WORKFLOW,
    "e.eval.yml": "target:\n  workflow: ./wf.yml\ncases:\n  - input: hi\n    assert:\n      - type: contains\n        value: hi\n",
    "tests/wf.test.yml": "workflow: ../wf.yml\ninput: hi\nreplay: ../cas\nassert:\n  - type: contains\n    value: hi\n",
    "cas/.keep": ""
  }
  // No server anywhere: a replay never asks one.
  const env = { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }

  test("one-shot chat: lait --record DIR \"...\"", async () => {
    const p = project(files)
    const r = await p.lait(["--model", "m", "--replay", "cas", "hello there"], env)
    expect(outcome(r)).toEqual({
      code: 1,
      stdout: "",
      stderr: miss(missedKey(r.stderr), "lait --record cas \"...\"", "the same prompt and flags")
    })
  })

  test("lait run, on the lean path and through the command tree: lait run FILE --record-missing DIR", async () => {
    const p = project(files)
    // `--no-env` before the subcommand takes the command tree (src/cli/leanArgs.ts reads only `run ...`).
    for (const args of [["run", "wf.yml", "hi", "--replay", "cas"], ["--no-env", "run", "wf.yml", "hi", "--replay", "cas"]]) {
      const r = await p.lait(args, env)
      expect(outcome(r)).toEqual({
        code: 1,
        stdout: "",
        stderr: "[1] step-1 (prompt)\n" +
          miss(missedKey(r.stderr), "lait run wf.yml --record-missing cas", "the same input and vars")
      })
    }
  })

  test("lait eval, on the lean path and through the command tree: lait eval FILE --record DIR", async () => {
    const p = project(files)
    for (const args of [["eval", "e.eval.yml", "--replay", "cas"], ["--no-env", "eval", "e.eval.yml", "--replay", "cas"]]) {
      const r = await p.lait(args, env)
      expect(r.code).toBe(4)
      const line = miss(missedKey(r.stdout), "lait eval e.eval.yml --record cas", "the same cases and flags")
      expect(r.stdout).toContain(`  run 1: error: ${line.slice("lait: ".length)}`)
    }
  })

  test("lait test: lait test PATHS --record-missing", async () => {
    const p = project(files)
    const r = await p.lait(["test", "tests"], env)
    expect(r.code).toBe(1)
    const same = "the test files' workflows and inputs"
    const line = miss(missedKey(r.stdout), "lait test tests --record-missing", same, "tests/../cas")
    expect(r.stdout).toContain(`  workflow 'tests/../wf.yml': ${line.slice("lait: ".length)}`)
  })
})

describe("a rejected key says where it came from, never what it is", () => {
  const ask = ["--base-url"]
  test("401 with a key from --api-key, OPENAI_API_KEY, an alias in lait.config.yml, api_key_cmd, or none", async () => {
    const s = server({ apiKey: "the-right-key" })
    const rejected = `lait: the model server at '${s.baseUrl}' answered HTTP 401: Incorrect API key provided: `
    const p = project({
      "lait.config.yml": `models:\n  fast:\n    - provider: {base_url: '${s.baseUrl}', api_key: 'sk-wrong-alias-key'}\n` +
        "      model_id: m\n",
      "cmd/lait.config.yml": `api_key_cmd: [echo, sk-wrong-cmd-key]\n`
    })
    const flag = await p.lait(["--model", "m", ...ask, s.baseUrl, "--api-key", "sk-wrong-flag-key", "hi there"])
    expect(outcome(flag)).toEqual({
      code: 4,
      stdout: "",
      stderr: `${rejected}<redacted>; check the API key (it came from --api-key)\n`
    })
    const env = await p.lait(["--model", "m", ...ask, s.baseUrl, "hi there"], { OPENAI_API_KEY: "sk-wrong-env-key" })
    expect(env.stderr).toBe(`${rejected}<redacted>; check the API key (it came from OPENAI_API_KEY)\n`)
    const alias = await p.lait(["--model", "fast", "hi there"])
    expect(alias.stderr).toBe(
      `${rejected}<redacted>; check the API key (it came from provider.api_key of model 'fast' in lait.config.yml)\n`
    )
    const cmd = await ws.lait(["--model", "m", ...ask, s.baseUrl, "hi there"], { cwd: path.join(p.dir, "cmd") })
    expect(cmd.stderr).toBe(`${rejected}<redacted>; check the API key (it came from api_key_cmd in lait.config.yml)\n`)
    const none = await p.lait(["--no-config", "--model", "m", ...ask, s.baseUrl, "hi there"])
    expect(none.stderr).toBe(
      `${rejected}lm-studio; no API key is configured: set OPENAI_API_KEY, pass --api-key, or set api_key ` +
        "(or api_key_cmd) in lait.config.yml\n"
    )
    for (const r of [flag, env, alias, cmd, none]) {
      expect(r.code).toBe(4)
      expect(r.stdout + r.stderr).not.toMatch(/sk-wrong/)
    }
    // Each was sent once: a rejected key is not retried.
    expect(s.requests).toHaveLength(5)
  }, 120_000)

  test("a workflow's own models: and lait run say so too", async () => {
    const s = server({ apiKey: "the-right-key" })
    const p = project({
      "wf.yml": `models:\n  wfm:\n    - provider: {base_url: '${s.baseUrl}', api_key: 'sk-wrong-wf-key'}\n` +
        "      model_id: m\nsteps:\n  - prompt: hi\n    model: wfm\n"
    })
    const r = await p.lait(["run", "wf.yml", "x"])
    expect(outcome(r)).toEqual({
      code: 4,
      stdout: "",
      stderr: "[1] step-1 (prompt)\n" +
        `lait: the model server at '${s.baseUrl}' answered HTTP 401: Incorrect API key provided: <redacted>; ` +
        "check the API key (it came from provider.api_key of model 'wfm' in the workflow's models:)\n"
    })
  })
})
