// Secrets sweep (issue 12): with the API key coming from each place lait reads one — OPENAI_API_KEY,
// lait.config.yml (`${VAR}`, literal, api_key_cmd as a string and as a list), `.env`, a `models:`
// provider in the workflow and in the config, and `trace export --header` — every command that writes
// or prints runs (record, cache, replay, trace file, -o, --json, --show-usage, -v/-vv, a shell tool
// loop and a structured-output step, `lait test` text/json/--update, `lait eval` with llm_judge,
// `trace show`/`export`, `config show`, --dry-run) and every error path (401/500 bodies echoing the
// key, connection refused, a failing step, a replay miss, failing api_key_cmd, `${VAR}` errors, a
// collector echoing the token). Then every byte written — all files under the workspace, which is
// also HOME, XDG_CONFIG_HOME and TMPDIR of every run, stdout and stderr of every run, every body the
// OTLP receivers got — is searched for the key raw, JSON-escaped, percent-encoded and base64-encoded:
// zero hits, except in the files the user put it in. Each test also proves the key was really sent.
// Then the other channels (issue 20): a tool that prints the key into the conversation (-vv request
// bodies), a key inside a base URL (userinfo, `?api-key=`), echoes of the key percent- or
// base64-encoded, MCP header/env values in `config show` and in MCP errors, and a `.env` that moves the
// base URL while the key comes from the user's environment.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { startOpenAiServer, type OpenAiServer, type ScriptedReply } from "../fixtures/openai-server.ts"
import { startOtlpReceiver } from "../fixtures/otlp-receiver.ts"
import { prepareCli, refusedBaseUrl, workspace } from "../e2e/model-harness.ts"
import type { RunResult } from "../e2e/util.ts"
import { requestKey } from "../../src/model/cassette/key.ts"
import { findLeaks, hitsIn, makeKey, needlesOf, startEchoCollector } from "./secrets-util.ts"

const ws = workspace("hardening-secrets")
beforeAll(prepareCli, 300_000)
afterAll(() => ws.remove())

/** Every lait run of one test, kept so its stdout and stderr are searched too. */
class Runs {
  readonly all: Array<readonly [string, RunResult]> = []
  constructor(readonly dir: string, readonly env: Readonly<Record<string, string>>) {}
  async lait(args: ReadonlyArray<string>, extraEnv: Readonly<Record<string, string>> = {}): Promise<RunResult> {
    // Every retry still happens (each test counts the requests); only the wait between attempts,
    // 250 ms doubling by default (docs/environment.md#lait_http_backoff_ms), is not what is tested.
    const env = { LAIT_HTTP_BACKOFF_MS: "1", ...this.env, ...extraEnv }
    const r = await ws.lait(args, { cwd: this.dir, env })
    this.all.push([args.join(" "), r])
    if (r.timedOut) throw new Error(`lait ${args.join(" ")} timed out`)
    return r
  }
  texts(): Array<readonly [string, string]> {
    return this.all.flatMap(([args, r]) => [[`stdout of 'lait ${args}'`, r.stdout], [`stderr of 'lait ${args}'`, r.stderr]] as const)
  }
}

/** A directory of its own (TMPDIR inside it) in the shared workspace, which is also HOME. */
const project = (name: string) => {
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(path.join(dir, "tmp"), { recursive: true })
  const write = (file: string, text: string) => {
    const full = path.join(dir, file)
    fs.mkdirSync(path.dirname(full), { recursive: true })
    fs.writeFileSync(full, text)
    return full
  }
  return { dir, write, tmp: path.join(dir, "tmp") }
}

/** The `lait: ...` error line of a run (-v/-vv log lines left out). */
const errorLine = (r: RunResult) => r.stderr.split("\n").find((l) => l.startsWith("lait: ") && !l.startsWith("lait: ["))

const requestsWith = (s: OpenAiServer, key: string) => ({
  count: s.requests.length,
  withKey: s.requests.filter((q) => q.headers["authorization"] === `Bearer ${key}`).length
})

test("the search finds the key in each form it looks for (so a clean sweep means something)", () => {
  const key = makeKey("self")
  expect(JSON.stringify(key)).not.toContain(key) // the key's JSON form differs from the raw text
  for (const prefix of ["", "a", "ab", "abc"]) {
    const blob = Buffer.from(`${prefix}${key}-suffix`)
    expect(hitsIn(key, "b64", blob.toString("base64")).length).toBeGreaterThan(0)
    expect(hitsIn(key, "b64url", blob.toString("base64url")).length).toBeGreaterThan(0)
  }
  expect(hitsIn(key, "json", JSON.stringify({ message: `bad key ${key}` }))).toEqual(["json: json"])
  expect(hitsIn(key, "slash", JSON.stringify({ k: key }).replaceAll("/", "\\/"))).toEqual(["slash: json-slash"])
  expect(hitsIn(key, "url", `https://h/v1?api-key=${encodeURIComponent(key)}`)).toEqual(["url: url"])
  expect(hitsIn(key, "url", `k=${encodeURIComponent(key).toLowerCase()}`)).toEqual(["url: url-lower"])
  expect(hitsIn(key, "none", `sk-hard-self "q" ${Buffer.from("unrelated").toString("base64")}`)).toEqual([])
  expect(needlesOf(key).every((n) => n.text.length >= 20)).toBe(true)
})

// ---------------------------------------------------------------------------------------------------
// Every source × every command

interface Source {
  readonly id: string
  readonly name: string
  /** Environment of every run. */
  readonly env?: (key: string) => Record<string, string>
  /** Top-level lines added to lait.config.yml. */
  readonly config?: (key: string) => string
  /** Extra fields of every alias's provider. */
  readonly provider?: (key: string) => string
  /** Where the `models:` aliases live (default: the workflow files). */
  readonly modelsIn?: "workflow" | "config"
  readonly dotenv?: (key: string) => string
  /** Files that hold the key on purpose (relative to the project). */
  readonly owned?: ReadonlyArray<string>
}

const WORKFLOWS = ["wf.yml", "bad.yml", "refused.yml", "failing.yml"]

