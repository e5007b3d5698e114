// One redaction point (docs/environment.md#secrets): every kind of secret a run knows, echoed by the
// fixture model server and by a failing `run:` step in every spelling a server or a tool may use (raw,
// JSON-escaped, percent-encoded, base64), must reach no sink lait writes — the `lait:` error line,
// `-vv`, --trace-file, --trace-dir, live OTLP, eval reports in every format, test reports, sessions,
// the history, checkpoints and `lait serve --mcp` answers — and `<redacted>` stands where it was. (A
// run's answer on stdout is the user's: test/e2e/history.test.ts.) One model server and one OTLP
// receiver for the whole sweep; every lait is a real process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { type OtlpReceiver, startOtlpReceiver } from "../fixtures/otlp-receiver.ts"
import { cleanEnv, prepareCli, workspace } from "./model-harness.ts"
import { ensureBinary, type RunResult } from "./util.ts"

const ws = workspace("e2e-redaction-sweep")
const id = crypto.randomUUID().slice(0, 8)

// `/` and `+` make every spelling differ from the raw text.
const SECRETS = {
  "primary api_key": `sk-prim/ary+${id}-key`,
  "fallback api_key": `sk-fall/back+${id}-key`,
  "api_key_cmd output": `sk-cmd/out+${id}-key`,
  "base_url password": `url-pa/ss+${id}-word`,
  "MCP header": `mcp-to/ken+${id}-value`,
  "OTEL header": `otel-to/ken+${id}-value`,
  "tool env value": `tool-en/v+${id}-value`
} as const
type Kind = keyof typeof SECRETS

const spellings = (secret: string): Record<string, string> => ({
  raw: secret,
  "JSON-escaped": JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/"),
  "percent-encoded": encodeURIComponent(secret),
  base64: Buffer.from(secret, "utf8").toString("base64")
})

/** What the model answers and the failing step prints: each secret in each spelling. */
const leakText = (kinds: ReadonlyArray<Kind>): string =>
  kinds.map((k) => Object.entries(spellings(SECRETS[k])).map(([how, s]) => `${how}=[${s}]`).join(" ")).join("\n")

const ALL = Object.keys(SECRETS) as ReadonlyArray<Kind>
// `lait test` sends no request: its api_key_cmd never runs, so that key is no secret it knows.
const WITHOUT_CMD = ALL.filter((k) => k !== "api_key_cmd output")

let model: OpenAiServer
let otlp: OtlpReceiver

interface Sink {
  readonly name: string
  readonly text: string
  /** XML or HTML: the mask reads `&lt;redacted&gt;`. */
  readonly markup?: boolean
  /** What the run knew and so must have masked. */
  readonly kinds: ReadonlyArray<Kind>
}
const sinks: Array<Sink> = []

const env = () => ({
  ...cleanEnv(ws.dir),
  LAIT_HTTP_ATTEMPTS: "1",
  PRIMARY_KEY: SECRETS["primary api_key"],
  LEAKS: leakText(WITHOUT_CMD),
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
  OTEL_EXPORTER_OTLP_HEADERS: `x-otel-token=${encodeURIComponent(SECRETS["OTEL header"])}`
})

const lait = (args: ReadonlyArray<string>) => ws.lait(args, { env: env() })

const files = (dir: string): Array<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).map((f) => path.join(dir, f)).filter((f) =>
      fs.statSync(f).isFile()
    )
    : []

const read = (file: string) => fs.readFileSync(file, "utf8")

const config = (baseUrl: string) => {
  const withPassword = baseUrl.replace("http://", `http://user:${encodeURIComponent(SECRETS["base_url password"])}@`)
  return `models:
  main:
    - provider: {base_url: '${withPassword}', api_key: '\${PRIMARY_KEY}'}
      model_id: fixture-model
    - provider: {base_url: '${baseUrl}', api_key: '${SECRETS["fallback api_key"]}'}
      model_id: fixture-model
  viacmd:
    - provider: {base_url: '${baseUrl}', api_key_cmd: [printf, '%s', '${SECRETS["api_key_cmd output"]}']}
      model_id: fixture-model
default:
  model: main
mcp_servers:
  remote:
    url: 'http://127.0.0.1:9/mcp'
    headers: {Authorization: 'Bearer ${SECRETS["MCP header"]}'}
tools:
  peek:
    command: [printenv, TOOL_TOKEN]
    description: Prints a token
    env: {TOOL_TOKEN: '${SECRETS["tool env value"]}'}
workflows:
  sweep: sweep.yml
  ok: ok.yml
`
}

// The api_key_cmd endpoint answers first, so its key is known before any text holds it.
const OK_STEPS = `  - id: first
    model: viacmd
    prompt: 'first {{ input }}'
  - id: second
    model: main
    prompt: 'second {{ input }}'
`

