// What every lait process evaluates before doing anything (bench/startup/graph.ts). Start-up was the
// worst ratio of `npm run bench`; the profile found two avoidable costs, and these tests keep them out:
// BunCrypto (node:crypto plus all of effect/crypto, pulled in by BunServices.layer though lait uses
// no Crypto service) and the config schema (built when src/config/schema.ts is evaluated, which only
// commands that read a config need).
import { describe, expect, test } from "bun:test"
import { startupModules } from "../../bench/startup/graph.ts"

describe("start-up module graph of src/main.ts", () => {
  test("excludes crypto and the config schema, includes the command tree", async () => {
    const paths = (await startupModules()).map((m) => m.path)
    // Sanity: the closure was found (the entry and the command tree are in it).
    expect(paths).toContain("src/main.ts")
    expect(paths).toContain("src/cli/root.ts")
    expect(paths).toContain("src/platform/layer.ts")
    expect(paths.filter((p) => /effect\/dist\/crypto\//.test(p))).toEqual([])
    expect(paths.filter((p) => /platform-(bun|node-shared)\/dist\/(BunCrypto|NodeCrypto)\.js$/.test(p))).toEqual([])
    expect(paths).not.toContain("src/config/schema.ts")
    expect(paths).not.toContain("src/config/load.ts")
  }, 60_000)

  test("excludes live OTLP export: effect/observability and the exporter load only when OTEL_* asks", async () => {
    const paths = (await startupModules()).map((m) => m.path)
    expect(paths).toContain("src/trace/live/layer.ts")
    expect(paths.filter((p) => /effect\/dist\/observability\//.test(p))).toEqual([])
    expect(paths.filter((p) => /src\/trace\/live\/(env|exporter)\.ts$/.test(p))).toEqual([])
  }, 60_000)

  test("excludes the model client's layers and the tool tape: built, and loaded, only when a command asks a model", async () => {
    const paths = (await startupModules()).map((m) => m.path)
    expect(paths).toContain("src/model/ModelClient.ts")
    expect(paths.filter((p) => /src\/model\/(Live|Replay|Record|RecordMissing|Cache)\.ts$/.test(p))).toEqual([])
    expect(paths.filter((p) => /src\/model\/cassette\//.test(p))).toEqual([])
    expect(paths).not.toContain("src/tools/cassette/ToolCassettes.ts")
  }, 60_000)
})
