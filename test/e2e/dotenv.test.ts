// A checkout's `.env` against the user's own setup (docs/environment.md#what-a-env-may-not-set): a
// repository holding only `.env`, `evil.so` and a config directory of its own must neither preload a
// library into anything lait starts nor swap in its config, and the user's global `api_key_cmd` runs
// with the environment lait started with. Through the binary, against the fixture server.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-dotenv")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

let counter = 0

/**
 * The user's global config (base URL of the fixture server, a key from `api_key_cmd` that writes
 * what it saw to `seen`) and a hostile checkout `repo/`: `.env`, `evil.so`, and `cfg/lait/config.yml`
 * whose `api_key_cmd` would leave `marker`.
 */
const setup = (baseUrl: string) => {
  const name = `c${++counter}`
  const at = (rel: string) => path.join(ws.dir, name, rel)
  const home = at("home")
  const repo = at("repo")
  ws.write(`${name}/home/.config/lait/config.yml`, [
    `base_url: '${baseUrl}'`,
    "api_key_cmd: [sh, -c, 'printf \"%s|%s|%s|%s\" \"$LD_PRELOAD\" \"$XDG_CONFIG_HOME\" \"$PROBE\" \"$PATH\" > \"$SEEN\"; echo global-key']",
    ""
  ].join("\n"))
  ws.write(`${name}/repo/evil.so`, "not really a library")
  ws.write(`${name}/repo/cfg/lait/config.yml`, `base_url: '${baseUrl}'\napi_key_cmd: [sh, -c, 'touch ${at("marker")}; echo repo-key']\n`)
  ws.write(`${name}/repo/.env`, [
    `LD_PRELOAD=${repo}/evil.so`,
    `XDG_CONFIG_HOME=${repo}/cfg`,
    `export PATH=${repo}/bin`,
    // lait's own request would go to a proxy that is not there, without certificate checks.
    "HTTP_PROXY=http://127.0.0.1:9",
    "NODE_TLS_REJECT_UNAUTHORIZED=0",
    "PROBE=from-dotenv",
    ""
  ].join("\n"))
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    SEEN: at("seen"),
    PATH: process.env["PATH"] ?? "/usr/bin:/bin"
  }
  return {
    repo,
    env,
    lait: (args: ReadonlyArray<string>) => ws.lait(args, { cwd: repo, env }),
    marker: () => fs.existsSync(at("marker")),
    seen: () => fs.readFileSync(at("seen"), "utf8")
  }
}

const warning = (repo: string, name: string, controls: string) =>
  `warning: '${repo}/.env' sets ${name}, which a .env may not set (it controls ${controls}); ignored\n`

describe("a checkout's .env", () => {
  test("cannot preload a library, move the global config or PATH, or proxy lait's requests; the global api_key_cmd runs without it", async () => {
    const s = server({ script: [{ repeat: true }] })
    const c = setup(s.baseUrl)
    const r = await c.lait(["hello", "--model", "m"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "echo: hello\n",
      stderr: warning(c.repo, "LD_PRELOAD", "the dynamic loader") +
        warning(c.repo, "XDG_CONFIG_HOME", "where programs find their configuration") +
        warning(c.repo, "PATH", "where programs, configuration and temporary files are found") +
        warning(c.repo, "HTTP_PROXY", "where connections go and which certificates are trusted") +
        warning(c.repo, "NODE_TLS_REJECT_UNAUTHORIZED", "where connections go and which certificates are trusted")
    })
    // The repository's config was not used: its api_key_cmd never ran, and the user's key was sent.
    expect(c.marker()).toBe(false)
    expect(s.requests.map((q) => q.headers["authorization"])).toEqual(["Bearer global-key"])
    // The user's command saw the environment lait started with: no LD_PRELOAD, the user's config
    // home, none of the .env's variables (not even the harmless PROBE), the user's PATH.
    expect(c.seen()).toBe(`|${c.env.XDG_CONFIG_HOME}||${c.env.PATH}`)
  })

  test("still sets ordinary variables for run: steps, but not the refused ones", async () => {
    const s = server({ script: [{ repeat: true }] })
    const c = setup(s.baseUrl)
    fs.writeFileSync(
      path.join(c.repo, "wf.yml"),
      "steps:\n  - run: [sh, -c, 'printf \"%s|%s|%s\" \"$PROBE\" \"$LD_PRELOAD\" \"$XDG_CONFIG_HOME\"']\n"
    )
    const r = await c.lait(["run", "wf.yml", "x"])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`from-dotenv||${c.env.XDG_CONFIG_HOME}\n`)
    expect(r.stderr).toContain(warning(c.repo, "LD_PRELOAD", "the dynamic loader"))
    expect(r.stderr).not.toContain("ld.so")
  })

  test("--no-env reads none of it: no warning", async () => {
    const s = server({ script: [{ repeat: true }] })
    const c = setup(s.baseUrl)
    const r = await c.lait(["--no-env", "hello", "--model", "m"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "echo: hello\n", stderr: "" })
    expect(c.marker()).toBe(false)
    expect(c.seen()).toBe(`|${c.env.XDG_CONFIG_HOME}||${c.env.PATH}`)
  })
})
