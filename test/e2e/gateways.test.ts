// Gateways and servers other people run (issue 39), through the binary against the fixture server:
// a model endpoint's `headers:` and `--header` (docs/config.md#provider-headers), `lait models
// --remote` asking once per server and key (docs/models-doctor.md#--remote), and one-shot
// `--json-schema` checking the answer as a workflow's `output_schema` does (docs/chat.md).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { prepareCli, projectsIn, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-gateways")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

/** A fresh directory holding `files`; runs lait there (OPENAI_* and LAIT_* are not inherited). */
const project = projectsIn(ws)

const headersOf = (s: ReturnType<typeof server>, ...names: ReadonlyArray<string>) =>
  s.requests.map((q) => Object.fromEntries(names.map((n) => [n, q.headers[n] ?? null])))

/** A workflow asking `hello` of its own model `gw` (id `m`), whose provider sends `headers` (YAML). */
const gatewayWorkflow = (baseUrl: string, headers: string) =>
  [
    "models:",
    "  gw:",
    `    - provider: { base_url: '${baseUrl}', headers: { ${headers} } }`,
    "      model_id: m",
    "default: { model: gw }",
    "steps:",
    "  - id: ask",
    "    prompt: 'hello'"
  ].join("\n")

describe("model endpoint headers", () => {
  test("each entry sends its own provider headers; --header goes to the primary alone and replaces by name", async () => {
    const primary = server({ script: [{ status: 503, body: { error: { message: "busy" } } }, { content: "hi", repeat: true }] })
    const fallback = server({ script: [{ content: "from fallback", repeat: true }] })
    const p = project({
      "lait.config.yml": [
        "models:",
        "  gw:",
        `    - provider: { base_url: '${primary.baseUrl}', headers: { X-Portkey-Provider: openai, X-Route: '\${ROUTE}' } }`,
        "      model_id: m1",
        `    - provider: { base_url: '${fallback.baseUrl}', headers: { X-Own: fb } }`,
        "      model_id: m2"
      ].join("\n")
    })
    const env = { ROUTE: "eu-west", LAIT_HTTP_ATTEMPTS: "1" }
    // The primary fails once: the fallback answers with its own headers, never the flag's.
    const first = await p.lait(["--model", "gw", "--header", "x-route: us-east", "--header", "X-Extra:  two words ", "q"], env)
    expect({ code: first.code, stdout: first.stdout }).toEqual({ code: 0, stdout: "from fallback\n" })
    expect(headersOf(primary, "x-portkey-provider", "x-route", "x-extra")).toEqual([
      { "x-portkey-provider": "openai", "x-route": "us-east", "x-extra": "two words" }
    ])
    expect(headersOf(fallback, "x-own", "x-route", "x-extra")).toEqual([{ "x-own": "fb", "x-route": null, "x-extra": null }])

    const second = await p.lait(["--model", "gw", "q"], env)
    expect({ code: second.code, stdout: second.stdout }).toEqual({ code: 0, stdout: "hi\n" })
    expect(headersOf(primary, "x-route").at(-1)).toEqual({ "x-route": "eu-west" })
  })

  test("lait run --header and a workflow's models: headers; -v names the headers, never their values", async () => {
    const s = server({ script: [{ content: "done", repeat: true }] })
    const p = project({
      "wf.yml": gatewayWorkflow(s.baseUrl, "api-key: '${AZURE_KEY}'")
    })
    const r = await p.lait(["run", "wf.yml", "x", "--header", "HTTP-Referer: https://example.test/app", "-v"], {
      AZURE_KEY: "azure-key-0123456789"
    })
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "done\n" })
    expect(headersOf(s, "api-key", "http-referer")).toEqual([
      { "api-key": "azure-key-0123456789", "http-referer": "https://example.test/app" }
    ])
    expect(r.stderr).toContain(
      `lait: [debug] model 'gw': primary 'm' at '${s.baseUrl}': base URL from provider.base_url, ` +
        "API key from nowhere (the dummy key is sent), headers api-key, http-referer\n"
    )
    expect(r.stderr).not.toContain("azure-key-0123456789")
  })

  test("a malformed --header is a usage error (exit 2, one line); a bad header in a definition exits 3", async () => {
    const s = server({ script: [{ content: "never", repeat: true }] })
    const p = project({
      "wf.yml": gatewayWorkflow(s.baseUrl, "'Bad Name': x")
    })
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--model", "m", "--base-url", s.baseUrl, "--header", "sk-secret-token", "q"], "lait: invalid --header: expected 'NAME: VALUE'\n"],
      [["--model", "m", "--base-url", s.baseUrl, "--header", ": v", "q"], "lait: invalid --header: the name before ':' is empty\n"],
      [["--model", "m", "--base-url", s.baseUrl, "--header", "Content-Type: text/plain", "q"], "lait: invalid --header: 'Content-Type' is set by lait itself\n"],
      [["run", "wf.yml", "x", "--header", "a b: c"], "lait: invalid --header: the name is not a valid HTTP header name\n"]
    ]
    for (const [args, stderr] of cases) {
      const r = await p.lait(args)
      expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ args, code: 2, stdout: "", stderr })
    }
    const bad = await p.lait(["run", "wf.yml", "x"])
    expect({ code: bad.code, stderr: bad.stderr }).toEqual({
      code: 3,
      stderr: "[1] ask\nlait: model definition \"gw\" has a header that cannot be sent: the name is not a valid HTTP header name\n"
    })
    expect(s.requests).toHaveLength(0)
  })

  test("a recording whose answer repeats a header value is refused, as one repeating the key; headers are not in the cassette key", async () => {
    const token = "gw-token-5f0c2a9e7d"
    const s = server({ script: [{ match: "echo", content: `your token is ${token}`, repeat: true }, { content: "fine", repeat: true }] })
    const p = project()
    const base = ["--model", "m", "--base-url", s.baseUrl]
    const refused = await p.lait([...base, "--header", `X-Token: ${token}`, "--record", "tapes", "echo"])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("the response contains the value of a header in use")
    expect(refused.stderr).not.toContain(token)

    expect((await p.lait([...base, "--header", `X-Token: ${token}`, "--record", "tapes", "hello"])).code).toBe(0)
    const files = fs.readdirSync(path.join(p.dir, "tapes"))
    expect(files).toHaveLength(1)
    expect(fs.readFileSync(path.join(p.dir, "tapes", files[0]!), "utf8")).not.toContain(token)
    // Another header value (or none) replays the same recording: headers are not part of the key.
    const replayed = await p.lait([...base, "--header", "X-Token: another", "--replay", "tapes", "hello"])
    expect({ code: replayed.code, stdout: replayed.stdout }).toEqual({ code: 0, stdout: "fine\n" })
    expect(s.requests).toHaveLength(2)
  })
})

