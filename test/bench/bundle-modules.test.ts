// What a compiled lait evaluates for a plain run, a replay and an eval. From source this cannot be seen:
// an `import { X } from "effect"` evaluates the whole barrel there, while the binary's bundle evaluates
// only the chunks a command reaches. So a split build of lait, as the binary runs it, records the
// modules each command evaluates (test/fixtures/bundleProbe.ts).
// - Effect Schema's modules cost a run ≈ 3 ms of ≈ 33 to evaluate (bench/README.md, issue 24 round 9).
//   Errors are Data classes (src/core/reasonError.ts), and the schema decoders of what a file or an
//   answer holds (workflow `models:`, config, eval file, cassettes, answers) are loaded with `import()`
//   when a run reads one: a run of jq steps without a config file evaluates none of them.
// - Model requests are sent without Effect's HTTP client (src/model/ModelHttp.ts), whose modules
//   (with Stream, Channel and Queue) cost milliseconds before an eval's first request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { bundledModules, type SplitBuild, splitBuild } from "../fixtures/bundleProbe.ts"
import { makeTempDir, repoRoot } from "../e2e/util.ts"
import { startOpenAiServer } from "../fixtures/openai-server.ts"

const effectSchema = (m: string) => /node_modules\/effect\/dist\/(Schema\w*|internal\/schema\/.*)\.js$/.test(m)
const effectHttp = (m: string) => /node_modules\/effect\/dist\/http\//.test(m)

/** Whether a source file imports one of Effect's Schema modules for its value (not only a type). */
const importsSchema = (file: string): boolean => {
  const text = fs.readFileSync(path.join(repoRoot, file), "utf8")
  return [...text.matchAll(/^import \{([^}]*)\} from "effect"/gm)].some((m) =>
    m[1]!.split(",").map((s) => s.trim()).some((name) => /^Schema\w*$/.test(name))
  )
}

let build: SplitBuild
let dir = ""
beforeAll(async () => {
  build = await splitBuild()
  dir = makeTempDir("bundle-modules")
}, 120_000)
afterAll(() => {
  build?.remove()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe("a lait run of one jq step", () => {
  test("evaluates no Effect Schema module, nor a lait module that uses one", async () => {
    fs.writeFileSync(path.join(dir, "jq.yml"), "steps:\n  - jq: 'tonumber + 1'\n")
    const { modules, stdout } = await build.loaded(["run", "--no-env", "jq.yml", "41"], dir)
    expect(stdout).toBe("42\n")
    expect(modules).toContain("src/cli/leanRun.ts")
    expect(modules.filter(effectSchema)).toEqual([])
    expect(modules.filter((m) => m.startsWith("src/") && importsSchema(m))).toEqual([])
  }, 60_000)
})

describe("a replayed lait run (examples/release-notes)", () => {
  let replay: ReadonlyArray<string> = []
  beforeAll(async () => {
    const example = path.join("examples", "release-notes")
    const args = ["run", path.join(example, "release-notes.yml"), "--replay", path.join(example, "cassettes")]
    replay = (await build.loaded(args, repoRoot)).modules
  }, 60_000)

  test("evaluates the workflow loader, the replay layer and the answer reader", () => {
    for (const file of ["src/lang/load.ts", "src/model/Replay.ts", "src/model/completion.ts"]) {
      expect(replay).toContain(file)
    }
  })

  test("evaluates no HTTP client, nor the config file's schema (there is no config file)", () => {
    expect(replay.filter(effectHttp)).toEqual([])
    expect(replay).not.toContain("src/config/schema.ts")
  })
})

describe("a plain lait eval against a model server", () => {
  test("asks its questions without the HTTP client", async () => {
    const server = startOpenAiServer({ script: [{ repeat: true, usage: { prompt_tokens: 3, completion_tokens: 2 } }] })
    const project = path.join(dir, "eval")
    fs.mkdirSync(project)
    try {
      fs.writeFileSync(
        path.join(project, "lait.config.yml"),
        `models:\n  m:\n    - provider: { base_url: '${server.baseUrl}' }\n      model_id: fixture\n`
      )
      const cases = ["one", "two"].map((c) => `  - input: ${c}\n    assert: [{ type: contains, value: PASS }]\n`)
      fs.writeFileSync(
        path.join(project, "e.yml"),
        `target: { model: m, prompt: 'say {{input}} PASS' }\ncases:\n${cases.join("")}` +
          "default_assert: [{ type: contains, value: say }]\n"
      )
      const { modules } = await build.loaded(["eval", "--no-env", "e.yml", "--repeat", "2"], project)
      expect(server.requests).toHaveLength(4)
      for (const file of ["src/eval/schema.ts", "src/model/Live.ts", "src/model/ModelHttp.ts"]) expect(modules).toContain(file)
      expect(modules.filter(effectHttp)).toEqual([])
    } finally {
      await server.stop()
    }
  }, 60_000)
})

describe("ModelError", () => {
  test("bundles without Effect Schema: every replayed or failed model request loads it", async () => {
    const modules = await bundledModules(path.join(repoRoot, "src", "model", "ModelError.ts"))
    expect(modules).toContain("src/model/ModelError.ts")
    expect(modules.filter(effectSchema)).toEqual([])
  }, 60_000)
})
