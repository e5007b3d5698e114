// Live-layer resilience and the response cache through the CLI: retries with backoff, fallbacks from
// a lait.config.yml `models:` alias (503, refused connection), what does not fall back, fallbacks
// with OPENAI_API_KEY/OPENAI_BASE_URL exported (which key each server sees, what `-v` says), and
// `--cache`/`default.cache`/`cache_ttl`/`lait cache clear`.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { requestKey } from "../../src/model/cassette/key.ts"
import { bodies, outcome, prepareCli, refusedBaseUrl, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-model-fb")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

/** A fresh directory with a lait.config.yml whose alias `smart` is primary + fallback. */
const project = (name: string, primary: string, fallback: string, configExtra = "") => {
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, "lait.config.yml"),
    `models:
  smart:
    - provider: { base_url: '${primary}' }
      model_id: primary-model
    - provider: { base_url: '${fallback}' }
      model_id: backup-model
${configExtra}`
  )
  fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - id: answer\n    model: smart\n    prompt: 'Answer: {{ input }}'\n")
  return dir
}

const fast = { LAIT_HTTP_BACKOFF_MS: "0" }

/** The `warning:` lines printed before the 2nd and 3rd attempt at one endpoint. */
const retried = (reason: string, waits: readonly [string, string] = ["0 ms", "0 ms"]) =>
  `warning: ${reason} (attempt 1/3); retrying in ${waits[0]}\n` +
  `warning: ${reason} (attempt 2/3); retrying in ${waits[1]}\n`

const keyFor = (baseUrl: string, modelId: string, prompt: string) =>
  requestKey({ base_url: baseUrl, model_id: modelId, messages: [{ role: "user", content: prompt }], tools: [], response_format: null })

