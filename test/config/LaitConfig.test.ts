import * as nodePath from "node:path"
import { describe, expect, test } from "bun:test"
import { Effect, Layer, Redacted } from "effect"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import { redactedConfig } from "../../src/config/redacted.ts"
import type { ConfigFile } from "../../src/config/schema.ts"
import type { Env } from "../../src/config/env.ts"
import { renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { tempDir, writeTree } from "./helpers.ts"

const use = <A, E, E2>(
  layer: Layer.Layer<LaitConfig, E, FileLoader>,
  f: (c: LaitConfig["Service"]) => Effect.Effect<A, E2>
) => Effect.runPromise(Effect.provide(LaitConfig.use(f), layer.pipe(Layer.provide(FileLoader.layer))))

describe("LaitConfig service", () => {
  test("layer: loads .env then the files, and resolves endpoints with that environment", async () => {
    const root = tempDir()
    writeTree(root, {
      "xdg/lait/config.yml": "base_url: http://global/v1\n",
      "proj/lait.config.yml": "models:\n  fast: [{ provider: { base_url: '${FAST_URL}' }, model_id: f }]\n",
      "proj/.env": "FAST_URL=http://from-dotenv/v1\nOPENAI_API_KEY=dotenv-key\n"
    })
    const env: Env = { XDG_CONFIG_HOME: nodePath.join(root, "xdg") }
    const layer = LaitConfig.layer({ cwd: nodePath.join(root, "proj"), noConfig: false, noEnv: false, env })
    const result = await use(layer, (c) =>
      Effect.gen(function*() {
        const [fast] = yield* c.resolveEndpoints("fast")
        const [raw] = yield* c.resolveEndpoints("raw-id")
        return {
          files: c.files,
          fast: [fast.baseUrl, fast.apiKeySource, Redacted.value(yield* fast.apiKey)],
          raw: raw.baseUrl,
          expanded: yield* c.expand("${FAST_URL}/x")
        }
      }))
    expect(result.files).toEqual([
      nodePath.join(root, "xdg/lait/config.yml"),
      nodePath.join(root, "proj/lait.config.yml")
    ])
    // OPENAI_API_KEY from .env counts as the environment's: it wins over the config's keys.
    expect(result.fast).toEqual(["http://from-dotenv/v1", "env", "dotenv-key"])
    expect(result.raw).toBe("http://global/v1")
    expect(result.expanded).toBe("http://from-dotenv/v1/x")
  })

  test("layer fails with the load error", async () => {
    const root = tempDir()
    writeTree(root, { "lait.config.yml": "default: { temperature: 9 }\n" })
    const layer = LaitConfig.layer({ cwd: root, noConfig: false, noEnv: true, env: {} })
    const error = await Effect.runPromise(Effect.flip(Effect.provide(LaitConfig.use(() => Effect.void), layer.pipe(Layer.provide(FileLoader.layer)))))
    expect(renderChain(error)).toContain("default.temperature: expected a value between 0 and 2 (line 1)")
  })

  test("apiKeyCmd options reach api_key_cmd, which runs in the config's cwd", async () => {
    const root = tempDir()
    writeTree(root, { "lait.config.yml": "api_key_cmd: sleep 5\nmodels:\n  p: [{ provider: { base_url: x, api_key_cmd: pwd }, model_id: p }]\n" })
    const layer = LaitConfig.layer({
      cwd: root,
      noConfig: false,
      noEnv: true,
      env: { PATH: process.env["PATH"] },
      apiKeyCmd: { timeoutMillis: 150 }
    })
    const [slow, cwd] = await use(layer, (c) =>
      Effect.gen(function*() {
        const [raw] = yield* c.resolveEndpoints("raw")
        const [p] = yield* c.resolveEndpoints("p")
        return [
          yield* Effect.flip(raw.apiKey).pipe(Effect.map(renderChain)),
          Redacted.value(yield* p.apiKey)
        ] as const
      }))
    expect(slow).toBe("api_key_cmd timed out after 150ms")
    expect(cwd).toBe(root)
  })

  test("layerFrom takes options computed by an effect", async () => {
    const root = tempDir()
    writeTree(root, { "lait.config.yml": "base_url: http://p\n", "other.yml": "base_url: http://other\n" })
    const layer = LaitConfig.layerFrom(
      Effect.succeed({ cwd: root, configPath: "other.yml", noConfig: false, noEnv: true, env: {} })
    )
    expect(await use(layer, (c) => Effect.succeed(c.config.base_url))).toBe("http://other")
  })

  test("layerTest serves an in-memory config", async () => {
    const layer = LaitConfig.layerTest({ base_url: "http://mem/v1" }, { env: { OPENAI_API_KEY: "k" } })
    const [e] = await use(layer, (c) => c.resolveEndpoints("m"))
    expect([e.baseUrl, e.apiKeySource]).toEqual(["http://mem/v1", "env"])
  })
})

test("redactedConfig replaces every api_key and nothing else", () => {
  const config: ConfigFile = {
    api_key: "top-secret",
    base_url: "http://x",
    models: {
      a: [
        { provider: { base_url: "http://a", api_key: "provider-secret" }, model_id: "a" },
        { provider: { base_url: "http://b", api_key_cmd: ["pass", "b"] }, model_id: "b" }
      ]
    },
    jev: { base_url: "http://j", api_key: "jev-secret" }
  }
  const shown = redactedConfig(config)
  expect(JSON.stringify(shown)).not.toMatch(/top-secret|provider-secret|jev-secret/)
  expect(shown).toEqual({
    api_key: "<redacted>",
    base_url: "http://x",
    models: {
      a: [
        { provider: { base_url: "http://a", api_key: "<redacted>" }, model_id: "a" },
        { provider: { base_url: "http://b", api_key_cmd: ["pass", "b"] }, model_id: "b" }
      ]
    },
    jev: { base_url: "http://j", api_key: "<redacted>" }
  })
  expect(config.api_key).toBe("top-secret")
  expect(redactedConfig({})).toEqual({})
})

test("redactedConfig masks MCP header and env values, tool env values and URL credentials, keeping ${VAR}s unexpanded", () => {
  const config: ConfigFile = {
    base_url: "https://me:pw-top@h/v1?api-version=1&api-key=k-top",
    models: { a: [{ provider: { base_url: "https://h/v1?key=${AZ_KEY}" }, model_id: "a" }] },
    mcp_servers: {
      web: { url: "https://h/mcp?token=t-mcp", headers: { Authorization: "Bearer lit-header", "X-Env": "${TOK}" } },
      local: { command: "srv", args: ["--port", "1"], env: { SECRET: "lit-env", OTHER: "${TOK}" } }
    },
    tools: { t: { command: ["echo"], parameters: {}, timeout: 30, env: { TOOL_SECRET: "lit-tool" } } },
    jev: { base_url: "https://u:pw-jev@j" }
  }
  const shown = redactedConfig(config)
  expect(JSON.stringify(shown)).not.toMatch(/pw-top|k-top|t-mcp|lit-header|lit-env|lit-tool|pw-jev/)
  expect(shown).toEqual({
    base_url: "https://me:<redacted>@h/v1?api-version=1&api-key=<redacted>",
    models: { a: [{ provider: { base_url: "https://h/v1?key=<redacted>" }, model_id: "a" }] },
    mcp_servers: {
      web: { url: "https://h/mcp?token=<redacted>", headers: { Authorization: "<redacted>", "X-Env": "<redacted>" } },
      local: { command: "srv", args: ["--port", "1"], env: { SECRET: "<redacted>", OTHER: "<redacted>" } }
    },
    tools: { t: { command: ["echo"], parameters: {}, timeout: 30, env: { TOOL_SECRET: "<redacted>" } } },
    jev: { base_url: "https://u:<redacted>@j" }
  })
  expect(config.mcp_servers?.["web"]?.headers?.["Authorization"]).toBe("Bearer lit-header")
})
