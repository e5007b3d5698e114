// `lait lint` over the corpus, run in this process (docs/architecture.md#testing), the text format
// also through the compiled binary: exact stdout in the three formats, the summary on stderr, exit 3 on
// errors and 0 with warnings only; the directory walk; the active config's sections; FIFOs never
// waited on; usage errors.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  CORPUS,
  CORPUS_CONFIG_SECTION,
  CORPUS_ENTRIES,
  errorCount,
  expectedGithub,
  expectedJson,
  expectedText,
  failedCount,
  findingCount,
  NO_CONFIG_ENTRY
} from "../lint/corpus.ts"
import { makeTempDir, runCli } from "./util.ts"

// A HOME without a global config, so nothing outside the corpus is merged in.
const home = makeTempDir("lint-home")
const env = { PATH: process.env["PATH"], HOME: home, NO_COLOR: "1" }
const lait = (args: ReadonlyArray<string>, cwd = CORPUS, where: { binary?: boolean } = {}) =>
  runCli(args, { cwd, env, ...where, timeoutMs: 60_000 })

const files = CORPUS_ENTRIES.map((e) => e.file)
const lines = (list: ReadonlyArray<string>) => `${list.join("\n")}\n`

describe("lait lint over the corpus", () => {
  test("text: config section first, one block per file, the summary on stderr, exit 3", async () => {
    // The one run of the single-file build: every kind of file, every check it bundles.
    const r = await lait(["lint", "--config", "lait.config.yml", ...files], CORPUS, { binary: true })
    expect(r.stdout).toBe(lines([...CORPUS_CONFIG_SECTION, ...expectedText(CORPUS_ENTRIES)]))
    expect(r.stderr).toBe(`lait: ${failedCount(CORPUS_ENTRIES)} of ${files.length} file(s) had errors\n`)
    expect(r.code).toBe(3)
  })

  test("json: a pretty array of {file, line, severity, message}", async () => {
    const r = await lait(["lint", "--format", "json", "--config", "lait.config.yml", ...files])
    expect(r.stdout).toBe(`${expectedJson(CORPUS_ENTRIES)}\n`)
    expect(r.stderr).toBe(
      `lait: lint found ${errorCount(CORPUS_ENTRIES)} error(s) across ${findingCount(CORPUS_ENTRIES)} finding(s) in ${files.length} file(s)\n`
    )
    expect(r.code).toBe(3)
  })

  test("github: one workflow command per finding", async () => {
    const r = await lait(["lint", "--format", "github", "--config", "lait.config.yml", ...files])
    expect(r.stdout).toBe(lines(expectedGithub(CORPUS_ENTRIES)))
    expect(r.stderr).toBe(
      `lait: lint found ${errorCount(CORPUS_ENTRIES)} error(s) across ${findingCount(CORPUS_ENTRIES)} finding(s) in ${files.length} file(s)\n`
    )
    expect(r.code).toBe(3)
  })

  test("warnings alone exit 0 (--no-config: names are not checked), in every format", async () => {
    const text = await lait(["lint", "--no-config", NO_CONFIG_ENTRY.file])
    expect([text.code, text.stdout, text.stderr]).toEqual([0, lines(expectedText([NO_CONFIG_ENTRY])), ""])
    const json = await lait(["lint", "--no-config", "--format", "json", NO_CONFIG_ENTRY.file])
    expect([json.code, json.stdout, json.stderr]).toEqual([0, `${expectedJson([NO_CONFIG_ENTRY])}\n`, ""])
    const github = await lait(["--no-config", "lint", "--format=github", NO_CONFIG_ENTRY.file])
    expect([github.code, github.stdout, github.stderr]).toEqual([0, lines(expectedGithub([NO_CONFIG_ENTRY])), ""])
  })

  test("a directory is walked in sorted order; clean files print OK and exit 0", async () => {
    const r = await lait(["lint", "--config", "lait.config.yml", "ok"])
    expect(r.stdout).toBe(
      lines([
        ...CORPUS_CONFIG_SECTION,
        "ok/agents/local.md: OK",
        "ok/lait.config.yml: OK",
        "ok/workflow.eval.yml: OK",
        "ok/workflow.test.yml: OK",
        "ok/workflow.yml: OK"
      ])
    )
    expect([r.stderr, r.code]).toEqual(["", 0])
  })
})

