// A key repeated in one YAML mapping, in every kind of file lait reads, run in this process
// (docs/architecture.md#testing), one run through the binary: the message names the key
// (`duplicate entry with key "jq"`) under the usual prefix of that file kind, never the parser's bare
// `Map keys must be unique`.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDir, runCli } from "./util.ts"

const home = makeTempDir("dup-home")
const env = { PATH: process.env["PATH"], HOME: home, NO_COLOR: "1" }

const project = () => {
  const dir = makeTempDir("dup-keys")
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text)
  write("ok.yml", "steps:\n  - jq: .\n")
  write("wf.yml", "steps:\n  - id: a\n    jq: .\n    jq: .x\n")
  write("flow.yml", "steps:\n  - {jq: ., jq: .x}\n")
  write("numbers.yml", "inputs:\n  a: {type: string}\nsteps:\n  - jq: .\nschemas:\n  1: {}\n  1: {}\n")
  write("cfg.yml", "base_url: http://a\nbase_url: http://b\n")
  write("t.test.yml", "workflow: ok.yml\ninput: hi\ninput: ho\n")
  write("e.eval.yml", "target: ok.yml\ntarget: ok.yml\ncases: []\n")
  write("agent.md", "---\nname: a\nname: b\n---\nYou help.\n")
  return dir
}

const lait = (args: ReadonlyArray<string>, cwd: string, binary = false) =>
  runCli(args, { cwd, env, binary, timeoutMs: 60_000 })

describe("a repeated key names the key", () => {
  test("a workflow (lait run), block and flow mappings", async () => {
    const dir = project()
    // The single-file build's lean `run` path reads the workflow with the parser it bundles.
    const block = await lait(["--no-config", "run", "wf.yml", "x"], dir, true)
    expect([block.stderr, block.code]).toEqual([
      "lait: failed to load workflow 'wf.yml': duplicate entry with key \"jq\" at line 4, column 5\n",
      3
    ])
    const flow = await lait(["--no-config", "run", "flow.yml", "x"], dir)
    expect(flow.stderr).toBe("lait: failed to load workflow 'flow.yml': duplicate entry with key \"jq\" at line 2, column 13\n")
  })

  test("a config file, named or found", async () => {
    const dir = project()
    const named = await lait(["--config", "cfg.yml", "run", "ok.yml", "x"], dir)
    expect([named.stderr, named.code]).toEqual([
      `lait: failed to parse YAML configuration file '${path.join(dir, "cfg.yml")}': duplicate entry with key "base_url" at line 2, column 1\n`,
      3
    ])
    fs.copyFileSync(path.join(dir, "cfg.yml"), path.join(dir, "lait.config.yml"))
    const found = await lait(["run", "ok.yml", "x"], dir)
    expect(found.stderr).toBe(
      `lait: failed to parse YAML configuration file '${path.join(dir, "lait.config.yml")}': duplicate entry with key "base_url" at line 2, column 1\n`
    )
  })

  test("a test file (lait test) and an eval file (lait eval)", async () => {
    const dir = project()
    const tested = await lait(["--no-config", "test", "t.test.yml"], dir)
    expect(tested.stdout).toContain(
      "  failed to parse test definition 't.test.yml': duplicate entry with key \"input\" (line 3)\n"
    )
    expect(tested.code).toBe(1)
    const evaluated = await lait(["--no-config", "eval", "e.eval.yml"], dir)
    expect([evaluated.stderr, evaluated.code]).toEqual([
      "lait: failed to parse eval definition 'e.eval.yml': duplicate entry with key \"target\" (line 2)\n",
      3
    ])
  })

  test("an agent's YAML schema file, read when the step runs: one line", async () => {
    const dir = project()
    fs.writeFileSync(path.join(dir, "schema-agent.md"), "---\nmodel: m\noutput_schema: {file: s.yml}\n---\nYou help.\n")
    fs.writeFileSync(path.join(dir, "s.yml"), "type: object\ntype: string\n")
    fs.writeFileSync(path.join(dir, "uses-agent.yml"), "steps:\n  - agent: schema-agent.md\n")
    // Nothing listens there: the schema file fails before any request is made.
    const r = await runCli(["--no-config", "run", "uses-agent.yml", "x"], {
      cwd: dir,
      env: { ...env, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
      timeoutMs: 60_000
    })
    expect(r.stderr).toEndWith(
      `\nlait: failed to parse schema file '${path.join(dir, "s.yml")}': duplicate entry with key "type" at line 2, column 1\n`
    )
    expect(r.code).toBe(3)
  })

  test("lait lint, every kind of file, a non-string key as upstream prints it", async () => {
    const dir = project()
    const r = await lait(
      ["--no-config", "lint", "wf.yml", "numbers.yml", "cfg.yml", "t.test.yml", "e.eval.yml", "agent.md"],
      dir
    )
    expect(r.stdout).toBe(
      [
        "wf.yml:",
        "  error: failed to load workflow 'wf.yml': duplicate entry with key \"jq\" at line 4, column 5",
        "numbers.yml:",
        "  error: failed to load workflow 'numbers.yml': duplicate entry with key 1 at line 7, column 3",
        "cfg.yml:",
        "  error: failed to parse YAML configuration file 'cfg.yml': duplicate entry with key \"base_url\" at line 2, column 1",
        "t.test.yml:",
        "  error: failed to parse test definition 't.test.yml': duplicate entry with key \"input\" (line 3)",
        "e.eval.yml:",
        "  error: failed to parse eval definition 'e.eval.yml': duplicate entry with key \"target\" (line 2)",
        "agent.md:",
        "  error: failed to parse agent file 'agent.md': failed to parse frontmatter: duplicate entry with key \"name\" at line 2, column 1",
        ""
      ].join("\n")
    )
    expect(r.stdout).not.toContain("Map keys must be unique")
    expect(r.code).toBe(3)
  })
})