const sources: ReadonlyArray<Source> = [
  { id: "env", name: "OPENAI_API_KEY", env: (k) => ({ OPENAI_API_KEY: k }) },
  { id: "config-var", name: "config api_key: ${VAR}", env: (k) => ({ E2E_KEY: k }), config: () => "api_key: '${E2E_KEY}'" },
  { id: "config-literal", name: "config api_key literal", config: (k) => `api_key: '${k}'`, owned: ["lait.config.yml"] },
  {
    id: "cmd-string",
    name: "config api_key_cmd (sh -c string)",
    env: (k) => ({ E2E_KEY_SOURCE: k }),
    config: () => `api_key_cmd: 'printf "%s\\n" "$E2E_KEY_SOURCE"'`
  },
  {
    id: "cmd-array",
    name: "config api_key_cmd (argv list)",
    env: (k) => ({ E2E_KEY_SOURCE: k }),
    config: () => "api_key_cmd: [printenv, E2E_KEY_SOURCE]"
  },
  { id: "dotenv", name: ".env", dotenv: (k) => `OPENAI_API_KEY='${k}'\n`, owned: [".env"] },
  {
    id: "wf-provider-var",
    name: "workflow models: provider api_key: ${VAR}",
    env: (k) => ({ E2E_KEY: k }),
    provider: () => "api_key: '${E2E_KEY}'"
  },
  {
    id: "wf-provider-literal",
    name: "workflow models: provider api_key literal",
    provider: (k) => `api_key: '${k}'`,
    // The config's `judge` alias (for lait eval) carries the same provider fields, so it holds the key too.
    owned: [...WORKFLOWS, "lait.config.yml"]
  },
  {
    id: "config-provider-literal",
    name: "config models: provider api_key literal",
    provider: (k) => `api_key: '${k}'`,
    modelsIn: "config",
    owned: ["lait.config.yml"]
  },
  {
    id: "config-provider-cmd",
    name: "config models: provider api_key_cmd",
    env: (k) => ({ E2E_KEY_SOURCE: k }),
    provider: () => "api_key_cmd: [printenv, E2E_KEY_SOURCE]",
    modelsIn: "config"
  }
]

const TOOLS = `tools:
  echo:
    command: [sh, -c, 'printf "echoed %s" "$1"', echo, '{{ input.text }}']
    description: Echo some text
    parameters: { type: object, required: [text], properties: { text: { type: string } } }
`

/** The model: a judge verdict, a tool round, a structured answer, and a plain answer for the rest. */
const SCRIPT: ReadonlyArray<ScriptedReply> = [
  { match: "Criteria:", content: "{\"score\": 0.9, \"reasoning\": \"polite enough\"}", repeat: true },
  { match: "\"role\":\"tool\"", content: "the answer", usage: { prompt_tokens: 30, completion_tokens: 3 }, repeat: true },
  {
    match: "Use the tool",
    tool_calls: [{ id: "call_1", name: "tool__echo", arguments: "{\"text\":\"hi\"}" }],
    usage: { prompt_tokens: 20, completion_tokens: 4 },
    repeat: true
  },
  { match: "Classify", content: "{\"category\":\"billing\"}", repeat: true },
  { content: "ok", repeat: true }
]

/** The error server: bodies that echo the key, as some providers do for a bad or unknown key. */
const errorScript = (key: string): ReadonlyArray<ScriptedReply> => [
  { match: "four-oh-one", status: 401, body: { error: { message: `Incorrect API key provided: ${key}.` } }, repeat: true },
  { match: "five-hundred", status: 500, body: { error: { message: `internal error while checking ${key}` } }, repeat: true }
]

const modelsBlock = (aliases: Readonly<Record<string, string>>, provider: string | undefined) =>
  [
    "models:",
    ...Object.entries(aliases).flatMap(([alias, url]) => [
      `  ${alias}:`,
      `    - provider: { base_url: '${url}'${provider === undefined ? "" : `, ${provider}`} }`,
      "      model_id: fixture-model"
    ]),
    ""
  ].join("\n")

const MAIN = `name: swept
schemas:
  triage: { type: object, required: [category], properties: { category: { type: string } } }
default:
  model: m
steps:
  - id: triage
    prompt: 'Classify: {{ input }}'
    output_schema: triage
  - id: ask
    prompt: 'Use the tool on {{ input.category }}'
    tools: [echo]
`

const testFile = (expected: string) => `workflow: ../wf.yml
input: the ticket
replay: ../cassettes
assert:
  - type: equals
    value: ${expected}
  - type: tool_called
    name: tool__echo
    min: 1
    max: 1
`

