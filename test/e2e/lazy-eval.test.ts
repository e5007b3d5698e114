// What a `lait eval` of a model target loads before its first request: a model target needs no
// workflow loader, nor `contains` assertions jq; a workflow target or a jq assertion still loads them.
// Observed from source with a preload recording every module loaded. Nor does it build Node's stdout/stderr streams (its progress
// lines and report go out with write(2)): observed in the binary with a preload standing in for them.
import { afterAll, beforeAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { STREAMS_PRELOAD } from "../fixtures/streamsPreload.ts"
import { makeTempDir, repoRoot, run, runCli } from "./util.ts"

let dir = ""
let server: OpenAiServer
beforeAll(() => {
  dir = makeTempDir("lazy-eval")
  server = startOpenAiServer({ script: [{ repeat: true }] })
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text)
  write(
    "record.ts",
    `const loaded: Array<string> = []
Bun.plugin({ name: "record", setup(build) {
  build.onLoad({ filter: /\\/src\\/.*\\.ts$/ }, async (args) => {
    loaded.push(args.path.replace(/.*\\/src\\//, "src/"))
    return { contents: await Bun.file(args.path).text(), loader: "ts" }
  })
} })
process.on("exit", () => require("node:fs").writeFileSync(process.env.LOADED_FILE!, JSON.stringify(loaded)))
`
  )
  write("streams.ts", STREAMS_PRELOAD)
  const models = `models:\n  m:\n    - provider: { base_url: '${server.baseUrl}' }\n      model_id: fixture\n`
  write("plain.config.yml", models)
  write("model.yml", "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: hi\n    assert: [{ type: contains, value: hi }]\n")
  write("jq.yml", "target: { model: m, prompt: '{{input}}' }\ncases:\n  - input: hi\n    assert: [{ type: jq, expr: '. != null' }]\n")
  write("wf.yml", "steps:\n  - jq: '.'\n")
  write("workflow.yml", "target: { workflow: wf.yml }\ncases:\n  - input: hi\n    assert: [{ type: contains, value: hi }]\n")
})
afterAll(() => {
  server.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

const loadedBy = async (config: string, file: string) => {
  const out = path.join(dir, "loaded.json")
  const r = await run(
    [process.execPath, "--preload", path.join(dir, "record.ts"), path.join(repoRoot, "src", "main.ts"), "eval", file, "--config", config],
    { cwd: dir, env: { ...process.env, NO_COLOR: "1", XDG_CONFIG_HOME: dir, LOADED_FILE: out } }
  )
  expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 })
  return JSON.parse(fs.readFileSync(out, "utf8")) as Array<string>
}

const configSchema = ["src/config/modelSchema.ts", "src/config/schema.ts"]
const workflowLoader = ["src/lang/load.ts", "src/lang/load/document.ts", "src/lang/schemaRef.ts"]
const jq = ["src/lang/jq.ts", "src/lang/jq/index.ts"]
const among = (loaded: ReadonlyArray<string>, modules: ReadonlyArray<string>) => modules.filter((m) => loaded.includes(m))

test("an eval of a model target loads neither the workflow loader nor jq; its config file the config schema", async () => {
  const plain = await loadedBy("plain.config.yml", "model.yml")
  expect(plain).toContain("src/eval/runner.ts")
  expect(among(plain, [...workflowLoader, ...jq])).toEqual([])
  expect(among(plain, configSchema)).toEqual(configSchema)
}, 60_000)

test("a workflow target loads the workflow loader; a jq assertion jq", async () => {
  expect(among(await loadedBy("plain.config.yml", "workflow.yml"), workflowLoader)).toEqual(workflowLoader)
  expect(among(await loadedBy("plain.config.yml", "jq.yml"), jq)).toEqual(jq)
}, 60_000)

test("an eval builds neither stdout's nor stderr's stream: for its progress lines or its report", async () => {
  const r = await runCli(["eval", "model.yml", "--config", "plain.config.yml"], {
    cwd: dir,
    binary: true,
    env: { ...process.env, NO_COLOR: "1", XDG_CONFIG_HOME: dir, BUN_OPTIONS: `--preload ${path.join(dir, "streams.ts")}` }
  })
  expect(r).toMatchObject({
    code: 0,
    stdout: "case 1: 1/1 (100%) PASS\n1 of 1 case(s) fully passed\n",
    stderr: "eval: 1 case(s) x 1 run(s) = 1 run(s), 8 at a time\neval: case 1 done: 1/1 passed [1/1]\nstreams used: []\n"
  })
}, 60_000)