describe("the active configuration", () => {
  test("one that fails to load is reported first; names are then not checked; exit 3", async () => {
    const r = await lait(["lint", "--config", "active/broken/lait.config.yml", "names-unchecked.yml"])
    const config = path.join(CORPUS, "active/broken/lait.config.yml")
    expect(r.stdout).toBe(
      lines([
        "active/broken/lait.config.yml:",
        `  error: failed to parse YAML configuration file '${config}': base_uri: unknown key (line 3)`,
        "names-unchecked.yml:",
        "  warning: 'mcp'/'skills'/'subagents'/'tools' names were not checked because the configuration failed to load"
      ])
    )
    expect([r.stderr, r.code]).toEqual(["lait: 0 of 1 file(s) had errors; lait.config.yml also has errors\n", 3])

    const json = await lait(["lint", "--format", "json", "--config", "active/broken/lait.config.yml", "children/clean.yml"])
    expect(JSON.parse(json.stdout)).toEqual([
      {
        file: config,
        line: 3,
        severity: "error",
        message: `failed to parse YAML configuration file '${config}': base_uri: unknown key (line 3)`
      }
    ])
    expect([json.stderr, json.code]).toEqual(["lait: lint found 1 error(s) across 1 finding(s) in 1 file(s)\n", 3])
  })

  test("one that breaks a rule: reported with its registry's problems in every format, names still checked", async () => {
    const args = ["--config", "active/invalid/lait.config.yml", "children/clean.yml"]
    const config = path.join(CORPUS, "active/invalid/lait.config.yml")
    const both = `invalid configuration file '${config}': top-level configuration sets both 'api_key' and 'api_key_cmd'; set exactly one (line 4)`
    const gone = "workflows.gone resolves to 'children/gone.yml', which does not exist"

    const text = await lait(["lint", ...args, "names-unchecked.yml"])
    expect(text.stdout).toBe(
      lines([
        "lait.config.yml (workflows:):",
        "  clean: OK (children/clean.yml)",
        "  gone: error: no such file 'children/gone.yml'",
        "active/invalid/lait.config.yml:",
        `  error: ${both}`,
        "children/clean.yml: OK",
        "names-unchecked.yml:",
        "  error: step 1 (prompt) references unknown tool 'word_count'; define it under 'tools:' in lait.config.yml"
      ])
    )
    expect([text.stderr, text.code]).toEqual([
      "lait: 1 of 2 file(s) had errors; lait.config.yml 'workflows:' also has errors; lait.config.yml also has errors\n",
      3
    ])

    const json = await lait(["lint", "--format", "json", ...args])
    expect(JSON.parse(json.stdout)).toEqual([
      { file: config, line: null, severity: "error", message: gone },
      { file: config, line: 4, severity: "error", message: both }
    ])
    expect([json.stderr, json.code]).toEqual(["lait: lint found 2 error(s) across 2 finding(s) in 1 file(s)\n", 3])

    const github = await lait(["lint", "--format", "github", ...args])
    expect(github.stdout).toBe(
      lines([
        `::error file=active/invalid/lait.config.yml::${gone}`,
        `::error file=active/invalid/lait.config.yml,line=4::${both}`
      ])
    )
    expect([github.stderr, github.code]).toEqual(["lait: lint found 2 error(s) across 2 finding(s) in 1 file(s)\n", 3])
  })

  test("named among the PATHs, one that breaks a rule still has its registry checked", async () => {
    const r = await lait(["lint", "--no-config", "active/invalid/lait.config.yml"])
    expect(r.stdout).toBe(
      lines([
        "active/invalid/lait.config.yml:",
        `  error: invalid configuration file 'active/invalid/lait.config.yml': top-level configuration sets both 'api_key' and 'api_key_cmd'; set exactly one (line 4)`,
        "  error: workflows.gone resolves to 'children/gone.yml', which does not exist"
      ])
    )
    expect(r.code).toBe(3)
  })

  test("its workflows: registry: every entry listed, a missing file fails the run", async () => {
    const r = await lait(["lint", "--config", "active/registry/lait.config.yml", "children/clean.yml"])
    expect(r.stdout).toBe(
      lines([
        "lait.config.yml (workflows:):",
        "  clean: OK (children/clean.yml)",
        "  gone: error: no such file 'children/gone.yml'",
        "children/clean.yml: OK"
      ])
    )
    expect([r.stderr, r.code]).toEqual(["lait: 0 of 1 file(s) had errors; lait.config.yml 'workflows:' also has errors\n", 3])

    const github = await lait(["lint", "--format", "github", "--config", "active/registry/lait.config.yml", "children/clean.yml"])
    expect(github.stdout).toBe(
      "::error file=active/registry/lait.config.yml::workflows.gone resolves to 'children/gone.yml', which does not exist\n"
    )
    expect(github.code).toBe(3)
  })

  test("found by the upward search, like every command", async () => {
    const r = await lait(["lint", "../unknown-tool.yml"], path.join(CORPUS, "children"))
    expect(r.stdout).toBe(
      lines([
        "lait.config.yml (workflows:):",
        "  child: OK (clean.yml)",
        "../unknown-tool.yml:",
        "  error: step 1 (prompt) references unknown tool 'char_count'; define it under 'tools:' in lait.config.yml"
      ])
    )
    expect(r.code).toBe(3)
  })
})