describe("every source of the key, every command that writes or prints", () => {
  for (const source of sources) {
    test.concurrent(`${source.name}: no byte anywhere holds the key`, async () => {
      const key = makeKey(source.id)
      const p = project(source.id)
      const s = startOpenAiServer({ script: SCRIPT })
      const bad = startOpenAiServer({ script: errorScript(key) })
      const receiver = startOtlpReceiver()
      const refused = await refusedBaseUrl()
      try {
        const provider = source.provider?.(key)
        const aliases = (names: Record<string, string>) => modelsBlock(names, provider)
        const inConfig = source.modelsIn === "config"
        p.write(
          "lait.config.yml",
          [
            TOOLS,
            source.config?.(key) ?? "",
            // The judge of `lait eval` resolves its model against the config only.
            aliases(inConfig ? { m: s.baseUrl, bad: bad.baseUrl, refused, judge: s.baseUrl } : { judge: s.baseUrl }),
            ""
          ].join("\n")
        )
        const wfModels = (names: Record<string, string>) => (inConfig ? "" : aliases(names))
        p.write("wf.yml", `${wfModels({ m: s.baseUrl })}${MAIN}`)
        p.write("bad.yml", `${wfModels({ bad: bad.baseUrl })}default: { model: bad }\nsteps:\n  - id: ask\n    prompt: '{{ input }}'\n`)
        p.write("refused.yml", `${wfModels({ refused })}default: { model: refused }\nsteps:\n  - id: ask\n    prompt: 'hello'\n`)
        p.write(
          "failing.yml",
          `${wfModels({ m: s.baseUrl })}default: { model: m }\nsteps:\n  - id: ask\n    prompt: 'Fail after {{ input }}'\n` +
            `  - id: boom\n    run: [sh, -c, 'echo "step failed" >&2; exit 3']\n`
        )
        if (source.dotenv !== undefined) p.write(".env", source.dotenv(key))
        p.write("tests/pass.yml", testFile("the answer"))
        p.write("tests/fail.yml", testFile("not the answer"))
        p.write("update/fail.yml", testFile("stale answer"))
        p.write(
          "eval.yml",
          "target: { workflow: wf.yml }\ncases:\n  - input: the ticket\n    assert:\n" +
            "      - { type: contains, value: answer }\n      - { type: llm_judge, criteria: polite, model: judge }\n"
        )

        const runs = new Runs(p.dir, { ...source.env?.(key), TMPDIR: p.tmp, TOKEN: key })
        const expectRun = async (args: ReadonlyArray<string>, code: number) => {
          const r = await runs.lait(args)
          // On a surprise, the whole output is shown.
          const output = r.code === code ? "" : `${r.stdout}${r.stderr}`
          expect({ args: args.join(" "), code: r.code, output }).toEqual({ args: args.join(" "), code, output: "" })
          return r
        }

        // lait run, every flag that writes or prints.
        const recorded = await expectRun(
          ["run", "wf.yml", "the ticket", "--record", "cassettes", "--trace-file", "traces/run.jsonl", "-vv", "--show-usage", "-o", "result.txt"],
          0
        )
        expect(fs.readFileSync(path.join(p.dir, "result.txt"), "utf8")).toBe("the answer\n")
        // The -vv logs really were written: request bodies with the tool's output, responses.
        expect(recorded.stderr).toContain("lait: [trace] request body: {\"model\":\"fixture-model\"")
        expect(recorded.stderr).toContain("echoed hi")
        expect(recorded.stderr).toContain("usage:")
        // Three model cassettes and the shell tool's cassette (docs/record-replay.md#tool-cassettes).
        const recordedFiles = fs.readdirSync(path.join(p.dir, "cassettes"))
        expect(recordedFiles.filter((f) => !f.startsWith("tool-"))).toHaveLength(3)
        expect(recordedFiles.filter((f) => f.startsWith("tool-"))).toHaveLength(1)
        const trace = fs.readFileSync(path.join(p.dir, "traces/run.jsonl"), "utf8")
        expect(trace).toContain("\"operation\":\"execute_tool\"")
        expect((await expectRun(["run", "wf.yml", "the ticket", "--cache", "-v", "--json"], 0)).stdout).toContain("the answer")
        const hit = await expectRun(["run", "wf.yml", "the ticket", "--cache", "-vv", "--trace-file", "traces/cached.jsonl"], 0)
        expect(hit.stderr).toContain("note: cache hit for ask")
        expect(fs.readdirSync(path.join(p.dir, ".lait", "cache"))).toHaveLength(3)
        expect((await expectRun(["run", "wf.yml", "the ticket", "--replay", "cassettes", "--json", "-vv"], 0)).stdout)
          .toContain("the answer")
        expect((await expectRun(["run", "wf.yml", "the ticket", "--dry-run"], 0)).stdout).toContain(`fixture-model @ ${s.baseUrl}`)

        // Error paths while the key is in use.
        const miss = await expectRun(["run", "wf.yml", "another ticket", "--replay", "cassettes", "-vv"], 1)
        expect(miss.stderr).toContain("lait: no recorded cassette for this request")
        const e401 = await expectRun(["run", "bad.yml", "four-oh-one", "-vv"], 4)
        // The rejected key's source is named (docs/models-doctor.md#a-rejected-key), never the key.
        const rejected = `lait: the model server at '${bad.baseUrl}' answered HTTP 401: Incorrect API key provided: ` +
          "<redacted>; check the API key (it came from "
        expect(e401.stderr).toContain(`\n${rejected}`)
        const e500 = await expectRun(["run", "bad.yml", "five-hundred", "-v"], 4)
        expect(e500.stderr).toContain(
          `\nlait: the model server at '${bad.baseUrl}' answered HTTP 500: internal error while checking <redacted>\n`
        )
        const e401quiet = await expectRun(["run", "bad.yml", "four-oh-one"], 4)
        expect(e401quiet.stderr.split("\n").at(-2)).toStartWith(rejected)
        const down = await expectRun(["run", "refused.yml", "x", "-vv"], 4)
        expect(down.stderr).toContain(`lait: failed to reach '${refused}'`)
        const failing = await expectRun(["run", "failing.yml", "go", "-vv"], 1)
        expect(failing.stderr).toContain("step failed")

        // lait test on the recorded cassettes: a failing equals prints the actual output.
        const tested = await expectRun(["test", "tests"], 1)
        expect(tested.stdout).toContain("the answer")
        expect(tested.stderr).toContain("lait: 1 of 2 test file(s) failed")
        expect((await expectRun(["test", "tests", "--format", "json", "-vv"], 1)).stdout).toContain("not the answer")
        expect((await expectRun(["test", "update", "--update"], 0)).stderr).toBe(
          "note: updated 'update/fail.yml': assertion 1: value \"stale answer\" -> \"the answer\"\n"
        )
        expect(fs.readFileSync(path.join(p.dir, "update/fail.yml"), "utf8")).toContain("value: \"the answer\"\n")

        // lait eval with an llm_judge grader, live.
        expect((await expectRun(["eval", "eval.yml"], 0)).stdout).toContain("1 of 1 case(s) fully passed")
        expect((await expectRun(["eval", "eval.yml", "--format", "json", "--show-usage", "-vv", "--record", "evalcass"], 0)).stdout)
          .toContain("\"success_rate\"")
        // Three target requests and one judge, plus the workflow's shell tool call.
        const evalFiles = fs.readdirSync(path.join(p.dir, "evalcass"))
        expect(evalFiles.filter((f) => !f.startsWith("tool-"))).toHaveLength(4)
        expect(evalFiles.filter((f) => f.startsWith("tool-"))).toHaveLength(1)
        expect((await expectRun(["eval", "eval.yml", "--replay", "evalcass", "-vv"], 0)).stdout).toContain("1 of 1 case(s) fully passed")

        // The trace, shown and exported (the header's ${TOKEN} is the key again).
        await expectRun(["trace", "show", "traces/run.jsonl"], 0)
        await expectRun(["trace", "show", "traces/run.jsonl", "--json"], 0)
        await expectRun(["trace", "show", "traces/run.jsonl", "--summary"], 0)
        await expectRun(
          ["trace", "export", "traces/run.jsonl", "--otlp", `${receiver.url}/v1/traces`, "--header", "Authorization=Bearer ${TOKEN}", "-vv"],
          0
        )
        expect(receiver.requests.map((q) => [q.headers["authorization"], q.problems])).toEqual([[`Bearer ${key}`, []]])

        // The configuration as lait shows it.
        const shown = await expectRun(["config", "show"], 0)
        const shownJson = await expectRun(["config", "show", "--json"], 0)
        if (source.config?.(key).startsWith("api_key:") === true) {
          expect(shown.stdout).toContain("api_key: <redacted>")
          expect(shownJson.stdout).toContain("\"api_key\": \"<redacted>\"")
        }

        // The key was in use: every request to both model servers carried it.
        const live = requestsWith(s, key)
        expect(live.count).toBeGreaterThanOrEqual(9)
        expect(live).toEqual({ count: live.count, withKey: live.count })
        expect(requestsWith(bad, key)).toEqual({ count: 5, withKey: 5 }) // 401 once each, 500 three attempts

        expect(
          findLeaks(key, {
            roots: [ws.dir],
            owned: (source.owned ?? []).map((f) => path.join(p.dir, f)),
            texts: [...runs.texts(), ...receiver.requests.map((q, i) => [`OTLP body #${i + 1}`, q.body] as const)]
          })
        ).toEqual([])
      } finally {
        await Promise.all([s.stop(), bad.stop(), receiver.stop()])
      }
    }, 180_000)
  }
})