describe("fallbacks", () => {
  test("a 503 is retried with backoff (3 attempts), then the fallback answers after a warning", async () => {
    const primary = server({ script: [{ status: 503, repeat: true }] })
    const backup = server({ script: [{ content: "from the backup", repeat: true }] })
    const dir = project("fb503", primary.baseUrl, backup.baseUrl)
    const started = performance.now()
    const r = await ws.lait(["run", "wf.yml", "x"], { cwd: dir })
    const elapsed = performance.now() - started
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "from the backup\n",
      stderr: "[1] answer\n" +
        retried(`the model server at '${primary.baseUrl}' answered HTTP 503: scripted 503`, ["250 ms", "500 ms"]) +
        `warning: model 'primary-model' at '${primary.baseUrl}' failed (the model server at '${primary.baseUrl}' ` +
        `answered HTTP 503: scripted 503); falling back to 'backup-model' at '${backup.baseUrl}'\n`
    })
    expect(primary.requests).toHaveLength(3)
    // 250 ms, then 500 ms between the three attempts: a lower bound, which a slower machine cannot break.
    expect(elapsed, "ms of the run, whose two backoffs are 250 and 500 ms").toBeGreaterThanOrEqual(750)
    expect(bodies(backup)).toEqual([
      { model: "backup-model", messages: [{ role: "user", content: "Answer: x" }], stream: false }
    ])
  })

  test("a refused connection falls back; the cassette is keyed by the primary and records who answered", async () => {
    const refused = await refusedBaseUrl()
    const backup = server({ script: [{ content: "from the backup", repeat: true }] })
    const dir = project("fbrefused", refused, backup.baseUrl)
    const r = await ws.lait(["run", "wf.yml", "x", "--record", "c"], { cwd: dir, env: fast })
    // Each retry says why first (the reason's wording is the final error line's).
    const lines = r.stderr.split("\n")
    for (const [i, attempt] of [[1, 1], [2, 2]] as const) {
      expect(lines[i]).toStartWith(`warning: failed to reach '${refused}'`)
      expect(lines[i]).toEndWith(` (attempt ${attempt}/3); retrying in 0 ms`)
    }
    expect(outcome({ ...r, stderr: lines.filter((_, i) => i !== 1 && i !== 2).join("\n") })).toEqual({
      code: 0,
      stdout: "from the backup\n",
      stderr: "[1] answer\n" +
        `warning: model 'primary-model' at '${refused}' failed (failed to reach '${refused}': connection refused); ` +
        `falling back to 'backup-model' at '${backup.baseUrl}'\n`
    })
    const key = keyFor(refused, "primary-model", "Answer: x")
    expect(fs.readdirSync(path.join(dir, "c"))).toEqual([`${key}.json`])
    const cassette = JSON.parse(fs.readFileSync(path.join(dir, "c", `${key}.json`), "utf8")) as {
      request: { base_url: string; model_id: string }
    }
    expect(cassette.request).toMatchObject({ base_url: backup.baseUrl, model_id: "backup-model" })

    await backup.stop()
    const replayed = await ws.lait(["run", "wf.yml", "x", "--replay", "c"], { cwd: dir })
    expect(outcome(replayed)).toEqual({ code: 0, stdout: "from the backup\n", stderr: "[1] answer\n" })
  })

  test("a 400 is neither retried nor a reason to fall back (exit 4)", async () => {
    const primary = server({ script: [{ status: 400, body: { error: { message: "bad request: messages" } }, repeat: true }] })
    const backup = server()
    const dir = project("fb400", primary.baseUrl, backup.baseUrl)
    const r = await ws.lait(["run", "wf.yml", "x"], { cwd: dir, env: fast })
    expect(outcome(r)).toEqual({
      code: 4,
      stdout: "",
      stderr: `[1] answer\nlait: the model server at '${primary.baseUrl}' answered HTTP 400: bad request: messages\n`
    })
    expect(primary.requests).toHaveLength(1)
    expect(backup.requests).toHaveLength(0)
  })

  test("429 and 408 fall back; when every endpoint fails, the last error is reported", async () => {
    const primary = server({ script: [{ status: 429, repeat: true }] })
    const backup = server({ script: [{ status: 408, repeat: true }] })
    const dir = project("fb429", primary.baseUrl, backup.baseUrl)
    const r = await ws.lait(["run", "wf.yml", "x"], { cwd: dir, env: fast })
    expect(outcome(r)).toEqual({
      code: 4,
      stdout: "",
      stderr: "[1] answer\n" +
        retried(`the model server at '${primary.baseUrl}' answered HTTP 429: scripted 429`) +
        `warning: model 'primary-model' at '${primary.baseUrl}' failed (the model server at '${primary.baseUrl}' ` +
        `answered HTTP 429: scripted 429); falling back to 'backup-model' at '${backup.baseUrl}'\n` +
        retried(`the model server at '${backup.baseUrl}' answered HTTP 408: scripted 408`) +
        `lait: the model server at '${backup.baseUrl}' answered HTTP 408: scripted 408\n`
    })
    expect([primary.requests.length, backup.requests.length]).toEqual([3, 3])
  })

  test("LAIT_HTTP_ATTEMPTS sets the attempts per endpoint; a bad value is a usage error", async () => {
    const primary = server({ script: [{ status: 503, repeat: true }] })
    const backup = server()
    const dir = project("fbattempts", primary.baseUrl, backup.baseUrl)
    const r = await ws.lait(["run", "wf.yml", "x"], { cwd: dir, env: { ...fast, LAIT_HTTP_ATTEMPTS: "1" } })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("echo: Answer: x\n")
    expect(primary.requests).toHaveLength(1)
    const bad = await ws.lait(["run", "wf.yml", "x"], { cwd: dir, env: { LAIT_HTTP_ATTEMPTS: "0" } })
    expect(outcome(bad)).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: invalid LAIT_HTTP_ATTEMPTS \"0\": expected an integer from 1 to 10\n"
    })
  })
})

