// runCli's default runs lait inside the test process (test/e2e/inProcess.ts, src/cli/inProcess.ts);
// that is only worth having if it answers exactly as `bun src/main.ts` does. The same command lines
// both ways, one for each kind of outcome (docs/errors.md's exit codes): the same stdout, the same
// stderr, the same exit code. Also what the runner sets for one run (working directory, environment,
// stdin) and puts back afterwards.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { makeTempDir, type RunResult, runCli } from "./util.ts"

const dir = fs.realpathSync(makeTempDir("in-process"))
const servers: Array<OpenAiServer> = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  fs.rmSync(dir, { recursive: true, force: true })
})

const env = (extra: Record<string, string> = {}) => {
  const clean: Record<string, string | undefined> = {}
  for (const [key, value] of Object.entries(process.env)) if (!/^(OPENAI_|LAIT_|OTEL_)/.test(key)) clean[key] = value
  return { ...clean, NO_COLOR: "1", HOME: dir, XDG_CONFIG_HOME: path.join(dir, ".config"), ...extra }
}

const outcome = (r: RunResult) => ({ code: r.code, signal: r.signal, stdout: r.stdout, stderr: r.stderr, timedOut: r.timedOut })

/** Runs `args` in this process and as a process; both outcomes, for the caller to compare. */
const bothWays = async (args: ReadonlyArray<string>, options: { stdin?: string; env?: Record<string, string> } = {}) => {
  const common = { cwd: dir, env: env(options.env), ...(options.stdin !== undefined ? { stdin: options.stdin } : {}) }
  const inProcess = outcome(await runCli(args, common))
  const real = outcome(await runCli(args, { ...common, process: true }))
  return { inProcess, real }
}

fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - jq: '\"Hello, \" + .'\n")
fs.writeFileSync(path.join(dir, "bad.yml"), "steps:\n  - id: a\n    jq: '.'\n    bogus_key: 1\n")

describe("in this process and as a process, lait answers the same", () => {
  test("success: the lean `lait run`, the command tree's `lait lint`, the fast path's --version", async () => {
    for (const args of [["run", "wf.yml", "Ada"], ["run", "wf.yml", "Bo", "--json"], ["lint", "wf.yml"], ["--version"]]) {
      const { inProcess, real } = await bothWays(args)
      expect(real.code).toBe(0)
      expect(inProcess).toEqual(real)
    }
  }, 120_000)

  test("a PROMPT from stdin", async () => {
    const { inProcess, real } = await bothWays(["run", "wf.yml"], { stdin: "Cy\n" })
    expect(real).toMatchObject({ code: 0, stdout: "Hello, Cy\n" })
    expect(inProcess).toEqual(real)
  }, 60_000)

  test("usage errors (exit 2): effect/cli's, lait's own conflicts, a mistyped subcommand", async () => {
    for (const args of [["schema"], ["--cache", "--no-cache", "run", "wf.yml"], ["run", "--no-such-flag", "wf.yml"], ["tset"]]) {
      const { inProcess, real } = await bothWays(args)
      expect(real.code).toBe(2)
      expect(real.stderr).toStartWith("lait: ")
      expect(inProcess).toEqual(real)
    }
  }, 120_000)

  test("a validation error (exit 3)", async () => {
    const { inProcess, real } = await bothWays(["run", "bad.yml"])
    expect(real.code).toBe(3)
    expect(real.stderr).toContain("bogus_key")
    expect(inProcess).toEqual(real)
  }, 60_000)

  test("an API error (exit 4) from the fixture server, with the key masked", async () => {
    const key = "sk-in-process-0123456789"
    const server = startOpenAiServer({
      script: [{ status: 401, body: { error: { message: `Incorrect API key provided: ${key}` } }, repeat: true }]
    })
    servers.push(server)
    const args = ["--no-config", "--model", "m", "--base-url", server.baseUrl, "hello"]
    const { inProcess, real } = await bothWays(args, { env: { OPENAI_API_KEY: key } })
    expect(real.code).toBe(4)
    expect(real.stderr).toContain("<redacted>")
    expect(real.stderr).not.toContain(key)
    expect(inProcess).toEqual(real)
    expect(server.requests).toHaveLength(2)
  }, 60_000)
})

describe("the in-process runner", () => {
  test("runs in the given directory and environment, and puts this process's back", async () => {
    const cwd = process.cwd()
    const before = { ...process.env }
    expect(process.env["LAIT_LOG"]).toBeUndefined()
    const r = await runCli(["run", "wf.yml", "Di"], { cwd: dir, env: env({ LAIT_LOG: "debug" }) })
    expect(r).toMatchObject({ code: 0, stdout: "Hello, Di\n" })
    expect(r.stderr).toContain(`lait: [debug] settings: cwd='${dir}'`)
    expect(process.cwd()).toBe(cwd)
    expect(process.env).toEqual(before)
  }, 60_000)

  test("concurrent calls take turns: each sees its own directory, environment and stdin", async () => {
    const results = await Promise.all(
      ["one", "two", "three"].map((name) => runCli(["run", "wf.yml"], { cwd: dir, env: env(), stdin: name }))
    )
    expect(results.map((r) => [r.code, r.stdout])).toEqual([
      [0, "Hello, one\n"],
      [0, "Hello, two\n"],
      [0, "Hello, three\n"]
    ])
  }, 60_000)

  test("a run past its timeout is interrupted and reported as timed out", async () => {
    const server = startOpenAiServer({ script: [{ delay_ms: 60_000 }] })
    servers.push(server)
    const args = ["--no-config", "--model", "m", "--base-url", server.baseUrl, "hello"]
    const r = await runCli(args, { cwd: dir, env: env({ OPENAI_API_KEY: "k" }), timeoutMs: 1_000 })
    expect(r).toMatchObject({ code: null, timedOut: true })
    // The next run is not held up by the interrupted one.
    expect((await runCli(["run", "wf.yml", "next"], { cwd: dir, env: env() })).stdout).toBe("Hello, next\n")
  }, 60_000)
})