const serveAnswers = async (): Promise<{ readonly texts: Array<string>; readonly stderr: string }> => {
  const transport = new StdioClientTransport({
    command: await ensureBinary(),
    args: ["serve", "--mcp"],
    cwd: ws.dir,
    env: Object.fromEntries(Object.entries(env()).filter((e): e is [string, string] => e[1] !== undefined)),
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
  const client = new Client({ name: "e2e", version: "0" })
  await client.connect(transport)
  try {
    const texts: Array<string> = []
    for (const name of ["workflow__ok", "workflow__sweep"]) {
      const result = await client.callTool({ name, arguments: { input: "hi" } })
      texts.push(JSON.stringify(result))
    }
    return { texts, stderr }
  } finally {
    await client.close()
  }
}

const expectRan = (r: RunResult, code: number) => {
  if (r.code !== code) throw new Error(`exit ${r.code}, expected ${code}:\n${r.stdout}\n${r.stderr}`)
}

beforeAll(async () => {
  // The compiled binary, as a user runs it.
  await prepareCli()
  otlp = startOtlpReceiver()
  model = startOpenAiServer({ script: [{ content: leakText(ALL), repeat: true }] })
  ws.write("lait.config.yml", config(model.baseUrl))
  ws.write("ok.yml", `steps:\n${OK_STEPS}`)
  // The failing step prints its input (the answer) on stderr: the `lait:` line ends with it.
  ws.write("sweep.yml", `steps:\n${OK_STEPS}  - id: boom\n    run: [sh, -c, 'cat >&2; exit 3']\n`)
  ws.write(
    "echo.yml",
    "steps:\n  - id: boom\n    run: [sh, -c, 'printf \"oops %s\" \"$LEAKS\" >&2; exit 3']\n" +
      "    env: {LEAKS: '${LEAKS}'}\n"
  )
  ws.write("tests/echo.test.yml", "workflow: ../echo.yml\ninput: hi\nreplay: cassettes/echo\nassert: []\n")
  // One case whose workflow fails (the error in the report), one whose assertion fails (the output).
  const evalFile = (workflow: string) =>
    `target: {workflow: ${workflow}}\ncases:\n  - input: hi\n    assert: [{type: contains, value: NOPE}]\n`
  ws.write("sweep.eval.yml", evalFile("sweep.yml"))
  ws.write("ok.eval.yml", evalFile("ok.yml"))

  const failed = await lait(
    ["run", "sweep.yml", "hi", "-vv", "--checkpoint", "--trace-file", "run.jsonl", "--trace-content"]
  )
  expectRan(failed, 1)
  sinks.push({ name: "stderr of a failed run (-vv)", text: failed.stderr, kinds: ALL })
  sinks.push({
    name: "the `lait:` error line",
    text: failed.stderr.split("\n").filter((l) => l.startsWith("lait: ") && !l.startsWith("lait: [")).join("\n"),
    kinds: ALL
  })
  sinks.push({ name: "--trace-file", text: read(path.join(ws.dir, "run.jsonl")), kinds: ALL })
  sinks.push({ name: "checkpoint", text: files(path.join(ws.dir, ".lait", "runs")).map(read).join("\n"), kinds: ALL })

  // Successful runs: the history records both, the chat's session too.
  expectRan(await lait(["run", "ok.yml", "hi"]), 0)

  expectRan(await lait(["--model", "viacmd", "--session", "swept", "hi"]), 0)
  sinks.push({ name: "session", text: read(path.join(ws.dir, ".lait", "sessions", "swept.jsonl")), kinds: ALL })

  for (const format of ["text", "json", "junit", "html"] as const) {
    for (const file of ["sweep.eval.yml", "ok.eval.yml"]) {
      const out = `report-${file}.${format}`
      const traces = `traces-${file}-${format}`
      const r = await lait(["eval", file, "--format", format, "-o", out, "--trace-dir", traces, "--trace-content"])
      expectRan(r, 1)
      const markup = format === "junit" || format === "html"
      sinks.push({ name: `eval ${format} report (${file})`, text: read(path.join(ws.dir, out)), kinds: ALL, markup })
      if (format === "text") {
        const text = files(path.join(ws.dir, traces)).map(read).join("\n")
        sinks.push({ name: `eval --trace-dir (${file})`, text, kinds: ALL })
      }
    }
  }

  for (const format of ["text", "json", "junit", "github", "markdown"] as const) {
    const r = await lait(["test", "tests/", "--format", format, "--trace-dir", "test-traces"])
    expectRan(r, 1)
    sinks.push({ name: `test ${format} report`, text: r.stdout, kinds: WITHOUT_CMD, markup: format === "junit" })
  }
  // The annotations and job summaries (docs/ci.md#annotations-and-summaries) of an eval and of a suite.
  const summaryOf = async (args: ReadonlyArray<string>, name: string) => {
    const summary = path.join(ws.dir, `${name}-summary.md`)
    const r = await ws.lait(args, { env: { ...env(), GITHUB_STEP_SUMMARY: summary } })
    expectRan(r, 1)
    return { stdout: r.stdout, summary: read(summary) }
  }
  const evalCi = await summaryOf(["eval", "sweep.eval.yml", "--format", "github"], "eval")
  sinks.push({ name: "eval github annotations", text: evalCi.stdout, kinds: ALL })
  sinks.push({ name: "eval GITHUB_STEP_SUMMARY", text: evalCi.summary, kinds: ALL })
  const testCi = await summaryOf(["test", "tests/"], "test")
  sinks.push({ name: "test GITHUB_STEP_SUMMARY", text: testCi.summary, kinds: WITHOUT_CMD })
  const testTraces = files(path.join(ws.dir, "test-traces")).map(read).join("\n")
  sinks.push({ name: "test --trace-dir", text: testTraces, kinds: WITHOUT_CMD })

  const served = await serveAnswers()
  sinks.push({ name: "serve --mcp answers", text: served.texts.join("\n"), kinds: ALL })

  sinks.push({ name: "history", text: read(path.join(ws.dir, ".local", "share", "lait", "history.jsonl")), kinds: ALL })
  // The exporter flushes at exit, so every process above has sent its spans by now.
  sinks.push({ name: "live OTLP export", text: otlp.requests.map((r) => r.body).join("\n"), kinds: ALL })
}, 300_000)

afterAll(async () => {
  await model?.stop()
  await otlp?.stop()
  ws.remove()
})

/** Every string inside JSON or JSON Lines text (decoded), so a secret escaped once more is found too. */
const jsonStrings = (text: string): Array<string> => {
  const out: Array<string> = []
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      out.push(v)
      // Content attributes hold JSON text of their own.
      if (/^\s*[[{]/.test(v)) out.push(...jsonStrings(v))
    } else if (Array.isArray(v)) v.forEach(walk)
    else if (typeof v === "object" && v !== null) Object.entries(v).forEach(([k, x]) => (out.push(k), walk(x)))
  }
  for (const chunk of [text, ...text.split("\n")]) {
    try {
      walk(JSON.parse(chunk))
    } catch {
      // not JSON
    }
  }
  return out
}

const leaksIn = (sink: Sink): Array<string> => {
  const texts = [sink.text, ...jsonStrings(sink.text)]
  const found: Array<string> = []
  for (const kind of sink.kinds) {
    for (const [how, spelled] of Object.entries(spellings(SECRETS[kind]))) {
      if (texts.some((t) => t.includes(spelled))) found.push(`${kind} (${how})`)
    }
  }
  return found
}

describe("every secret kind is masked at every sink", () => {
  test("the sweep reached every sink, each holding what the server and the step echoed", () => {
    expect(sinks.length).toBe(27)
    // The echo really happened: the unmasked parts of the leak text are there.
    const silent = sinks.filter((s) => !s.text.includes("percent-encoded=[")).map((s) => s.name)
    expect(silent).toEqual([])
    // The OTLP export happened with the header, which is not a leak but the header's purpose.
    expect(otlp.requests.length).toBeGreaterThan(0)
    expect(otlp.requests.every((r) => r.problems.length === 0)).toBe(true)
    const cmdKey = `Bearer ${SECRETS["api_key_cmd output"]}`
    expect(model.requests.some((r) => r.headers["authorization"] === cmdKey)).toBe(true)
  })

  test.each(ALL.map((k) => [k]))("%s", (kind) => {
    const leaks = sinks.filter((s) => s.kinds.includes(kind)).flatMap((s) =>
      leaksIn({ ...s, kinds: [kind] }).map((l) => `${s.name}: ${l}`)
    )
    expect(leaks).toEqual([])
  })

  test("`<redacted>` stands where a secret was, at every sink", () => {
    const unmasked = sinks.filter((s) => !s.text.includes(s.markup === true ? "&lt;redacted&gt;" : "<redacted>"))
    expect(unmasked.map((s) => s.name)).toEqual([])
    // Each spelling was masked, not dropped: every `how=[...]` of the leak text reads `<redacted>`.
    const error = sinks.find((s) => s.name === "the `lait:` error line")!
    for (const how of Object.keys(spellings("x"))) expect(error.text).toContain(`${how}=[<redacted>]`)
  })
})
