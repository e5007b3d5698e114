import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, test } from "bun:test"
import { Effect, Redacted } from "effect"
import { describeEndpointSources, type Endpoint, resolveEndpoints, type ResolveOptions } from "../../src/config/endpoints.ts"
import type { ConfigFile, ModelMap } from "../../src/config/schema.ts"
import type { Env } from "../../src/config/env.ts"
import { exitCodeOf, renderChain } from "../../src/core/errors.ts"
import { tempDir } from "./helpers.ts"

const resolve = (name: string, config: ConfigFile, env: Env = {}, options?: ResolveOptions) =>
  Effect.runPromise(resolveEndpoints(name, config, env, options))
const resolveError = (name: string, config: ConfigFile, env: Env = {}, options?: ResolveOptions) =>
  Effect.runPromise(Effect.flip(resolveEndpoints(name, config, env, options)))
const key = (endpoint: Endpoint) => Effect.runPromise(Effect.map(endpoint.apiKey, Redacted.value))
const keyError = (endpoint: Endpoint) => Effect.runPromise(Effect.flip(endpoint.apiKey)).then(renderChain)

const def = (base_url: string, model_id: string, extra: object = {}, provider: object = {}) => ({
  provider: { base_url, ...provider },
  model_id,
  ...extra
})

describe("base_url precedence", () => {
  const config: ConfigFile = {
    base_url: "http://top/v1/",
    models: { alias: [def("http://provider/v1", "alias-id")] }
  }

  test("default when nothing is set", async () => {
    const [e] = await resolve("raw-model", {})
    expect(e.baseUrl).toBe("http://localhost:1234/v1")
    expect(e.modelId).toBe("raw-model")
  })

  test("a raw model id uses the top-level base_url (trailing / trimmed)", async () => {
    const [e] = await resolve("raw-model", config)
    expect(e.baseUrl).toBe("http://top/v1")
    expect(e.alias).toBeUndefined()
  })

  test("alias provider.base_url > top-level", async () => {
    const [e] = await resolve("alias", config)
    expect(e.baseUrl).toBe("http://provider/v1")
    expect(e.modelId).toBe("alias-id")
    expect(e.alias).toBe("alias")
  })

  test("OPENAI_BASE_URL > alias provider", async () => {
    const [e] = await resolve("alias", config, { OPENAI_BASE_URL: "http://env/v1/" })
    expect([e.baseUrl, e.baseUrlSource]).toEqual(["http://env/v1", "env"])
  })

  test("--base-url > OPENAI_BASE_URL", async () => {
    const [e] = await resolve("alias", config, { OPENAI_BASE_URL: "http://env" }, { overrides: { baseUrl: "http://flag//" } })
    expect([e.baseUrl, e.baseUrlSource]).toEqual(["http://flag", "flag"])
  })

  test("an empty base URL is an error", async () => {
    expect(renderChain(await resolveError("m", { base_url: "///" }))).toBe("base URL must not be empty")
    expect(renderChain(await resolveError("m", {}, {}, { overrides: { baseUrl: "" } }))).toBe("base URL must not be empty")
  })

  test("${VAR} is expanded in the winning config value only", async () => {
    const withVars: ConfigFile = {
      base_url: "https://${TOP_HOST}/v1",
      models: { a: [def("https://${ALIAS_HOST}/v1", "a")] }
    }
    const [top] = await resolve("raw", withVars, { TOP_HOST: "top.example" })
    expect(top.baseUrl).toBe("https://top.example/v1")
    // The top-level value is shadowed by the alias, so its unset variable is never looked at.
    const [alias] = await resolve("a", withVars, { ALIAS_HOST: "alias.example" })
    expect(alias.baseUrl).toBe("https://alias.example/v1")
    // And an override shadows both.
    const [pinned] = await resolve("a", withVars, { OPENAI_BASE_URL: "http://env" })
    expect(pinned.baseUrl).toBe("http://env")
    expect(renderChain(await resolveError("raw", withVars))).toBe(
      "environment variable 'TOP_HOST' referenced by '${TOP_HOST}' is not set"
    )
  })

  test("overrides are not expanded (the shell already did that)", async () => {
    const [e] = await resolve("m", {}, {}, { overrides: { baseUrl: "http://${NOT_EXPANDED}" } })
    expect(e.baseUrl).toBe("http://${NOT_EXPANDED}")
  })
})

