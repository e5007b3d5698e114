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

const lait = (...args: Array<string>) => {
  const r = Bun.spawnSync([bun, path.join(root, "src/main.ts"), ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", XDG_CONFIG_HOME: path.join(cwd, "xdg") },
    stdin: "ignore"
  })
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() }
}

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

  test("no subcommand prints usage on stderr and is a usage error", () => {
    const r = lait()
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain("USAGE")
  })

  test("unknown subcommands and flags are one-line usage errors (exit 2)", () => {
    for (const args of [["frobnicate"], ["--frobnicate"]]) {
      const r = lait(...args)
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
      expect(r.stderr).toStartWith("lait: ")
      expect(r.stderr).toContain("frobnicate")
    }
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
})
