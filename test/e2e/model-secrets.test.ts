// The API key in use never lands in anything lait writes or prints: cassettes, cache entries,
// stdout, stderr, -vv logs. Checked for every place a key can come from, by searching every byte.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { requestKey } from "../../src/model/cassette/key.ts"
import { filesUnder, modelsYaml, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-model-secret")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const SECRET = `sk-test-SECRET-${crypto.randomUUID()}`

interface KeySource {
  readonly name: string
  /** Extra environment for lait. */
  readonly env: Readonly<Record<string, string>>
  /** lait.config.yml (no `--config` flag: found by the upward search), or none. */
  readonly config?: string
  /** The provider block of the alias, when the key comes from it. */
  readonly provider?: string
  /** Files that hold the secret on purpose (the user's own .env); everything else must not. */
  readonly owned?: ReadonlyArray<string>
}

const sources: ReadonlyArray<KeySource> = [
  { name: "OPENAI_API_KEY", env: { OPENAI_API_KEY: SECRET } },
  { name: "config api_key: ${VAR}", env: { E2E_KEY: SECRET }, config: "api_key: ${E2E_KEY}\n" },
  {
    name: "config api_key_cmd",
    env: { E2E_KEY_SOURCE: SECRET },
    config: "api_key_cmd: [printenv, E2E_KEY_SOURCE]\n"
  },
  { name: "config api_key (literal)", env: {}, config: `api_key: ${SECRET}\n`, owned: ["lait.config.yml"] },
  { name: ".env", env: {}, owned: [".env"] },
  { name: "the alias's provider api_key: ${VAR}", env: { E2E_KEY: SECRET }, provider: "api_key: '${E2E_KEY}'" }
]

const workflow = (baseUrl: string, provider?: string) => `${
  modelsYaml({ m: [{ baseUrl, modelId: "fixture-model" }] }).replace(
    `base_url: '${baseUrl}' }`,
    `base_url: '${baseUrl}'${provider === undefined ? "" : `, ${provider}`} }`
  )
}
default:
  model: m
steps:
  - id: answer
    prompt: 'Summarize: {{ input }}'
`

/** Every place the secret could have been written: all files in `dir` and the runs' output. */
const leaks = (dir: string, outputs: ReadonlyArray<string>, owned: ReadonlyArray<string>): Array<string> => {
  const found = filesUnder(dir)
    .filter((f) => !owned.includes(path.relative(dir, f.path)) && f.bytes.includes(SECRET))
    .map((f) => path.relative(dir, f.path))
  outputs.forEach((o, i) => {
    if (o.includes(SECRET)) found.push(`output #${i + 1}`)
  })
  return found
}

