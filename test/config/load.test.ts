import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, test } from "bun:test"
import {
  findProjectConfig,
  globalConfigPath,
  loadConfig,
  type LoadOptions,
  mergeConfigs,
  parseConfigText
} from "../../src/config/load.ts"
import type { Env } from "../../src/config/env.ts"
import { exitCodeOf, renderChain } from "../../src/core/errors.ts"
import { run, runError, tempDir, writeTree } from "./helpers.ts"

/** A home with an XDG global config dir and a project tree, both under one temp root. */
const setup = (files: Record<string, string>) => {
  const root = tempDir()
  writeTree(root, files)
  const env: Env = { HOME: nodePath.join(root, "home"), XDG_CONFIG_HOME: nodePath.join(root, "xdg") }
  return { root, env, at: (rel: string) => nodePath.join(root, rel) }
}

const load = (options: Partial<LoadOptions> & { cwd: string; env: Env }) =>
  run(loadConfig({ noConfig: false, noEnv: false, ...options }))

const loadError = (options: Partial<LoadOptions> & { cwd: string; env: Env }) =>
  runError(loadConfig({ noConfig: false, noEnv: false, ...options }))

describe("lookup", () => {
  test("walks up from the CWD; the nearest lait.config.yml wins", async () => {
    const { env, at } = setup({
      "proj/lait.config.yml": "default: { model: outer }\n",
      "proj/inner/lait.config.yml": "default: { model: inner }\n",
      "proj/inner/deep/er/.keep": ""
    })
    const nested = await load({ cwd: at("proj/inner/deep/er"), env })
    expect(nested.files).toEqual([at("proj/inner/lait.config.yml")])
    expect(nested.config.default?.model).toBe("inner")
    const outer = await load({ cwd: at("proj"), env })
    expect(outer.config.default?.model).toBe("outer")
  })

  test("only a regular file counts (a directory of that name is skipped; a symlink is followed)", async () => {
    const { env, at } = setup({ "proj/lait.config.yml": "default: { model: outer }\n", "proj/sub/x/.keep": "" })
    fs.mkdirSync(at("proj/sub/lait.config.yml"))
    expect(await run(findProjectConfig(at("proj/sub/x")))).toBe(at("proj/lait.config.yml"))
    fs.symlinkSync(at("proj/lait.config.yml"), at("proj/sub/x/lait.config.yml"))
    const loaded = await load({ cwd: at("proj/sub/x"), env })
    expect(loaded.files).toEqual([at("proj/sub/x/lait.config.yml")])
  })

  test("nothing found and no global file: empty config, no files", async () => {
    const { env, at } = setup({ "empty/.keep": "" })
    expect(await load({ cwd: at("empty"), env })).toMatchObject({ config: {}, files: [] })
  })

  test("global path: XDG_CONFIG_HOME, else HOME/.config; a relative XDG value is ignored", () => {
    expect(globalConfigPath({ XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/x/lait/config.yml")
    expect(globalConfigPath({ HOME: "/h" })).toBe("/h/.config/lait/config.yml")
    expect(globalConfigPath({ XDG_CONFIG_HOME: "rel", HOME: "/h" })).toBe("/h/.config/lait/config.yml")
    expect(globalConfigPath({ XDG_CONFIG_HOME: "" })).toBeUndefined()
  })
})

describe("which files load", () => {
  const files = {
    "xdg/lait/config.yml": "default: { model: global, temperature: 0.5 }\n",
    "home/.config/lait/config.yml": "default: { model: home-global }\n",
    "proj/lait.config.yml": "default: { model: project }\n",
    "proj/other.yml": "default: { model: explicit }\n"
  }

  test("search path: the global file is merged underneath the project file", async () => {
    const { env, at } = setup(files)
    const loaded = await load({ cwd: at("proj"), env })
    expect(loaded.files).toEqual([at("xdg/lait/config.yml"), at("proj/lait.config.yml")])
    expect(loaded.config.default).toEqual({ model: "project", temperature: 0.5 })
  })

  test("HOME/.config is used when XDG_CONFIG_HOME is unset; global alone when no project file", async () => {
    const { env, at } = setup({ ...files, "elsewhere/.keep": "" })
    const loaded = await load({ cwd: at("elsewhere"), env: { HOME: env["HOME"] } })
    expect(loaded.files).toEqual([at("home/.config/lait/config.yml")])
    expect(loaded.config.default?.model).toBe("home-global")
  })

  test("--config loads exactly that file (relative to the CWD): no search, no global", async () => {
    const { env, at } = setup(files)
    const loaded = await load({ cwd: at("proj"), env, configPath: "other.yml" })
    expect(loaded.files).toEqual([at("proj/other.yml")])
    expect(loaded.config.default).toEqual({ model: "explicit" })
  })

  test("--config with a missing file is an error", async () => {
    const { env, at } = setup(files)
    const error = await loadError({ cwd: at("proj"), env, configPath: "missing.yml" })
    expect(error).toMatchObject({ _tag: "ConfigError", reason: { _tag: "ReadFailed" } })
    expect(exitCodeOf(error)).toBe(1)
    expect(renderChain(error)).toBe(
      `failed to read YAML configuration file '${at("proj/missing.yml")}': no such file or directory`
    )
    expect(exitCodeOf(error)).toBe(1)
  })

  test("--no-config loads nothing even with project and global files present", async () => {
    const { env, at } = setup(files)
    expect(await load({ cwd: at("proj"), env, noConfig: true })).toMatchObject({ config: {}, files: [] })
  })

  test("a global path that is not a readable file is an error, not skipped", async () => {
    const { env, at } = setup({ "proj/.keep": "" })
    fs.mkdirSync(at("xdg/lait/config.yml"), { recursive: true })
    const error = await loadError({ cwd: at("proj"), env })
    expect(renderChain(error)).toBe(`failed to read YAML configuration file '${at("xdg/lait/config.yml")}': is a directory`)
  })
})

describe(".env", () => {
  test("sets unset variables but cannot point at another global config; set variables win", async () => {
    const { at } = setup({
      "proj/lait.config.yml": "base_url: http://project\n",
      "home/.config/lait/config.yml": "api_key_cmd: [print-key]\n",
      "dotenv-xdg/lait/config.yml": "api_key: global-key\n"
    })
    fs.writeFileSync(at("proj/.env"), `XDG_CONFIG_HOME=${at("dotenv-xdg")}\nLAIT_T=from-file\nKEEP=from-file\n`)
    const env: Env = { HOME: at("home"), KEEP: "from-shell" }
    const loaded = await load({ cwd: at("proj"), env })
    expect(loaded.files).toEqual([at("home/.config/lait/config.yml"), at("proj/lait.config.yml")])
    expect(env["XDG_CONFIG_HOME"]).toBeUndefined()
    expect(env["LAIT_T"]).toBe("from-file")
    expect(env["KEEP"]).toBe("from-shell")
    expect(loaded.env).toBe(env)
    // The global file's api_key_cmd runs with the environment from before the .env.
    expect(loaded.globalKeyCmds?.commands).toEqual(new Set(['["print-key"]']))
    expect(loaded.globalKeyCmds?.env).toEqual({ HOME: at("home"), KEEP: "from-shell" })
  })

  test("--no-env skips it", async () => {
    const { at } = setup({ "proj/.env": "LAIT_T=from-file\n" })
    const env: Env = { HOME: at("home") }
    await load({ cwd: at("proj"), env, noEnv: true })
    expect(env["LAIT_T"]).toBeUndefined()
  })

  test("is loaded with --no-config too (it is not a config file)", async () => {
    const { at } = setup({ "proj/.env": "LAIT_T=x\n" })
    const env: Env = {}
    await load({ cwd: at("proj"), env, noConfig: true })
    expect(env["LAIT_T"]).toBe("x")
  })

  test("a bad .env line stops loading with its line number", async () => {
    const { at } = setup({ "proj/.env": "A=1\nnot a pair\n" })
    const error = await loadError({ cwd: at("proj"), env: {} })
    expect(renderChain(error)).toBe("failed to parse '.env' line 2: expected KEY=VALUE")
  })
})

describe("merge", () => {
  test("registries merge key by key; the project entry replaces the global one whole", async () => {
    const { env, at } = setup({
      "xdg/lait/config.yml": [
        "models:",
        "  shared: [{ provider: { base_url: http://g }, model_id: g-shared, default_temperature: 0.1 }]",
        "  g-only: [{ provider: { base_url: http://g }, model_id: g-only }]",
        "mcp_servers: { shared: { command: g }, g-only: { url: http://g } }",
        "prompts: { shared: { template: g }, g-only: { template: g } }",
        "tools: { shared: { command: [g] }, g-only: { command: [g] } }",
        ""
      ].join("\n"),
      "proj/lait.config.yml": [
        "models:",
        "  shared: [{ provider: { base_url: http://p }, model_id: p-shared }]",
        "mcp_servers: { shared: { url: http://p } }",
        "prompts: { shared: { template: p } }",
        "tools: { shared: { command: [p] } }",
        ""
      ].join("\n")
    })
    const { config } = await load({ cwd: at("proj"), env })
    expect(Object.keys(config.models ?? {}).sort()).toEqual(["g-only", "shared"])
    expect(config.models?.["shared"]).toEqual([{ provider: { base_url: "http://p" }, model_id: "p-shared" }])
    expect(config.mcp_servers).toEqual({ shared: { url: "http://p" }, "g-only": { url: "http://g" } })
    expect(config.prompts).toEqual({ shared: { template: "p" }, "g-only": { template: "g" } })
    expect(config.tools?.["shared"]?.command).toEqual(["p"])
    expect(config.tools?.["g-only"]?.command).toEqual(["g"])
  })

  test("registry paths resolve against the directory of the file that defines them", async () => {
    const { env, at } = setup({
      "xdg/lait/config.yml": "workflows: { g: flows/g.yml, both: flows/g-both.yml }\nagents: { a: /abs/a.md }\n",
      "proj/lait.config.yml": "workflows: { both: flows/p.yml }\nskills: { s: ../skills/s }\nagents: { b: b.md }\n",
      "proj/sub/.keep": ""
    })
    const { config } = await load({ cwd: at("proj/sub"), env })
    expect(config.workflows).toEqual({ g: at("xdg/lait/flows/g.yml"), both: at("proj/flows/p.yml") })
    expect(config.skills).toEqual({ s: at("skills/s") })
    expect(config.agents).toEqual({ a: "/abs/a.md", b: at("proj/b.md") })
  })

  test("default merges field by field (compaction as one field)", () => {
    const merged = mergeConfigs(
      { default: { model: "g", temperature: 0.3, compaction: { trigger_rounds: 2, keep_last_n: 4 }, mcp: ["a"] } },
      { default: { model: "p", compaction: { trigger_tokens: 100, keep_last_n: 1 } } }
    )
    expect(merged.default).toEqual({
      model: "p",
      temperature: 0.3,
      compaction: { trigger_tokens: 100, keep_last_n: 1 },
      mcp: ["a"]
    })
  })

  test("base_url: project, else global", () => {
    expect(mergeConfigs({ base_url: "g" }, { base_url: "p" }).base_url).toBe("p")
    expect(mergeConfigs({ base_url: "g" }, {}).base_url).toBe("g")
  })

  test("api_key/api_key_cmd come as a pair from whichever file sets either", () => {
    const a = mergeConfigs({ api_key_cmd: "pass show g" }, { api_key: "p-key" })
    expect(a.api_key).toBe("p-key")
    expect(a.api_key_cmd).toBeUndefined()
    const b = mergeConfigs({ api_key: "g-key" }, { api_key_cmd: ["op", "read"] })
    expect(b.api_key).toBeUndefined()
    expect(b.api_key_cmd).toEqual(["op", "read"])
    const c = mergeConfigs({ api_key: "g-key" }, { base_url: "p" })
    expect(c.api_key).toBe("g-key")
  })

  test("tool_policy allow/deny are concatenated, global first", async () => {
    const { env, at } = setup({
      "xdg/lait/config.yml": "tool_policy: { deny: ['*rm*'], allow: [fs__read] }\n",
      "proj/lait.config.yml": "tool_policy: { allow: ['tool__*'] }\n"
    })
    const { config } = await load({ cwd: at("proj"), env })
    expect(config.tool_policy).toEqual({ allow: ["fs__read", "tool__*"], deny: ["*rm*"] })
  })

  test("jev: project block, else global", () => {
    expect(mergeConfigs({ jev: { base_url: "g" } }, { jev: { api_key: "p" } }).jev).toEqual({ api_key: "p" })
    expect(mergeConfigs({ jev: { base_url: "g" } }, {}).jev).toEqual({ base_url: "g" })
  })
})

describe("errors", () => {
  const parse = (text: string) => runError(parseConfigText("/cfg/lait.config.yml", text))

  test("YAML syntax errors: exit-3 class, file named, the YAML error with its line as the cause", async () => {
    const error = await parse("default:\n  model: [unclosed\n")
    expect(error).toMatchObject({ _tag: "ConfigError", reason: { _tag: "ParseFailed" } })
    expect(error.message).toBe("failed to parse YAML configuration file '/cfg/lait.config.yml'")
    expect(renderChain(error)).toMatch(/^failed to parse YAML configuration file '\/cfg\/lait.config.yml': .+ at line \d+, column \d+$/)
    expect(exitCodeOf(error)).toBe(3)
  })

  test("a YAML error never quotes the offending line (it may hold a key)", async () => {
    const error = await parse("api_key: \"sk-live-SECRET\nbase_url: x\n")
    expect(renderChain(error)).not.toContain("sk-live-SECRET")
    expect(renderChain(error)).not.toContain("\n")
  })

  test("duplicate keys are errors", async () => {
    expect(renderChain(await parse("base_url: a\nbase_url: b\n"))).toBe(
      `failed to parse YAML configuration file '/cfg/lait.config.yml': duplicate entry with key "base_url" at line 2, column 1`
    )
  })

  test("unknown keys at several levels: exit 3, path and line named", async () => {
    const top = await parse("base_url: x\nbase_uri: y\n")
    expect(top).toMatchObject({ _tag: "ConfigError", reason: { _tag: "ParseFailed", line: 2 } })
    // `lait lint` reads the line from the error (Bun gives every Error a `line` of its own).
    expect(top).toMatchObject({ file: "/cfg/lait.config.yml", line: 2 })
    expect(renderChain(top)).toBe(
      "failed to parse YAML configuration file '/cfg/lait.config.yml': base_uri: unknown key (line 2)"
    )
    expect(exitCodeOf(top)).toBe(3)
    const nested = await parse(
      [
        "default:",
        "  model: m",
        "  compaction:",
        "    trigger_rounds: 2",
        "    keep: 3",
        "models:",
        "  m:",
        "    - provider:",
        "        base_url: http://x",
        "        token: t",
        "      model_id: m",
        ""
      ].join("\n")
    )
    expect(renderChain(nested)).toBe(
      "failed to parse YAML configuration file '/cfg/lait.config.yml': default.compaction.keep: unknown key (line 5); " +
        "models.m[0].provider.token: unknown key (line 10)"
    )
  })

  test("schema errors name the path and the line", async () => {
    const error = await parse("# c\ndefault:\n  temperature: 3\n")
    expect(renderChain(error)).toBe(
      "failed to parse YAML configuration file '/cfg/lait.config.yml': default.temperature: expected a value between 0 and 2 (line 3)"
    )
    const missing = await parse("models:\n  m:\n    - provider: { base_url: x }\n")
    expect(renderChain(missing)).toContain("models.m[0].model_id: missing required key (line 3)")
  })

  test("both api_key and api_key_cmd on one layer", async () => {
    const top = await parse("api_key: k\napi_key_cmd: pass show x\n")
    expect(top).toMatchObject({ _tag: "ConfigError", reason: { _tag: "Invalid" } })
    expect(exitCodeOf(top)).toBe(3)
    expect(renderChain(top)).toBe(
      "invalid configuration file '/cfg/lait.config.yml': top-level configuration sets both 'api_key' and 'api_key_cmd'; set exactly one (line 2)"
    )
    const fallback = await parse(
      [
        "models:",
        "  cloud:",
        "    - provider: { base_url: a, api_key: k }",
        "      model_id: a",
        "    - provider: { base_url: b, api_key: k, api_key_cmd: [x] }",
        "      model_id: b",
        ""
      ].join("\n")
    )
    expect(renderChain(fallback)).toContain(
      "model definition \"cloud\"'s fallback entry #2 sets both 'api_key' and 'api_key_cmd'; set exactly one"
    )
    const primary = await parse("models:\n  c: [{ provider: { base_url: a, api_key: k, api_key_cmd: x }, model_id: a }]\n")
    expect(renderChain(primary)).toContain("model definition \"c\" sets both 'api_key' and 'api_key_cmd'")
    const jev = await parse("jev: { api_key: k, api_key_cmd: x }\n")
    expect(renderChain(jev)).toContain("'jev:' configuration sets both 'api_key' and 'api_key_cmd'")
  })

  test("mcp_servers need exactly one of command and url", async () => {
    expect(renderChain(await parse("mcp_servers:\n  s: { command: x, url: y }\n"))).toContain(
      "mcp_servers.s has both 'command' and 'url'; set exactly one (stdio vs. streamable HTTP) (line 2)"
    )
    expect(renderChain(await parse("mcp_servers:\n  s: { args: [a] }\n"))).toContain(
      "mcp_servers.s has neither 'command' nor 'url'; set exactly one (stdio vs. streamable HTTP)"
    )
  })

  test("an empty or comment-only file is an empty config", async () => {
    expect(await run(parseConfigText("/cfg/lait.config.yml", ""))).toEqual({})
    expect(await run(parseConfigText("/cfg/lait.config.yml", "# nothing yet\n"))).toEqual({})
  })

  test("a broken global file fails the load even when the project file is fine", async () => {
    const { env, at } = setup({ "xdg/lait/config.yml": "bogus: 1\n", "proj/lait.config.yml": "{}\n" })
    const error = await loadError({ cwd: at("proj"), env })
    expect(renderChain(error)).toContain(`'${at("xdg/lait/config.yml")}': bogus: unknown key (line 1)`)
    expect(exitCodeOf(error)).toBe(3)
  })
})

describe("hostile config files (issue 12)", () => {
  const parse = (text: string) => runError(parseConfigText("/cfg/lait.config.yml", text))

  test("a top-level list or scalar is refused, not read as an empty config", async () => {
    const list = await parse("- base_url: http://x\n")
    expect(renderChain(list)).toBe(
      "failed to parse YAML configuration file '/cfg/lait.config.yml': a configuration file must be a YAML mapping, got a list (line 1)"
    )
    expect(exitCodeOf(list)).toBe(3)
    expect(renderChain(await parse("\n\njust text\n"))).toEndWith("must be a YAML mapping, got a string (line 3)")
  })

  test("two documents and deep nesting get readable messages", async () => {
    expect(renderChain(await parse("a: 1\n---\nb: 2\n"))).toEndWith(
      ": deserializing from YAML containing more than one document is not supported at line 2, column 1"
    )
    expect(renderChain(await parse(`prompts:\n  p: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`))).toMatch(
      /: recursion limit exceeded: the YAML is nested too deeply at line 2, column \d+$/
    )
  })
})
