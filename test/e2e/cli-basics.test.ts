// The CLI skeleton as a user meets it: a real process, stdout and stderr kept apart, exit codes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pkg from "../../package.json" with { type: "json" }

const root = path.resolve(import.meta.dir, "../..")
const bun = path.join(root, "node_modules/.bin/bun")
let cwd = ""

beforeAll(() => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), "lait-cli-"))
})
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

const laitWith = (extraEnv: Record<string, string>, ...args: Array<string>) => {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", XDG_CONFIG_HOME: path.join(cwd, "xdg") }
  delete env["LAIT_LOG"]
  const r = Bun.spawnSync([bun, path.join(root, "src/main.ts"), ...args], {
    cwd,
    env: { ...env, ...extraEnv },
    stdin: "ignore"
  })
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() }
}
const lait = (...args: Array<string>) => laitWith({}, ...args)

describe("lait skeleton", () => {
  test("--version and -V print the version on stdout", () => {
    for (const flag of ["--version", "-V"]) {
      const r = lait(flag)
      expect(r).toEqual({ code: 0, stdout: `lait ${pkg.version}\n`, stderr: "" })
    }
  })

  test("--help lists the global flags on stdout", () => {
    const r = lait("--help")
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("")
    for (const flag of ["--verbose, -v", "--version, -V", "--config PATH", "--no-config", "--no-env", "--cache"]) {
      expect(r.stdout).toContain(flag)
    }
  })

  // With no subcommand lait is one-shot chat (docs/chat.md): a word that is no subcommand is a PROMPT.
  test("no subcommand and no prompt (stdin not a terminal) asks for a PROMPT", () => {
    expect(laitWith({ LLM_MODEL: "" })).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: a PROMPT is required; provide one, pipe input via stdin, or use `lait run <FILE> <PROMPT>`\n"
    })
  })

  test("an unknown flag is a one-line usage error (exit 2); an unknown word is a chat PROMPT", () => {
    const r = lait("--frobnicate")
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(r.stderr).toStartWith("lait: ")
    expect(r.stderr).toContain("frobnicate")
    expect(laitWith({ LLM_MODEL: "" }, "frobnicate")).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: model is required; provide --model, set LLM_MODEL, or specify default.model in lait.config.yml\n"
    })
  })

  test("conflicting global flags are usage errors", () => {
    expect(lait("--cache", "--no-cache", "--version")).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--cache' cannot be used with '--no-cache'\n"
    })
    expect(lait("--config", "x.yml", "--no-config", "--version")).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--config <PATH>' cannot be used with '--no-config'\n"
    })
  })

  test("--help works on every subcommand", () => {
    for (const args of [["config", "--help"], ["config", "show", "--help"], ["--help", "config"]]) {
      const r = lait(...args)
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("USAGE")
      expect(r.stderr).toBe("")
    }
  })

  test("a command group without a subcommand prints its usage on stderr (exit 2)", () => {
    const r = lait("config")
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain("lait config <subcommand>")
  })

  test("global flags are accepted on either side of the subcommand", () => {
    for (const args of [["--no-config", "config", "show"], ["config", "show", "--no-config"], ["config", "--no-config", "show"]]) {
      expect(lait(...args)).toEqual({ code: 0, stdout: "{}\n", stderr: "note: no config file loaded\n" })
    }
  })

  test("-v adds debug lines on stderr only; LAIT_LOG overrides -v/-vv", () => {
    const quiet = lait("config", "show", "--no-config")
    expect(quiet.stderr).not.toContain("[debug]")
    const verbose = lait("-v", "config", "show", "--no-config")
    expect(verbose.stdout).toBe("{}\n")
    expect(verbose.stderr).toContain("lait: [debug] settings: cwd=")
    expect(laitWith({ LAIT_LOG: "error" }, "-vv", "config", "show", "--no-config").stderr).not.toContain("[debug]")
    expect(laitWith({ LAIT_LOG: "lait=debug" }, "config", "show", "--no-config").stderr).toContain("[debug]")
  })

  test("errors are one line without a stack trace, unless -vv", () => {
    const r = lait("--config", "missing.yml", "config", "show")
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(
      `lait: failed to read YAML configuration file '${path.join(fs.realpathSync(cwd), "missing.yml")}': no such file or directory\n`
    )
    const vv = lait("-vv", "--config", "missing.yml", "config", "show")
    expect(vv.code).toBe(1)
    expect(vv.stderr).toContain("    at ")
  })
})