describe.each(sources)("with the key from $name", (source) => {
  test("record, cache and -vv write every byte without the key, while the server receives it", async () => {
    const dir = path.join(ws.dir, source.name.replace(/\W+/g, "-"))
    fs.mkdirSync(dir, { recursive: true })
    const s = server({ script: [{ content: "a short summary", repeat: true }] })
    fs.writeFileSync(path.join(dir, "wf.yml"), workflow(s.baseUrl, source.provider))
    if (source.config !== undefined) fs.writeFileSync(path.join(dir, "lait.config.yml"), source.config)
    if (source.owned?.includes(".env") === true) fs.writeFileSync(path.join(dir, ".env"), `OPENAI_API_KEY='${SECRET}'\n`)

    const runs = [
      await ws.lait(["run", "wf.yml", "the text", "--record", "cassettes", "-vv"], { cwd: dir, env: source.env }),
      await ws.lait(["run", "wf.yml", "the text", "--cache", "-vv", "--show-usage"], { cwd: dir, env: source.env }),
      await ws.lait(["run", "wf.yml", "the text", "--cache", "-vv", "--json"], { cwd: dir, env: source.env }),
      await ws.lait(["run", "wf.yml", "the text", "--replay", "cassettes", "-vv"], { cwd: dir, env: source.env })
    ]
    for (const r of runs) expect({ code: r.code, stdout: r.stdout.split("\n")[0] }).toMatchObject({ code: 0 })
    expect(runs[0]!.stdout).toBe("a short summary\n")
    expect(runs[2]!.stderr).toContain("note: cache hit for answer\n")
    // The -vv logs were written: request bodies and responses, just not the key.
    expect(runs[0]!.stderr).toContain("lait: [trace] request body: {\"model\":\"fixture-model\"")

    expect(s.requests).toHaveLength(2) // record, then the first cache run; the rest came from disk
    for (const request of s.requests) expect(request.headers["authorization"]).toBe(`Bearer ${SECRET}`)

    const key = requestKey({
      base_url: s.baseUrl,
      model_id: "fixture-model",
      messages: [{ role: "user", content: "Summarize: the text" }],
      tools: [],
      response_format: null
    })
    expect(fs.readdirSync(path.join(dir, "cassettes"))).toEqual([`${key}.json`])
    expect(fs.readdirSync(path.join(dir, ".lait", "cache"))).toEqual([`${key}.json`])
    expect(leaks(dir, runs.flatMap((r) => [r.stdout, r.stderr]), source.owned ?? [])).toEqual([])
  })

  test("a response that contains the key is not recorded: the run fails and nothing is written", async () => {
    const dir = path.join(ws.dir, `${source.name.replace(/\W+/g, "-")}-echo`)
    fs.mkdirSync(dir, { recursive: true })
    const s = server({ script: [{ content: `your key is ${SECRET}`, repeat: true }] })
    fs.writeFileSync(path.join(dir, "wf.yml"), workflow(s.baseUrl, source.provider))
    if (source.config !== undefined) fs.writeFileSync(path.join(dir, "lait.config.yml"), source.config)
    if (source.owned?.includes(".env") === true) fs.writeFileSync(path.join(dir, ".env"), `OPENAI_API_KEY='${SECRET}'\n`)

    const r = await ws.lait(["run", "wf.yml", "the text", "--record", "cassettes", "-vv"], { cwd: dir, env: source.env })
    const key = requestKey({
      base_url: s.baseUrl,
      model_id: "fixture-model",
      messages: [{ role: "user", content: "Summarize: the text" }],
      tools: [],
      response_format: null
    })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    // -vv appends the error's stack after the message line.
    expect(r.stderr).toContain(
      `\nlait: refusing to write cassette 'cassettes/${key}.json': the response contains the API key in use\n`
    )
    // The -vv response dump shows where the key was, redacted.
    expect(r.stderr).toContain("your key is <redacted>")
    expect(fs.existsSync(path.join(dir, "cassettes", `${key}.json`))).toBe(false)
    expect(leaks(dir, [r.stdout, r.stderr], source.owned ?? [])).toEqual([])

    // The cache only skips the entry (it is an optimisation); the answer itself is the model's to give.
    const cached = await ws.lait(["run", "wf.yml", "the text", "--cache", "-vv"], { cwd: dir, env: source.env })
    expect(cached.code).toBe(0)
    expect(cached.stdout).toBe(`your key is ${SECRET}\n`)
    expect(cached.stderr).toContain(
      "lait: [debug] cache write skipped: refusing to write a cache entry: the response contains the API key in use\n"
    )
    expect(fs.existsSync(path.join(dir, ".lait", "cache", `${key}.json`))).toBe(false)
    expect(leaks(dir, [cached.stderr], source.owned ?? [])).toEqual([])
  })
})

test("an error body that echoes the key is printed redacted", async () => {
  const s = server({
    script: [{ status: 401, body: { error: { message: `Incorrect API key provided: ${SECRET}.` } }, repeat: true }]
  })
  const file = ws.write("401/wf.yml", workflow(s.baseUrl))
  const r = await ws.lait(["run", file, "x", "-vv"], { env: { OPENAI_API_KEY: SECRET } })
  expect(r.code).toBe(4)
  expect(r.stdout).toBe("")
  expect(r.stderr).toContain(
    `\nlait: the model server at '${s.baseUrl}' answered HTTP 401: Incorrect API key provided: <redacted>; ` +
      "check the API key (it came from OPENAI_API_KEY)\n"
  )
  expect(r.stderr.includes(SECRET)).toBe(false)
  expect(s.requests).toHaveLength(1) // a 401 is neither retried nor a reason to fall back
})

