// What a compiled `lait run` of one jq step, and a `lait eval` of a model target, evaluate. From source this cannot be seen: an
// `import { X } from "effect"` evaluates the whole barrel there, while the binary's bundle evaluates
// only the chunks the run reaches. So the test bundles src/main.ts as build.ts does (ESM, split into
// chunks), runs it under a preload that records every chunk it loads, and maps those chunks back to
// their input modules with the bundle's metafile.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { startOpenAiServer } from "../fixtures/openai-server.ts"
import { makeTempDir, repoRoot, run } from "../e2e/util.ts"

let dir = ""
beforeAll(() => {
  dir = makeTempDir("run-bundle")
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** The bundle of src/main.ts (and the jq worker, an entry of its own in build.ts) and its metafile. */
const bundle = async (outdir: string): Promise<Bun.BuildMetafile> => {
  const src = path.join(repoRoot, "src")
  const result = await Bun.build({
    entrypoints: [path.join(src, "main.ts"), path.join(src, "lang", "jqWorker.ts")],
    root: src,
    target: "bun",
    format: "esm",
    splitting: true,
    outdir,
    metafile: true
  })
  if (!result.success || result.metafile === undefined) throw new Error(result.logs.map(String).join("\n"))
  return result.metafile
}

// A runtime plugin sees every module the process loads, the bundle's chunks included.
const recorder = (outdir: string, log: string) => `
const loaded = []
Bun.plugin({
  name: "record-chunks",
  setup(build) {
    build.onLoad({ filter: /^${outdir.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\/.*\\.js$/ }, async ({ path }) => {
      loaded.push(path)
      return { contents: await Bun.file(path).text(), loader: "js" }
    })
  }
})
process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(log)}, loaded.join("\\n")))
`

// Built once for the file's tests.
let built: Promise<Bun.BuildMetafile> | undefined

/** Runs the bundle's main.js with `args` in `cwd`: its stdout and the input modules it evaluated. */
const loadedModules = async (args: ReadonlyArray<string>, cwd: string) => {
  const outdir = path.join(dir, "out")
  const meta = await (built ??= bundle(outdir))
  const log = path.join(dir, "loaded.txt")
  const preload = path.join(dir, "recorder.ts")
  fs.writeFileSync(preload, recorder(outdir, log))
  const result = await run([process.execPath, "--preload", preload, path.join(outdir, "main.js"), ...args], { cwd })
  const loaded = new Set(fs.readFileSync(log, "utf8").split("\n").filter((p) => p !== ""))
  // Output paths are relative to outdir; input paths to the directory the build ran in.
  const modules = Object.entries(meta.outputs)
    .filter(([output]) => loaded.has(path.resolve(outdir, output)))
    .flatMap(([, output]) => Object.keys(output.inputs))
    .map((input) => path.relative(repoRoot, path.resolve(input)))
  return { result, loaded: loaded.size, modules }
}

describe("the bundle of a `lait run` of one jq step", () => {
  // Effect's Schema (with SchemaAST, SchemaParser, ...) costs a few ms to evaluate; a run that
  // validates nothing with it must not load it (bench/README.md, issue 24 round 9).
  test("does not evaluate effect's Schema module", async () => {
    fs.writeFileSync(path.join(dir, "jq.yml"), "steps:\n  - jq: 'tonumber + 1'\n")
    const { result, loaded, modules } = await loadedModules(["run", "--no-env", "jq.yml", "41"], dir)
    expect({ stdout: result.stdout, code: result.code }).toEqual({ stdout: "42\n", code: 0 })
    // The recorder saw the run's chunks: the entry's and its handler's.
    expect(loaded).toBeGreaterThan(1)
    expect(modules).toContain("src/cli/leanRun.ts")
    expect(modules.filter((m) => /node_modules\/effect\/dist\/Schema(AST|Parser)?\.js$/.test(m))).toEqual([])
  }, 120_000)
})

describe("the bundle of a `lait eval` of a model target", () => {
  // A whole answer is fetched without Effect's HTTP client (src/model/fetchCapped.ts); its modules,
  // with Stream, Channel and Queue, cost milliseconds before the first request (bench/README.md,
  // issue 24 round 9). Only a streamed request loads them.
  test("asks its questions without evaluating effect/http", async () => {
    const server = startOpenAiServer({ script: [{ repeat: true }] })
    try {
      const project = path.join(dir, "eval")
      fs.mkdirSync(project, { recursive: true })
      fs.writeFileSync(
        path.join(project, "lait.config.yml"),
        `models:\n  m:\n    - provider: { base_url: '${server.baseUrl}' }\n      model_id: fixture-model\n`
      )
      fs.writeFileSync(
        path.join(project, "eval.yml"),
        "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: 'hello there'\n    assert: [{ type: contains, value: 'hello there' }]\n"
      )
      const { result, modules } = await loadedModules(["eval", "--no-env", "eval.yml", "--repeat", "2"], project)
      expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 })
      expect(server.requests).toHaveLength(2)
      expect(modules).toContain("src/model/Live.ts")
      expect(modules.filter((m) => /node_modules\/effect\/dist\/http\//.test(m))).toEqual([])
    } finally {
      await server.stop()
    }
  }, 120_000)
})
