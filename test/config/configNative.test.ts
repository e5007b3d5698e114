// The native decoder of config files (src/config/configNative.ts) against the config schema: whatever
// it accepts, the schema decodes to the same value with the same key order; whatever the schema
// rejects, it leaves to the schema. Hand-written files, every config file of the repository (and
// every YAML block of the docs, every YAML string of the tests: most are not configs, which is the
// point), then random ones. Last, what a config load evaluates: a plain file never the schema.
import { describe, expect, test } from "bun:test"
import { Exit } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { nativeConfigFile } from "../../src/config/configNative.ts"
import { decodeConfigFile } from "../../src/config/schema.ts"
import { parseYamlTree } from "../../src/core/yamlTree.ts"
import { randomConfigValues } from "../fixtures/randomConfig.ts"
import { repositoryYamlTexts } from "../fixtures/repoYaml.ts"
import { runSourceProbe } from "../fixtures/sourceProbe.ts"

const repo = path.resolve(import.meta.dir, "../..")

const agree = (value: unknown): "native" | "schema" => {
  const native = nativeConfigFile(value)
  if (native === undefined) return "schema"
  const schema = decodeConfigFile(value)
  if (Exit.isFailure(schema)) throw new Error(`native accepted what the schema rejects: ${JSON.stringify(value)}`)
  expect(native).toEqual(schema.value)
  expect(JSON.stringify(native)).toBe(JSON.stringify(schema.value))
  return "native"
}

/** A config file's value as checkConfigText gives it to the decoders; undefined when it is not a mapping. */
const fromYaml = (text: string): unknown => {
  const parsed = parseYamlTree(text)
  if (!parsed.ok) return undefined
  try {
    const raw = parsed.tree.toJS(parsed.tree.root, 1000) ?? {}
    return typeof raw === "object" && !Array.isArray(raw) ? raw : undefined
  } catch {
    return undefined
  }
}

