// Effect Schema's modules cost a replayed `lait run` ≈ 3 ms of ≈ 33 to evaluate. A replay reads only
// plainly valid input (its workflow's `models:`, its cassettes, their answers), which native decoders
// take without Schema (src/config/configNative.ts, src/model/completion.ts, src/model/cassette/
// format.ts); the schema decoders, which word the errors, are loaded with `import()` when one declines.
// Observed in a split build of lait run as the binary runs it (test/fixtures/bundleProbe.ts).
import { describe, expect, test } from "bun:test"
import * as path from "node:path"
import { bundledModules } from "../fixtures/bundleProbe.ts"
import { repoRoot } from "../e2e/util.ts"

describe("ModelError", () => {
  test("bundles without Effect Schema: every replayed or failed model request loads it", async () => {
    const modules = await bundledModules(path.join(repoRoot, "src", "model", "ModelError.ts"))
    expect(modules).toContain("src/model/ModelError.ts")
    expect(modules.filter((m) => /effect\/dist\/(Schema\w*|internal\/schema\/.*)\.js$/.test(m))).toEqual([])
  }, 60_000)
})
