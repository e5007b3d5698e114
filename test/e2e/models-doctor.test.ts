// `lait models` and `lait doctor` as a user runs them (the compiled binary when it starts): against
// fixture OpenAI servers that require a key and list chosen models, one that refuses connections, one
// that never answers, the real MCP server server-everything, and api_key_cmds that work or fail.
// The API key must never appear in full on stdout or stderr, -vv included.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import { refusedBaseUrl, prepareCli, server, stopServers, workspace } from "./model-harness.ts"
import type { RunResult } from "./util.ts"
import { everythingBin } from "./tools-util.ts"

const ws = workspace("models-doctor")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const KEY = `sk-doctor-${crypto.randomUUID()}`
const CMD_KEY = `sk-cmd-${crypto.randomUUID()}`

let projects = 0
/** A fresh directory with this `lait.config.yml`; returns a runner for it. */
const project = (config: string) => {
  const dir = `p${++projects}`
  ws.write(`${dir}/lait.config.yml`, config)
  return (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
    ws.lait(args, { cwd: `${ws.dir}/${dir}`, env })
}

const expectNoKey = (r: RunResult, ...keys: ReadonlyArray<string>) => {
  for (const key of keys) {
    expect(r.stdout).not.toContain(key)
    expect(r.stderr).not.toContain(key)
  }
}

const lines = (text: string) => text.trimEnd().split("\n")

describe("lait models", () => {
  test("lists every alias with its fallbacks, base URLs, masked keys and the primary's pricing", async () => {
    const lait = project(
      [
        "default: { model: fast }",
        "models:",
        "  fast:",
        `    - provider: { base_url: 'http://127.0.0.1:1/v1', api_key: '${KEY}' }`,
        "      model_id: gpt-4o-mini",
        "      pricing: { input_per_1m: 0.15, output_per_1m: 0.6 }",
        `    - provider: { base_url: 'http://127.0.0.1:2/v1', api_key_cmd: 'echo ${CMD_KEY}' }`,
        "      model_id: llama3",
        "  local:",
        "    - provider: { base_url: 'http://user:secret-pass@127.0.0.1:3/v1' }",
        "      model_id: qwen"
      ].join("\n")
    )
    for (const args of [["models"], ["models", "-vv"]]) {
      const r = await lait(args)
      expect(r.code).toBe(0)
      expectNoKey(r, KEY, CMD_KEY, "secret-pass")
      const out = lines(r.stdout)
      expect(out[0]).toMatch(/^ALIAS +MODEL_ID +BASE_URL +API_KEY +KEY_FROM +PRICING/)
      expect(out[1]).toMatch(
        new RegExp(`^fast \\* +gpt-4o-mini +http://127\\.0\\.0\\.1:1/v1 +…${KEY.slice(-4)} +provider\\.api_key +in 0\\.15, out 0\\.6$`)
      )
      // The fallback's command is not run for a listing.
      expect(out[2]).toMatch(/^ {2}fallback #1 +llama3 +http:\/\/127\.0\.0\.1:2\/v1 +\(not run\) +provider\.api_key_cmd +-$/)
      expect(out[3]).toMatch(/^local +qwen +http:\/\/user:<redacted>@127\.0\.0\.1:3\/v1 +none +- +-$/)
      expect(out[4]).toBe("(* = default.model)")
    }
    // OPENAI_API_KEY is what a request for the primary would send: the listing says so.
    const env = await lait(["models"], { OPENAI_API_KEY: KEY.replace("doctor", "envkey") })
    expect(lines(env.stdout)[1]).toContain("OPENAI_API_KEY")
    expectNoKey(env, KEY.replace("doctor", "envkey"))
  })

  test("--json: one document with every endpoint, keys masked", async () => {
    const lait = project(
      [
        "models:",
        "  fast:",
        `    - provider: { base_url: 'http://127.0.0.1:1/v1', api_key: '${KEY}' }`,
        "      model_id: m1",
        "      pricing: { input_per_1m: 1, output_per_1m: 2 }",
        "    - provider: { base_url: 'http://127.0.0.1:2/v1' }",
        "      model_id: m2"
      ].join("\n")
    )
    const r = await lait(["models", "--json"])
    expect(r.code).toBe(0)
    expectNoKey(r, KEY)
    expect(JSON.parse(r.stdout)).toEqual({
      default_model: null,
      models: [{
        name: "fast",
        default: false,
        endpoints: [
          {
            role: "primary",
            model_id: "m1",
            base_url: "http://127.0.0.1:1/v1",
            base_url_source: "provider",
            api_key: `…${KEY.slice(-4)}`,
            api_key_source: "provider",
            api: "chat_completions",
            pricing: { input_per_1m: 1, output_per_1m: 2 }
          },
          {
            role: "fallback",
            model_id: "m2",
            base_url: "http://127.0.0.1:2/v1",
            base_url_source: "provider",
            api_key: "none",
            api_key_source: "none",
            api: "chat_completions",
            pricing: null
          }
        ]
      }]
    })
  })

  test("--remote asks each distinct server once with its key; a server that is down is an error and exit 4", async () => {
    const up = server({ apiKey: KEY, models: ["m1", "m2", "other"] })
    const down = await refusedBaseUrl()
    const lait = project(
      [
        "models:",
        "  a:",
        `    - provider: { base_url: '${up.baseUrl}', api_key: '${KEY}' }`,
        "      model_id: m1",
        `    - provider: { base_url: '${down}' }`,
        "      model_id: m9",
        "  b:",
        `    - provider: { base_url: '${up.baseUrl}', api_key: '${KEY}' }`,
        "      model_id: m2"
      ].join("\n")
    )
    const r = await lait(["models", "--remote"])
    expect(r.code).toBe(4)
    expectNoKey(r, KEY)
    expect(r.stdout).toBe(`${up.baseUrl} (a, b)\n  m1\n  m2\n  other\n`)
    expect(lines(r.stderr)).toEqual([
      `error: GET ${down}/models (a): connection refused`,
      "lait: 1 of 2 endpoints could not be listed"
    ])
    expect(up.requests.map((q) => [q.method, q.path, q.headers["authorization"]])).toEqual([
      ["GET", "/v1/models", `Bearer ${KEY}`]
    ])

    const json = await lait(["models", "--remote", "--json"])
    expect(json.code).toBe(4)
    expect(JSON.parse(json.stdout)).toEqual([
      { base_url: up.baseUrl, aliases: ["a", "b"], models: ["m1", "m2", "other"] },
      { base_url: down, aliases: ["a"], error: "connection refused" }
    ])

    // --base-url/--api-key name one server: that one alone, and all is well.
    const pinned = await lait(["models", "--remote", "--base-url", up.baseUrl, "--api-key", KEY])
    expect(pinned.code).toBe(0)
    expect(pinned.stdout).toBe(`${up.baseUrl}\n  m1\n  m2\n  other\n`)
    expectNoKey(pinned, KEY)
  })
})

test("lait models --remote: a rejected key is an error with the server's echo of it masked", async () => {
  const s = server({ apiKey: CMD_KEY })
  const lait = project(["models:", "  x:", `    - provider: { base_url: '${s.baseUrl}', api_key: '${KEY}' }`, "      model_id: m"].join("\n"))
  const r = await lait(["models", "--remote", "-vv"])
  expect(r.code).toBe(4)
  expectNoKey(r, KEY)
  expect(r.stderr).toContain(`error: GET ${s.baseUrl}/models (x): key rejected (HTTP 401: Incorrect API key provided: <redacted>)\n`)
  expect(s.requests[0]?.headers["authorization"]).toBe(`Bearer ${KEY}`)
})

test("an unset ${VAR}: models names it for the key and skips an alias whose URL needs it; doctor FAILs both in alias order", async () => {
  const lait = project(
    [
      "models:",
      "  a:",
      "    - provider: { base_url: 'http://127.0.0.1:1/v1', api_key: '${NOPE_KEY}' }",
      "      model_id: m",
      "  b:",
      "    - provider: { base_url: '${NOPE_URL}' }",
      "      model_id: m"
    ].join("\n")
  )
  const models = await lait(["models"])
  expect(models.code).toBe(0)
  expect(lines(models.stdout)[1]).toMatch(/^a +m +http:\/\/127\.0\.0\.1:1\/v1 +\(NOPE_KEY is not set\) +provider\.api_key +-$/)
  expect(lines(models.stdout)).toHaveLength(2)
  expect(models.stderr).toBe(
    "warning: skipping model alias 'b': environment variable 'NOPE_URL' referenced by '${NOPE_URL}' is not set\n"
  )
  const doctor = await lait(["doctor"])
  expect(lines(doctor.stdout)).toEqual([
    "OK   config: lait.config.yml (parsed, lint clean)",
    "WARN default.model: not set; every command needs --model (or LLM_MODEL)",
    "FAIL model 'a': http://127.0.0.1:1/v1: no key (environment variable 'NOPE_KEY' referenced by '${NOPE_KEY}' is not set)",
    "FAIL model 'b': environment variable 'NOPE_URL' referenced by '${NOPE_URL}' is not set"
  ])
  expect(doctor.code).toBe(1)
})

describe("lait doctor", () => {
  const mcpEverything = ["mcp_servers:", "  everything:", `    command: node`, `    args: ['${everythingBin}', 'stdio']`]

  test("everything fine: OK lines for the config, the api_key_cmd, each model and the MCP server; exit 0", async () => {
    const s = server({ apiKey: CMD_KEY, models: ["m1", "m2"] })
    const lait = project(
      [
        "default: { model: fast }",
        "models:",
        "  fast:",
        `    - provider: { base_url: '${s.baseUrl}', api_key_cmd: 'printf %s ${CMD_KEY}' }`,
        "      model_id: m1",
        `    - provider: { base_url: '${s.baseUrl}', api_key_cmd: 'printf %s ${CMD_KEY}' }`,
        "      model_id: m2",
        ...mcpEverything
      ].join("\n")
    )
    const r = await lait(["doctor", "-vv"])
    expectNoKey(r, CMD_KEY)
    expect(lines(r.stdout)).toEqual([
      "OK   config: lait.config.yml (parsed, lint clean)",
      "OK   api_key_cmd (models.fast): printed a key",
      "OK   api_key_cmd (models.fast[1]): printed a key",
      `OK   model 'fast': ${s.baseUrl}: 'm1' listed, key accepted`,
      `OK   model 'fast' fallback #1: ${s.baseUrl}: 'm2' listed, key accepted`,
      expect.stringMatching(/^OK {3}mcp 'everything': started, \d+ tools$/)
    ])
    expect(r.code).toBe(0)
    // One server with one key: asked once.
    expect(s.requests.filter((q) => q.path === "/v1/models")).toHaveLength(1)
  }, 60_000)

  test("a wrong key, an unlisted model, a broken api_key_cmd and an MCP server that does not start", async () => {
    const s = server({ apiKey: CMD_KEY, models: ["m1"] })
    const lait = project(
      [
        "models:",
        "  badkey:",
        `    - provider: { base_url: '${s.baseUrl}', api_key: '${KEY}' }`,
        "      model_id: m1",
        "  nocmd:",
        `    - provider: { base_url: '${s.baseUrl}', api_key_cmd: 'echo oops >&2; exit 3' }`,
        "      model_id: m1",
        "  unlisted:",
        `    - provider: { base_url: '${s.baseUrl}', api_key: '${CMD_KEY}' }`,
        "      model_id: not-there",
        "mcp_servers:",
        "  broken:",
        "    command: /nonexistent/mcp-server"
      ].join("\n")
    )
    const r = await lait(["doctor"])
    // The fixture repeats the wrong key in its 401 answer; doctor masks it.
    expectNoKey(r, KEY, CMD_KEY)
    expect(lines(r.stdout)).toEqual([
      "OK   config: lait.config.yml (parsed, lint clean)",
      "WARN default.model: not set; every command needs --model (or LLM_MODEL)",
      "FAIL api_key_cmd (models.nocmd): api_key_cmd exited with status 3",
      `FAIL model 'badkey': ${s.baseUrl}: key rejected (HTTP 401: Incorrect API key provided: <redacted>)`,
      `FAIL model 'nocmd': ${s.baseUrl}: no key (its api_key_cmd failed)`,
      `WARN model 'unlisted': ${s.baseUrl}: 'not-there' is not among the 1 models the server lists (key accepted)`,
      expect.stringMatching(/^FAIL mcp 'broken': failed to spawn MCP server 'broken' \(command '\/nonexistent\/mcp-server'\): /)
    ])
    expect(r.code).toBe(1)
    expect(lines(r.stderr).at(-1)).toBe("lait: 4 of 7 checks failed")

    const json = await lait(["doctor", "--json"])
    expect(json.code).toBe(1)
    const checks = JSON.parse(json.stdout) as Array<Record<string, unknown>>
    expect(checks.map((c) => Object.keys(c))).toEqual(checks.map(() => ["status", "check", "name", "label", "message"]))
    expect(checks.map((c) => [c["status"], c["check"], c["name"]])).toEqual([
      ["ok", "config", "lait.config.yml"],
      ["warn", "model", "default.model"],
      ["fail", "api_key_cmd", "models.nocmd"],
      ["fail", "model", "badkey"],
      ["fail", "model", "nocmd"],
      ["warn", "model", "unlisted"],
      ["fail", "mcp", "broken"]
    ])
  })

  test("an unlisted model alone is a WARN: exit 0", async () => {
    const s = server({ models: ["m1"] })
    const lait = project(["models:", "  x:", `    - provider: { base_url: '${s.baseUrl}' }`, "      model_id: m2"].join("\n"))
    const r = await lait(["doctor"])
    expect(lines(r.stdout)).toEqual([
      "OK   config: lait.config.yml (parsed, lint clean)",
      "WARN default.model: not set; every command needs --model (or LLM_MODEL)",
      `WARN model 'x': ${s.baseUrl}: 'm2' is not among the 1 models the server lists (no key configured)`
    ])
    expect(r.code).toBe(0)
  })

  test("servers and an MCP server that never answer cost the timeout once (checks run concurrently), not a hang", async () => {
    // Each server and the MCP command log when lait reaches them, and the servers when lait gives up
    // on them: run concurrently, all three are reached before lait gives up on any (one after the
    // other, the first is given up on before the second is reached).
    const log = `${ws.dir}/doctor-events-${++projects}.log`
    const note = (line: string) => fs.appendFileSync(log, `${line}\n`)
    const hang = (name: string) =>
      Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (request) => {
          note(`${name} reached`)
          request.signal.addEventListener("abort", () => note(`${name} given up`))
          return new Promise<Response>(() => {})
        }
      })
    const [one, two] = [hang("slow"), hang("slower")]
    try {
      const lait = project(
        [
          "models:",
          "  slow:",
          `    - provider: { base_url: 'http://127.0.0.1:${one.port}/v1' }`,
          "      model_id: m",
          "  slower:",
          `    - provider: { base_url: 'http://127.0.0.1:${two.port}/v1' }`,
          "      model_id: m",
          "mcp_servers:",
          "  silent:",
          "    command: sh",
          `    args: ['-c', 'echo silent reached >> "$0"; exec sleep 30', '${log}']`
        ].join("\n")
      )
      const r = await lait(["doctor", "--timeout", "2"])
      const events = fs.readFileSync(log, "utf8").trim().split("\n")
      const firstGivenUp = events.findIndex((e) => e.endsWith("given up"))
      expect(events.slice(0, 3).sort(), events.join(", ")).toEqual(["silent reached", "slow reached", "slower reached"])
      expect(firstGivenUp, events.join(", ")).toBeGreaterThanOrEqual(3)
      expect(lines(r.stdout)).toEqual([
        "OK   config: lait.config.yml (parsed, lint clean)",
        "WARN default.model: not set; every command needs --model (or LLM_MODEL)",
        `FAIL model 'slow': http://127.0.0.1:${one.port}/v1: no answer within 2 s`,
        `FAIL model 'slower': http://127.0.0.1:${two.port}/v1: no answer within 2 s`,
        "FAIL mcp 'silent': timed out after 2s while initializing MCP server 'silent'"
      ])
      expect(r.code).toBe(1)
    } finally {
      await Promise.all([one.stop(true), two.stop(true)])
    }
  }, 30_000)

  test("agents: and skills: entries: OK when the file is there, FAIL when it is missing; LLM_MODEL stands in for default.model", async () => {
    const lait = project(
      [
        "agents:",
        "  here: agents/here.md",
        "  gone: agents/gone.md",
        "skills:",
        "  dir: skills/dir",
        "  empty: skills/empty",
        "  lost: skills/lost.md"
      ].join("\n")
    )
    const dir = `${ws.dir}/p${projects}`
    fs.mkdirSync(`${dir}/agents`)
    fs.writeFileSync(`${dir}/agents/here.md`, "---\nname: here\n---\nHelp.\n")
    fs.mkdirSync(`${dir}/skills/dir`, { recursive: true })
    fs.writeFileSync(`${dir}/skills/dir/SKILL.md`, "---\nname: dir\ndescription: d\n---\nBody.\n")
    fs.mkdirSync(`${dir}/skills/empty`)
    const r = await lait(["doctor"], { LLM_MODEL: "m" })
    expect(lines(r.stdout)).toEqual([
      "OK   config: lait.config.yml (parsed, lint clean)",
      "FAIL agent 'gone': resolves to 'agents/gone.md', which does not exist",
      "OK   agent 'here': agents/here.md (found)",
      "OK   skill 'dir': skills/dir (found)",
      "FAIL skill 'empty': resolves to 'skills/empty', a directory without SKILL.md",
      "FAIL skill 'lost': resolves to 'skills/lost.md', which does not exist"
    ])
    expect(r.code).toBe(1)
    expect(lines(r.stderr).at(-1)).toBe("lait: 3 of 6 checks failed")
    const json = JSON.parse((await lait(["doctor", "--json"], { LLM_MODEL: "m" })).stdout) as Array<Record<string, string>>
    expect(json.slice(1, 3).map((c) => [c["status"], c["check"], c["name"], c["label"]])).toEqual([
      ["fail", "file", "agents.gone", "agent 'gone'"],
      ["ok", "file", "agents.here", "agent 'here'"]
    ])
    // Without LLM_MODEL, the unset default.model is a WARN, which alone passes.
    const fine = project("agents:\n  a: a.md\n")
    fs.writeFileSync(`${ws.dir}/p${projects}/a.md`, "---\nname: a\n---\nHelp.\n")
    const warned = await fine(["doctor"])
    expect(lines(warned.stdout)).toEqual([
      "OK   config: lait.config.yml (parsed, lint clean)",
      "WARN default.model: not set; every command needs --model (or LLM_MODEL)",
      "OK   agent 'a': a.md (found)"
    ])
    expect(warned.code).toBe(0)
  })

  test("a config lint error is a FAIL; a config that does not parse skips the other checks", async () => {
    const lint = project(["workflows:", "  gone: missing.yml"].join("\n"))
    const r = await lint(["doctor"])
    expect(lines(r.stdout)).toEqual([
      "FAIL config: lait.config.yml: workflows.gone resolves to 'missing.yml', which does not exist",
      "WARN default.model: not set; every command needs --model (or LLM_MODEL)"
    ])
    expect(r.code).toBe(1)

    const broken = project("models: [unclosed\n")
    const b = await broken(["doctor"])
    expect(lines(b.stdout)).toEqual([
      expect.stringMatching(/^FAIL config: failed to parse YAML configuration file '.*lait\.config\.yml'/),
      "WARN other checks: skipped: the configuration did not load"
    ])
    expect(b.code).toBe(1)
  })
})