// ---------------------------------------------------------------------------------------------------
// The flag route: `trace export --header`, the key on lait's own command line

describe("trace export --header with the key", () => {
  test.concurrent("literal in argv, ${TOKEN} from the environment and from .env: sent, never in spans, output or files", async () => {
    const key = makeKey("flag")
    const p = project("flag")
    const s = startOpenAiServer({ script: SCRIPT })
    const receiver = startOtlpReceiver()
    const echo = startEchoCollector()
    const refused = await refusedBaseUrl()
    try {
      p.write("lait.config.yml", TOOLS)
      p.write("wf.yml", `${modelsBlock({ m: s.baseUrl }, undefined)}${MAIN}`)
      p.write(".env", `DOTENV_TOKEN='${key}'\n`)
      const runs = new Runs(p.dir, { OPENAI_API_KEY: key, TOKEN: key, TMPDIR: p.tmp })
      // With the spans, so the run's and steps' attributes are exported (and searched for the key) too.
      const traced = await runs.lait(["run", "wf.yml", "the ticket", "--trace-file", "traces/run.jsonl", "--trace-spans"])
      expect({ code: traced.code, stdout: traced.stdout }).toEqual({ code: 0, stdout: "the answer\n" })
      const exportTo = (url: string, header: string) =>
        runs.lait(["trace", "export", "traces/run.jsonl", "--otlp", url, "--header", header, "-vv"])
      const sent = `note: exported 7 spans to '${receiver.url}/v1/traces'\n`

      // Sent: the header carries the key, the spans do not.
      for (const header of [`Authorization=Bearer ${key}`, "Authorization=Bearer ${TOKEN}", "Authorization=Bearer ${DOTENV_TOKEN}"]) {
        const r = await exportTo(`${receiver.url}/v1/traces`, header)
        expect({ code: r.code, stdout: r.stdout, end: r.stderr.endsWith(sent) }).toEqual({ code: 0, stdout: "", end: true })
      }
      expect(receiver.requests.map((q) => [q.headers["authorization"], q.problems])).toEqual(
        Array(3).fill([`Bearer ${key}`, []])
      )

      // A collector that repeats the token it rejected (plain text, and JSON-escaped in a JSON body).
      const rejected = await exportTo(`${echo.url}/text`, `Authorization=Bearer ${key}`)
      expect({ code: rejected.code, last: rejected.stderr.split("\n").find((l) => l.startsWith("lait: OTLP")) }).toEqual({
        code: 1,
        last: `lait: OTLP endpoint '${echo.url}/text' answered 403 Forbidden: forbidden: token <redacted> is not allowed`
      })
      const rejectedJson = await exportTo(`${echo.url}/json`, "Authorization=Bearer ${TOKEN}")
      expect({ code: rejectedJson.code, last: rejectedJson.stderr.split("\n").find((l) => l.startsWith("lait: OTLP")) }).toEqual({
        code: 1,
        last: `lait: OTLP endpoint '${echo.url}/json' answered 401 Unauthorized: ` +
          `{"code":16,"message":"invalid credentials: <redacted>"}`
      })
      expect(echo.requests.map((q) => q.authorization)).toEqual([`Bearer ${key}`, `Bearer ${key}`])

      // Mistyped headers: curl's `Name: value`, a base64 value whose padding holds the only `=`,
      // an unterminated `${`, a line break in the value, an unreachable collector.
      const errors = [
        [`Authorization: Bearer ${key}`, "lait: --header 'Authorization: …' must be NAME=VALUE"],
        [`Authorization: Basic ${Buffer.from(key).toString("base64")}==`, `lait: failed to send spans to '${receiver.url}/v1/traces': invalid header name 'Authorization: …'`],
        [`Authorization=Bearer ${key}\${`, "lait: --header 'Authorization': unterminated '${' placeholder in \"<redacted>\""],
        [`Authorization=Bearer ${key}\nX: y`, `lait: failed to send spans to '${receiver.url}/v1/traces': invalid value for header 'Authorization'`]
      ] as const
      for (const [header, message] of errors) {
        const r = await exportTo(`${receiver.url}/v1/traces`, header)
        expect({ code: r.code, stdout: r.stdout, line: errorLine(r) })
          .toEqual({ code: 1, stdout: "", line: message })
      }
      const down = await exportTo(`${refused}/v1/traces`, `Authorization=Bearer ${key}`)
      expect(down.stderr).toContain(`lait: failed to send spans to '${refused}/v1/traces': connection refused\n`)
      expect(receiver.requests).toHaveLength(3)

      expect(requestsWith(s, key)).toEqual({ count: 3, withKey: 3 })
      expect(
        findLeaks(key, {
          roots: [ws.dir],
          owned: [path.join(p.dir, ".env")],
          texts: [
            ...runs.texts(),
            ...receiver.requests.map((q, i) => [`OTLP body #${i + 1}`, q.body] as const),
            ...echo.requests.map((q, i) => [`echo collector body #${i + 1}`, q.body] as const)
          ]
        })
      ).toEqual([])
    } finally {
      await Promise.all([s.stop(), receiver.stop(), echo.stop()])
    }
  }, 120_000)
})

