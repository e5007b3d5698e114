// Effect Schema's modules cost a replayed `lait run` ≈ 3 ms of ≈ 33 to evaluate. A replay reads only
// plainly valid input (its workflow's `models:`, its cassettes, their answers), which native decoders
// take without Schema (src/config/configNative.ts, src/model/completion.ts, src/model/cassette/
// format.ts); the schema decoders, which word the errors, are loaded with `import()` when one declines.
// Observed in a split build of lait run as the binary runs it (test/fixtures/bundleProbe.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as path from "node:path"
import { bundledModules, type SplitBuild, splitBuild } from "../fixtures/bundleProbe.ts"
import { repoRoot } from "../e2e/util.ts"

let build: SplitBuild
let replay: ReadonlyArray<string> = []
beforeAll(async () => {
  build = await splitBuild()
  const example = path.join("examples", "release-notes")
  replay = build.loaded(["run", path.join(example, "release-notes.yml"), "--replay", path.join(example, "cassettes")], repoRoot)
}, 120_000)
afterAll(() => build?.remove())

describe("a replayed lait run (examples/release-notes)", () => {
  test("evaluates the workflow loader, the replay layer and the native decoders", () => {
    for (const file of ["src/lang/load.ts", "src/model/Replay.ts", "src/config/configNative.ts", "src/model/completion.ts"]) {
      expect(replay).toContain(file)
    }
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

describe("ModelError", () => {
  test("bundles without Effect Schema: every replayed or failed model request loads it", async () => {
    const modules = await bundledModules(path.join(repoRoot, "src", "model", "ModelError.ts"))
    expect(modules).toContain("src/model/ModelError.ts")
    expect(modules.filter((m) => /effect\/dist\/(Schema\w*|internal\/schema\/.*)\.js$/.test(m))).toEqual([])
  }, 60_000)
})