describe("lait models --remote", () => {
  test("asks once per server and key, sends the provider headers, and names the aliases in every line", async () => {
    const good = "sk-good-0123456789abcdef"
    const s = server({ apiKey: good, models: ["m1", "m2"] })
    const p = project({
      "lait.config.yml": [
        "models:",
        "  a:",
        `    - provider: { base_url: '${s.baseUrl}', api_key: '${good}', headers: { X-Gw: one } }`,
        "      model_id: m1",
        "  b:",
        `    - provider: { base_url: '${s.baseUrl}', api_key: '${good}', headers: { X-Gw: one } }`,
        "      model_id: m2",
        "  c:",
        `    - provider: { base_url: '${s.baseUrl}', api_key: 'sk-stale-0123456789' }`,
        "      model_id: m1"
      ].join("\n")
    })
    const r = await p.lait(["models", "--remote"])
    expect(r.code).toBe(4)
    // The shared server is listed (a and b's key works); c's bad key is c's line, not the server's.
    expect(r.stdout).toBe(`${s.baseUrl} (a, b)\n  m1\n  m2\n`)
    expect(r.stderr.split("\n")[0]).toStartWith(`error: GET ${s.baseUrl}/models (c): key rejected (HTTP 401`)
    expect(r.stderr).toEndWith("lait: 1 of 2 endpoints could not be listed\n")
    expect(r.stderr).not.toContain("sk-stale-0123456789")
    expect(s.requests.map((q) => [q.path, q.headers["authorization"], q.headers["x-gw"] ?? null])).toEqual(
      expect.arrayContaining([["/v1/models", `Bearer ${good}`, "one"], ["/v1/models", "Bearer sk-stale-0123456789", null]])
    )
    expect(s.requests).toHaveLength(2)

    const json = await p.lait(["models", "--remote", "--json"])
    expect(JSON.parse(json.stdout)).toEqual([
      { base_url: s.baseUrl, aliases: ["a", "b"], models: ["m1", "m2"] },
      { base_url: s.baseUrl, aliases: ["c"], error: expect.stringMatching(/^key rejected \(HTTP 401/) }
    ])
  })
})

describe("one-shot --json-schema checks the answer like a workflow's output_schema", () => {
  const schema = JSON.stringify({ type: "object", required: ["name", "age"], properties: { name: { type: "string" }, age: { type: "integer" } } })
  const workflow = (baseUrl: string) =>
    [
      "schemas:",
      `  person: ${schema}`,
      "models:",
      "  m:",
      `    - provider: { base_url: '${baseUrl}' }`,
      "      model_id: m",
      "default: { model: m }",
      "steps:",
      "  - id: ask",
      "    prompt: '{{ input }}'",
      "    output_schema: person"
    ].join("\n")

  test("a fenced answer is the JSON inside; a missing required field or prose fails with the workflow's exit code", async () => {
    const s = server({
      script: [
        { match: "fenced", content: "```json\n{\"name\":\"Ada\",\"age\":36}\n```", repeat: true },
        { match: "partial", content: "{\"name\":\"Ada\"}", repeat: true },
        { match: "prose", content: "Ada is 36.", repeat: true }
      ]
    })
    const p = project({ "person.json": schema, "wf.yml": workflow(s.baseUrl) })
    const chat = (prompt: string, ...extra: ReadonlyArray<string>) =>
      p.lait(["--model", "m", "--base-url", s.baseUrl, "--json-schema", "person.json", ...extra, prompt])

    const fenced = await chat("fenced")
    expect({ code: fenced.code, stdout: fenced.stdout, stderr: fenced.stderr })
      .toEqual({ code: 0, stdout: "{\"name\":\"Ada\",\"age\":36}\n", stderr: "" })
    const asJson = await chat("fenced", "--json")
    expect(JSON.parse(asJson.stdout).content).toBe("{\"name\":\"Ada\",\"age\":36}")

    const partial = await chat("partial")
    const partialRun = await p.lait(["run", "wf.yml", "partial"])
    expect({ code: partial.code, stdout: partial.stdout }).toEqual({ code: partialRun.code, stdout: "" })
    expect(partial.code).toBe(1)
    expect(partial.stderr).toBe(
      "lait: the model's answer does not match the JSON schema 'person.json': answer is missing required field(s): age\n"
    )

    const prose = await chat("prose")
    const proseRun = await p.lait(["run", "wf.yml", "prose"])
    expect({ code: prose.code, stdout: prose.stdout }).toEqual({ code: proseRun.code, stdout: "" })
    expect(prose.stderr).toBe("lait: the model's answer is not valid JSON for the JSON schema 'person.json': Ada is 36.\n")
  })
})
