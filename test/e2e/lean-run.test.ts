// A plain `lait run` skips effect/cli (src/cli/leanArgs.ts, with flags generated from the tree; leanRun.ts). Every command line the lean
// path accepts must behave exactly as effect/cli's reading of it: the same stdout, stderr, exit code
// and files. Each line runs twice through the binary: as `lait run --no-env ARGS` (lean) and as
// `lait --no-env run ARGS` (a global flag before the subcommand: the command tree), which mean the same.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { leanArgs } from "../../src/cli/leanArgs.ts"
import { makeTempDir, repoRoot, runCli } from "./util.ts"

let dir = ""
beforeAll(() => {
  dir = makeTempDir("lean-run")
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text)
  write("one.yml", "steps:\n  - jq: 'tonumber + 1'\n")
  write("inputs.yml", "inputs:\n  a:\n    type: string\n  b:\n    type: string\n    default: z\nsteps:\n  - jq: '[., $inputs]'\n")
  write("bad.yml", "steps:\n  - jq: '.'\n    bogus: 1\n")
  write("prompt.yml", "steps:\n  - prompt: 'hi {{ input }}'\n    model: m\n")
  write("cfg.yml", "workflows:\n  plus: ./one.yml\ndefault:\n  history: false\n")
  write("broken.yml", "workflows: [\n")
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const examples = path.join(repoRoot, "examples", "release-notes")
const releaseNotes = [path.join(examples, "release-notes.yml"), "--replay", path.join(examples, "cassettes")]

// [name, args after `run`, environment additions, working directory]
const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, Record<string, string>?, "repo"?]> = [
  ["plain", ["one.yml", "41"]],
  ["flags before FILE", ["--json", "one.yml", "41"]],
  ["json", ["one.yml", "41", "--json"]],
  ["-o", ["one.yml", "41", "-o", "out-a.txt"]],
  ["--output=", ["--output=out-b.txt", "one.yml", "41"]],
  ["--output into a missing directory", ["one.yml", "41", "--output", "nowhere/out.txt"]],
  ["repeated --input, = forms", ["inputs.yml", "1", "--input", "a=x", "--input=b=y=z", "--input", "a=w"]],
  ["unknown input", ["inputs.yml", "1", "--input", "c=1"]],
  ["malformed input", ["inputs.yml", "1", "--input", "novalue"]],
  ["missing file", ["missing.yml", "41"]],
  ["invalid workflow", ["bad.yml", "41"]],
  ["no prompt", ["one.yml"]],
  ["dry run", ["inputs.yml", "1", "--dry-run", "--input", "a=1"]],
  ["-v", ["one.yml", "41", "-v"]],
  ["-vv and --verbose", ["-vv", "one.yml", "41", "--verbose"]],
  ["LAIT_LOG", ["one.yml", "41"], { LAIT_LOG: "debug" }],
  ["--trace-spans alone", ["one.yml", "41", "--trace-spans"]],
  ["--trace-content alone", ["one.yml", "41", "--trace-content"]],
  ["--record and --replay", ["one.yml", "41", "--record", "a", "--replay", "b"]],
  ["--strict-replay alone", ["one.yml", "41", "--strict-replay"]],
  ["--replay-tools alone", ["one.yml", "41", "--replay-tools"]],
  ["--record-missing and --replay", ["one.yml", "41", "--record-missing", "a", "--replay", "b"]],
  ["--no-config", ["one.yml", "41", "--no-config"]],
  ["--config and a workflows: name", ["plus", "41", "--config", "cfg.yml"]],
  ["--config=", ["--config=cfg.yml", "plus", "41"]],
  ["broken config", ["one.yml", "41", "--config", "broken.yml"]],
  ["missing config", ["one.yml", "41", "--config", "nope.yml"]],
  ["--cache", ["one.yml", "41", "--cache"]],
  ["--no-cache, --no-history", ["one.yml", "41", "--no-cache", "--no-history"]],
  ["negated flags", ["one.yml", "41", "--no-json", "--no-trace-spans", "--no-dry-run"]],
  ["--resume unknown", ["one.yml", "--resume", "nope"]],
  ["--resume with --dry-run", ["one.yml", "--resume", "nope", "--dry-run"]],
  ["--checkpoint", ["one.yml", "41", "--checkpoint"]],
  ["bad LAIT_HTTP_ATTEMPTS", ["prompt.yml", "x"], { LAIT_HTTP_ATTEMPTS: "0" }],
  ["no server", ["prompt.yml", "x"], { LAIT_HTTP_ATTEMPTS: "1", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }],
  ["replay, usage, trace", [...releaseNotes, "--show-usage", "--trace-file", "t.jsonl", "--trace-content"], {}, "repo"],
  ["replay --strict-replay --json", [...releaseNotes, "--strict-replay", "--json", "--input", "version=0.9.0"], {}, "repo"],
  ["replay miss", [...releaseNotes, "--input", "version=1.0.0"], {}, "repo"]
]

const files = (cwd: string) =>
  Object.fromEntries(
    ["out-a.txt", "out-b.txt", "t.jsonl"].map((f) => [f, fs.existsSync(path.join(cwd, f)) ? fs.readFileSync(path.join(cwd, f), "utf8") : null])
  )