describe("lait lint edge cases", () => {
  test("a FIFO named explicitly is not waited on, and a missing file is an error of its own", async () => {
    const dir = makeTempDir("lint-fifo")
    Bun.spawnSync(["mkfifo", path.join(dir, "pipe.yml")])
    fs.writeFileSync(path.join(dir, "ok.yml"), "steps:\n  - jq: .\n")
    // Waited on, the FIFO would block for ever: lait would be killed at runCli's bound, with no output.
    // A real process (the binary: it starts faster than `bun src/main.ts`), so that such a wait blocks a
    // child that can be killed, not this test process.
    const r = await lait(["lint", "--no-config", "pipe.yml", "missing.yml", "ok.yml"], dir, { binary: true })
    expect(r.stdout).toBe(
      lines([
        "pipe.yml:",
        "  error: failed to read 'pipe.yml': it is a FIFO with no writer",
        "missing.yml:",
        "  error: failed to read 'missing.yml': no such file or directory",
        "ok.yml: OK"
      ])
    )
    expect([r.stderr, r.code]).toEqual(["lait: 2 of 3 file(s) had errors\n", 3])
  }, 60_000)

  test("a file named with another extension is an error of its own, whatever it holds; exit 3", async () => {
    const dir = makeTempDir("lint-extension")
    // A valid workflow: the kind is not guessed from the content.
    fs.writeFileSync(path.join(dir, "notes.txt"), "steps:\n  - jq: .\n")
    fs.writeFileSync(path.join(dir, ".yml"), "steps:\n  - jq: .\n")
    fs.writeFileSync(path.join(dir, "ok.yml"), "steps:\n  - jq: .\n")
    const expected = (p: string) =>
      `cannot determine the file type of '${p}'; expected a '.yml'/'.yaml' workflow, test, eval or config file or a '.md' agent file`
    const r = await lait(["lint", "--no-config", "notes.txt", "missing.json", ".yml", "ok.yml"], dir)
    expect(r.stdout).toBe(
      lines([
        "notes.txt:",
        `  error: ${expected("notes.txt")}`,
        "missing.json:",
        `  error: ${expected("missing.json")}`,
        ".yml:",
        `  error: ${expected(".yml")}`,
        "ok.yml: OK"
      ])
    )
    expect([r.stderr, r.code]).toEqual(["lait: 3 of 4 file(s) had errors\n", 3])
    const json = await lait(["lint", "--no-config", "--format", "json", "notes.txt"], dir)
    expect(JSON.parse(json.stdout)).toEqual([{ file: "notes.txt", line: null, severity: "error", message: expected("notes.txt") }])
    expect(json.code).toBe(3)
  })

  test("a test file's error without a line of its own has none in JSON (not where lait built the error)", async () => {
    const dir = makeTempDir("lint-noline")
    fs.writeFileSync(path.join(dir, "empty.test.yml"), "")
    fs.writeFileSync(path.join(dir, "bad.test.yml"), "x: [\n")
    const r = await lait(["lint", "--no-config", "--format", "json", "empty.test.yml", "bad.test.yml"], dir)
    expect(JSON.parse(r.stdout).map((f: { file: string; line: number | null }) => [f.file, f.line])).toEqual([
      ["empty.test.yml", null],
      ["bad.test.yml", 2]
    ])
    expect(r.code).toBe(3)
  })

  test("usage errors exit 2: no PATH, an unknown format", async () => {
    expect((await lait(["lint"])).code).toBe(2)
    const bad = await lait(["lint", "--format", "xml", "ok"])
    expect(bad.code).toBe(2)
    expect(bad.stdout).toBe("")
  })
})