describe("nativeConfigFile", () => {
  const accepted: ReadonlyArray<string> = [
    "",
    "# only a comment\n",
    "models:\n  m:\n    - provider: { base_url: 'http://127.0.0.1:1/v1' }\n      model_id: bench-model\n",
    "base_url: http://x/v1\napi_key: ${KEY}\ndefault: { model: m }\n",
    "api_key_cmd: [pass, show, k]\nbase_url: u\n",
    "api_key_cmd: pass show k\n",
    // Keys in another order than the schema's; defaults filled in.
    "models:\n  b:\n    - model_id: x\n      api: responses\n      provider: { api_key: k, base_url: u, api_key_cmd: [a] }\n" +
    "    - { provider: { base_url: v }, model_id: y, default_temperature: 2, default_top_p: 0, pricing: { output_per_1m: 1.5, input_per_1m: 0 } }\n" +
    "  a: [{ provider: { base_url: w }, model_id: z, default_reasoning_effort: xhigh, default_max_tokens: 1 }]\n" +
    "api_key: k\nbase_url: b\n",
    "default:\n  trace_content: true\n  tools: [a]\n  model: m\n  compaction: { model: z, trigger_rounds: 3 }\n  cache_ttl: 0\n" +
    "  temperature: 0.5\n  request_timeout: 9\n  history: false\n  render: true\n  system: be brief\n",
    "tool_policy: { deny: ['*delete*'] }\nskills: { s: ./s }\nagents: { a: ./a.md }\nworkflows: { w: ./w.yml }\n",
    "mcp_servers:\n  fs: { args: ['-y', x], command: npx, env: { A: b }, allowed_tools: [] }\n  web: { url: 'http://x', headers: { H: v } }\n",
    "prompts:\n  p: { vars: { a: b }, template: 'hi {{x}}', model: m }\n",
    // Valid for the schema but broken by a cross-field rule: semanticProblems, run on either, reports it.
    "api_key: a\napi_key_cmd: b\nmcp_servers: { x: {} }\n",
    "models:\n  '1': [{ provider: { base_url: u }, model_id: y }]\n  z: [{ provider: { base_url: u }, model_id: y }]\n"
  ]
  for (const text of accepted) {
    test(`decodes as the schema does: ${JSON.stringify(text.slice(0, 60))}`, () => {
      expect(agree(fromYaml(text))).toBe("native")
    })
  }

  const declined: ReadonlyArray<string> = [
    "bogus: 1\n",
    "tools: { wc: { command: [wc] } }\n",
    "jev: { base_url: u }\n",
    "base_url: 3\n",
    "base_url: null\n",
    "default: null\n",
    "default: { temperature: 2.5 }\n",
    "default: { top_p: -0.1 }\n",
    "default: { max_tokens: 0 }\n",
    "default: { max_tokens: 1.5 }\n",
    "default: { max_tokens: 9007199254740992 }\n",
    "default: { cache_ttl: -1 }\n",
    "default: { reasoning_effort: extreme }\n",
    "default: { render: 'yes' }\n",
    "default: { tools: [1] }\n",
    "default: { compaction: { keep_last_n: -1 } }\n",
    "default: { compaction: { other: 1 } }\n",
    "api_key_cmd: []\n",
    "api_key_cmd: [a, 1]\n",
    "models: { m: [] }\n",
    "models: { m: { provider: { base_url: u }, model_id: x } }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: '  ' }] }\n",
    "models: { m: [{ provider: { base_url: u } }] }\n",
    "models: { m: [{ provider: {}, model_id: x }] }\n",
    "models: { m: [{ provider: { base_url: u, extra: 1 }, model_id: x }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, api: other }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, pricing: { input_per_1m: 1 } }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, default_temperature: .inf }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, default_top_p: .nan }] }\n",
    "mcp_servers: { x: { env: { A: 1 } } }\n",
    "prompts: { p: { model: m } }\n",
    "tool_policy: { allow: x }\n",
    "skills: { s: [a] }\n",
    "__proto__: { base_url: u }\n"
  ]
  for (const text of declined) {
    test(`leaves to the schema: ${JSON.stringify(text)}`, () => {
      expect(agree(fromYaml(text))).toBe("schema")
    })
  }

  test("not a plain object: left to the schema", () => {
    expect(nativeConfigFile(Object.assign(Object.create(null), { base_url: "u" }))).toBeUndefined()
    expect(nativeConfigFile(null)).toBeUndefined()
    expect(nativeConfigFile([])).toBeUndefined()
  })

  test("every config file, docs YAML block and test YAML string of the repository", () => {
    const texts = repositoryYamlTexts()
    const init = fs.readFileSync(path.join(repo, "src/cli/init.ts"), "utf8")
    texts.push(/const CONFIG_STARTER = `([^`]*)`/.exec(init)![1]!.replaceAll("\\$", "$"))
    const outcomes = { native: 0, schema: 0 }
    for (const text of texts) {
      const value = fromYaml(text)
      if (value !== undefined) outcomes[agree(value)]++
    }
    // Both outcomes are exercised: the configs of the docs and the tests, and everything else.
    expect(outcomes.native).toBeGreaterThan(50)
    expect(outcomes.schema).toBeGreaterThan(200)
  })

  test("random files: the same value whenever it decides", () => {
    const { int, pick, odd, str, num, bool, list, map, command, struct, models } = randomConfigValues(20261203)
    const defaults = struct({
      model: str, reasoning_effort: () => pick(["none", "high", "max"]), system: str, temperature: num, top_p: num,
      max_tokens: num, mcp: list, max_tool_rounds: num, skills: list, subagents: list, tools: list, render: bool,
      history: bool, cache: bool, cache_ttl: num, request_timeout: num, skill_progressive_disclosure: bool,
      trace_spans: bool, trace_content: bool,
      compaction: struct({ trigger_rounds: num, trigger_tokens: num, keep_last_n: num, model: str })
    })
    const records = (value: () => unknown) => () =>
      int(10) === 0 ? odd() : Object.fromEntries(Array.from({ length: int(3) }, () => [pick(["x", "y"]), value()]))
    const top = struct({
      base_url: str, api_key: str, api_key_cmd: command, default: defaults, models,
      mcp_servers: records(struct({ command: str, args: list, env: map, cwd: str, url: str, headers: map, allowed_tools: list })),
      skills: map, agents: map, workflows: map,
      prompts: records(struct({ template: str, model: str, vars: map }, ["template"])),
      tool_policy: struct({ allow: list, deny: list }),
      tools: records(struct({ command: list }, ["command"])),
      jev: struct({ base_url: str })
    })
    const outcomes = { native: 0, schema: 0 }
    for (let i = 0; i < 600; i++) outcomes[agree(top())]++
    expect(outcomes.native).toBeGreaterThan(40)
    expect(outcomes.schema).toBeGreaterThan(200)
  })
})

/** Which config modules loading `text` as a config file evaluates, in a fresh process. */
const configModulesFor = (text: string): Array<string> =>
  runSourceProbe(/\/src\/config\/.*\.ts$/, (dir) =>
    `const { Effect } = await import(${JSON.stringify(Bun.resolveSync("effect", repo))})
const { checkConfigText } = await import(${JSON.stringify(path.join(repo, "src/config/load.ts"))})
await Effect.runPromiseExit(checkConfigText(${JSON.stringify(path.join(dir, "lait.config.yml"))}, ${JSON.stringify(text)}))
console.log(JSON.stringify(sources.filter((s) => /schema/i.test(s)).sort()))
`)

test("a plain config file never evaluates the config schema; one outside the subset, or an invalid one, does", () => {
  const plain = "models:\n  m: [{ provider: { base_url: 'http://x/v1' }, model_id: m }]\ndefault: { model: m }\n"
  expect(configModulesFor(plain)).toEqual([])
  const schema = ["src/config/modelSchema.ts", "src/config/schema.ts"]
  expect(configModulesFor("tools: { wc: { command: [wc] } }\n")).toEqual(schema)
  expect(configModulesFor("default: { temperature: 9 }\n")).toEqual(schema)
}, 60_000)