describe("lait run: the lean path and the command tree agree", () => {
  for (const [name, args, env = {}, where] of cases) {
    test(name, async () => {
      const lean = ["run", "--no-env", ...args]
      expect(leanArgs(lean, { ...process.env, ...env })?.command).toBe("run")
      const outcome = async (argv: ReadonlyArray<string>) => {
        const cwd = where === "repo" ? repoRoot : dir
        for (const f of ["out-a.txt", "out-b.txt", "t.jsonl"]) fs.rmSync(path.join(cwd, f), { force: true })
        fs.rmSync(path.join(cwd, ".lait"), { recursive: true, force: true })
        const r = await runCli(argv, { cwd, binary: true, env: { ...process.env, NO_COLOR: "1", ...env } })
        // The trace's times and ids differ from run to run; its shape must not.
        const written = files(cwd)
        if (written["t.jsonl"] !== null) {
          written["t.jsonl"] = written["t.jsonl"]!.replace(/"[^"]*(time|_id|Id|start|end|duration)[^"]*":\s*("[^"]*"|[0-9.]+)/g, "$1")
        }
        for (const f of ["out-a.txt", "out-b.txt", "t.jsonl"]) fs.rmSync(path.join(cwd, f), { force: true })
        return { code: r.code, stdout: r.stdout, stderr: r.stderr.replace(/run [0-9a-f-]{8,}/g, "run <id>"), written }
      }
      expect(await outcome(lean)).toEqual(await outcome(["--no-env", "run", ...args]))
    }, 60_000)
  }
})

// With .env read (no --no-env): `-v` is the global flag that moves to the other side instead.
describe("lait run with a .env: the lean path and the command tree agree", () => {
  const dotenvCases: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
    ["a .env setting a bad LAIT_HTTP_ATTEMPTS", "LAIT_HTTP_ATTEMPTS=0\n", ["prompt.yml", "x"]],
    ["a .env naming a server", "OPENAI_BASE_URL=http://127.0.0.1:9/v1\nLAIT_HTTP_ATTEMPTS=1\n", ["prompt.yml", "x"]],
    ["a .env and a jq step", "X=1\n", ["one.yml", "41"]],
    ["an unreadable .env", "", ["one.yml", "41"]]
  ]
  for (const [name, dotenv, args] of dotenvCases) {
    test(name, async () => {
      const cwd = makeTempDir("lean-run-env")
      try {
        for (const f of ["one.yml", "prompt.yml"]) fs.copyFileSync(path.join(dir, f), path.join(cwd, f))
        if (dotenv === "") fs.mkdirSync(path.join(cwd, ".env"))
        else fs.writeFileSync(path.join(cwd, ".env"), dotenv)
        const lean = ["run", "-v", ...args]
        expect(leanArgs(lean, process.env)?.command).toBe("run")
        const outcome = async (argv: ReadonlyArray<string>) => {
          const r = await runCli(argv, { cwd, binary: true })
          return { code: r.code, stdout: r.stdout, stderr: r.stderr }
        }
        expect(await outcome(lean)).toEqual(await outcome(["-v", "run", ...args]))
      } finally {
        fs.rmSync(cwd, { recursive: true, force: true })
      }
    }, 60_000)
  }
})

describe("leanArgs leaves `lait run` to effect/cli", () => {
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }
  const lines: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string>?]> = [
    [["run", "--help"]], [["run", "wf.yml", "-h"]], [["run", "wf.yml", "--version"]], [["run", "wf.yml", "--", "x"]],
    [["run", "wf.yml", "--bogus"]], [["run", "wf.yml", "--json=true"]], [["run", "wf.yml", "--json", "--json"]], [["run", "wf.yml", "--json", "--no-json"]], [["run", "wf.yml", "--no-verbose"]], [["run", "wf.yml", "-o", "a", "--output", "b"]], [["run", "wf.yml", "-o=a"]],
    [["run", "wf.yml", "--output", "-"]], [["run", "wf.yml", "--input"]], [["run", "wf.yml", "--input", ""]],
    [["run", "wf.yml", "--approve-tools"]], [["run", "wf.yml", "-vq"]], [["run", "wf.yml", "-"]], [["run"]],
    [["run", "a", "b", "c"]], [["run", "wf.yml", "--cache", "--no-cache"]], [["run", "wf.yml", "--config", "c", "--no-config"]],
    [["--no-env", "run", "wf.yml"]], [["test", "wf.yml"]], [["run", "wf.yml"], otel]
  ]
  for (const [argv, env = {}] of lines) {
    test(argv.join(" ") + (env === otel ? " (OTEL_* set)" : ""), () => {
      expect(leanArgs(argv, env)).toBeUndefined()
    })
  }
  test("reads a plain run", () => {
    const read = leanArgs(["run", "-vv", "wf.yml", "--input", "a=1", "--input=b=2", "x", "-o", "out", "--json"], {})
    expect(read?.command).toBe("run")
    expect(read?.input).toMatchObject({
      file: "wf.yml",
      prompt: "x",
      input: ["a=1", "b=2"],
      output: "out",
      json: true,
      record: undefined,
      strictReplay: false,
      approveTools: false,
      traceSpans: undefined
    })
    expect(read?.globals).toEqual({
      verbose: [true, true],
      config: undefined,
      "no-config": false,
      "no-env": false,
      cache: undefined
    })
  })
  test("reads --no-cache and a negated command flag", () => {
    const read = leanArgs(["run", "wf.yml", "--no-cache", "--no-trace-spans"], {})
    expect(read?.globals["cache"]).toBe(false)
    expect(read?.input["traceSpans"]).toBe(false)
  })
})