describe("fallbacks with OPENAI_API_KEY / OPENAI_BASE_URL exported", () => {
  const auth = (s: { requests: ReadonlyArray<{ headers: Record<string, string> }> }) =>
    [...new Set(s.requests.map((r) => r.headers["authorization"]))]

  test("OPENAI_API_KEY keeps the fallbacks; a fallback's provider key is its own; -v names the sources", async () => {
    const primary = server({ script: [{ status: 503, repeat: true }] })
    const backup = server({ script: [{ content: "from the backup", repeat: true }] })
    const dir = project(
      "fbenvkey",
      primary.baseUrl,
      backup.baseUrl,
      "api_key: top-level-key\n"
    )
    const config = path.join(dir, "lait.config.yml")
    fs.writeFileSync(
      config,
      fs.readFileSync(config, "utf8").replace(`base_url: '${backup.baseUrl}' }`, `base_url: '${backup.baseUrl}', api_key: '\${BACKUP_KEY}' }`)
    )
    const env = { ...fast, OPENAI_API_KEY: "sk-env-secret", BACKUP_KEY: "sk-backup-secret" }
    const r = await ws.lait(["run", "wf.yml", "x", "--record", "c"], { cwd: dir, env })
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "from the backup\n",
      stderr: "[1] answer\n" +
        retried(`the model server at '${primary.baseUrl}' answered HTTP 503: scripted 503`) +
        `warning: model 'primary-model' at '${primary.baseUrl}' failed (the model server at '${primary.baseUrl}' ` +
        `answered HTTP 503: scripted 503); falling back to 'backup-model' at '${backup.baseUrl}'\n`
    })
    expect(auth(primary)).toEqual(["Bearer sk-env-secret"])
    expect(auth(backup)).toEqual(["Bearer sk-backup-secret"])
    // The cassette key still comes from the primary endpoint alone.
    expect(fs.readdirSync(path.join(dir, "c"))).toEqual([`${keyFor(primary.baseUrl, "primary-model", "Answer: x")}.json`])

    const verbose = await ws.lait(["-v", "run", "wf.yml", "x"], { cwd: dir, env })
    expect(verbose.code).toBe(0)
    const sources = verbose.stderr.split("\n").filter((line) => line.includes("base URL from"))
    expect(sources).toEqual([
      `lait: [debug] model 'smart': primary 'primary-model' at '${primary.baseUrl}': base URL from provider.base_url, API key from OPENAI_API_KEY`,
      `lait: [debug] model 'smart': fallback #1 'backup-model' at '${backup.baseUrl}': base URL from provider.base_url, API key from provider.api_key`
    ])
    expect(verbose.stderr).not.toContain("secret")
  })

  test("OPENAI_BASE_URL replaces the primary's base URL only; a fallback without a key of its own gets OPENAI_API_KEY", async () => {
    const refused = await refusedBaseUrl()
    const fromEnv = server({ script: [{ status: 503, repeat: true }] })
    const backup = server({ script: [{ content: "from the backup", repeat: true }] })
    const dir = project("fbenvurl", refused, backup.baseUrl, "api_key: top-level-key\n")
    const env = { ...fast, OPENAI_BASE_URL: fromEnv.baseUrl, OPENAI_API_KEY: "sk-env" }
    const r = await ws.lait(["run", "wf.yml", "x", "--record", "c", "-v"], { cwd: dir, env })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("from the backup\n")
    expect(r.stderr).toContain(
      `\nwarning: model 'primary-model' at '${fromEnv.baseUrl}' failed (the model server at '${fromEnv.baseUrl}' ` +
        `answered HTTP 503: scripted 503); falling back to 'backup-model' at '${backup.baseUrl}'\n`
    )
    expect(r.stderr).toContain(
      `lait: [debug] model 'smart': primary 'primary-model' at '${fromEnv.baseUrl}': base URL from OPENAI_BASE_URL, API key from OPENAI_API_KEY\n`
    )
    expect(r.stderr).toContain(
      `lait: [debug] model 'smart': fallback #1 'backup-model' at '${backup.baseUrl}': base URL from provider.base_url, API key from OPENAI_API_KEY\n`
    )
    expect(auth(fromEnv)).toEqual(["Bearer sk-env"])
    expect(auth(backup)).toEqual(["Bearer sk-env"])
    // Keyed by the primary as resolved, that is with OPENAI_BASE_URL, exactly as before.
    expect(fs.readdirSync(path.join(dir, "c"))).toEqual([`${keyFor(fromEnv.baseUrl, "primary-model", "Answer: x")}.json`])
  })
})

