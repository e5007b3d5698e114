// What every lait process evaluates before doing anything (bench/startup/graph.ts). Start-up was the
// worst ratio of `npm run bench`; the profile found two avoidable costs, and these tests keep them out:
// BunCrypto (node:crypto plus all of effect/crypto, pulled in by BunServices.layer though lait uses
// no Crypto service) and the config schema (built when src/config/schema.ts is evaluated, which only
// commands that read a config need).
import { describe, expect, test } from "bun:test"
import * as path from "node:path"
import { type StartupModule, startupModules as bundle } from "../../bench/startup/graph.ts"
import { repoRoot } from "../../bench/util.ts"

// Each entry's graph is one code-splitting build (seconds on a busy machine): made once per entry and
// shared by every test that reads it.
const graphs = new Map<string, Promise<ReadonlyArray<StartupModule>>>()
const startupModules = (entry = path.join(repoRoot, "src", "main.ts")): Promise<ReadonlyArray<StartupModule>> => {
  let graph = graphs.get(entry)
  if (graph === undefined) graphs.set(entry, graph = bundle(entry))
  return graph
}

// `lait --version` / `--help` (src/main.ts's fast path) evaluate nothing but the entry and the few
// modules that print the answer, and the lean `lait run` path's argument reader: no Effect, no command tree. Every other command line loads the CLI,
// src/cli/app.ts, with `import()`: its closure is what every command pays before its handler runs, so
// a command's heavy modules must be loaded with `import()` inside its handler, not imported statically.
describe("start-up module graph of src/main.ts (lait --version, lait --help)", () => {
  test("is the entry and the fast path only: no Effect, no command tree", async () => {
    const paths = (await startupModules()).map((m) => m.path)
    expect(paths).toContain("src/main.ts")
    expect(paths).toContain("src/cli/fastPath.ts")
    expect(paths.filter((p) => p.includes("node_modules/"))).toEqual([])
    expect(paths.filter((p) => !/^src\/(main|version|cli\/(fastPath|leanArgs|leanSpec)|core\/(earlySignals|osError)|platform\/(rawStdout|files|jscTuning))\.ts$|^package\.json$|^src\/cli\/leanSpec\.generated\.json$/.test(p)))
      .toEqual([])
  }, 60_000)

  // node:tty evaluates Node's stream modules, ≈ 4 ms: src/platform/rawStdout.ts loads it only for a
  // character device that may be a terminal.
  test("imports no node:tty, nor does the lean `lait run` path", async () => {
    for (const entry of [path.join(repoRoot, "src", "main.ts"), path.join(repoRoot, "src", "cli", "leanRun.ts")]) {
      const modules = await startupModules(entry)
      expect(modules.filter((m) => m.builtins.some((b) => /^(node:)?tty$/.test(b))).map((m) => m.path)).toEqual([])
    }
  }, 60_000)
})

const cliModules = () => startupModules(path.join(repoRoot, "src", "cli", "app.ts"))