// ---------------------------------------------------------------------------------------------------
// Key sources that fail: api_key_cmd printing the key and failing, `${VAR}` mistakes around a key

describe("a key source that fails never prints the key", () => {
  test.concurrent("api_key_cmd with the key on stderr, or on stdout with a failing exit; `${VAR}` errors in api_key", async () => {
    const key = makeKey("failing")
    const p = project("failing-sources")
    const s = startOpenAiServer({ script: SCRIPT })
    try {
      const wf = `${modelsBlock({ m: s.baseUrl }, undefined)}default: { model: m }\nsteps:\n  - id: ask\n    prompt: 'hello'\n`
      const runs = new Runs(p.dir, { E2E_KEY_SOURCE: key, TMPDIR: p.tmp })
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["stderr", `api_key_cmd: 'printf "%s\\n" "$E2E_KEY_SOURCE" >&2; exit 1'`, "lait: api_key_cmd exited with status 1"],
        ["stdout", `api_key_cmd: 'printf "%s\\n" "$E2E_KEY_SOURCE"; exit 7'`, "lait: api_key_cmd exited with status 7"],
        ["argv", "api_key_cmd: [sh, -c, 'echo \"$E2E_KEY_SOURCE\"; echo \"$E2E_KEY_SOURCE\" >&2; kill -TERM $$']", "lait: api_key_cmd was terminated by signal SIGTERM"],
        ["unterminated", `api_key: '${key}\${E2E'`, "lait: unterminated '${' placeholder in \"<redacted>\""],
        ["bad-name", `api_key: '${key}\${E2E-KEY}'`, "lait: invalid environment variable placeholder '${E2E-KEY}' in \"<redacted>\" (must be alphanumeric/underscore)"],
        ["unset", `api_key: '${key}\${E2E_UNSET}'`, "lait: environment variable 'E2E_UNSET' referenced by '${E2E_UNSET}' is not set"]
      ]
      const owned: Array<string> = []
      for (const [name, config, message] of cases) {
        const dir = path.join(p.dir, name)
        fs.mkdirSync(dir)
        fs.writeFileSync(path.join(dir, "lait.config.yml"), `${config}\n`)
        if (config.startsWith("api_key:")) owned.push(path.join(dir, "lait.config.yml"))
        fs.writeFileSync(path.join(dir, "wf.yml"), wf)
        for (const verbosity of [[], ["-vv"]]) {
          const r = await runs.lait(["run", `${name}/wf.yml`, "x", "--config", `${name}/lait.config.yml`, ...verbosity])
          expect({ name, code: r.code, stdout: r.stdout, line: errorLine(r) })
            .toEqual({ name, code: 1, stdout: "", line: message })
        }
      }
      // No request went out: the key was never obtained.
      expect(s.requests).toEqual([])
      expect(findLeaks(key, { roots: [ws.dir], owned, texts: runs.texts() })).toEqual([])
    } finally {
      await s.stop()
    }
  }, 120_000)
})

// ---------------------------------------------------------------------------------------------------
// Issue 20: the other channels a secret can take

/** A workflow with alias `m` on `baseUrl` and one step; `tools` adds the shell tool `echo`. */
const oneStep = (baseUrl: string, prompt: string, extra = "") =>
  `${modelsBlock({ m: baseUrl }, undefined)}default: { model: m }\nsteps:\n  - id: ask\n    prompt: '${prompt}'\n${extra}`

describe("-vv request bodies", () => {
  test.concurrent("a tool that prints the key puts it into the conversation: the -vv request body shows <redacted>", async () => {
    const key = makeKey("tool-env")
    const p = project("tool-env")
    const s = startOpenAiServer({ script: SCRIPT })
    try {
      // No `env:` allowlist: the tool inherits lait's environment, OPENAI_API_KEY included.
      p.write(
        "lait.config.yml",
        TOOLS.replace(`'printf "echoed %s" "$1"', echo, '{{ input.text }}'`, `'printf "env: %s" "$OPENAI_API_KEY"'`)
      )
      p.write("wf.yml", oneStep(s.baseUrl, "Use the tool on it", "    tools: [echo]\n"))
      const runs = new Runs(p.dir, { OPENAI_API_KEY: key, TMPDIR: p.tmp })
      const r = await runs.lait(["run", "wf.yml", "x", "-vv"])
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "the answer\n" })
      const bodies = r.stderr.split("\n").filter((l) => l.startsWith("lait: [trace] request body: "))
      expect(bodies).toHaveLength(2)
      expect(bodies[1]).toContain("\"role\":\"tool\",\"content\":\"env: <redacted>\"")
      // The key really was in the conversation: the server got it in the tool message.
      const toolMessages = s.requests.flatMap((q) =>
        ((q.body as { messages: Array<{ role: string; content: string }> }).messages).filter((m) => m.role === "tool")
      )
      expect(toolMessages.map((m) => m.content)).toEqual([`env: ${key}`])
      // A cassette would hold the conversation: it is refused, not written.
      const recorded = await runs.lait(["run", "wf.yml", "x", "--record", "cassettes", "-vv"])
      expect({ code: recorded.code, line: errorLine(recorded)?.replace(/'[^']*'/, "'…'") }).toEqual({
        code: 1,
        line: "lait: refusing to write cassette '…': the response contains the API key in use"
      })
      expect(findLeaks(key, { roots: [ws.dir], owned: [], texts: runs.texts() })).toEqual([])
    } finally {
      await s.stop()
    }
  }, 60_000)
})

