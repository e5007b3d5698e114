// What a `lait run` loads and builds before it gets to work. effect/cli's module-level Intl.Segmenter
// (ICU break data, ≈ 2 ms) is made lazy by a build plugin (build.ts): a run that never measures help
// text must not build one (observed in the compiled binary with a preload, which BUN_OPTIONS reaches,
// counting the segmenters made). And a workflow of jq steps must not load what only model steps,
// templates or schemas need (observed from source with a preload recording every module loaded).
import { afterAll, beforeAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { STREAMS_PRELOAD } from "../fixtures/streamsPreload.ts"
import { makeTempDir, repoRoot, run, runCli } from "./util.ts"

let dir = ""
beforeAll(() => {
  dir = makeTempDir("lazy-startup")
  fs.writeFileSync(
    path.join(dir, "count.ts"),
    `const Original = Intl.Segmenter
let made = 0
;(Intl as { Segmenter: unknown }).Segmenter = class extends Original {
  constructor(...args: ConstructorParameters<typeof Original>) {
    super(...args)
    made++
  }
}
process.on("exit", () => require("node:fs").writeSync(2, "segmenters made: " + made + "\\n"))
`
  )
  fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - stop: true\n")
  fs.writeFileSync(path.join(dir, "jq.yml"), "steps:\n  - jq: 'tonumber + 1'\n")
  fs.writeFileSync(path.join(dir, "prompt.yml"), "steps:\n  - prompt: 'hi {{ input }}'\n    model: m\n    output_schema: { type: object }\n")
  fs.writeFileSync(
    path.join(dir, "record.ts"),
    `const loaded = new Set<string>()
Bun.plugin({ name: "record", setup(build) {
  build.onLoad({ filter: /\\/src\\/.*\\.ts$/ }, async (args) => {
    loaded.add(args.path.replace(/.*\\/src\\//, "src/"))
    return { contents: await Bun.file(args.path).text(), loader: "ts" }
  })
  build.onLoad({ filter: /\\/node_modules\\/effect\\/dist\\/cli\\/.*\\.js$/ }, async (args) => {
    loaded.add(args.path.replace(/.*\\/node_modules\\//, ""))
    return { contents: await Bun.file(args.path).text(), loader: "js" }
  })
} })
process.on("exit", () => {
  // Packages published as CommonJS show in require.cache.
  for (const p of Object.keys(require.cache)) {
    const name = /\\/node_modules\\/(ajv|handlebars)\\//.exec(p)?.[1]
    if (name !== undefined) loaded.add(name)
  }
  require("node:fs").writeFileSync(process.env.LOADED_FILE!, JSON.stringify([...loaded]))
})
`
  )
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const counted = (args: ReadonlyArray<string>) =>
  runCli(args, {
    cwd: dir,
    binary: true,
    env: { ...process.env, NO_COLOR: "1", BUN_OPTIONS: `--preload ${path.join(dir, "count.ts")}` }
  })

test("lait run builds no Intl.Segmenter; help, which measures text, still does", async () => {
  const ran = await counted(["run", "wf.yml", "41"])
  expect({ code: ran.code, stdout: ran.stdout }).toEqual({ code: 0, stdout: "41\n" })
  expect(ran.stderr).toContain("segmenters made: 0\n")
  const help = await counted(["run", "--help"])
  expect(help.code).toBe(0)
  expect(help.stderr).toMatch(/segmenters made: [1-9]/)
}, 120_000)

// process.stdout/process.stderr are lazy: the first read builds Node's stream machinery (node:tty and
// the stream modules). The preload puts a recording stand-in in their place; a run that never reads
// them writes its answer, progress and errors with write(2) (src/platform/stdStreams.ts).
const streamsUsedBy = async (args: ReadonlyArray<string>) => {
  const preload = path.join(dir, "streams.ts")
  fs.writeFileSync(preload, STREAMS_PRELOAD)
  return runCli(args, { cwd: dir, binary: true, env: { ...process.env, NO_COLOR: "1", BUN_OPTIONS: `--preload ${preload}` } })
}

test("lait run builds neither stdout's nor stderr's stream: for its answer, progress lines or an error", async () => {
  const ran = await streamsUsedBy(["run", "jq.yml", "41"])
  expect(ran).toMatchObject({ code: 0, stdout: "42\n", stderr: "[1] step-1 (jq)\nstreams used: []\n" })
  const failed = await streamsUsedBy(["run", "missing.yml", "41"])
  expect(failed.code).toBe(1)
  expect(failed.stderr).toEndWith("\nstreams used: []\n")
  // The command tree's presenter still asks for them (colour detection).
  const help = await streamsUsedBy(["run", "--help"])
  expect(help.stderr).toContain("streams used: [stderr,stdout]\n")
}, 120_000)

let runs = 0

/**
 * The modules `lait run FILE 41` (or `lait run ARGS`) loads from source (with LAIT_HTTP_ATTEMPTS=1, to fail
 * fast). Each call records into a file of its own, so calls may run side by side.
 */
const loadedBy = async (
  file: string,
  args: ReadonlyArray<string> = [file, "41"],
  cwd = dir,
  extraEnv: Record<string, string | undefined> = {}
): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string; readonly loaded: Array<string> }> => {
  const out = path.join(dir, `${path.basename(file)}.${++runs}.loaded.json`)
  const r = await run(
    [process.execPath, "--preload", path.join(dir, "record.ts"), path.join(repoRoot, "src", "main.ts"), "run", ...args],
    {
      cwd,
      env: {
        ...process.env,
        NO_COLOR: "1",
        // No global config either: the run has no config file at all.
        XDG_CONFIG_HOME: dir,
        LOADED_FILE: out,
        LAIT_HTTP_ATTEMPTS: "1",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        ...extraEnv
      }
    }
  )
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, loaded: JSON.parse(fs.readFileSync(out, "utf8")) as Array<string> }
}

/** `lait run jq.yml 41` as the tests below see it: one process, shared by them. */
let jqRun: ReturnType<typeof loadedBy> | undefined
const loadedByJq = () => (jqRun ??= loadedBy("jq.yml"))

const modelOnly = ["src/model/Live.ts", "src/workflow/modelSteps.ts", "src/tools/ToolRuntime.ts", "handlebars"]

test("lait run of a jq workflow loads no model client, model steps, Handlebars or Ajv; a prompt step loads them", async () => {
  const [jq, prompt] = await Promise.all([loadedByJq(), loadedBy("prompt.yml")])
  expect(jq.code).toBe(0)
  expect(jq.loaded).toContain("src/cli/runWorkflow.ts")
  expect(jq.loaded.filter((m) => modelOnly.includes(m))).toEqual([])
  // Nor the Effect Schema of workflow and agent files (the loader's key tables are apart from it),
  // nor the dry-run planner, nor, without a config file, the config file's schema.
  const schemas = ["src/lang/fileSchema.ts", "src/workflow/dryrun.ts", "src/config/schema.ts"]
  expect(jq.loaded.filter((m) => schemas.includes(m))).toEqual([])
  // No server answers: the request fails after the modules were loaded.
  expect(prompt.code).toBe(4)
  expect(prompt.loaded.filter((m) => modelOnly.includes(m)).sort()).toEqual([...modelOnly].sort())
}, 120_000)

test("lait run --replay of the release-notes example loads neither the tool loop nor agent files nor a miss's search", async () => {
  const example = path.join("examples", "release-notes")
  const releaseNotes = [path.join(example, "release-notes.yml"), "--replay", path.join(example, "cassettes")]
  fs.writeFileSync(path.join(dir, "typed.yml"), "inputs:\n  n: { type: integer, minimum: 1 }\nsteps:\n  - jq: '$inputs.n'\n")
  // Without OPENAI_BASE_URL every cassette is where its key says (`exact`).
  const [replay, exact, good, bad] = await Promise.all([
    loadedBy(path.join(example, "release-notes.yml"), releaseNotes, repoRoot),
    loadedBy(path.join(example, "release-notes.yml"), releaseNotes, repoRoot, { OPENAI_BASE_URL: undefined }),
    loadedBy("typed.yml", ["typed.yml", "--input", "n=3"]),
    loadedBy("typed.yml", ["typed.yml", "--input", "n=0"])
  ])
  expect({ code: replay.code, headline: replay.stdout.startsWith("# Release 0.9.0\n") }).toEqual({ code: 0, headline: true })
  // Its prompts name no tools, skills or agents: neither the tool loop (MCP, subagents, shell tools,
  // tool cassettes) nor the Effect Schema of agent files is loaded.
  const toolsOnly = ["src/tools/toolLoop.ts", "src/tools/mcp/registry.ts", "src/tools/subagents.ts", "src/tools/skills.ts"]
  const agentsOnly = ["src/lang/agentFile.ts", "src/lang/fileSchema.ts", "src/config/schema.ts"]
  expect(replay.loaded.filter((m) => [...toolsOnly, ...agentsOnly].includes(m))).toEqual([])
  // OPENAI_BASE_URL moves every request off the recorded URL: each is found by searching the directory.
  expect(replay.stderr).toContain("note: replayed ")
  // Without it every cassette is where its key says: the search a miss makes is not loaded.
  expect({ code: exact.code, stdout: exact.stdout, notes: exact.stderr.includes("note:") }).toEqual({
    code: 0,
    stdout: replay.stdout,
    notes: false
  })
  const missOnly = ["src/model/cassette/moved.ts", "src/model/cassette/diff.ts", "src/model/cassette/scan.ts"]
  expect(exact.loaded.filter((m) => missOnly.includes(m))).toEqual([])
  expect(replay.loaded.filter((m) => missOnly.includes(m)).sort()).toEqual([...missOnly].sort())
  expect({ code: good.code, stdout: good.stdout }).toEqual({ code: 0, stdout: "3\n" })
  expect({ code: bad.code, stderr: bad.stderr }).toEqual({ code: 1, stderr: "lait: inputs.n must be >= 1\n" })
}, 120_000)

test("a plain lait run loads neither effect/cli nor the command tree; other command lines still do", async () => {
  const [lean, full] = await Promise.all([loadedByJq(), loadedBy("jq.yml", ["jq.yml", "41", "--approve-tools"])])
  expect(lean.code).toBe(0)
  expect(lean.loaded).toContain("src/cli/leanRun.ts")
  expect(lean.loaded.filter((m) => m.startsWith("effect/dist/cli/"))).toEqual([])
  const tree = ["src/cli/app.ts", "src/cli/root.ts", "src/cli/run.ts", "src/cli/global.ts", "src/cli/presenter.ts"]
  expect(lean.loaded.filter((m) => tree.includes(m))).toEqual([])
  // A flag the lean path does not read takes the command tree, as before.
  expect(full.code).toBe(0)
  expect(full.loaded).toContain("src/cli/app.ts")
  expect(full.loaded).toContain("effect/dist/cli/Command.js")
}, 120_000)

// The loader checks a file once without Handlebars and Ajv and, when it needs them, makes the checks
// it put off (or checks the whole file again with them): a fresh process must report the first problem
// in the file, not the first one the engine-free pass saw, and in its place.
test("a fresh process still reports a file's first error when it is a template or schema error", async () => {
  fs.writeFileSync(path.join(dir, "bad-template.yml"), "steps:\n  - write: '{{#if x}}y{{/each}}.txt'\n  - jq: '.'\n    bogus: 1\n")
  fs.writeFileSync(path.join(dir, "bad-schema.yml"), "input_schema: { type: intger }\nsteps:\n  - jq: '.'\n    bogus: 1\n")
  const template = await runCli(["run", "bad-template.yml", "1"], { cwd: dir, process: true })
  expect({ code: template.code, stderr: template.stderr }).toEqual({
    code: 3,
    stderr: "lait: failed to load workflow 'bad-template.yml' (line 2): steps[0]: 'write': failed to parse template: " +
      "\"{{#if x}}y{{/each}}.txt\": if doesn't match each - 1:3\n"
  })
  const schema = await runCli(["run", "bad-schema.yml", "1"], { cwd: dir, process: true })
  expect({ code: schema.code, stderr: schema.stderr }).toEqual({
    code: 3,
    stderr: "lait: failed to load workflow 'bad-schema.yml' (line 1): the workflow: 'input_schema': invalid JSON Schema: " +
      "type must be JSONType or JSONType[]: intger\n"
  })
  // The only problem is one the first pass put off.
  fs.writeFileSync(path.join(dir, "late-template.yml"), "steps:\n  - jq: '.'\n  - write: '{{#if x}}y{{/each}}.txt'\n")
  fs.writeFileSync(path.join(dir, "bad-default.yml"), "inputs:\n  n: { type: integer, default: 'x' }\nsteps:\n  - jq: '.'\n")
  // `models:` is decoded in the first pass; the template error after it is still the one reported.
  fs.writeFileSync(
    path.join(dir, "models-template.yml"),
    "models:\n  m:\n    - provider: { base_url: 'http://x' }\n      model_id: a\nschemas:\n  s: { type: object }\n" +
      "steps:\n  - write: '{{#if x}}y{{/each}}.txt'\n  - prompt: '{{ input }}'\n    model: m\n    output_schema: s\n"
  )
  fs.writeFileSync(
    path.join(dir, "bad-models.yml"),
    "models:\n  m:\n    - provider: { base_url: 'http://x' }\n      model_id: ' '\nsteps:\n  - prompt: '{{ input }}'\n    model: m\n"
  )
  const cases = await Promise.all(
    ["late-template.yml", "bad-default.yml", "models-template.yml", "bad-models.yml"].map((file) =>
      runCli(["run", file, "1"], { cwd: dir })
    )
  )
  const prefix = "lait: failed to load workflow"
  const ifEach = "failed to parse template: \"{{#if x}}y{{/each}}.txt\": if doesn't match each - 1:3\n"
  expect(cases.map((r) => ({ code: r.code, stderr: r.stderr }))).toEqual([
    { code: 3, stderr: `${prefix} 'late-template.yml' (line 3): steps[1]: 'write': ${ifEach}` },
    { code: 3, stderr: `${prefix} 'bad-default.yml' (line 2): inputs.n.default must be of type integer (got string)\n` },
    { code: 3, stderr: `${prefix} 'models-template.yml' (line 8): steps[0]: 'write': ${ifEach}` },
    { code: 3, stderr: `${prefix} 'bad-models.yml' (line 4): models.m[0].model_id: must not be empty\n` }
  ])
}, 60_000)