describe("start-up module graph of src/cli/leanRun.ts (a plain `lait run`)", () => {
  test("has no effect/cli and no command tree: the run handler, its services and Effect only", async () => {
    const paths = (await startupModules(path.join(repoRoot, "src", "cli", "leanRun.ts"))).map((m) => m.path)
    expect(paths).toContain("src/cli/runWorkflow.ts")
    expect(paths.filter((p) => /effect\/dist\/cli\//.test(p))).toEqual([])
    const tree = ["app", "root", "run", "global", "presenter", "runFlags", "history", "config", "cache", "chatFlags"]
    expect(paths.filter((p) => tree.map((name) => `src/cli/${name}.ts`).includes(p))).toEqual([])
  }, 60_000)

  test("has none of the runtime services effect/cli needs: file system (with node:crypto), processes, stdio, terminal", async () => {
    const paths = (await startupModules(path.join(repoRoot, "src", "cli", "leanRun.ts"))).map((m) => m.path)
    expect(paths).not.toContain("src/platform/layer.ts")
    expect(paths.filter((p) => /platform-(bun|node-shared)\/dist\/(Bun|Node)(FileSystem|ChildProcessSpawner|Stdio|Terminal)\.js$/.test(p)))
      .toEqual([])
  }, 60_000)

  // Model requests go through src/model/ModelHttp.ts, not effect/http's client, and the live export
  // builds its HTTP client at first use (src/trace/live/layer.ts): a run never evaluates that client or Stream.
  test("has no HTTP client: effect/http's client modules and Stream stay out", async () => {
    const paths = (await startupModules(path.join(repoRoot, "src", "cli", "leanRun.ts"))).map((m) => m.path)
    expect(paths.filter((p) => /effect\/dist\/(http\/(HttpClient|FetchHttpClient)|Stream|Channel)\.js$/.test(p))).toEqual([])
    const evalPaths = (await startupModules(path.join(repoRoot, "src", "cli", "leanEval.ts"))).map((m) => m.path)
    expect(evalPaths.filter((p) => /effect\/dist\/http\/(HttpClient|FetchHttpClient)\.js$/.test(p))).toEqual([])
  }, 60_000)

  // A command line with OTEL_* export set takes the command tree (src/cli/leanArgs.ts): the lean path
  // provides no live export layer, which would only ever be empty there.
  test("has no live OTLP export layer", async () => {
    const paths = (await startupModules(path.join(repoRoot, "src", "cli", "leanRun.ts"))).map((m) => m.path)
    expect(paths.filter((p) => p.startsWith("src/trace/live/"))).toEqual([])
  }, 60_000)

  test("evaluates neither node:child_process nor node:crypto (a millisecond and several, loaded on first use)", async () => {
    const modules = await startupModules(path.join(repoRoot, "src", "cli", "leanRun.ts"))
    expect(modules.map((m) => m.path)).toContain("src/platform/process.ts")
    const heavy = modules.filter((m) => m.builtins.some((b) => /^(node:)?(child_process|crypto)$/.test(b)))
    expect(heavy.map((m) => `${m.path}: ${m.builtins.join(", ")}`)).toEqual([])
  }, 60_000)
})

describe("start-up module graph of src/cli/leanEval.ts (a plain `lait eval`)", () => {
  test("has no effect/cli, no command tree and none of the runtime services effect/cli needs", async () => {
    const paths = (await startupModules(path.join(repoRoot, "src", "cli", "leanEval.ts"))).map((m) => m.path)
    expect(paths).toContain("src/cli/evalRun.ts")
    expect(paths.filter((p) => /effect\/dist\/cli\//.test(p))).toEqual([])
    const tree = ["app", "root", "eval", "evalMerge", "flags/trace", "flags/record", "global", "presenter", "config"]
    expect(paths.filter((p) => tree.map((name) => `src/cli/${name}.ts`).includes(p))).toEqual([])
    expect(paths).not.toContain("src/platform/layer.ts")
  }, 60_000)
})

describe("start-up module graph of src/cli/app.ts (every other command line)", () => {
  test("excludes crypto, the config schema and every subcommand's module", async () => {
    const paths = (await cliModules()).map((m) => m.path)
    // Sanity: the closure was found (the entry and the command tree are in it).
    expect(paths).toContain("src/cli/app.ts")
    expect(paths).toContain("src/cli/root.ts")
    expect(paths).toContain("src/platform/layer.ts")
    // The command tree is loaded by name: only the subcommand a command line names is evaluated.
    const commandModules = [
      "run", "runs", "agent", "cache", "cassettes", "graph", "test", "eval", "trace", "history", "lint", "schema",
      "init", "models", "doctor", "registries", "serve", "proxy", "sessions", "prompt", "compare", "replCommand"
    ].map((name) => `src/cli/${name}.ts`)
    expect(paths.filter((p) => commandModules.includes(p))).toEqual([])
    expect(paths.filter((p) => /effect\/dist\/crypto\//.test(p))).toEqual([])
    expect(paths.filter((p) => /platform-(bun|node-shared)\/dist\/(BunCrypto|NodeCrypto)\.js$/.test(p))).toEqual([])
    expect(paths).not.toContain("src/config/schema.ts")
    expect(paths).not.toContain("src/config/load.ts")
  }, 60_000)

  test("excludes live OTLP export: effect/observability and the exporter load only when OTEL_* asks", async () => {
    const paths = (await cliModules()).map((m) => m.path)
    expect(paths).toContain("src/trace/live/layer.ts")
    expect(paths.filter((p) => /effect\/dist\/observability\//.test(p))).toEqual([])
    expect(paths.filter((p) => /src\/trace\/live\/(env|exporter)\.ts$/.test(p))).toEqual([])
  }, 60_000)

  test("excludes the model client's layers and the tool tape: built, and loaded, only when a command asks a model", async () => {
    const paths = (await cliModules()).map((m) => m.path)
    expect(paths).toContain("src/model/ModelClient.ts")
    expect(paths.filter((p) => /src\/model\/(Live|Replay|Record|RecordMissing|Cache)\.ts$/.test(p))).toEqual([])
    expect(paths.filter((p) => /src\/model\/cassette\//.test(p))).toEqual([])
    expect(paths).not.toContain("src/tools/cassette/ToolCassettes.ts")
  }, 60_000)
})
