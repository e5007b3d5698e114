// A workflow's `models:` decoded natively (src/config/configNative.ts nativeModels) against the schema
// decoder the loader used for every file with `models:` (src/lang/load/models.ts): whatever the native
// decoder accepts, the schema decodes to the same value with the same key order; whatever the schema
// rejects, it leaves to the schema, which words the error. Hand-written values, every `models:` of the
// repository's YAML (examples, fixtures, docs, the tests' inline files), then random ones.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { nativeModels } from "../../src/config/configNative.ts"
import { parseYamlTree } from "../../src/core/yamlTree.ts"
import { decodeModels } from "../../src/lang/load/models.ts"
import { randomConfigValues } from "../fixtures/randomConfig.ts"
import { repositoryYamlTexts } from "../fixtures/repoYaml.ts"

const repo = path.resolve(import.meta.dir, "../..")

const agree = (value: unknown): "native" | "schema" => {
  const native = nativeModels(value)
  const schema = decodeModels(value)
  if (native === undefined) return "schema"
  if (!schema.ok) throw new Error(`native accepted what the schema rejects: ${JSON.stringify(value)}`)
  expect(native).toEqual(schema.value)
  expect(JSON.stringify(native)).toBe(JSON.stringify(schema.value))
  return "native"
}

/** The `models:` of a YAML file (workflow or config), when it has one. */
const modelsOf = (text: string): unknown => {
  const parsed = parseYamlTree(text)
  if (!parsed.ok) return undefined
  try {
    const raw = parsed.tree.toJS(parsed.tree.root, 1000) as unknown
    return typeof raw === "object" && raw !== null && !Array.isArray(raw) && "models" in raw ? raw.models : undefined
  } catch {
    return undefined
  }
}

describe("nativeModels", () => {
  const accepted: ReadonlyArray<string> = [
    "models: {}\n",
    "models:\n  local:\n    - provider: { base_url: 'http://localhost:1234/v1' }\n      model_id: qwen2.5-7b-instruct\n",
    // Keys in another order than the schema's, fallbacks, every optional field.
    "models:\n  b:\n    - model_id: x\n      api: responses\n      provider: { api_key: k, base_url: u, api_key_cmd: [a] }\n" +
    "    - { provider: { base_url: v }, model_id: y, default_temperature: 2, default_top_p: 0, pricing: { output_per_1m: 1.5, input_per_1m: 0 } }\n" +
    "  a: [{ provider: { base_url: w, api_key_cmd: 'pass k' }, model_id: z, default_reasoning_effort: xhigh, default_max_tokens: 1 }]\n",
    "models:\n  '1': [{ provider: { base_url: u }, model_id: y }]\n  z: [{ provider: { base_url: u }, model_id: y }]\n"
  ]
  for (const text of accepted) {
    test(`decodes as the schema does: ${JSON.stringify(text.slice(0, 60))}`, () => {
      expect(agree(modelsOf(text))).toBe("native")
    })
  }

  const declined: ReadonlyArray<string> = [
    "models: null\n",
    "models: []\n",
    "models: { m: [] }\n",
    "models: { m: { provider: { base_url: u }, model_id: x } }\n",
    "models: { m: [{ model: x, provider: { base_url: u } }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: '  ' }] }\n",
    "models: { m: [{ provider: { base_url: u } }] }\n",
    "models: { m: [{ provider: {}, model_id: x }] }\n",
    "models: { m: [{ provider: { base_url: u, extra: 1 }, model_id: x }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, temprature: 1 }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, api: other }] }\n",
    "models: { m: [{ provider: { base_url: u, api_key_cmd: [] }, model_id: x }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, pricing: { input_per_1m: 1 } }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, pricing: { input_per_1m: -1, output_per_1m: 1 } }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, default_temperature: .inf }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, default_top_p: 1.5 }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, default_max_tokens: 0 }] }\n",
    "models: { m: [{ provider: { base_url: u }, model_id: x, default_reasoning_effort: max }] }\n"
  ]
  for (const text of declined) {
    test(`leaves to the schema: ${JSON.stringify(text)}`, () => {
      const value = modelsOf(text)
      expect(agree(value)).toBe("schema")
      expect(decodeModels(value).ok).toBe(false)
    })
  }

  test("not a plain object, or a `__proto__` alias: left to the schema", () => {
    expect(agree(modelsOf("models: { __proto__: [{ provider: { base_url: u }, model_id: x }] }\n"))).toBe("schema")
    expect(nativeModels(Object.assign(Object.create(null), { m: [] }))).toBeUndefined()
    expect(nativeModels(undefined)).toBeUndefined()
  })

  test("every `models:` of the repository's YAML: workflows, configs, docs, the tests' inline files", () => {
    const texts = repositoryYamlTexts()
    const outcomes = { native: 0, schema: 0 }
    for (const text of texts) {
      const value = modelsOf(text)
      if (value !== undefined) outcomes[agree(value)]++
    }
    expect(outcomes.native).toBeGreaterThan(20)
    expect(outcomes.schema).toBeGreaterThan(5)
  })

  test("random values: the same value whenever it decides", () => {
    const { models } = randomConfigValues(20261204)
    const outcomes = { native: 0, schema: 0 }
    for (let i = 0; i < 2000; i++) outcomes[agree(models())]++
    expect(outcomes.native).toBeGreaterThan(40)
    expect(outcomes.schema).toBeGreaterThan(500)
  })
})
