// The CLI skeleton as a user meets it: stdout and stderr kept apart, exit codes (run in this process,
// runCli's default, which test/e2e/in-process.test.ts holds to what a real process prints).
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pkg from "../../package.json" with { type: "json" }

import { runCli } from "./util.ts"

let cwd = ""

beforeAll(() => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), "lait-cli-"))
})
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

const laitWith = async (extraEnv: Record<string, string>, ...args: Array<string>) => {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", XDG_CONFIG_HOME: path.join(cwd, "xdg") }
  delete env["LAIT_LOG"]
  const r = await runCli(args, { cwd, env: { ...env, ...extraEnv } })
  return { code: r.code, stdout: r.stdout, stderr: r.stderr }
}
const lait = (...args: Array<string>) => laitWith({}, ...args)

describe("lait skeleton", () => {
  // Run from source, nothing was built: the commit is unknown (build.ts bakes it into the binary).
  test("--version and -V print the version on stdout", async () => {
    for (const flag of ["--version", "-V"]) {
      const r = await lait(flag)
      expect(r).toEqual({ code: 0, stdout: `lait ${pkg.version} (unknown)\n`, stderr: "" })
    }
  })

  test("--version --json prints one JSON object; --json after -- is an argument, not the flag", async () => {
    for (const args of [["--version", "--json"], ["--json", "-V"]]) {
      const r = await lait(...args)
      expect(r).toMatchObject({ code: 0, stderr: "" })
      expect(r.stdout.endsWith("}\n")).toBe(true)
      expect(JSON.parse(r.stdout)).toEqual({
        name: "lait",
        version: pkg.version,
        commit: "unknown",
        target: "unknown",
        build_date: "unknown"
      })
    }
    expect(await lait("--version", "--", "--json")).toMatchObject({ code: 0, stdout: `lait ${pkg.version} (unknown)\n` })
  })

  test("--help lists the global flags on stdout", async () => {
    const r = await lait("--help")
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("")
    for (const flag of ["--verbose, -v", "--version, -V", "--config PATH", "--no-config", "--no-env", "--cache"]) {
      expect(r.stdout).toContain(flag)
    }
  })

  // With no subcommand lait is one-shot chat (docs/chat.md): a word that is no subcommand is a PROMPT.
  test("no subcommand and no prompt (stdin not a terminal) asks for a PROMPT", async () => {
    expect(await laitWith({ LLM_MODEL: "" })).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: a PROMPT is required; provide one, pipe input via stdin, or use `lait run <FILE> <PROMPT>`\n"
    })
  })

  test("an unknown flag is a one-line usage error (exit 2); an unknown word is a chat PROMPT", async () => {
    const r = await lait("--frobnicate")
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(r.stderr).toStartWith("lait: ")
    expect(r.stderr).toContain("frobnicate")
    expect(await laitWith({ LLM_MODEL: "" }, "frobnicate")).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: model is required; provide --model, set LLM_MODEL, or specify default.model in lait.config.yml\n"
    })
  })

  test("conflicting global flags are usage errors", async () => {
    expect(await lait("--cache", "--no-cache", "--version")).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--cache' cannot be used with '--no-cache'\n"
    })
    expect(await lait("--config", "x.yml", "--no-config", "--version")).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--config <PATH>' cannot be used with '--no-config'\n"
    })
  })

  test("--help works on every subcommand", async () => {
    for (const args of [["config", "--help"], ["config", "show", "--help"], ["--help", "config"]]) {
      const r = await lait(...args)
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("USAGE")
      expect(r.stderr).toBe("")
    }
  })

  test("a command group without a subcommand prints its usage on stderr (exit 2)", async () => {
    const r = await lait("config")
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain("lait config <subcommand>")
  })

  test("global flags are accepted on either side of the subcommand", async () => {
    for (const args of [["--no-config", "config", "show"], ["config", "show", "--no-config"], ["config", "--no-config", "show"]]) {
      expect(await lait(...args)).toEqual({ code: 0, stdout: "{}\n", stderr: "note: no config file loaded\n" })
    }
  })

  test("-v adds debug lines on stderr only; LAIT_LOG overrides -v/-vv", async () => {
    const quiet = await lait("config", "show", "--no-config")
    expect(quiet.stderr).not.toContain("[debug]")
    const verbose = await lait("-v", "config", "show", "--no-config")
    expect(verbose.stdout).toBe("{}\n")
    expect(verbose.stderr).toContain("lait: [debug] settings: cwd=")
    expect((await laitWith({ LAIT_LOG: "error" }, "-vv", "config", "show", "--no-config")).stderr).not.toContain("[debug]")
    expect((await laitWith({ LAIT_LOG: "lait=debug" }, "config", "show", "--no-config")).stderr).toContain("[debug]")
  })

  test("errors are one line without a stack trace, unless -vv", async () => {
    const r = await lait("--config", "missing.yml", "config", "show")
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(
      `lait: failed to read YAML configuration file '${path.join(fs.realpathSync(cwd), "missing.yml")}': no such file or directory\n`
    )
    const vv = await lait("-vv", "--config", "missing.yml", "config", "show")
    expect(vv.code).toBe(1)
    expect(vv.stderr).toContain("    at ")
  })
})