describe("a key inside a base URL", () => {
  test.concurrent("userinfo and ?api-key=: requests reach /openai/v1/chat/completions?api-version=…; nothing printed or stored holds the key", async () => {
    const key = makeKey("in-url")
    const enc = encodeURIComponent(key)
    const p = project("in-url")
    const s = startOpenAiServer({ script: SCRIPT })
    const bad = startOpenAiServer({
      script: [{ match: "four-oh-one", status: 401, body: { error: { message: `key ${enc} (${key}) is not allowed` } }, repeat: true }]
    })
    const receiver = startOtlpReceiver()
    const refused = await refusedBaseUrl()
    // The fixture's `/v1` replaced by an Azure-style path and query, credentials in the userinfo too.
    const withKey = (base: string) =>
      `${base.replace("http://", `http://me:${enc}@`).replace(/\/v1$/, "/openai/v1")}?api-version=2024-06-01&api-key=${enc}`
    const masked = (base: string) =>
      `${base.replace("http://", "http://me:<redacted>@").replace(/\/v1$/, "/openai/v1")}?api-version=2024-06-01&api-key=<redacted>`
    try {
      const literal = withKey(s.baseUrl)
      p.write("lait.config.yml", `base_url: '${literal}'\n${TOOLS}`)
      p.write(
        "wf.yml",
        `models:\n  m:\n    - provider: { base_url: '\${MAIN_URL}' }\n      model_id: fixture-model\n` +
          `  fb:\n    - provider: { base_url: '\${DOWN_URL}' }\n      model_id: down-model\n` +
          `    - provider: { base_url: '\${MAIN_URL}' }\n      model_id: fixture-model\n` +
          "default: { model: m }\nsteps:\n  - id: ask\n    prompt: 'hello'\n  - id: again\n    model: fb\n    prompt: 'once more'\n"
      )
      p.write("bad.yml", oneStep("${BAD_URL}", "four-oh-one"))
      p.write("down.yml", oneStep("${DOWN_URL}", "hello"))
      const runs = new Runs(p.dir, {
        MAIN_URL: withKey(s.baseUrl),
        BAD_URL: withKey(bad.baseUrl),
        DOWN_URL: withKey(refused),
        TMPDIR: p.tmp,
        LAIT_HTTP_ATTEMPTS: "1"
      })
      const expectRun = async (args: ReadonlyArray<string>, code: number) => {
        const r = await runs.lait(args)
        expect({ args: args.join(" "), code: r.code, output: r.code === code ? "" : `${r.stdout}${r.stderr}` })
          .toEqual({ args: args.join(" "), code, output: "" })
        return r
      }

      const recorded = await expectRun(["run", "wf.yml", "x", "--record", "cassettes", "--trace-file", "traces/run.jsonl", "-vv"], 0)
      expect(recorded.stdout).toBe("ok\n")
      // The path goes before the query string; the server got the query (and so the key) intact.
      expect(s.requests.map((q) => [q.method, q.path, q.query])).toEqual(
        Array(2).fill(["POST", "/openai/v1/chat/completions", `?api-version=2024-06-01&api-key=${enc}`])
      )
      const shownMain = masked(s.baseUrl)
      expect(recorded.stderr).toContain(
        `lait: [debug] POST ${shownMain.replace("/openai/v1?", "/openai/v1/chat/completions?")} model=fixture-model\n`
      )
      expect(recorded.stderr).toContain(`lait: [debug] model 'm': primary 'fixture-model' at '${shownMain}': base URL from provider.base_url`)
      expect(recorded.stderr).toContain(
        `warning: model 'down-model' at '${masked(refused)}' failed (failed to reach '${masked(refused)}'`
      )
      expect(recorded.stderr).toContain(`falling back to 'fixture-model' at '${shownMain}'`)
      // The cassettes store the base URL masked, under the key of the URL as written (old cassettes still replay).
      const name = requestKey({
        base_url: withKey(s.baseUrl),
        model_id: "fixture-model",
        messages: [{ role: "user", content: "hello" }],
        tools: [],
        response_format: null
      })
      const cassette = JSON.parse(fs.readFileSync(path.join(p.dir, "cassettes", `${name}.json`), "utf8")) as {
        request: { base_url: string }
      }
      expect(cassette.request.base_url).toBe(shownMain)
      expect((await expectRun(["run", "wf.yml", "x", "--replay", "cassettes"], 0)).stdout).toBe("ok\n")
      // A miss names the closest recording's differences, the base URLs among them (masked: the sweep below).
      const miss = await expectRun(["run", "bad.yml", "x", "--replay", "cassettes"], 1)
      expect(errorLine(miss)).toContain("differs at base_url (recorded \"")

      expect((await expectRun(["run", "wf.yml", "x", "--dry-run"], 0)).stdout).toContain(`fixture-model @ ${shownMain}`)
      const denied = await expectRun(["run", "bad.yml", "x", "-vv"], 4)
      expect(errorLine(denied)).toBe(
        `lait: the model server at '${masked(bad.baseUrl)}' answered HTTP 401: key <redacted> (<redacted>) is not allowed; ` +
          "check the API key (it came from the credentials in the base URL)"
      )
      const down = await expectRun(["run", "down.yml", "x", "-v"], 4)
      expect(errorLine(down)).toStartWith(`lait: failed to reach '${masked(refused)}'`)

      // config show: a literal URL in the config, masked.
      expect((await expectRun(["config", "show"], 0)).stdout).toContain(`base_url: ${masked(s.baseUrl)}\n`)
      expect((await expectRun(["config", "show", "--json"], 0)).stdout).toContain(`"base_url": "${masked(s.baseUrl)}"`)
      // A raw model id uses the config's literal base_url: masked on that path too.
      p.write("raw.yml", "default: { model: raw-model }\nsteps:\n  - id: ask\n    prompt: 'hello'\n")
      expect((await expectRun(["run", "raw.yml", "x", "--dry-run"], 0)).stdout).toContain(`raw-model @ ${masked(s.baseUrl)}`)
      expect((await expectRun(["run", "down.yml", "x", "--dry-run"], 0)).stdout).toContain(`fixture-model @ ${masked(refused)}`)

      // The trace, exported to a collector whose URL holds the key too.
      await expectRun(["trace", "export", "traces/run.jsonl", "--otlp", `${receiver.url}/v1/traces?api-key=${enc}`], 0)
      const missing = await expectRun(["trace", "export", "traces/run.jsonl", "--otlp", `${receiver.url}/missing?api-key=${enc}`], 1)
      expect(errorLine(missing)).toBe(`lait: OTLP endpoint '${receiver.url}/missing?api-key=<redacted>' answered 404 Not Found: no such route: /missing`)
      expect(runs.all.some(([, r]) => r.stderr.includes(`to '${receiver.url}/v1/traces?api-key=<redacted>'`))).toBe(true)

      expect(
        findLeaks(key, {
          roots: [ws.dir],
          owned: [path.join(p.dir, "lait.config.yml")],
          texts: [...runs.texts(), ...receiver.requests.map((q, i) => [`OTLP body #${i + 1}`, q.body] as const)]
        })
      ).toEqual([])
    } finally {
      await Promise.all([s.stop(), bad.stop(), receiver.stop()])
    }
  }, 120_000)
})