describe("API key precedence", () => {
  const dir = tempDir()
  const cmd = (name: string) => {
    const script = nodePath.join(dir, `${name}.sh`)
    fs.writeFileSync(script, `#!/bin/sh\nprintf ${name}\n`, { mode: 0o755 })
    return [script]
  }
  const full: ConfigFile = {
    api_key: "top-key",
    models: {
      a: [def("http://p", "a", {}, { api_key: "provider-key" })],
      c: [def("http://p", "c", {}, { api_key_cmd: cmd("provider-cmd") })],
      bare: [def("http://p", "bare")]
    }
  }

  test("--api-key > OPENAI_API_KEY > provider api_key", async () => {
    const [flag] = await resolve("a", full, { OPENAI_API_KEY: "env-key" }, { overrides: { apiKey: "flag-key" } })
    expect([flag.apiKeySource, await key(flag)]).toEqual(["flag", "flag-key"])
    const [env] = await resolve("a", full, { OPENAI_API_KEY: "env-key" })
    expect([env.apiKeySource, await key(env)]).toEqual(["env", "env-key"])
    const [provider] = await resolve("a", full)
    expect([provider.apiKeySource, await key(provider)]).toEqual(["provider", "provider-key"])
  })

  test("provider api_key_cmd > top-level api_key", async () => {
    const [e] = await resolve("c", full)
    expect([e.apiKeySource, await key(e)]).toEqual(["provider_cmd", "provider-cmd"])
  })

  test("top-level api_key > top-level api_key_cmd > none (the dummy key)", async () => {
    const [top] = await resolve("bare", full)
    expect([top.apiKeySource, await key(top)]).toEqual(["config", "top-key"])
    const { api_key: _, ...withoutTopKey } = full
    const [topCmd] = await resolve("bare", { ...withoutTopKey, api_key_cmd: cmd("top-cmd") })
    expect([topCmd.apiKeySource, await key(topCmd)]).toEqual(["config_cmd", "top-cmd"])
    const [none] = await resolve("bare", { models: full.models! })
    expect([none.apiKeySource, await key(none)]).toEqual(["none", "lm-studio"])
    const [raw] = await resolve("gpt-raw", full)
    expect([raw.apiKeySource, await key(raw)]).toEqual(["config", "top-key"])
  })

  test("an empty OPENAI_API_KEY / OPENAI_BASE_URL counts as unset", async () => {
    const [e] = await resolve("a", full, { OPENAI_API_KEY: "", OPENAI_BASE_URL: "" })
    expect([e.apiKeySource, e.baseUrl]).toEqual(["provider", "http://p"])
  })

  test("keys are Redacted and expanded lazily, with secrets kept out of errors", async () => {
    const config: ConfigFile = { api_key: "${LAIT_KEY}", models: { a: [def("http://p", "a", {}, { api_key: "sk-part${" })] } }
    const [top] = await resolve("raw", config, { LAIT_KEY: "sk-expanded" })
    const secret = await Effect.runPromise(top.apiKey)
    expect(String(secret)).not.toContain("sk-expanded")
    expect(Redacted.value(secret)).toBe("sk-expanded")
    // Resolution succeeds; the bad key only fails when it is needed, and never quotes itself.
    const [bad] = await resolve("a", config)
    const message = await keyError(bad)
    expect(message).toBe(`unterminated '\${' placeholder in "<redacted>"`)
    const [unset] = await resolve("raw", config)
    expect(await keyError(unset)).toBe("environment variable 'LAIT_KEY' referenced by '${LAIT_KEY}' is not set")
  })

  test("a Redacted override stays Redacted", async () => {
    const [e] = await resolve("m", {}, {}, { overrides: { apiKey: Redacted.make("flag-secret") } })
    expect(await key(e)).toBe("flag-secret")
  })
})