describe("response cache", () => {
  const cacheProject = (name: string, baseUrl: string, config = "") => {
    const dir = path.join(ws.dir, name)
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, "wf.yml"),
      `models:\n  m:\n    - provider: { base_url: '${baseUrl}' }\n      model_id: fixture-model\n` +
        "steps:\n  - id: answer\n    model: m\n    prompt: 'Answer: {{ input }}'\n"
    )
    if (config !== "") fs.writeFileSync(path.join(dir, "lait.config.yml"), config)
    return dir
  }
  const entryPath = (dir: string, baseUrl: string) =>
    path.join(dir, ".lait", "cache", `${keyFor(baseUrl, "fixture-model", "Answer: x")}.json`)

  test("--cache: the second run is a hit (note on stderr, no request, no usage counted)", async () => {
    const s = server({ script: [{ content: "cached answer", usage: { prompt_tokens: 12, completion_tokens: 3 } }] })
    const dir = cacheProject("cache1", s.baseUrl)
    const first = await ws.lait(["run", "wf.yml", "x", "--cache", "--show-usage"], { cwd: dir })
    expect(outcome(first)).toEqual({
      code: 0,
      stdout: "cached answer\n",
      stderr: "[1] answer\nusage: prompt=12 completion=3 total=15\n"
    })
    const entry = JSON.parse(fs.readFileSync(entryPath(dir, s.baseUrl), "utf8")) as Record<string, unknown>
    expect(Object.keys(entry)).toEqual(["created_at", "response"])
    expect(Date.parse(entry["created_at"] as string)).toBeGreaterThan(Date.now() - 60_000)
    expect(entry["response"]).toMatchObject({ choices: [{ message: { content: "cached answer" } }] })

    // The global flag may also come before the subcommand.
    const second = await ws.lait(["--cache", "run", "wf.yml", "x", "--show-usage", "--json"], { cwd: dir })
    expect(outcome(second)).toEqual({
      code: 0,
      stdout: "{\"content\":\"cached answer\",\"reasoning\":null,\"usage\":null,\"finish_reason\":\"stop\"}\n",
      stderr: "[1] answer\nnote: cache hit for answer\nusage: 0 tokens (1 request answered from the cache)\n"
    })
    expect(s.requests).toHaveLength(1)

    const other = await ws.lait(["run", "wf.yml", "y", "--cache"], { cwd: dir })
    expect(other.stdout).toBe("echo: Answer: y\n")
    expect(s.requests).toHaveLength(2)
  })

  test("default.cache turns it on, --no-cache off; --record bypasses it", async () => {
    const s = server({ script: [{ content: "answer", repeat: true }] })
    const dir = cacheProject("cache2", s.baseUrl, "default:\n  cache: true\n")
    expect((await ws.lait(["run", "wf.yml", "x"], { cwd: dir })).stderr).toBe("[1] answer\n")
    expect((await ws.lait(["run", "wf.yml", "x"], { cwd: dir })).stderr).toBe("[1] answer\nnote: cache hit for answer\n")
    expect(s.requests).toHaveLength(1)
    expect((await ws.lait(["run", "wf.yml", "x", "--no-cache"], { cwd: dir })).stderr).toBe("[1] answer\n")
    expect(s.requests).toHaveLength(2)
    expect((await ws.lait(["run", "wf.yml", "x", "--record", "c"], { cwd: dir })).stderr).toBe("[1] answer\n")
    expect(s.requests).toHaveLength(3)
  })

  test("expired, future-dated or malformed entries are misses and get rewritten", async () => {
    const s = server({ script: [{ content: "answer", repeat: true }] })
    const dir = cacheProject("cache3", s.baseUrl, "default:\n  cache: true\n  cache_ttl: 60\n")
    expect((await ws.lait(["run", "wf.yml", "x"], { cwd: dir })).code).toBe(0)
    const file = entryPath(dir, s.baseUrl)
    const entry = JSON.parse(fs.readFileSync(file, "utf8")) as { created_at: string; response: unknown }
    const age = (seconds: number) =>
      fs.writeFileSync(file, JSON.stringify({ ...entry, created_at: new Date(Date.now() - seconds * 1000).toISOString() }))

    age(30)
    expect((await ws.lait(["run", "wf.yml", "x"], { cwd: dir })).stderr).toBe("[1] answer\nnote: cache hit for answer\n")
    expect(s.requests).toHaveLength(1)
    for (const spoil of [() => age(3600), () => age(-3600), () => fs.writeFileSync(file, "{not json")]) {
      spoil()
      const r = await ws.lait(["run", "wf.yml", "x"], { cwd: dir })
      expect(outcome(r)).toEqual({ code: 0, stdout: "answer\n", stderr: "[1] answer\n" })
    }
    expect(s.requests).toHaveLength(4)
    // The last miss wrote a fresh entry.
    expect((await ws.lait(["run", "wf.yml", "x"], { cwd: dir })).stderr).toBe("[1] answer\nnote: cache hit for answer\n")
  })

  test("lait cache clear deletes .lait/cache (a missing one is fine)", async () => {
    const s = server()
    const dir = cacheProject("cache4", s.baseUrl)
    await ws.lait(["run", "wf.yml", "x", "--cache"], { cwd: dir })
    expect(fs.existsSync(entryPath(dir, s.baseUrl))).toBe(true)
    expect(outcome(await ws.lait(["cache", "clear"], { cwd: dir }))).toEqual({ code: 0, stdout: "cache cleared\n", stderr: "" })
    expect(fs.existsSync(path.join(dir, ".lait", "cache"))).toBe(false)
    expect(outcome(await ws.lait(["cache", "clear"], { cwd: dir }))).toEqual({ code: 0, stdout: "cache cleared\n", stderr: "" })
  })
})