describe("echoes of the key, encoded", () => {
  test.concurrent("a server repeating the key percent-encoded or base64-encoded: masked in the error and the -vv dump", async () => {
    const key = makeKey("encoded-echo")
    const p = project("encoded-echo")
    const enc = encodeURIComponent(key)
    const basic = (user: string) => Buffer.from(`${user}:${key}`).toString("base64")
    const bad = startOpenAiServer({
      script: [
        { match: "url-upper", status: 401, body: { error: { message: `no such key: ${enc}` } }, repeat: true },
        {
          match: "url-lower",
          status: 401,
          body: { error: { message: `no such key: ${enc.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())}` } },
          repeat: true
        },
        { match: "basic-a", status: 403, body: { error: { message: `denied: Basic ${basic("a")}` } }, repeat: true },
        { match: "basic-ab", status: 403, body: { error: { message: `denied: Basic ${basic("ab")}` } }, repeat: true },
        { match: "basic-abc", status: 403, body: { error: { message: `denied: Basic ${basic("abc")}` } }, repeat: true },
        {
          match: "b64url",
          status: 403,
          body: { error: { message: `token ${Buffer.from(`session=${key}`).toString("base64url")}` } },
          repeat: true
        }
      ]
    })
    try {
      p.write("wf.yml", oneStep(bad.baseUrl, "{{ input }}"))
      const runs = new Runs(p.dir, { OPENAI_API_KEY: key, TMPDIR: p.tmp })
      const lines: Array<string | undefined> = []
      for (const input of ["url-upper", "url-lower", "basic-abc", "basic-ab", "basic-a", "b64url"]) {
        for (const verbosity of [[], ["-vv"]]) {
          const r = await runs.lait(["run", "wf.yml", input, ...verbosity])
          expect({ input, code: r.code }).toEqual({ input, code: 4 })
          lines.push(errorLine(r))
        }
      }
      const at = `lait: the model server at '${bad.baseUrl}' answered`
      expect(lines.slice(0, 4)).toEqual(
        Array(4).fill(`${at} HTTP 401: no such key: <redacted>; check the API key (it came from OPENAI_API_KEY)`)
      )
      for (const line of lines.slice(4)) expect(line).toMatch(new RegExp(`^${at.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} HTTP 403: .*<redacted>`))
      expect(requestsWith(bad, key)).toEqual({ count: 12, withKey: 12 })
      expect(findLeaks(key, { roots: [ws.dir], owned: [], texts: runs.texts() })).toEqual([])
    } finally {
      await bad.stop()
    }
  }, 60_000)
})

describe("MCP header and env values", () => {
  test.concurrent("config show masks MCP headers, MCP and tool env, URL credentials; an MCP error repeating a header is masked", async () => {
    const key = makeKey("mcp")
    const p = project("mcp")
    const s = startOpenAiServer({ script: SCRIPT })
    const seen: Array<Record<string, string>> = []
    // An MCP endpoint that refuses every request and repeats the credentials it got.
    const mcp = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        const headers = Object.fromEntries(request.headers.entries())
        seen.push(headers)
        return new Response(`unauthorized: ${headers["authorization"]} / ${headers["x-api-key"]} / ${request.url}`, { status: 401 })
      }
    })
    try {
      const enc = encodeURIComponent(key)
      p.write(
        "lait.config.yml",
        `mcp_servers:\n` +
          `  web:\n    url: 'http://127.0.0.1:${mcp.port}/mcp?token=\${TOKEN_ENC}'\n` +
          `    headers: { Authorization: 'Bearer \${TOKEN}', X-Api-Key: '${key}' }\n` +
          `  local:\n    command: srv\n    env: { SECRET: '${key}', FROM_VAR: '\${TOKEN}' }\n` +
          `${TOOLS.replace("    parameters:", `    env: { TOOL_SECRET: '${key}' }\n    parameters:`)}`
      )
      p.write("wf.yml", oneStep(s.baseUrl, "hello", "    mcp: [web]\n"))
      const runs = new Runs(p.dir, { TOKEN: key, TOKEN_ENC: enc, TMPDIR: p.tmp })

      const yaml = await runs.lait(["config", "show"])
      const json = await runs.lait(["config", "show", "--json"])
      expect([yaml.code, json.code]).toEqual([0, 0])
      expect(yaml.stdout).toContain(
        `    url: http://127.0.0.1:${mcp.port}/mcp?token=<redacted>\n    headers:\n      Authorization: <redacted>\n      X-Api-Key: <redacted>\n`
      )
      expect(yaml.stdout).toContain("    env:\n      SECRET: <redacted>\n      FROM_VAR: <redacted>\n")
      expect(yaml.stdout).toContain("    env:\n      TOOL_SECRET: <redacted>\n")
      expect(JSON.parse(json.stdout).mcp_servers.web.headers).toEqual({ Authorization: "<redacted>", "X-Api-Key": "<redacted>" })

      for (const verbosity of [[], ["-vv"]]) {
        const r = await runs.lait(["run", "wf.yml", "x", ...verbosity])
        expect({ code: r.code, line: errorLine(r)?.startsWith("lait: failed to initialize MCP server 'web': ") }).toEqual({ code: 1, line: true })
        expect(errorLine(r)).toEndWith(`unauthorized: <redacted> / <redacted> / http://127.0.0.1:${mcp.port}/mcp?token=<redacted>`)
      }
      // The server did get the credentials.
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((h) => h["authorization"] === `Bearer ${key}` && h["x-api-key"] === key)).toBe(true)
      expect(
        findLeaks(key, { roots: [ws.dir], owned: [path.join(p.dir, "lait.config.yml")], texts: runs.texts() })
      ).toEqual([])
    } finally {
      await Promise.all([s.stop(), mcp.stop(true)])
    }
  }, 60_000)
})