describe("aliases and fallbacks", () => {
  const models: ModelMap = {
    smart: [
      def("http://primary/v1", "big", {
        default_reasoning_effort: "high",
        default_temperature: 0.3,
        default_top_p: 0.8,
        default_max_tokens: 512,
        pricing: { input_per_1m: 1, output_per_1m: 2 },
        api: "responses"
      }, { api_key: "primary-key" }),
      def("http://fallback-1/v1/", "medium", { default_temperature: 1.5, api: "chat_completions" }),
      def("http://fallback-2/v1", "small", {}, { api_key: "fb2-key" })
    ]
  }
  const config: ConfigFile = { api_key: "top-key", models }

  test("primary first, then fallbacks in order; each with its own base_url and key layers", async () => {
    const endpoints = await resolve("smart", config)
    expect(endpoints.map((e) => [e.index, e.baseUrl, e.modelId, e.apiKeySource])).toEqual([
      [0, "http://primary/v1", "big", "provider"],
      [1, "http://fallback-1/v1", "medium", "config"],
      [2, "http://fallback-2/v1", "small", "provider"]
    ])
    expect(await Promise.all(endpoints.map(key))).toEqual(["primary-key", "top-key", "fb2-key"])
  })

  test("sampling defaults, pricing and api come from the primary; the fallbacks' own are ignored", async () => {
    const endpoints = await resolve("smart", config)
    for (const e of endpoints) {
      expect(e.sampling).toEqual({ reasoningEffort: "high", temperature: 0.3, topP: 0.8, maxTokens: 512 })
      expect(e.pricing).toEqual({ input_per_1m: 1, output_per_1m: 2 })
      expect(e.api).toBe("responses")
    }
  })

  test("a raw id (or an alias without defaults) has no sampling defaults and uses chat_completions", async () => {
    const [raw] = await resolve("not-an-alias", config)
    expect([raw.sampling, raw.pricing, raw.api]).toEqual([{}, undefined, "chat_completions"])
  })

  test("--base-url or --api-key pin a single endpoint", async () => {
    expect((await resolve("smart", config)).length).toBe(3)
    expect(await resolve("smart", config, {}, { overrides: { baseUrl: "http://flag" } })).toHaveLength(1)
    const [flagKey] = await resolve("smart", config, {}, { overrides: { apiKey: "k" } })
    expect([flagKey.baseUrl, flagKey.modelId]).toEqual(["http://primary/v1", "big"])
    expect(await resolve("smart", config, {}, { overrides: { apiKey: "k" } })).toHaveLength(1)
  })

  test("OPENAI_BASE_URL / OPENAI_API_KEY apply to the primary and keep the fallbacks", async () => {
    const env = { OPENAI_BASE_URL: "http://env/v1/", OPENAI_API_KEY: "env-key" }
    const endpoints = await resolve("smart", config, env)
    expect(endpoints.map((e) => [e.baseUrl, e.baseUrlSource, e.modelId, e.apiKeySource])).toEqual([
      ["http://env/v1", "env", "big", "env"],
      // A fallback's provider key beats the environment's; without one, the environment's beats the top level.
      ["http://fallback-1/v1", "provider", "medium", "env"],
      ["http://fallback-2/v1", "provider", "small", "provider"]
    ])
    expect(await Promise.all(endpoints.map(key))).toEqual(["env-key", "env-key", "fb2-key"])
    // Either variable alone keeps the fallbacks too; a key alone leaves every base URL as configured.
    const keyOnly = await resolve("smart", config, { OPENAI_API_KEY: "env-key" })
    expect(keyOnly.map((e) => [e.baseUrl, e.apiKeySource])).toEqual([
      ["http://primary/v1", "env"],
      ["http://fallback-1/v1", "env"],
      ["http://fallback-2/v1", "provider"]
    ])
    const urlOnly = await resolve("smart", config, { OPENAI_BASE_URL: "http://env" })
    expect(urlOnly.map((e) => [e.baseUrl, e.baseUrlSource, e.apiKeySource])).toEqual([
      ["http://env", "env", "provider"],
      ["http://fallback-1/v1", "provider", "config"],
      ["http://fallback-2/v1", "provider", "provider"]
    ])
    // The flags still pin, whatever the environment holds.
    const flagged = await resolve("smart", config, env, { overrides: { apiKey: "flag-key" } })
    expect(flagged.map((e) => [e.baseUrl, e.baseUrlSource, e.apiKeySource])).toEqual([["http://env/v1", "env", "flag"]])
  })

  test("describeEndpointSources names where the base URL and the key came from, never the key", async () => {
    const endpoints = await resolve("smart", config, { OPENAI_API_KEY: "env-key" })
    expect(endpoints.map((e) => describeEndpointSources("smart", e))).toEqual([
      "model 'smart': primary 'big' at 'http://primary/v1': base URL from provider.base_url, API key from OPENAI_API_KEY",
      "model 'smart': fallback #1 'medium' at 'http://fallback-1/v1': base URL from provider.base_url, API key from OPENAI_API_KEY",
      "model 'smart': fallback #2 'small' at 'http://fallback-2/v1': base URL from provider.base_url, API key from provider.api_key"
    ])
    const [raw] = await resolve("gpt-raw", {})
    expect(describeEndpointSources("gpt-raw", raw)).toBe(
      "model 'gpt-raw': primary 'gpt-raw' at 'http://localhost:1234/v1': base URL from the default, API key from nowhere (the dummy key is sent)"
    )
  })

  test("a fallback's unset ${VAR} in base_url is an error at resolution", async () => {
    const withVar: ConfigFile = { models: { a: [def("http://p", "a"), def("http://${FB_HOST}", "b")] } }
    expect(renderChain(await resolveError("a", withVar))).toContain("'FB_HOST'")
    expect(await resolve("a", withVar, { FB_HOST: "fb" })).toHaveLength(2)
  })

  test("workflow models: win over config models of the same name", async () => {
    const workflowModels: ModelMap = { smart: [def("http://workflow/v1", "wf-model")] }
    const endpoints = await resolve("smart", config, {}, { workflowModels })
    expect(endpoints.map((e) => [e.baseUrl, e.modelId])).toEqual([["http://workflow/v1", "wf-model"]])
    // A name only the config knows still resolves through the config.
    const [other] = await resolve("smart", config, {}, { workflowModels: { other: workflowModels["smart"]! } })
    expect(other.modelId).toBe("big")
  })

  test("workflow model entries are checked when used", async () => {
    const both = await resolveError("w", {}, {}, {
      workflowModels: { w: [def("http://p", "m", {}, { api_key: "k", api_key_cmd: "x" })] }
    })
    expect(both).toMatchObject({ _tag: "ConfigError", reason: { _tag: "BothApiKeys" } })
    expect(renderChain(both)).toBe("model definition \"w\" sets both 'api_key' and 'api_key_cmd'; set exactly one")
    expect(exitCodeOf(both)).toBe(3)
    const blank = await resolveError("w", {}, {}, { workflowModels: { w: [def("http://p", "m"), def("http://p", " ")] } })
    expect(renderChain(blank)).toBe("model_id in model definition \"w\"'s fallback entry #2 must not be empty")
    const empty = await resolveError("w", {}, {}, { workflowModels: { w: [] } })
    expect(renderChain(empty)).toBe("model definition \"w\" must contain at least one entry")
  })

  test("an empty model name is an error", async () => {
    expect(renderChain(await resolveError(" ", config))).toBe("model name must not be empty")
  })
})

