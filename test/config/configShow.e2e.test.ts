// Drives `lait config show` (in this process: runCli's default) in a temp project with a fake XDG home.
import { rmSync } from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, test } from "bun:test"
import { runCli } from "../e2e/util.ts"
import { tempDir, writeTree } from "./helpers.ts"

const SECRET = "sk-e2e-project-secret-4242"
const GLOBAL_SECRET = "sk-e2e-global-secret-1717"

const lait = async (cwd: string, env: Record<string, string>, ...args: Array<string>) => {
  // Nothing from the real environment but PATH: no real HOME, no OPENAI_*. Run in this process
  // (runCli's default), where no runtime loads a .env before lait sees it (as in the binary).
  const r = await runCli(args, { cwd, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", NO_COLOR: "1", ...env } })
  return { stdout: r.stdout, stderr: r.stderr, code: r.code }
}

const project = () => {
  const root = tempDir("lait-e2e-")
  writeTree(root, {
    "xdg/lait/config.yml": [
      `api_key: ${GLOBAL_SECRET}`,
      "default:",
      "  model: global-model",
      "  temperature: 0.5",
      "workflows:",
      "  g: flows/g.yml",
      ""
    ].join("\n"),
    "proj/lait.config.yml": [
      `api_key: ${SECRET}`,
      "default:",
      "  model: fast",
      "models:",
      "  fast:",
      `    - provider: { base_url: "http://localhost:8080/v1", api_key: ${SECRET} }`,
      "      model_id: qwen",
      ""
    ].join("\n"),
    "proj/sub/.keep": ""
  })
  const env = { HOME: nodePath.join(root, "home"), XDG_CONFIG_HOME: nodePath.join(root, "xdg") }
  return { root, env, cwd: nodePath.join(root, "proj/sub") }
}

describe("lait config show (e2e)", () => {
  test("YAML on stdout, loaded files on stderr in merge order, api keys redacted", async () => {
    const { root, env, cwd } = project()
    const { stdout, stderr, code } = await lait(cwd, env, "config", "show")
    expect(code).toBe(0)
    expect(stderr).toBe(
      `note: loaded config '${nodePath.join(root, "xdg/lait/config.yml")}'\n` +
        `note: loaded config '${nodePath.join(root, "proj/lait.config.yml")}'\n`
    )
    expect(stdout).toBe(
      [
        "api_key: <redacted>",
        "default:",
        "  model: fast",
        "  temperature: 0.5",
        "models:",
        "  fast:",
        "    - provider:",
        "        base_url: http://localhost:8080/v1",
        "        api_key: <redacted>",
        "      model_id: qwen",
        "workflows:",
        `  g: ${nodePath.join(root, "xdg/lait/flows/g.yml")}`,
        ""
      ].join("\n")
    )
    expect(stdout + stderr).not.toContain(SECRET)
    expect(stdout + stderr).not.toContain(GLOBAL_SECRET)
  })

  test("--json prints the same merged config as JSON", async () => {
    const { env, cwd } = project()
    const { stdout, code } = await lait(cwd, env, "config", "show", "--json")
    expect(code).toBe(0)
    expect(stdout).not.toContain(SECRET)
    const shown = JSON.parse(stdout)
    expect(shown.api_key).toBe("<redacted>")
    expect(shown.default).toEqual({ model: "fast", temperature: 0.5 })
    expect(shown.models.fast[0].provider.api_key).toBe("<redacted>")
  })

  test("global flags: --no-config, --config (either side of the subcommand)", async () => {
    const { root, env, cwd } = project()
    const none = await lait(cwd, env, "--no-config", "config", "show")
    expect([none.code, none.stdout, none.stderr]).toEqual([0, "{}\n", "note: no config file loaded\n"])
    writeTree(root, { "proj/sub/only.yml": "base_url: http://only\n" })
    const only = await lait(cwd, env, "config", "show", "--config", "only.yml")
    expect(only.code).toBe(0)
    expect(only.stderr).toBe(`note: loaded config '${nodePath.join(root, "proj/sub/only.yml")}'\n`)
    expect(only.stdout).toBe("base_url: http://only\n")
    const missing = await lait(cwd, env, "config", "show", "--config", "nope.yml")
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe(
      `lait: failed to read YAML configuration file '${nodePath.join(root, "proj/sub/nope.yml")}': no such file or directory\n`
    )
    expect(missing.stdout).toBe("")
  })

  test(".env is read from the CWD unless --no-env; it cannot move the global config", async () => {
    const { root, env } = project()
    const cwd = nodePath.join(root, "proj")
    writeTree(root, {
      "proj/.env": `XDG_CONFIG_HOME=${nodePath.join(root, "xdg")}\n`,
      "home/.config/lait/config.yml": "base_url: http://home\n"
    })
    const withEnv = await lait(cwd, { HOME: env.HOME }, "config", "show")
    expect(withEnv.stderr).toBe(
      `warning: '${nodePath.join(cwd, ".env")}' sets XDG_CONFIG_HOME, which a .env may not set (it controls where ` +
        "programs find their configuration); ignored\n" +
        `note: loaded config '${nodePath.join(env.HOME, ".config/lait/config.yml")}'\n` +
        `note: loaded config '${nodePath.join(root, "proj/lait.config.yml")}'\n`
    )
    rmSync(nodePath.join(env.HOME, ".config/lait/config.yml"))
    const withoutEnv = await lait(cwd, { HOME: env.HOME }, "--no-env", "config", "show")
    expect(withoutEnv.stderr).toBe(`note: loaded config '${nodePath.join(root, "proj/lait.config.yml")}'\n`)
    const xdgFromShell = await lait(cwd, env, "config", "show")
    // A variable already set in the environment wins over .env.
    expect(xdgFromShell.stderr).toContain(nodePath.join(root, "xdg/lait/config.yml"))
  })

  test("an unknown key exits 3 with one line naming the file, path and line", async () => {
    const { root, env, cwd } = project()
    writeTree(root, { "proj/lait.config.yml": `api_key: ${SECRET}\ndefault:\n  modle: x\n` })
    const { stdout, stderr, code } = await lait(cwd, env, "config", "show")
    expect(code).toBe(3)
    expect(stdout).toBe("")
    expect(stderr).toBe(
      `lait: failed to parse YAML configuration file '${nodePath.join(root, "proj/lait.config.yml")}': ` +
        "default.modle: unknown key (line 3)\n"
    )
    expect(stderr).not.toContain(SECRET)
  })

  test("a YAML syntax error exits 3 without echoing the file", async () => {
    const { root, env, cwd } = project()
    writeTree(root, { "proj/lait.config.yml": `api_key: "${SECRET}\n` })
    const { stderr, code } = await lait(cwd, env, "config", "show")
    expect(code).toBe(3)
    expect(stderr).toStartWith(
      `lait: failed to parse YAML configuration file '${nodePath.join(root, "proj/lait.config.yml")}': `
    )
    expect(stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(stderr).not.toContain(SECRET)
  })
})