describe("a .env that moves the base URL", () => {
  test.concurrent("with the key from the environment: a warning naming both; none with --no-env or a key of its own", async () => {
    const key = makeKey("dotenv-url")
    const p = project("dotenv-url")
    const s = startOpenAiServer({ script: SCRIPT })
    const dir = (name: string, files: Readonly<Record<string, string>>) => {
      for (const [file, text] of Object.entries(files)) p.write(`${name}/${file}`, text)
      return path.join(p.dir, name)
    }
    const risk = (cwd: string) => `warning: '${path.join(cwd, ".env")}' sets `
    try {
      // OPENAI_BASE_URL from .env, OPENAI_API_KEY from the environment.
      const a = dir("a", { ".env": `OPENAI_BASE_URL=${s.baseUrl}\n`, "wf.yml": "default: { model: fixture-model }\nsteps:\n  - id: ask\n    prompt: 'hello'\n" })
      const inA = new Runs(a, { OPENAI_API_KEY: key, TMPDIR: p.tmp })
      const run = await inA.lait(["run", "wf.yml", "x"])
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "ok\n" })
      expect(run.stderr).toStartWith(
        `${risk(a)}OPENAI_BASE_URL ('${s.baseUrl}') while the API key comes from OPENAI_API_KEY in your environment: ` +
          "requests carry that key there (use --no-env if this '.env' is not yours)\n"
      )
      expect(requestsWith(s, key)).toEqual({ count: 1, withKey: 1 })
      const noEnv = await inA.lait(["config", "show", "--no-env"])
      expect({ code: noEnv.code, stderr: noEnv.stderr }).toEqual({ code: 0, stderr: "note: no config file loaded\n" })

      // A variable a config base_url expands, and a key a config api_key expands from the environment.
      const b = dir("b", { ".env": `HOST_URL=${s.url}\n`, "lait.config.yml": "base_url: '${HOST_URL}/v1'\napi_key: '${MY_KEY}'\n" })
      const inB = new Runs(b, { MY_KEY: key, TMPDIR: p.tmp })
      const shown = await inB.lait(["config", "show"])
      expect(shown.stderr).toStartWith(`${risk(b)}HOST_URL ('${s.url}') while the API key comes from MY_KEY in your environment`)

      // The .env brings its own key: its URL and its key go together, nothing to warn about.
      const c = dir("c", { ".env": `OPENAI_BASE_URL=${s.baseUrl}\nOPENAI_API_KEY=sk-the-checkouts-own\n` })
      const inC = await new Runs(c, { TMPDIR: p.tmp }).lait(["config", "show"])
      expect({ code: inC.code, stderr: inC.stderr }).toEqual({ code: 0, stderr: "note: no config file loaded\n" })

      expect(findLeaks(key, { roots: [ws.dir], owned: [], texts: [...inA.texts(), ...inB.texts()] })).toEqual([])
    } finally {
      await s.stop()
    }
  }, 60_000)
})

describe("gateway headers", () => {
  test.concurrent("provider headers: ${VAR} and --header: sent, masked in config show, -vv, errors, traces, cassettes, history", async () => {
    const configured = makeKey("hdr-config")
    const flagged = makeKey("hdr-flag")
    const p = project("gateway-headers")
    const s = startOpenAiServer({ script: SCRIPT })
    // A gateway that refuses the credentials and repeats them, as some do.
    const echo = `gateway refused ${configured} and ${flagged}`
    const bad = startOpenAiServer({ script: [{ status: 401, body: { error: { message: echo } }, repeat: true }] })
    const headers = "headers: { cf-aig-authorization: 'Bearer ${GW_TOKEN}', x-portkey-provider: openai }"
    try {
      p.write("lait.config.yml", `${modelsBlock({ m: s.baseUrl }, headers)}${TOOLS}`)
      p.write("wf.yml", oneStep(s.baseUrl, "Use the tool", "    tools: [echo]\n").replace("provider: {", `provider: { ${headers},`))
      p.write("bad.yml", oneStep(bad.baseUrl, "hello").replace("provider: {", `provider: { ${headers},`))
      const runs = new Runs(p.dir, { GW_TOKEN: configured, TMPDIR: p.tmp, LAIT_HTTP_ATTEMPTS: "1" })
      const flag = ["--header", `X-Flag-Token: ${flagged}`]
      const expectRun = async (args: ReadonlyArray<string>, code: number) => {
        const r = await runs.lait(args)
        expect({ args: args.join(" "), code: r.code, output: r.code === code ? "" : `${r.stdout}${r.stderr}` })
          .toEqual({ args: args.join(" "), code, output: "" })
        return r
      }

      const recorded = await expectRun(
        ["run", "wf.yml", "x", ...flag, "--record", "cassettes", "--trace-file", "traces/run.jsonl", "-vv"],
        0
      )
      expect(recorded.stdout).toBe("the answer\n")
      expect(recorded.stderr).toContain("headers cf-aig-authorization, x-portkey-provider, x-flag-token\n")
      await expectRun(["run", "wf.yml", "x", "--replay", "cassettes", "--trace-file", "traces/replay.jsonl"], 0)
      const chat = await expectRun(["--model", "m", ...flag, "--trace-file", "traces/chat.jsonl", "-vv", "hello"], 0)
      expect(chat.stdout).toBe("ok\n")
      // Every request carried both: the provider's, expanded, and the flag's.
      expect(s.requests.length).toBeGreaterThanOrEqual(3)
      for (const q of s.requests) {
        expect([q.headers["cf-aig-authorization"], q.headers["x-portkey-provider"], q.headers["x-flag-token"]])
          .toEqual([`Bearer ${configured}`, "openai", flagged])
      }

      const denied = await expectRun(["run", "bad.yml", "x", ...flag, "-vv"], 4)
      expect(errorLine(denied)).toStartWith(
        `lait: the model server at '${bad.baseUrl}' answered HTTP 401: gateway refused <redacted> and <redacted>`
      )
      expect(bad.requests[0]?.headers["x-flag-token"]).toBe(flagged)

      const shown = await expectRun(["config", "show"], 0)
      expect(shown.stdout).toContain("headers:\n          cf-aig-authorization: <redacted>\n")
      expect(JSON.parse((await expectRun(["config", "show", "--json"], 0)).stdout).models.m[0].provider.headers)
        .toEqual({ "cf-aig-authorization": "<redacted>", "x-portkey-provider": "<redacted>" })

      for (const key of [configured, flagged]) {
        expect(findLeaks(key, { roots: [ws.dir], owned: [], texts: runs.texts() })).toEqual([])
      }
    } finally {
      await Promise.all([s.stop(), bad.stop()])
    }
  }, 120_000)
})