describe("api_key_cmd through an endpoint", () => {
  test("runs only when the key is requested, in the resolver's environment, with its options", async () => {
    const dir = tempDir()
    const marker = nodePath.join(dir, "ran")
    const config: ConfigFile = { api_key_cmd: `touch '${marker}'; printf '%s' "$LAIT_SECRET_SOURCE"` }
    const env: Env = { LAIT_SECRET_SOURCE: "from-env", PATH: process.env["PATH"] }
    const [e] = await resolve("m", config, env)
    expect(fs.existsSync(marker)).toBe(false)
    expect(await key(e)).toBe("from-env")
    expect(fs.existsSync(marker)).toBe(true)
    const slow: ConfigFile = { api_key_cmd: "sleep 5" }
    const [s] = await resolve("m", slow, env, { apiKeyCmd: { timeoutMillis: 200 } })
    expect(await keyError(s)).toBe("api_key_cmd timed out after 200ms")
  })
})

describe("provider headers", () => {
  const config: ConfigFile = {
    models: {
      gw: [
        def("http://gw/v1", "m1", {}, { headers: { "X-Portkey-Provider": "openai", "X-Token": "${TOKEN}" } }),
        def("http://fb/v1", "m2", {}, { headers: { "X-Own": "fb" } })
      ]
    }
  }

  test("each entry has its own, names in lower case, ${VAR} expanded; --header goes to the primary and replaces by name", async () => {
    const [primary, fallback] = await resolve("gw", config, { TOKEN: "tok" }, {
      overrides: { headers: [["x-token", "flag"], ["X-Extra", "1"]] }
    })
    expect(primary.headers).toEqual({ "x-portkey-provider": "openai", "x-token": "flag", "x-extra": "1" })
    expect(fallback?.headers).toEqual({ "x-own": "fb" })
    expect(describeEndpointSources("gw", primary)).toEndWith(", headers x-portkey-provider, x-token, x-extra")
  })

  test("a raw model id takes --header alone; no headers at all leaves the field out", async () => {
    const [raw] = await resolve("raw", {}, {}, { overrides: { headers: [["X-A", "b"]] } })
    expect(raw.headers).toEqual({ "x-a": "b" })
    const [plain] = await resolve("raw", {})
    expect("headers" in plain).toBe(false)
  })

  test("an unset variable or a header that cannot be sent fails, naming the definition, never the value", async () => {
    expect(renderChain(await resolveError("gw", config))).toBe(
      "environment variable 'TOKEN' referenced by '${TOKEN}' is not set"
    )
    const bad = (headers: Record<string, string>) =>
      resolveError("x", { models: { x: [def("http://gw/v1", "m", {}, {}), def("http://fb/v1", "m", {}, { headers })] } })
    const line = renderChain(await bad({ "X-Token": "secret\r\nInjected: yes" }))
    expect(line).toBe(
      "model definition \"x\"'s fallback entry #2 has a header that cannot be sent: the value of 'X-Token' holds a line break or a NUL"
    )
    expect(renderChain(await bad({ host: "elsewhere" }))).toEndWith("'host' is set by lait itself")
    expect(exitCodeOf(await bad({ "a b": "c" }))).toBe(3)
  })
})
