// Effect Schema's modules cost a replayed `lait run` ≈ 3 ms of ≈ 33 to evaluate. A replay reads only
// plainly valid input (its workflow's `models:`, its cassettes, their answers), and a plain `lait eval`
// too (its eval file, config and answers), which native decoders take without Schema (src/config/
// configNative.ts, src/model/completion.ts, src/model/cassette/format.ts, src/eval/casesNative.ts); the
// schema decoders, which word the errors, are loaded with `import()` when one declines. Observed in a
// split build of lait as the binary runs it (test/fixtures/bundleProbe.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { bundledModules, type SplitBuild, splitBuild } from "../fixtures/bundleProbe.ts"
import { makeTempDir, repoRoot } from "../e2e/util.ts"
import { startOpenAiServer } from "../fixtures/openai-server.ts"

/** Whether a source file imports one of Effect's Schema modules for its value (not only a type). */
const importsSchema = (file: string): boolean => {
  const text = fs.readFileSync(path.join(repoRoot, file), "utf8")
  return [...text.matchAll(/^import \{([^}]*)\} from "effect"/gm)].some((m) =>
    m[1]!.split(",").map((s) => s.trim()).some((name) => /^Schema\w*$/.test(name))
  )
}

// Converted on their own (Data.TaggedError): the domain error classes, each loaded by many commands.
const domainErrors = (file: string) => /Errors\.ts$|\/TraceError\.ts$/.test(file)

let build: SplitBuild
let replay: ReadonlyArray<string> = []
beforeAll(async () => {
  build = await splitBuild()
  const example = path.join("examples", "release-notes")
  replay = await build.loaded(["run", path.join(example, "release-notes.yml"), "--replay", path.join(example, "cassettes")], repoRoot)
}, 120_000)
afterAll(() => build?.remove())

describe("a replayed lait run (examples/release-notes)", () => {
  test("evaluates the workflow loader, the replay layer and the native decoders", () => {
    for (const file of ["src/lang/load.ts", "src/model/Replay.ts", "src/config/configNative.ts", "src/model/completion.ts"]) {
      expect(replay).toContain(file)
    }
  })

  test("evaluates no lait module that uses Effect Schema, but the domain error classes", () => {
    expect(replay.filter((m) => m.startsWith("src/") && !domainErrors(m) && importsSchema(m))).toEqual([])
  })

  test("evaluates none of the schema fallbacks", () => {
    const fallbacks = [
      "src/config/modelSchema.ts",
      "src/config/schema.ts",
      "src/lang/load/models.ts",
      "src/model/types.ts",
      "src/model/completionSchema.ts",
      "src/model/cassette/schema.ts"
    ]
    expect(replay.filter((m) => fallbacks.includes(m))).toEqual([])
  })
})

describe("a plain lait eval against a model server", () => {
  test("evaluates no lait module that uses Effect Schema, but the domain error classes, nor the eval schemas", async () => {
    const server = startOpenAiServer({ script: [{ repeat: true, usage: { prompt_tokens: 3, completion_tokens: 2 } }] })
    const dir = makeTempDir("eval-bundle")
    try {
      fs.writeFileSync(
        path.join(dir, "lait.config.yml"),
        `models:\n  m:\n    - provider: { base_url: '${server.baseUrl}' }\n      model_id: fixture\n`
      )
      const cases = ["one", "two"].map((c) => `  - input: ${c}\n    assert: [{ type: contains, value: PASS }]\n`)
      fs.writeFileSync(
        path.join(dir, "e.yml"),
        `target: { model: m, prompt: 'say {{input}} PASS' }\ncases:\n${cases.join("")}` +
          "default_assert: [{ type: contains, value: say }]\n"
      )
      const loaded = await build.loaded(["eval", "e.yml"], dir)
      expect(loaded).toContain("src/eval/schema.ts")
      expect(loaded.filter((m) => m.startsWith("src/") && !domainErrors(m) && importsSchema(m))).toEqual([])
      expect(loaded.filter((m) => ["src/eval/evalSchema.ts", "src/testing/assertionSchema.ts"].includes(m))).toEqual([])
    } finally {
      await server.stop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe("ModelError", () => {
  test("bundles without Effect Schema: every replayed or failed model request loads it", async () => {
    const modules = await bundledModules(path.join(repoRoot, "src", "model", "ModelError.ts"))
    expect(modules).toContain("src/model/ModelError.ts")
    expect(modules.filter((m) => /effect\/dist\/(Schema\w*|internal\/schema\/.*)\.js$/.test(m))).toEqual([])
  }, 60_000)
})
