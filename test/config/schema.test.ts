import { describe, expect, test } from "bun:test"
import { Cause, Exit, SchemaIssue } from "effect"
import { configJsonSchema, decodeConfigFile } from "../../src/config/schema.ts"

const decoded = (input: unknown) => {
  const exit = decodeConfigFile(input)
  if (Exit.isFailure(exit)) throw new Error(`expected success: ${String(Cause.squash(exit.cause))}`)
  return exit.value
}

/** `path: message` for each issue of a failed decode. */
const issues = (input: unknown): Array<string> => {
  const exit = decodeConfigFile(input)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = Cause.squash(exit.cause) as { issue: SchemaIssue.Issue }
  return SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues.map((i) =>
    `${(i.path ?? []).map(String).join(".")}: ${i.message}`
  )
}

const provider = { base_url: "http://x/v1" }

describe("config schema", () => {
  test("a full file decodes, with defaults filled where a whole unit merges", () => {
    const config = decoded({
      base_url: "http://localhost:1234/v1",
      api_key_cmd: ["pass", "show", "openai"],
      default: {
        model: "fast",
        reasoning_effort: "xhigh",
        system: "be brief",
        temperature: 2,
        top_p: 0,
        max_tokens: 1,
        mcp: ["fs"],
        max_tool_rounds: 3,
        skills: ["s"],
        subagents: ["a"],
        tools: ["rg"],
        render: true,
        history: false,
        cache: true,
        cache_ttl: 0,
        request_timeout: 30,
        compaction: { trigger_rounds: 2, model: "fast" },
        skill_progressive_disclosure: true,
        trace_spans: true
      },
      models: {
        fast: [
          {
            provider: { base_url: "https://a/v1", api_key: "${A_KEY}" },
            model_id: "m1",
            default_reasoning_effort: "low",
            default_temperature: 0.2,
            default_top_p: 0.9,
            default_max_tokens: 100,
            pricing: { input_per_1m: 0.5, output_per_1m: 1.5 },
            api: "responses"
          },
          { provider: { base_url: "https://b/v1", api_key_cmd: "op read x" }, model_id: "m2" }
        ]
      },
      mcp_servers: {
        fs: { command: "npx", args: ["-y", "server"], env: { A: "1" }, cwd: "/tmp" },
        web: { url: "https://mcp/x", headers: { Authorization: "Bearer ${T}" }, allowed_tools: [] }
      },
      skills: { s: "skills/s" },
      agents: { a: "agents/a.md" },
      prompts: { p: { template: "{{ input }}", model: "fast", vars: { lang: "en" } } },
      workflows: { w: "flows/w.yml" },
      tool_policy: { deny: ["*rm*"] },
      tools: { rg: { command: ["rg", "{{ input.pattern }}"], description: "search", env: { PATH: "/bin" } } },
      jev: { base_url: "https://jev", api_key: "k", anything_else: { nested: true } }
    })
    expect(config.default?.compaction).toEqual({ trigger_rounds: 2, model: "fast", keep_last_n: 4 })
    expect(config.default?.trace_spans).toBe(true)
    expect(config.default?.request_timeout).toBe(30)
    expect(config.tool_policy).toEqual({ allow: [], deny: ["*rm*"] })
    expect(config.tools?.["rg"]?.timeout).toBe(30)
    expect(config.tools?.["rg"]?.parameters).toEqual({ type: "object", properties: {} })
    expect(config.jev?.["anything_else"]).toEqual({ nested: true })
    // `default` fields stay absent when unset: merging works field by field.
    expect(decoded({ default: { model: "x" } }).default).toEqual({ model: "x" })
  })

  test("unknown keys are rejected at every level", () => {
    expect(issues({ bogus: 1 })).toEqual(["bogus: Expected no excess property"])
    expect(issues({ default: { temprature: 1 } })).toEqual(["default.temprature: Expected no excess property"])
    expect(issues({ default: { compaction: { trigger_rounds: 1, every: 2 } } })).toEqual([
      "default.compaction.every: Expected no excess property"
    ])
    expect(issues({ models: { m: [{ provider: { ...provider, token: "x" }, model_id: "m" }] } })).toEqual([
      "models.m.0.provider.token: Expected no excess property"
    ])
    expect(issues({ models: { m: [{ provider, model_id: "m", pricing: { input_per_1m: 1, output_per_1m: 1, cache: 1 } }] } }))
      .toEqual(["models.m.0.pricing.cache: Expected no excess property"])
    expect(issues({ mcp_servers: { s: { command: "x", transport: "stdio" } } })).toEqual([
      "mcp_servers.s.transport: Expected no excess property"
    ])
    expect(issues({ prompts: { p: { template: "t", system: "s" } } })).toEqual([
      "prompts.p.system: Expected no excess property"
    ])
    expect(issues({ tool_policy: { allow: [], ask: [] } })).toEqual(["tool_policy.ask: Expected no excess property"])
    expect(issues({ tools: { t: { command: ["x"], shell: true } } })).toEqual(["tools.t.shell: Expected no excess property"])
  })

  test("ranges and enums", () => {
    expect(issues({ default: { temperature: 2.1 } })).toEqual(["default.temperature: Expected a value between 0 and 2"])
    expect(issues({ default: { top_p: 1.5 } })).toEqual(["default.top_p: Expected a value between 0 and 1"])
    expect(issues({ default: { max_tokens: 0 } })).toEqual([
      "default.max_tokens: Expected a value greater than or equal to 1"
    ])
    expect(issues({ default: { max_tool_rounds: 1.5 } })).toEqual(["default.max_tool_rounds: Expected an integer"])
    expect(issues({ default: { cache_ttl: -1 } })).toEqual([
      "default.cache_ttl: Expected a value greater than or equal to 0"
    ])
    expect(issues({ default: { request_timeout: 0 } })).toEqual([
      "default.request_timeout: Expected a value greater than or equal to 1"
    ])
    expect(issues({ default: { compaction: { trigger_tokens: 0 } } })).toEqual([
      "default.compaction.trigger_tokens: Expected a value greater than or equal to 1"
    ])
    expect(issues({ default: { reasoning_effort: "max" } })[0]).toStartWith("default.reasoning_effort: Expected \"none\"")
    expect(issues({ models: { m: [{ provider, model_id: "m", api: "completions" }] } })).toEqual([
      "models.m.0.api: Expected \"chat_completions\" | \"responses\""
    ])
    expect(issues({ models: { m: [{ provider, model_id: "m", default_temperature: 3 }] } })).toEqual([
      "models.m.0.default_temperature: Expected a value between 0 and 2"
    ])
    expect(issues({ tools: { t: { command: ["x"], timeout: 0 } } })).toEqual([
      "tools.t.timeout: Expected a value greater than or equal to 1"
    ])
  })

  test("required and non-empty fields", () => {
    expect(issues({ models: { m: [] } })).toEqual(["models.m: Expected a value with a length of at least 1"])
    expect(issues({ models: { m: [{ provider, model_id: " " }] } })).toEqual(["models.m.0.model_id: must not be empty"])
    expect(issues({ models: { m: [{ provider: {}, model_id: "x" }] } })).toEqual([
      "models.m.0.provider.base_url: Missing key"
    ])
    expect(issues({ models: { m: [{ provider }] } })).toEqual(["models.m.0.model_id: Missing key"])
    expect(issues({ tools: { t: { command: [] } } })).toEqual(["tools.t.command: Expected a value with a length of at least 1"])
    expect(issues({ prompts: { p: {} } })).toEqual(["prompts.p.template: Missing key"])
    expect(issues({ api_key_cmd: [] })).toEqual(["api_key_cmd: Expected a value with a length of at least 1"])
    expect(issues({ api_key_cmd: 7 })).toEqual(["api_key_cmd: Expected string | array"])
    expect(issues({ tools: { t: { command: ["x"], parameters: [] } } })).toEqual(["tools.t.parameters: Expected object"])
    expect(issues("just a string")).toEqual([": Expected object"])
  })

  test("produces a JSON Schema document that closes every object", () => {
    const schema = configJsonSchema() as Record<string, any>
    expect(schema["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema")
    expect(schema["type"]).toBe("object")
    expect(schema["additionalProperties"]).toBe(false)
    expect(Object.keys(schema["properties"]).sort()).toEqual([
      "agents",
      "api_key",
      "api_key_cmd",
      "base_url",
      "default",
      "jev",
      "mcp_servers",
      "models",
      "prompts",
      "skills",
      "tool_policy",
      "tools",
      "workflows"
    ])
    expect(schema["properties"]["default"]["additionalProperties"]).toBe(false)
    expect(schema["properties"]["default"]["properties"]["temperature"]).toMatchObject({ minimum: 0, maximum: 2 })
    expect(schema["properties"]["default"]["properties"]["trace_spans"]).toMatchObject({ type: "boolean" })
    expect(schema["properties"]["default"]["properties"]["trace_content"]).toMatchObject({ type: "boolean" })
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema)
  })
})
